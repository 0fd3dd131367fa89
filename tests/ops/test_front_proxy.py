"""The `make run` front (config/stream.py) proxies every non-stream request to gunicorn with one shared
HTTP client: it must pass each client's cookies and nobody else's. A cookie jar in that client would
keep the session cookie of whoever signed in to the admin and send it with every later request, so
anonymous callers would act as that staff user."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from config import stream


def _run(coroutine: Any) -> Any:
    """``asyncio.run`` on a thread of its own: in the full suite a session-wide Playwright browser
    (tests/web) may hold a running event loop on this worker's main thread."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


class _Upstream(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = (self.headers.get("Cookie") or "").encode()
        self.send_response(200)
        if self.path == "/set":
            self.send_header("Set-Cookie", "sessionid=staff-session; Path=/; HttpOnly")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def upstream(monkeypatch) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("TABULA_STREAM_UPSTREAM_URL", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setattr(stream, "_client", None)  # a fresh upstream client for this address
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_front_never_hands_one_clients_cookie_to_another(upstream):
    async def scenario() -> tuple[httpx.Response, httpx.Response, httpx.Response]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=stream.application), base_url="http://t") as a:
            signed_in = await a.get("/set")  # the staff member's sign-in answer sets a session cookie
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=stream.application), base_url="http://t") as b:
            anonymous = await b.get("/echo")  # someone else, with no cookie
            own = await b.get("/echo", headers={"Cookie": "csrftoken=mine"})
        await stream.close_upstream()
        return signed_in, anonymous, own

    signed_in, anonymous, own = _run(scenario())
    assert signed_in.headers["set-cookie"].startswith("sessionid=staff-session")  # passed on to its client
    assert anonymous.text == ""  # and kept by nobody else
    assert own.text == "csrftoken=mine"  # a client's own cookies still go through


def test_the_stream_only_server_serves_its_own_metrics_and_no_api(monkeypatch):
    monkeypatch.setenv("TABULA_STREAM_ONLY", "1")

    async def scenario() -> tuple[httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=stream.application, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            return await c.get("/metrics"), await c.get("/api/v1/games")

    scraped, api = _run(scenario())
    assert scraped.status_code == 200 and "tabula_open_streams" in scraped.text
    assert api.status_code == 404


def test_a_read_is_sent_again_when_the_first_connection_fails(monkeypatch):
    """The first connection answers garbage and closes (a client error other than a clean
    disconnect): a GET is sent once more on a new connection and answered."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    seen: list[bytes] = []

    def serve() -> None:
        for attempt in range(2):
            conn, _ = listener.accept()
            seen.append(conn.recv(65536))
            if attempt == 0:
                conn.sendall(b"NOT HTTP AT ALL\r\n\r\n")
            else:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    monkeypatch.setenv("TABULA_STREAM_UPSTREAM_URL", f"http://127.0.0.1:{listener.getsockname()[1]}")
    monkeypatch.setattr(stream, "_client", None)

    async def scenario() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=stream.application), base_url="http://t") as c:
            answer = await c.get("/api/v1/games")
        await stream.close_upstream()
        return answer

    try:
        answer = _run(scenario())
    finally:
        listener.close()
    assert answer.status_code == 200 and answer.text == "ok"
    assert len(seen) == 2 and all(r.startswith(b"GET /api/v1/games") for r in seen)
