"""A minimal keep-alive JSON client for the bench (``http.client``, one connection per instance).

Not thread-safe: give each thread its own `Client`. A connection the server closed while idle is
reopened and the request sent once more; for a move that is safe, because ``expected_version``
turns a duplicate into a ``409``.
"""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

API = "/api/v1"
RETRYABLE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, http.client.CannotSendRequest)


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    seconds: float  # from sending the request to the last byte of the body

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class Client:
    """Requests against ``base`` (``http://127.0.0.1:PORT``); paths are relative to ``/api/v1``."""

    def __init__(self, base: str, timeout: float = 60.0) -> None:
        parts = urlsplit(base)
        self._host, self._port, self._timeout = parts.hostname or "127.0.0.1", parts.port or 80, timeout
        self._conn = self._connect()

    def _connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)

    def close(self) -> None:
        self._conn.close()

    def request(self, method: str, path: str, *, token: str | None = None, data: Any = None) -> Reply:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        body = None
        if data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            started = time.perf_counter()
            try:
                self._conn.request(method, API + path, body=body, headers=headers)
                response = self._conn.getresponse()
                payload = response.read()
            except RETRYABLE:
                self._conn.close()
                self._conn = self._connect()
                if attempt == 2:
                    raise
                continue
            return Reply(response.status, payload, time.perf_counter() - started)
        raise AssertionError("unreachable")

    def get(self, path: str, *, token: str | None = None) -> Reply:
        return self.request("GET", path, token=token)

    def post(self, path: str, data: Any = None, *, token: str | None = None) -> Reply:
        return self.request("POST", path, token=token, data=data if data is not None else {})


def expect(reply: Reply, status: int, what: str) -> Any:
    """The reply's JSON, or a RuntimeError naming ``what`` when the status is not ``status``."""
    if reply.status != status:
        raise RuntimeError(f"{what}: HTTP {reply.status} {reply.body[:300]!r}")
    return reply.json()
