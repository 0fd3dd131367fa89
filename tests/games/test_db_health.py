"""The PostgreSQL backend (config/postgresql) skips Django's per-request health check (``SELECT 1``)
on a connection the server answered on within ``FRESH_S``, and makes it otherwise."""

from __future__ import annotations

import pytest
from django.db import connections

from config.postgresql import base

pytestmark = pytest.mark.django_db


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
