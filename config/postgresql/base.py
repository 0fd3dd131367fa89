"""PostgreSQL with a client-side deadline on every round trip to the server.

``statement_timeout`` (set in the connection options) makes a live but slow server cancel a query;
a server that accepts and then never answers (frozen, or behind a proxy that stalls) cannot cancel
anything, and psycopg would wait forever. Here each query, and the health check Django runs on a
reused connection, is armed with a watchdog: past ``TABULA_DB_STATEMENT_TIMEOUT_S`` plus a grace,
the connection's socket is shut down, the blocked call fails with ``OperationalError``, the API
answers 503, and Django drops the broken connection at the end of the request (the next one
reconnects: recovery needs nothing).

One daemon thread per process serves every connection; arming costs a lock and a heap push.

Django's per-request health check on a reused connection (``conn_health_checks``) is skipped when
the server answered on it within the last second; if the server went away in that second, the
request fails with 503 like any other and the connection is dropped after it.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.db.backends.postgresql import base

log = logging.getLogger(__name__)

GRACE_S = 2.0  # past the server's statement_timeout: the server had its chance to answer
FRESH_S = 1.0  # a connection the server answered on this recently needs no health check


class _Watchdog:
    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._armed: dict[int, Any] = {}
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, connection: Any, seconds: float) -> int:
        token = next(self._ids)
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="db-watchdog", daemon=True)
                self._thread.start()
            self._armed[token] = connection
            heapq.heappush(self._heap, (time.monotonic() + seconds, token))
            self._lock.notify()
        return token

    def disarm(self, token: int) -> None:
        with self._lock:
            self._armed.pop(token, None)

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._heap:
                    self._lock.wait()
                due, token = self._heap[0]
                wait = due - time.monotonic()
                if wait > 0:
                    self._lock.wait(wait)
                    continue
                heapq.heappop(self._heap)
                connection = self._armed.pop(token, None)
            if connection is not None:
                _sever(connection)


def _sever(connection: Any) -> None:
    """Shut the connection's socket down: whatever waits on it wakes with an error."""
    try:
        fd = connection.pgconn.socket
        with socket.socket(fileno=socket.dup(fd)) as sock:
            sock.shutdown(socket.SHUT_RDWR)
        log.warning("database did not answer in time: connection severed")
    except Exception:  # already closed: nothing waits on it
        log.debug("watchdog: connection already gone", exc_info=True)


WATCHDOG = _Watchdog()


def _deadline_s() -> float:
    return float(settings.TABULA_DB_STATEMENT_TIMEOUT_S) + GRACE_S


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.execute_wrappers.append(self._deadline)

    @contextmanager
    def _armed(self) -> Iterator[None]:
        connection = self.connection
        token = WATCHDOG.arm(connection, _deadline_s()) if connection is not None else None
        try:
            yield
        finally:
            if token is not None:
                WATCHDOG.disarm(token)

    def _deadline(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        with self._armed():
            result = execute(sql, params, many, context)
        self._answered_at = time.monotonic()
        return result

    def is_usable(self) -> bool:
        """Django's health check (``SELECT 1`` before a request reuses the connection), skipped when
        the server answered on this connection within ``FRESH_S``: under load every request would
        otherwise pay a round trip to learn what the previous one just showed."""
        connection = self.connection
        fresh = time.monotonic() - getattr(self, "_answered_at", float("-inf")) < FRESH_S
        if connection is not None and not connection.broken and fresh:
            return True
        with self._armed():
            usable = bool(super().is_usable())
        if usable:
            self._answered_at = time.monotonic()
        return usable

    def _commit(self) -> None:
        with self._armed():
            super()._commit()  # type: ignore[misc]  # the stubs omit the private hook

    def _rollback(self) -> None:
        with self._armed():
            super()._rollback()  # type: ignore[misc]
