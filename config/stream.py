"""The ASGI front: the stream paths served here (async Django views), everything else proxied.

``uvicorn config.stream:application`` serves ``/api/v1/me/stream`` and
``/api/v1/matches/{id}/stream`` itself, from Django's ASGI handler: one event loop holds every open
stream, so no sync web worker is ever held by one. Every other request is proxied to gunicorn:

- under `make run` (bin/run) gunicorn listens on the unix socket ``TABULA_GUNICORN_SOCKET``
  (var/run/gunicorn.sock), so clients use one port for everything;
- with ``TABULA_STREAM_UPSTREAM_URL=http://host:port``, to that address instead (the browser tests);
- with ``TABULA_STREAM_ONLY=1`` (docker/compose.yaml's ``stream`` service, behind nginx, which
  routes only the stream paths here) other paths answer 404, except the probes and ``/metrics``
  (its own ``tabula_open_streams``, scraped on the internal network like a worker's).

The proxy streams both bodies, adds the client's address to ``X-Forwarded-For`` (REMOTE_ADDR is
empty behind a unix socket; api/ratelimit.py reads that header then) and passes the answer as
gunicorn gave it. It keeps no cookies: each request carries only its own client's. No GZip or
buffering middleware touches the streams.
"""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any

import httpx

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

from django.conf import settings
from django.core.asgi import get_asgi_application

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

STREAM_PATHS = re.compile(r"^/api/v1/(me|matches/[A-Za-z0-9_-]+)/stream/?$")
HOP_BY_HOP = {
    b"connection",
    b"keep-alive",
    b"proxy-authenticate",
    b"proxy-authorization",
    b"te",
    b"trailers",
    b"transfer-encoding",
    b"upgrade",
    b"host",
}

django_app = get_asgi_application()
_client: httpx.AsyncClient | None = None


def _upstream() -> httpx.AsyncClient:
    global _client
    if _client is None:
        # No pooled connections: an idle one that the server has closed (gunicorn's keep-alive is
        # short) would fail the next request. A unix-socket connection per request costs little.
        limits = httpx.Limits(max_keepalive_connections=0, max_connections=None)
        tcp = os.environ.get("TABULA_STREAM_UPSTREAM_URL", "")  # http://host:port instead of the socket
        if tcp:
            transport = httpx.AsyncHTTPTransport(retries=1, limits=limits)
        else:
            transport = httpx.AsyncHTTPTransport(uds=settings.TABULA_GUNICORN_SOCKET, retries=1, limits=limits)
        # A jar that keeps nothing: the client is shared by every caller, and a kept cookie (an admin's
        # session) would go out with everyone's requests. Each client's own Cookie header is passed as is.
        nobody = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))
        _client = httpx.AsyncClient(
            transport=transport,
            base_url=tcp or "http://gunicorn",
            cookies=nobody,
            timeout=httpx.Timeout(60.0, connect=5.0),
            follow_redirects=False,
        )
    return _client


async def _proxy(scope: Scope, receive: Receive, send: Send) -> None:
    headers = [(k, v) for k, v in scope["headers"] if k.lower() not in HOP_BY_HOP and k.lower() != b"x-forwarded-for"]
    host = next((v for k, v in scope["headers"] if k.lower() == b"host"), b"127.0.0.1")
    headers.append((b"host", host))
    client_addr = (scope.get("client") or ("", 0))[0]
    forwarded = [v.decode("latin-1") for k, v in scope["headers"] if k.lower() == b"x-forwarded-for"]
    chain = ", ".join([*forwarded, client_addr]) if client_addr else ", ".join(forwarded)
    if chain:
        headers.append((b"x-forwarded-for", chain.encode("latin-1")))
    headers.append((b"x-forwarded-proto", scope.get("scheme", "http").encode()))

    async def body() -> Any:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            if chunk:
                yield chunk
            if not message.get("more_body", False):
                return

    path = scope.get("raw_path") or scope["path"].encode()
    if scope.get("query_string"):
        path += b"?" + scope["query_string"]
    request = _upstream().build_request(scope["method"], path.decode("latin-1"), headers=headers, content=body())
    try:
        response = await _upstream().send(request, stream=True)
    except httpx.HTTPError:
        await send(
            {"type": "http.response.start", "status": 502, "headers": [(b"content-type", b"application/problem+json")]}
        )
        await send(
            {
                "type": "http.response.body",
                "body": b'{"type":"https://tabula.example/problems/bad_gateway","title":"Bad gateway",'
                b'"status":502,"detail":"The API server is not answering.","code":"bad_gateway"}',
            }
        )
        return
    try:
        out = [(k, v) for k, v in response.headers.raw if k.lower() not in HOP_BY_HOP]
        await send({"type": "http.response.start", "status": response.status_code, "headers": out})
        async for chunk in response.aiter_raw():
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    finally:
        await response.aclose()


async def application(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if _client is not None:
                    await _client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    if STREAM_PATHS.match(scope["path"]) or os.environ.get("TABULA_STREAM_ONLY") == "1":
        if not STREAM_PATHS.match(scope["path"]) and scope["path"] not in ("/livez", "/readyz", "/metrics"):
            await send(
                {
                    "type": "http.response.start",
                    "status": 404,
                    "headers": [(b"content-type", b"application/problem+json")],
                }
            )
            await send(
                {
                    "type": "http.response.body",
                    "body": b'{"status":404,"code":"not_found","title":"Not found",'
                    b'"detail":"Only stream paths are served here.",'
                    b'"type":"https://tabula.example/problems/not_found"}',
                }
            )
            return
        await django_app(scope, receive, send)  # type: ignore[arg-type]  # ASGI scopes are plain dicts
        return
    await _proxy(scope, receive, send)
