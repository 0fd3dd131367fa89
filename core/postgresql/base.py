"""PostgreSQL with a client-side deadline on every round trip to the server.

``statement_timeout`` (set in the connection options) makes a live but slow server cancel a query;
a server that accepts and then never answers (frozen, or behind a proxy that stalls) cannot cancel
anything, and psycopg would wait forever. Here each query, and the health check Django runs on a
reused connection, is armed with a watchdog: past ``TABULA_DB_STATEMENT_TIMEOUT_S`` plus a grace,
the connection's socket is shut down, the blocked call fails with ``OperationalError``, the API
answers 503, and Django drops the broken connection at the end of the request (the next one
reconnects: recovery needs nothing).

One daemon thread per process serves every connection; arming costs a dict write.

`prepared_cursor` gives the hot path's hand-written statements (`core.sql`) a cursor that binds
parameters on the server and prepares each statement once per connection: PostgreSQL then parses
and plans a move's statements once, not on every move. Django's own queries keep client-side
binding. ``TABULA_DB_PREPARED=false`` turns it off (behind a pooler in transaction mode, such as
PgBouncer before 1.21, which cannot keep prepared statements).

Django's per-request health check on a reused connection (``conn_health_checks``) is skipped when
the server answered on it within the last second; if the server went away in that second, the
request fails with 503 like any other and the connection is dropped after it.
"""

from __future__ import annotations

import itertools
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from django.conf import settings
from django.db.backends.postgresql import base, operations
from django.db.backends.utils import CursorWrapper
from psycopg.types.json import JsonLoader

from core import jsontext

log = logging.getLogger(__name__)

GRACE_S = 2.0  # past the server's statement_timeout: the server had its chance to answer
TICK_S = 0.25  # how often the watchdog looks: a hung query is cut within this of its deadline
FRESH_S = 1.0  # a connection the server answered on this recently needs no health check


class _Watchdog:
    """Armed queries by token: arming and disarming are a dict write each (no lock, no wake-up);
    one daemon thread looks every ``TICK_S`` for any past its deadline."""

    def __init__(self) -> None:
        self._armed: dict[int, tuple[float, Any]] = {}
        self._ids = itertools.count()
        self._start = threading.Lock()
        self._thread: threading.Thread | None = None

    def arm(self, connection: Any, seconds: float) -> int:
        if self._thread is None or not self._thread.is_alive():
            with self._start:
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._run, name="db-watchdog", daemon=True)
                    self._thread.start()
        token = next(self._ids)
        self._armed[token] = (time.monotonic() + seconds, connection)
        return token

    def disarm(self, token: int) -> None:
        self._armed.pop(token, None)

    def _run(self) -> None:
        while True:
            time.sleep(TICK_S)
            now = time.monotonic()
            for token, entry in list(self._armed.items()):
                if entry[0] <= now and self._armed.pop(token, None) is entry:
                    _sever(entry[1])


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


class PreparingCursor(base.ServerBindingCursor):  # type: ignore[name-defined]  # psycopg 3 only
    """Server-side binding; every statement prepared on first use (psycopg keeps the names per
    connection, the 100 most recently used)."""

    def execute(self, query: Any, params: Any = None, *, prepare: bool | None = True, binary: Any = None) -> Any:
        return super().execute(query, params, prepare=prepare, binary=binary)


class DatabaseOperations(operations.DatabaseOperations):
    def last_executed_query(self, cursor: Any, sql: str, params: Any) -> str:
        """The statement as logged (DEBUG, tests): a prepared one has no text of its own in psycopg,
        so it is composed from ``sql`` and ``params`` as Django does under server-side binding."""
        text: str | None = super().last_executed_query(cursor, sql, params)
        if text is None and isinstance(cursor, PreparingCursor):
            with suppress(Exception):
                text = self.compose_sql(sql, params)
        return text  # type: ignore[return-value]  # None when it cannot be composed, as in Django


class _JsonLoader(JsonLoader):
    _loads = staticmethod(lambda data: jsontext.loads(data))  # looked up per value: tests may replace it


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
    preparing_cursor_class: type = PreparingCursor

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.execute_wrappers.append(self._deadline)

    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        if settings.TABULA_DB_PREPARED:
            # Only `prepared_cursor`'s cursors ask: Django's client-binding cursors never prepare.
            params["prepare_threshold"] = 2**31 - 1
        return params

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        # ``json`` values (the hand-written statements' ``json_agg`` and ``json_build_array``) by
        # orjson (`core.jsontext`); ``jsonb`` stays Django's to decode (its JSONField reads text).
        connection.adapters.register_loader("json", _JsonLoader)
        return connection

    def prepared_cursor(self) -> CursorWrapper:
        """`cursor()`, but binding on the server and preparing each statement (`PreparingCursor`);
        a plain `cursor()` when prepared statements are off."""
        if not settings.TABULA_DB_PREPARED:
            return self.cursor()
        self.close_if_health_check_failed()
        self.ensure_connection()
        with self.wrap_database_errors:
            return self._prepare_cursor(self.preparing_cursor_class(self.connection))  # type: ignore[attr-defined]

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
