"""The front: one ASGI application for `make run`, the browser tests and docker/compose.yaml.

Served by uvicorn (front/server.py: ``python -m front``). Every request comes in on the event loop:

- the stream paths (``/api/v1/me/stream``, ``/api/v1/matches/{id}/stream``) are served there by
  Django's ASGI handler (async views, api/streams.py): one loop holds every open stream, so no
  thread is ever held by one;
- every other request is read whole on the loop first (a client trickling its body holds no
  thread), then Django's WSGI handler runs it on one of the process's ``WEB_THREADS`` threads
  (default 8; front/wsgi.py), each keeping its own database connection.

What no library provides, and is here:

- the body read whole before a thread takes it, refused over ``MAX_BODY_BYTES`` with a 413 problem
  document the client can read: from ``Content-Length`` before a byte is read, or as soon as a
  chunked body passes the limit. The 413 keeps the connection open and uvicorn reads and drops the
  rest of the body; closing instead would reset the connection under a client still sending, and
  it would never read the answer;
- a deadline on the body: the whole of it within ``BODY_TIMEOUT_S`` of the headers, else a 408
  problem document and the connection closed (a deadline on the headers is front/protocol.py's);
- a header whose name has an underscore is dropped, as nginx and gunicorn drop it: Django (WSGI and
  ASGI alike) would otherwise read ``X_Request_ID`` as ``X-Request-ID``;
- front/wsgi.py, the thread pool under Django's WSGI handler, kept by hand because the maintained
  candidates cost more. `make bench` section 3 (PostgreSQL and Redis, bin/run, 2 processes × 8
  threads), six interleaved rounds on 2026-12-02 16:26-17:14 on a shared 2-core machine at load 6
  to 22 (medians; single runs varied by ±20 %):

  ===================================  =======  ================  ==================
  requests other than streams, by      moves/s  front CPU / move  service CPU / move
  ===================================  =======  ================  ==================
  front/wsgi.py (this front)           41.0     18.0 ms           19.0 ms
  a2wsgi 1.10.10 ``WSGIMiddleware``    40.0     18.5 ms           20.3 ms
  the front before (commit d4ee59f)    38.5     18.2 ms           19.6 ms
  ===================================  =======  ================  ==================

  Per request, where the bridge is most of the cost (GET and POST ``/livez``, one process, 8
  clients, three rounds), a2wsgi used 1.0-1.5 ms of CPU against 0.5-0.75 ms here: twice as much,
  about 1.1 ms more per move (a GET state and a POST), 6 % of the front's CPU per move at that load
  and a larger share on a quiet machine, over the 5 % the issue allowed; under this load the moves
  per second could not tell the two apart. Django's ASGI handler for every request (sync views on
  asgiref's threads: a thread, so a database connection, per request) failed without a psycopg
  pool and with one did 25.0 moves/s and 29.5 ms of front CPU per move where the front before did
  58.7 and 13.7 ms, minutes apart.
"""

from __future__ import annotations

import asyncio
import gc
import os
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

from django.core.asgi import get_asgi_application
from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

from front.wsgi import ThreadedWSGI, WSGIApp

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

STREAM_PATHS = re.compile(r"^/api/v1/(me|matches/[A-Za-z0-9_-]+)/stream/?$")
BODY_TIMEOUT_S = float(os.environ.get("TABULA_BODY_TIMEOUT_S", "30"))  # the whole body, from its headers
MAX_BODY_BYTES = 4 * 1024 * 1024  # above Django's 2.5 MiB form limit; the API takes far less (api/limits.py)
TOO_LARGE = (
    b'{"type":"https://tabula.example/problems/payload_too_large","title":"Payload too large",'
    b'"status":413,"detail":"The request body is too large.","code":"payload_too_large"}'
)


class BodyTooLarge(Exception):
    pass


class ClientGone(Exception):
    pass


SLOW = (
    b'{"type":"https://tabula.example/problems/request_timeout","title":"Request timeout","status":408,'
    b'"detail":"The request body did not arrive in time.","code":"request_timeout"}'
)


async def read_body(scope: Scope, receive: Receive) -> bytes:
    """The whole request body; `BodyTooLarge` past `MAX_BODY_BYTES`, `ClientGone` on a disconnect."""
    length = next((v for k, v in scope["headers"] if k == b"content-length"), b"")
    if length.isdigit() and int(length) > MAX_BODY_BYTES:
        raise BodyTooLarge
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise BodyTooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def too_slow(send: Send) -> None:
    """408 as a problem document, and the connection closed: the rest of the body is not awaited."""
    headers = [(b"content-type", b"application/problem+json"), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": 408, "headers": headers})
    await send({"type": "http.response.body", "body": SLOW})


async def too_large(send: Send) -> None:
    """413 as a problem document; no ``Connection: close``, so uvicorn drains the rest of the body."""
    headers = [(b"content-type", b"application/problem+json")]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": TOO_LARGE})


def build(wsgi: WSGIApp, streams: ASGIApp, threads: int) -> ASGIApp:
    """The front around a WSGI application (everything but the streams) and an ASGI one (the streams)."""
    threaded = ThreadedWSGI(wsgi, threads)

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send, threaded)
            return
        if scope["type"] != "http":
            return
        if any(b"_" in name for name, _ in scope["headers"]):
            scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if b"_" not in k]}
        if STREAM_PATHS.match(scope["path"]):
            await streams(scope, receive, send)
            return
        try:
            async with asyncio.timeout(BODY_TIMEOUT_S):
                body = await read_body(scope, receive)
        except TimeoutError:
            await too_slow(send)
            return
        except BodyTooLarge:
            await too_large(send)
            return
        except ClientGone:
            return
        await threaded(scope, body, send)

    return application


async def _lifespan(receive: Receive, send: Send, threaded: ThreadedWSGI) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            settle()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            threaded.shutdown()
            from notify import streams  # (its models need the app registry, ready by now)

            streams.close_reads()  # the streams' read threads and their connections
            await send({"type": "lifespan.shutdown.complete"})
            return


def settle() -> None:
    """Before the first request: load the URL patterns (and with them every view module) now, then
    move all this worker has made so far, and keeps for its life, out of the garbage collector's
    sight (`gc.freeze`). A full collection traversed the whole of it, some 150,000 objects: 60 to
    100 ms, one request in several hundred stalled that long, 0.1 to 0.2 ms a request on average
    (issue 31). What requests make later is collected as before."""
    get_resolver().url_patterns  # noqa: B018 (imported on first use otherwise)
    gc.collect()
    gc.freeze()


def threads() -> int:
    return int(os.environ.get("WEB_THREADS", "8"))


application = build(get_wsgi_application(), get_asgi_application(), threads())  # type: ignore[arg-type]
