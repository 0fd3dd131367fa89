"""Django's WSGI application served by the ASGI front itself, in a pool of threads: no second hop.

Under `make run` (``TABULA_FRONT_WSGI=1``) the front (config/stream.py) holds every connection on
its event loop and parses HTTP with httptools. A request that is not a stream is read whole on the
loop first, so a client trickling its body holds no thread (a body over ``MAX_BODY_BYTES`` is
refused with 413 from its ``Content-Length``, unread, or as soon as it passes the limit); then one
of the process's ``WEB_THREADS`` threads runs ``config.wsgi.application`` on it, as a gunicorn
gthread worker would, and the answer goes back on the loop. Each thread keeps its own database
connection (Django's connections are per thread).

This replaces the proxy hop to gunicorn: the front parsed each request, aiohttp wrote it to the
socket, gunicorn parsed it again in Python, and the answer went back the same way (about 0.9 ms of
CPU per move under the write load, issue 15).

A streamed answer (``StreamingHttpResponse``: the export; a static file) is iterated on its thread
and each chunk is sent as it comes, the thread waiting for the loop to take it before the next.
"""

from __future__ import annotations

import asyncio
import io
import os
import sys
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

THREADS = int(os.environ.get("WEB_THREADS", "8"))
MAX_BODY_BYTES = 4 * 1024 * 1024  # above Django's 2.5 MiB form limit; the API takes far less (api/limits.py)
TOO_LARGE = (
    b'{"type":"https://tabula.example/problems/payload_too_large","title":"Payload too large",'
    b'"status":413,"detail":"The request body is too large.","code":"payload_too_large"}'
)
_pool: ThreadPoolExecutor | None = None


def pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="django")
    return _pool


def environ(scope: Scope, body: bytes) -> dict[str, Any]:
    """The WSGI environ of an ASGI HTTP request (PEP 3333: the path as latin-1 of its UTF-8 bytes).

    A header whose name has an underscore is dropped, as gunicorn and nginx drop it: it would
    otherwise reach Django as the same key as its hyphenated twin (``X_Request_ID`` posing as
    ``X-Request-ID``). Repeated headers are joined with commas."""
    server = scope.get("server") or ("127.0.0.1", 80)
    client = scope.get("client") or ("", 0)
    env: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": scope.get("root_path", "").encode("utf-8").decode("latin-1"),
        "PATH_INFO": scope["path"].encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] or 80),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": client[0],
        "REMOTE_PORT": str(client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope["headers"]:
        name = raw_name.decode("latin-1")
        if "_" in name:
            continue
        key = name.upper().replace("-", "_")
        if key not in ("CONTENT_LENGTH", "CONTENT_TYPE"):
            key = "HTTP_" + key
        value = raw_value.decode("latin-1")
        env[key] = f"{env[key]},{value}" if key in env else value
    return env


async def read_body(scope: Scope, receive: Receive) -> bytes | None:
    """The whole request body, or None when it is over `MAX_BODY_BYTES` (or the client left)."""
    length = next((v for k, v in scope["headers"] if k.lower() == b"content-length"), b"")
    if length.isdigit() and int(length) > MAX_BODY_BYTES:
        return None
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def too_large(send: Send) -> None:
    headers = [(b"content-type", b"application/problem+json"), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": TOO_LARGE})


async def serve(app: WSGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """Read the request, run ``app`` on it on a pool thread, send its answer."""
    body = await read_body(scope, receive)
    if body is None:
        await too_large(send)
        return
    loop = asyncio.get_running_loop()
    started: list[tuple[int, list[tuple[bytes, bytes]]]] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        encoded = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
        started[:] = [(int(status.split(" ", 1)[0]), encoded)]

    async def sending(message: MutableMapping[str, Any]) -> None:
        await send(message)

    def on_loop(message: MutableMapping[str, Any]) -> None:
        asyncio.run_coroutine_threadsafe(sending(message), loop).result()

    def run() -> bytes | None:
        """The whole body of a plain answer; None once a streamed one has been sent chunk by chunk."""
        result = app(environ(scope, body), start_response)
        try:
            if not getattr(result, "streaming", True):  # a plain HttpResponse: its content, whole
                return result.content  # type: ignore[attr-defined]
            on_loop(_start(started))
            for chunk in result:
                if chunk:
                    on_loop({"type": "http.response.body", "body": chunk, "more_body": True})
            on_loop({"type": "http.response.body", "body": b""})
            return None
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()  # Django's request_finished: its connections are tidied as after any request

    whole = await loop.run_in_executor(pool(), run)
    if whole is not None:
        await send(_start(started))
        await send({"type": "http.response.body", "body": whole})


def _start(started: list[tuple[int, list[tuple[bytes, bytes]]]]) -> MutableMapping[str, Any]:
    status, headers = started[0]
    return {"type": "http.response.start", "status": status, "headers": headers}
