"""A real ASGI server (uvicorn, in a thread) serving the stream paths, and an SSE reader."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def stream_server(transactional_db):
    """The Django ASGI application under uvicorn on a free loopback port; yields its base URL."""
    from django.core.asgi import get_asgi_application

    from notify import streams

    streams.HUB.__init__()  # a fresh hub for this server's event loop
    port = free_port()
    config = uvicorn.Config(
        get_asgi_application(),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        log_config=None,  # uvicorn's default config would detach its loggers from the root handler
        lifespan="off",
        timeout_graceful_shutdown=1,
        loop="asyncio",  # uvloop in a thread beside the tests once crashed the process (front/server.py)
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
    streams.close_reads()  # their connections would keep the test database from being dropped


def _id(raw: str) -> int | str:
    return int(raw) if raw.isdigit() else raw


@dataclass
class Event:
    id: int | str | None  # a number; a match stream's `R.C` once it has carried chat
    event: str | None
    data: Any
    comment: bool = False


@dataclass
class SSE:
    """Reads a text/event-stream in a thread; ``events`` fills as they arrive."""

    url: str
    headers: dict[str, str]
    events: list[Event] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    status: int | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    body: str = ""
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> SSE:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        # Connected means the server's first comment has arrived: it subscribes before sending it.
        deadline = time.monotonic() + 10
        while (self.status is None or (self.status == 200 and not self.comments)) and time.monotonic() < deadline:
            time.sleep(0.01)
        return self

    def _run(self) -> None:
        try:
            self._read()
        except httpx.HTTPError:
            pass  # the server went away at the end of a test
        finally:
            if self.status is None:
                self.status = -1

    def _read(self) -> None:
        with (
            httpx.Client(timeout=httpx.Timeout(30, read=30)) as client,
            client.stream("GET", self.url, headers=self.headers) as response,
        ):
            self.response_headers = dict(response.headers)
            if response.status_code != 200:
                self.body = response.read().decode()
                self.status = response.status_code
                return
            self.status = 200
            current: dict[str, str] = {}
            for line in response.iter_lines():
                if self._stop.is_set():
                    return
                if line.startswith(":"):
                    self.comments.append(line)
                elif line == "":
                    if "data" in current:
                        self.events.append(
                            Event(
                                _id(current["id"]) if "id" in current else None,
                                current.get("event"),
                                json.loads(current["data"]) if "data" in current else None,
                            )
                        )
                    current = {}
                else:
                    name, _, value = line.partition(":")
                    current[name] = value.lstrip(" ")

    def wait_for(self, predicate, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self.events):
                return True
            time.sleep(0.01)
        return False

    def close(self) -> None:
        self._stop.set()


@pytest.fixture
def sse() -> Iterator[Any]:
    opened: list[SSE] = []

    def open_(url: str, headers: dict[str, str] | None = None) -> SSE:
        reader = SSE(url, headers or {}).start()
        opened.append(reader)
        return reader

    yield open_
    for reader in opened:
        reader.close()
