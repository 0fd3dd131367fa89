"""The PostgreSQL backend (core/postgresql): the per-request health check (``SELECT 1``) is skipped
on a connection the server answered on within ``FRESH_S``; the watchdog cuts a query past its deadline."""

from __future__ import annotations

import pytest
from django.db import connections

from core.postgresql import base

pytestmark = [pytest.mark.django_db, pytest.mark.postgresql]


@pytest.fixture
def postgres():
    connection = connections["default"]
    if not isinstance(connection, base.DatabaseWrapper):
        pytest.skip("the hardening backend serves PostgreSQL only")
    return connection


def _health_checks(conn, monkeypatch) -> list[str]:
    seen: list[str] = []
    real = base.base.DatabaseWrapper.is_usable

    def counting(self):
        seen.append("SELECT 1")
        return real(self)

    monkeypatch.setattr(base.base.DatabaseWrapper, "is_usable", counting)
    return seen


def test_a_connection_that_just_answered_is_not_checked_again(postgres, monkeypatch):
    seen = _health_checks(postgres, monkeypatch)
    with postgres.cursor() as cursor:
        cursor.execute("SELECT 2")
    assert postgres.is_usable() and seen == []


def test_a_connection_idle_past_the_window_is_checked(postgres, monkeypatch):
    seen = _health_checks(postgres, monkeypatch)
    with postgres.cursor() as cursor:
        cursor.execute("SELECT 2")
    postgres._answered_at -= base.FRESH_S + 0.1
    assert postgres.is_usable() and seen == ["SELECT 1"]
    assert postgres.is_usable() and seen == ["SELECT 1"]  # the check itself counts as an answer


def test_a_broken_connection_is_checked_and_found_unusable(postgres, monkeypatch):
    seen = _health_checks(postgres, monkeypatch)
    with postgres.cursor() as cursor:
        cursor.execute("SELECT 2")
    postgres.connection.pgconn.finish()  # the socket is gone: psycopg sees it as closed
    assert not postgres.is_usable() and seen == ["SELECT 1"]
    postgres.close()


class _Conn:
    """What the watchdog needs of a psycopg connection: ``pgconn.socket``, a file descriptor."""

    def __init__(self, sock) -> None:
        self.pgconn = type("PgConn", (), {"socket": sock.fileno()})()


def test_the_watchdog_severs_a_query_past_its_deadline_and_spares_the_rest():
    import socket
    import time

    hung, hung_peer = socket.socketpair()
    quick, quick_peer = socket.socketpair()
    watchdog = base._Watchdog()
    try:
        watchdog.arm(_Conn(hung), 0.05)
        token = watchdog.arm(_Conn(quick), 0.05)
        watchdog.disarm(token)  # this one answered in time
        watchdog.arm(_Conn(quick), 60)  # and its next query is far from its deadline
        hung_peer.settimeout(5)
        started = time.monotonic()
        assert hung_peer.recv(1) == b""  # the hung one's socket was shut down
        assert time.monotonic() - started < base.TICK_S * 4 + 1
        quick_peer.setblocking(False)
        with pytest.raises(BlockingIOError):
            quick_peer.recv(1)  # still open: nothing to read, no end of file
    finally:
        for s in (hung, hung_peer, quick, quick_peer):
            s.close()
