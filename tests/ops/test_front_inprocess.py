"""Under `make run` the front (config/stream.py) serves every request itself: streams on its event
loop, everything else through Django's WSGI handler on a pool of threads (config/inprocess.py).
The answers are Django's own, bodies are read whole before a thread is taken, and oversized ones
are refused unread."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from config import inprocess, stream


def _run(coroutine: Any) -> Any:
    """``asyncio.run`` on a thread of its own (a session-wide Playwright loop may own this one)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _scope(**overrides: Any) -> dict[str, Any]:
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/api/v1/users/zoë",
        "query_string": b"game=ekko&x=%20",
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"accept", b"application/json"),
            (b"accept", b"text/plain"),
            (b"content-type", b"application/json"),
            (b"content-length", b"2"),
            (b"x_request_id", b"forged"),
            (b"x-request-id", b"abc"),
        ],
        "client": ("203.0.113.9", 50123),
        "server": ("127.0.0.1", 8000),
        "scheme": "http",
        "http_version": "1.1",
    }
    return scope | overrides


def test_the_environ_is_what_a_wsgi_server_gives_django():
    env = inprocess.environ(_scope(), b"{}")
    assert env["PATH_INFO"] == "/api/v1/users/zo\xc3\xab"  # PEP 3333: latin-1 of the UTF-8 bytes
    assert env["QUERY_STRING"] == "game=ekko&x=%20"
    assert env["HTTP_ACCEPT"] == "application/json,text/plain"  # repeated headers joined
    assert env["CONTENT_TYPE"] == "application/json" and env["CONTENT_LENGTH"] == "2"
    assert "HTTP_CONTENT_TYPE" not in env and "HTTP_CONTENT_LENGTH" not in env
    assert env["HTTP_X_REQUEST_ID"] == "abc"  # the underscore spelling cannot pose as it
    assert env["REMOTE_ADDR"] == "203.0.113.9" and env["SERVER_PORT"] == "8000"
    assert env["wsgi.input"].read() == b"{}"


class _Closing(list):
    closed = False

    def close(self) -> None:
        self.closed = True


def _harness(app: Any) -> httpx.AsyncClient:
    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        await inprocess.serve(app, scope, receive, send)

    return httpx.AsyncClient(transport=httpx.ASGITransport(app=asgi), base_url="http://127.0.0.1")


def test_a_streamed_answer_is_sent_chunk_by_chunk_and_closed():
    made: list[_Closing] = []

    def app(environ: dict[str, Any], start_response: Any) -> Any:
        start_response("200 OK", [("Content-Type", "application/x-ndjson"), ("X-Kind", "stream")])
        made.append(_Closing([b'{"a":1}\n', b"", b'{"b":2}\n']))
        return made[0]

    async def scenario() -> httpx.Response:
        async with _harness(app) as client:
            return await client.get("/x")

    answer = _run(scenario())
    assert answer.status_code == 200 and answer.headers["x-kind"] == "stream"
    assert answer.content == b'{"a":1}\n{"b":2}\n'
    assert made[0].closed  # Django's request_finished runs


def test_a_body_over_the_limit_is_refused_unread(monkeypatch):
    monkeypatch.setattr(inprocess, "MAX_BODY_BYTES", 1000)
    called: list[bytes] = []

    def app(environ: dict[str, Any], start_response: Any) -> Any:
        called.append(environ["wsgi.input"].read())
        start_response("201 Created", [("Content-Type", "application/json")])
        return [b"{}"]

    async def chunks(size: int) -> Any:
        for _ in range(size // 100):
            yield b"x" * 100

    async def scenario() -> list[httpx.Response]:
        async with _harness(app) as client:
            return [
                await client.post("/x", content=b"x" * 1001),  # Content-Length says it
                await client.post("/x", content=chunks(1100)),  # chunked: refused once past the limit
                await client.post("/x", content=b"x" * 1000),
            ]

    big, chunked, fits = _run(scenario())
    assert big.status_code == chunked.status_code == 413
    assert big.headers["content-type"] == "application/problem+json" and big.json()["code"] == "payload_too_large"
    assert fits.status_code == 201 and called == [b"x" * 1000]  # only the one that fits reached the app


@pytest.fixture
def front(monkeypatch, transactional_db) -> Iterator[httpx.AsyncClient]:
    """The `make run` front on the test database, its pool one thread whose connection is closed after."""
    pool = ThreadPoolExecutor(max_workers=1)
    monkeypatch.setattr(stream, "IN_PROCESS", True)
    monkeypatch.setattr(inprocess, "_pool", pool)
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=stream.application), base_url="http://127.0.0.1")
    yield client
    from django.db import connections

    pool.submit(connections.close_all).result()
    pool.shutdown()


def test_the_front_serves_the_api_itself(front, client):
    async def scenario() -> list[httpx.Response]:
        async with front:
            registered = await front.post(
                "/api/v1/auth/register", json={"username": "ines", "password": "a-long-passphrase-9"}
            )
            token = registered.json()["token"]
            me = await front.get("/api/v1/me", headers={"Authorization": f"Token {token}"})
            games = await front.get("/api/v1/games", headers={"X-Request-ID": "front-1"})
            export = await front.get("/api/v1/users/ines/export", headers={"Authorization": f"Token {token}"})
            refused = await front.get("/api/v1/me")
            return [registered, me, games, export, refused]

    registered, me, games, export, refused = _run(scenario())
    assert registered.status_code == 201
    assert me.status_code == 200 and me.json()["username"] == "ines"
    direct = client.get("/api/v1/games", HTTP_HOST="127.0.0.1")  # Django's test client: the same answer
    assert games.status_code == 200 and games.json() == direct.json()
    assert games.headers["x-request-id"] == "front-1"
    assert export.status_code == 200 and export.headers["content-type"] == "application/x-ndjson"
    assert refused.status_code == 401 and refused.headers["content-type"] == "application/problem+json"
