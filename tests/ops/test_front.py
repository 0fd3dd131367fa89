"""The front (front/app.py under uvicorn with front/server.py's options): the one way every request is
served, in `make run`, the browser tests and docker/compose.yaml.

The streams run on the event loop; every other request is read whole on the loop and then served
by Django's WSGI handler on a pool thread (front/wsgi.py). A body over the limit gets a 413 the client
reads; the environ is what a WSGI server gives Django."""

from __future__ import annotations

import ast
import asyncio
import gc
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import rest_framework
import uvicorn

import front.app
import front.protocol
import front.server
from tests.aio import run_apart

ROOT = Path(__file__).resolve().parents[2]
DRF_STATIC = Path(rest_framework.__file__).parent / "static" / "rest_framework"


@contextmanager
def serving(app: Any) -> Iterator[int]:
    """``app`` under uvicorn with the front's options, in a thread, on a free loopback port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(front.server.config("127.0.0.1", port, app=app, loop="asyncio"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


class Recorder:
    """A stand-in WSGI application (everything but the streams) and ASGI one (the streams)."""

    def __init__(self) -> None:
        self.environs: list[dict[str, Any]] = []
        self.bodies: list[bytes] = []
        self.threads: list[str] = []
        self.called = threading.Event()

    def wsgi(self, environ: dict[str, Any], start_response: Any) -> Any:
        self.called.set()
        self.threads.append(threading.current_thread().name)
        self.environs.append(environ)
        self.bodies.append(environ["wsgi.input"].read())
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"wsgi"]

    async def streams(self, scope: Any, receive: Any, send: Any) -> None:
        self.threads.append(threading.current_thread().name)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"stream"})


def _front(recorder: Recorder) -> Any:
    return front.app.build(recorder.wsgi, recorder.streams, threads=2)


def _answer(sock: socket.socket) -> tuple[int, bytes]:
    """The status and body of the answer on a raw socket."""
    sock.settimeout(5)
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, response.read()


def test_the_environ_is_what_a_wsgi_server_gives_django():
    recorder = Recorder()
    headers = [
        ("Accept", "application/json"),
        ("Accept", "text/plain"),
        ("Content-Type", "application/json"),
        ("X_Request_ID", "forged"),
        ("X-Request-ID", "abc"),
    ]

    async def scenario() -> httpx.Response:
        transport = httpx.ASGITransport(app=_front(recorder), client=("203.0.113.9", 50123))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
            return await client.post("/api/v1/users/zo%C3%AB?game=ekko&x=%20", content=b"{}", headers=headers)

    assert run_apart(scenario()).status_code == 200
    env = recorder.environs[0]
    assert env["PATH_INFO"] == "/api/v1/users/zo\xc3\xab"  # PEP 3333: latin-1 of the UTF-8 bytes
    assert env["QUERY_STRING"] == "game=ekko&x=%20"
    assert env["HTTP_ACCEPT"] == "application/json,text/plain"  # repeated headers joined
    assert env["CONTENT_TYPE"] == "application/json" and env["CONTENT_LENGTH"] == "2"
    assert "HTTP_CONTENT_TYPE" not in env and "HTTP_CONTENT_LENGTH" not in env
    assert env["HTTP_X_REQUEST_ID"] == "abc"  # the underscore spelling cannot pose as it
    assert env["REMOTE_ADDR"] == "203.0.113.9" and env["SERVER_PORT"] == "8000"
    assert recorder.bodies == [b"{}"]


def test_the_client_address_is_the_peer_and_forwarded_for_is_passed_on():
    """REMOTE_ADDR is the TCP peer, whatever X-Forwarded-For says (api/ratelimit.py decides how
    much of that header to trust, from TABULA_TRUSTED_PROXIES)."""
    recorder = Recorder()
    with serving(_front(recorder)) as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/x", headers={"X-Forwarded-For": "198.51.100.7", "X-Forwarded-Proto": "https"})
        assert conn.getresponse().read() == b"wsgi"
    env = recorder.environs[0]
    assert env["REMOTE_ADDR"] == "127.0.0.1"
    assert env["HTTP_X_FORWARDED_FOR"] == "198.51.100.7" and env["wsgi.url_scheme"] == "http"


class _Closing:
    """A WSGI answer iterated lazily, with ``close`` (Django's ``request_finished``)."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self.chunks = chunks
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        return self.chunks

    def close(self) -> None:
        self.closed = True


def test_a_streamed_answer_is_sent_chunk_by_chunk_and_closed():
    made: list[_Closing] = []
    sent = threading.Event()

    def chunks() -> Iterator[bytes]:
        yield b'{"a":1}\n'
        assert sent.wait(5)  # the first chunk reached the client before the second is made
        yield b""
        yield b'{"b":2}\n'

    def app(environ: dict[str, Any], start_response: Any) -> Any:
        start_response("200 OK", [("Content-Type", "application/x-ndjson"), ("X-Kind", "stream")])
        made.append(_Closing(chunks()))
        return made[0]

    with serving(front.app.build(app, Recorder().streams, threads=1)) as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/api/v1/users/ines/export")
        answer = conn.getresponse()
        assert answer.status == 200 and answer.getheader("x-kind") == "stream"
        assert answer.getheader("transfer-encoding") == "chunked"
        first = answer.read1(100)
        sent.set()
        rest = answer.read()
    assert first + rest == b'{"a":1}\n{"b":2}\n'
    assert made[0].closed  # Django's request_finished runs


def test_the_body_is_read_whole_before_a_thread_takes_it():
    """A client trickling its body holds no thread: the application runs once the last byte is in."""
    recorder = Recorder()
    with serving(_front(recorder)) as port, socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(
            b"POST /api/v1/x HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\n12345"
        )
        time.sleep(0.5)
        assert not recorder.called.is_set()
        sock.sendall(b"67890")
        assert _answer(sock) == (200, b"wsgi")
    assert recorder.bodies == [b"1234567890"]


def test_a_body_over_the_limit_gets_a_413_the_client_reads(monkeypatch):
    """From Content-Length, unread, or as soon as a chunked body passes the limit. The connection
    stays open and the rest of the body is read and dropped: a client that sends its whole body
    before it reads (http.client) gets the answer, not a reset, and can go on."""
    monkeypatch.setattr(front.app, "MAX_BODY_BYTES", 1000)
    recorder = Recorder()
    with serving(_front(recorder)) as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("POST", "/api/v1/matches", body=b"x" * (4 * 1024 * 1024))
        big = conn.getresponse()
        assert big.status == 413 and big.getheader("content-type") == "application/problem+json"
        assert json.loads(big.read())["code"] == "payload_too_large"
        conn.request("POST", "/api/v1/matches", body=b"y" * 1000)  # the same connection
        fits = conn.getresponse()
        assert fits.status == 200 and fits.read() == b"wsgi"

        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"POST /api/v1/matches HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in range(11):
                sock.sendall(b"64\r\n" + b"z" * 100 + b"\r\n")
            sock.sendall(b"0\r\n\r\n")
            status, chunked = _answer(sock)
        assert status == 413 and json.loads(chunked)["code"] == "payload_too_large"
    assert recorder.bodies == [b"y" * 1000]  # only the body that fits reached the application


def test_streams_are_served_on_the_event_loop_and_nothing_else_is():
    recorder = Recorder()
    with serving(_front(recorder)) as port:
        for path in ("/api/v1/me/stream", "/api/v1/matches/Ab-9_x/stream/", "/api/v1/me/streams", "/api/v1/me"):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", path)
            conn.getresponse().read()
    loop_thread = recorder.threads[0]
    assert recorder.threads[1] == loop_thread  # both streams on the loop's thread
    assert all(name != loop_thread for name in recorder.threads[2:]) and len(recorder.environs) == 2


def test_every_stream_url_is_routed_to_the_loop():
    """The URLs Django resolves to the stream views are exactly those the front sends to the loop;
    one it missed would reach a WSGI thread, which refuses it (503 streams_unavailable) rather than
    holding the thread for the stream's life (tests/notifications/test_streams.py)."""
    from django.urls import Resolver404, resolve

    from api import streams

    views = {streams.me_stream, streams.match_stream}
    paths = ["/api/v1/me/stream", "/api/v1/me/stream/", "/api/v1/matches/abc-DEF_9/stream", "/api/v1/matches/x/stream/"]
    paths += ["/api/v1/me/streams", "/api/v1/me/stream-tickets", "/api/v1/matches/x/stream/y", "/api/v1/me/stream//"]
    for path in paths:
        try:
            is_stream = resolve(path).func in views
        except Resolver404:
            is_stream = False
        assert bool(front.app.STREAM_PATHS.match(path)) == is_stream, path


def test_the_front_imports_no_config_module():
    """config/ only configures: the front reaches the settings through DJANGO_SETTINGS_MODULE only."""
    for path in (ROOT / "front").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(name == "config" or name.startswith("config.") for name in names), path


# --- the real thing: Django behind the front -------------------------------------------------------


@pytest.fixture
def front_server(transactional_db) -> Iterator[str]:
    """The front as `make run` serves it (front.app.application), one process, in a thread."""
    from notify import streams

    streams.HUB.__init__()  # a fresh hub for this server's event loop
    with serving(front.app.application) as port:
        yield f"http://127.0.0.1:{port}"


def test_the_front_serves_the_api_itself(front_server, client):
    with httpx.Client(base_url=front_server) as http:
        registered = http.post("/api/v1/auth/register", json={"username": "ines", "password": "a-long-passphrase-9"})
        assert registered.status_code == 201
        auth = {"Authorization": f"Token {registered.json()['token']}"}
        me = http.get("/api/v1/me", headers=auth)
        assert me.status_code == 200 and me.json()["username"] == "ines"
        games = http.get("/api/v1/games", headers={"X-Request-ID": "front-1"})
        direct = client.get("/api/v1/games", HTTP_HOST="127.0.0.1")  # Django's test client: the same answer
        assert games.status_code == 200 and games.json() == direct.json()
        assert games.headers["x-request-id"] == "front-1"
        head = http.head("/api/v1/games")
        assert head.status_code == 200 and head.content == b""
        assert head.headers["content-type"] == games.headers["content-type"]
        export = http.get("/api/v1/users/ines/export", headers=auth)
        assert export.status_code == 200 and export.headers["content-type"] == "application/x-ndjson"
        refused = http.get("/api/v1/me")
        assert refused.status_code == 401 and refused.headers["content-type"] == "application/problem+json"
        static = http.get("/static/rest_framework/css/default.css")  # WhiteNoise: a streamed file
        assert static.status_code == 200 and static.content == (DRF_STATIC / "css" / "default.css").read_bytes()
        for path in ("/livez", "/readyz", "/metrics"):
            assert http.get(path).status_code == 200, path


def test_the_front_serves_streams_and_their_caps(front_server, make_user, settings):
    from accounts.services import token_for

    auth = {"Authorization": f"Token {token_for(make_user('bob'))}"}
    with httpx.Client(base_url=front_server, timeout=5) as http:
        with http.stream("GET", "/api/v1/me/stream", headers=auth) as opened:
            assert opened.status_code == 200 and opened.headers["content-type"].startswith("text/event-stream")
            assert b": connected" in next(opened.iter_raw())  # the stream opens with a comment at once
        settings.TABULA_STREAMS_PER_USER = 0
        refused = http.get("/api/v1/me/stream", headers=auth)
        assert refused.status_code == 503 and refused.json()["code"] == "too_many_streams"
        assert 5 <= int(refused.headers["retry-after"]) <= 15


def test_headers_that_come_too_slowly_close_the_connection(monkeypatch):
    """Each request's headers within the deadline, also the second on a kept-alive connection
    (front/protocol.py); a client that sends them at once is not hurried."""
    monkeypatch.setattr(front.protocol.FrontProtocol, "header_timeout_s", 0.5)
    with serving(_front(Recorder())) as port:
        with socket.create_connection(("127.0.0.1", port)) as slow:
            slow.sendall(b"GET /livez HTTP/1.1\r\nHost: t\r\n")  # and nothing more
            slow.settimeout(5)
            started = time.monotonic()
            assert slow.recv(100) == b""  # closed by the server
            assert time.monotonic() - started < 4
        with socket.create_connection(("127.0.0.1", port)) as kept:
            kept.sendall(b"GET /livez HTTP/1.1\r\nHost: t\r\n\r\n")
            assert _answer(kept) == (200, b"wsgi")
            kept.sendall(b"GET /livez HTTP/1.1\r\n")  # the next request's headers, never finished
            kept.settimeout(5)
            assert kept.recv(100) == b""
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/livez")
        assert conn.getresponse().status == 200


def test_a_body_that_comes_too_slowly_gets_a_408(monkeypatch):
    monkeypatch.setattr(front.app, "BODY_TIMEOUT_S", 0.5)
    recorder = Recorder()
    with serving(_front(recorder)) as port:
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"POST /api/v1/matches HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n" + b"x" * 10)
            status, body = _answer(sock)
        assert status == 408 and json.loads(body)["code"] == "request_timeout"
    assert recorder.bodies == []


def test_past_the_connection_cap_a_request_gets_a_503_problem(monkeypatch):
    """Every process has a cap, above the streams a process may hold (TABULA_STREAMS_PER_PROCESS)."""
    assert (
        front.server.OPTIONS["limit_concurrency"] > 5000
        and front.server.OPTIONS["http"] is front.protocol.FrontProtocol
    )
    monkeypatch.setitem(front.server.OPTIONS, "limit_concurrency", 3)
    with serving(_front(Recorder())) as port:
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
        time.sleep(0.2)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/api/v1/games")
        busy = conn.getresponse()
        assert busy.status == 503 and busy.getheader("content-type") == "application/problem+json"
        assert busy.getheader("retry-after") == "5" and json.loads(busy.read())["code"] == "server_busy"
        conn.close()
        for sock in idle:
            sock.close()
        time.sleep(0.2)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/api/v1/games")
        assert conn.getresponse().status == 200


def test_a_front_started_again_in_the_same_process_gets_new_threads():
    """A lifespan shutdown ends the WSGI threads; a server started after it on the same application
    (the tests start several in one process) must not find them gone ("cannot schedule new futures
    after shutdown", a 500 seen once in CI)."""
    from front.wsgi import ThreadedWSGI

    def hello(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"hello"]

    threaded = ThreadedWSGI(hello, 1)
    scope = {"type": "http", "method": "GET", "path": "/", "raw_path": b"/", "query_string": b"", "headers": []}

    async def ask() -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await threaded(scope, b"", send)
        return sent

    def body(sent: list[dict[str, Any]]) -> bytes:
        return b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")

    assert body(run_apart(ask())) == b"hello"
    threaded.shutdown()
    assert body(run_apart(ask())) == b"hello"
    threaded.shutdown()


class _Recorder:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str) -> str:
        return f"extra {name}"


def test_what_one_turn_of_the_loop_writes_leaves_in_one_write():
    """An answer's head and body (one turn) go out as one write; a later turn's chunk (a stream's
    next event) goes out on its own, at the end of its turn; closing sends what is held first."""
    from front.protocol import CoalescingTransport

    async def main() -> list[bytes]:
        recorder = _Recorder()
        transport = CoalescingTransport(recorder, asyncio.get_running_loop())  # type: ignore[arg-type]
        transport.write(b"HTTP/1.1 200 OK\r\n\r\n")
        transport.write(b"body")
        assert recorder.writes == []  # held until the turn ends
        await asyncio.sleep(0)
        assert recorder.writes == [b"HTTP/1.1 200 OK\r\n\r\nbody"]
        transport.write(b"event")
        await asyncio.sleep(0)
        transport.write(b"last")
        transport.close()
        assert recorder.closed and transport.get_extra_info("peername") == "extra peername"
        transport.write(b"after the close")
        await asyncio.sleep(0)
        return recorder.writes

    assert run_apart(main()) == [b"HTTP/1.1 200 OK\r\n\r\nbody", b"event", b"last"]


def test_a_worker_settles_before_its_first_request():
    """The lifespan startup loads the URL patterns and freezes what the worker made so far
    (`front.app.settle`): a full collection no longer traverses it."""
    from django.urls import clear_url_caches, get_resolver

    messages = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    clear_url_caches()
    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0 and "url_patterns" not in vars(get_resolver())
        run_apart(front.app.application({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send))
        assert gc.get_freeze_count() > 10_000
        assert "url_patterns" in vars(get_resolver())
    finally:
        gc.unfreeze()
    assert [m["type"] for m in sent] == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
