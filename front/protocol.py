"""uvicorn's HTTP protocol (httptools) with the two limits uvicorn lacks, for front/server.py.

- **A deadline on each request's headers.** uvicorn closes a connection that stays idle between
  requests (``timeout_keep_alive``) but waits for ever on one that trickles its headers a byte at a
  time. Here the headers of each request must be complete within ``HEADER_TIMEOUT_S`` of the
  connection opening or of the previous answer, else the connection is closed (as nginx's
  ``client_header_timeout``; an answer could not be framed before the request line is whole). A
  deadline on the body is front/app.py's (``read_body``), where the body is read.
- **A clear answer beyond the connection cap.** uvicorn's ``limit_concurrency`` (set from
  ``TABULA_FRONT_MAX_CONNECTIONS`` in front/server.py) answers a request past the cap with a
  ``503`` in plain text; here it is a problem document with ``Retry-After``.
- **One write per answer.** uvicorn writes an answer's head and its body separately: two system
  calls and two TCP segments for every answer, which the client reads and acknowledges one by one.
  `CoalescingTransport` joins what is written within one turn of the event loop (front/wsgi.py
  sends a plain answer's head and body in one turn) and writes it once at the end of that turn; a
  stream's chunks, written in turns of their own, still leave at once.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from uvicorn.protocols.http import httptools_impl
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEADER_TIMEOUT_S = float(os.environ.get("TABULA_HEADER_TIMEOUT_S", "10"))
BUSY = (
    b'{"type":"https://tabula.example/problems/server_busy","title":"Server busy","status":503,'
    b'"detail":"This server holds as many connections as it may; try again shortly.","code":"server_busy"}'
)


async def server_busy(scope: Any, receive: Any, send: Any) -> None:
    """What a request past ``limit_concurrency`` gets (uvicorn's own is ``text/plain``)."""
    headers = [
        (b"content-type", b"application/problem+json"),
        (b"content-length", str(len(BUSY)).encode()),
        (b"retry-after", b"5"),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": BUSY, "more_body": False})


# uvicorn names the application for a request past the cap by this module-level name when the
# headers are complete; tests/ops/test_front.py checks the answer, so an upgrade that renames it fails.
httptools_impl.service_unavailable = server_busy


class CoalescingTransport:
    """A transport whose writes within one turn of the loop leave as one (see the module's notes).
    Everything else is the wrapped transport's; closing it first sends what is held."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not self._held:
            self._loop.call_soon(self.flush)
        self._held.append(data)

    def flush(self) -> None:
        if self._held and self._transport.is_closing():  # the connection went meanwhile
            self._held.clear()
        if self._held:
            data = b"".join(self._held)
            self._held.clear()
            self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class FrontProtocol(HttpToolsProtocol):
    """One connection: uvicorn's protocol, closed when a request's headers come too slowly."""

    header_timeout_s = HEADER_TIMEOUT_S
    _headers_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.transport = CoalescingTransport(transport, self.loop)  # type: ignore[assignment]
        self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.timeout_keep_alive_task is not None:  # idle now: the next request's headers are due
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._headers_deadline = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _disarm(self) -> None:
        if self._headers_deadline is not None:
            self._headers_deadline.cancel()
            self._headers_deadline = None

    def _headers_late(self) -> None:
        self._headers_deadline = None
        if not self.transport.is_closing():
            self.transport.close()
