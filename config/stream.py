"""The ASGI front: the stream paths served here (async Django views), everything else proxied.

``uvicorn config.stream:application`` serves ``/api/v1/me/stream`` and
``/api/v1/matches/{id}/stream`` itself, from Django's ASGI handler: one event loop holds every open
stream, so no sync web worker is ever held by one. Every other request is

- under `make run` (bin/run, ``TABULA_FRONT_WSGI=1``) served in this process too, by Django's WSGI
  handler on a pool of threads (config/inprocess.py): ``WEB_WORKERS`` such processes share the
  port, and clients use it for everything;
- else proxied to gunicorn on the unix socket ``TABULA_GUNICORN_SOCKET``;
- with ``TABULA_STREAM_UPSTREAM_URL=http://host:port``, proxied to that address (the browser tests);
- with ``TABULA_STREAM_ONLY=1`` (docker/compose.yaml's ``stream`` service, behind nginx, which
  routes only the stream paths here) other paths answer 404, except the probes and ``/metrics``
  (its own ``tabula_open_streams``, scraped on the internal network like a worker's).

The proxy (aiohttp, keep-alive connections to gunicorn) reads a small request body whole before
passing the request on, so a client trickling one holds no gunicorn thread; larger bodies and every
answer are streamed. It adds the client's address to ``X-Forwarded-For`` (REMOTE_ADDR is
empty behind a unix socket; api/ratelimit.py reads that header then) and passes the answer as
gunicorn gave it. It keeps no cookies: each request carries only its own client's. No GZip or
buffering middleware touches the streams.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any

import aiohttp
from multidict import CIMultiDict

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

from django.conf import settings
from django.core.asgi import get_asgi_application

from config import inprocess
from config.wsgi import application as wsgi_application

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
# `make run` (bin/run): every other request is served here too, by Django's WSGI handler on a pool
# of threads (config/inprocess.py), with no gunicorn behind; else it is proxied.
IN_PROCESS = os.environ.get("TABULA_FRONT_WSGI") == "1" and not os.environ.get("TABULA_STREAM_UPSTREAM_URL")
_client: aiohttp.ClientSession | None = None
BUFFERED_BODY_BYTES = 64 * 1024  # bodies up to this size are read whole before gunicorn sees the request
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
KEEPALIVE_S = 2.0  # below gunicorn's keep-alive (config/gunicorn.py), so an idle connection is dropped here first
BAD_GATEWAY = (
    b'{"type":"https://tabula.example/problems/bad_gateway","title":"Bad gateway",'
    b'"status":502,"detail":"The API server is not answering.","code":"bad_gateway"}'
)


def _upstream() -> aiohttp.ClientSession:
    """One pooled client for the process: keep-alive connections to gunicorn, no cookie jar, no
    headers of its own, bodies passed undecoded."""
    global _client
    if _client is None:
        tcp = os.environ.get("TABULA_STREAM_UPSTREAM_URL", "")  # http://host:port instead of the socket
        connector: aiohttp.BaseConnector
        if tcp:
            connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=KEEPALIVE_S)
        else:
            connector = aiohttp.UnixConnector(settings.TABULA_GUNICORN_SOCKET, limit=0, keepalive_timeout=KEEPALIVE_S)
        # DummyCookieJar keeps nothing: the client is shared by every caller, and a kept cookie (an
        # admin's session) would go out with everyone's requests. Each client's Cookie header is passed as is.
        _client = aiohttp.ClientSession(
            base_url=tcp or "http://gunicorn",
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),
            auto_decompress=False,
            skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
            timeout=aiohttp.ClientTimeout(total=None, connect=5.0, sock_read=60.0),
        )
    return _client


async def close_upstream() -> None:
    global _client
    if _client is not None:
        await _client.close()
        _client = None


async def _body(receive: Receive, length: int | None, chunked: bool) -> bytes | AsyncIterator[bytes] | None:
    """The request body: read whole when small (a slow client then costs the event loop, never a
    gunicorn thread), else passed on as it arrives (gunicorn refuses a large one from its headers)."""

    async def chunks() -> AsyncIterator[bytes]:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            if message.get("body"):
                yield message["body"]
            if not message.get("more_body", False):
                return

    if chunked or (length is not None and length > BUFFERED_BODY_BYTES):
        return chunks()
    if not length:
        return None
    return b"".join([chunk async for chunk in chunks()])


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
    length_header = next((v for k, v in scope["headers"] if k.lower() == b"content-length"), b"")
    chunked = any(k.lower() == b"transfer-encoding" for k, _ in scope["headers"])
    body = await _body(receive, int(length_header) if length_header.isdigit() else None, chunked)

    path = scope.get("raw_path") or scope["path"].encode()
    if scope.get("query_string"):
        path += b"?" + scope["query_string"]
    upstream_headers = CIMultiDict((k.decode("latin-1"), v.decode("latin-1")) for k, v in headers)
    response: aiohttp.ClientResponse | None = None
    for attempt in (1, 2):
        try:
            response = await _upstream().request(
                scope["method"], path.decode("latin-1"), headers=upstream_headers, data=body, allow_redirects=False
            )
            break
        except aiohttp.ServerDisconnectedError:
            # gunicorn closed a kept-alive connection just as it was reused: it read nothing, so a
            # request whose body is at hand is sent once more, on a new connection.
            if attempt == 2 or not (body is None or isinstance(body, bytes)):
                break
        except (aiohttp.ClientError, OSError):
            # A connection reset: a read (GET, HEAD, OPTIONS) is safe to send again; a write may
            # have been applied, so it answers 502 and the client decides.
            if attempt == 2 or scope["method"] not in SAFE_METHODS:
                break
    if response is None:
        await send(
            {"type": "http.response.start", "status": 502, "headers": [(b"content-type", b"application/problem+json")]}
        )
        await send({"type": "http.response.body", "body": BAD_GATEWAY})
        return
    try:
        out = [(k, v) for k, v in response.raw_headers if k.lower() not in HOP_BY_HOP]
        await send({"type": "http.response.start", "status": response.status, "headers": out})
        async for chunk in response.content.iter_any():
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    finally:
        response.release()


async def application(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await close_upstream()
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
    if IN_PROCESS:
        await inprocess.serve(wsgi_application, scope, receive, send)
        return
    await _proxy(scope, receive, send)
