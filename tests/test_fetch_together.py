"""`core.sql.fetch_together`: several reads in one round trip on PostgreSQL, the rows `fetch` gives."""

from __future__ import annotations

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from core import sql

READS = [
    ("SELECT u.username FROM accounts_user u WHERE u.username LIKE %s ORDER BY u.username", ["a%"]),
    ("SELECT count(*) FROM accounts_user u WHERE u.username <> %s", ["zed"]),
    ("SELECT u.username FROM accounts_user u WHERE u.username = %s", ["nobody"]),
]


@pytest.fixture
def people(db):
    for name in ("ada", "al", "bo"):
        User.objects.create_user(username=name, password="x" * 12)


def test_the_rows_are_fetchs_one_by_one(people):
    assert sql.fetch_together(READS) == [sql.fetch(q, p) for q, p in READS] == [[("ada",), ("al",)], [(3,)], []]


def test_a_write_is_refused(people):
    with pytest.raises(ValueError):
        sql.fetch_together([READS[0], ("UPDATE accounts_user SET username = %s", ["x"])])
    assert User.objects.filter(username="x").count() == 0


@pytest.mark.postgresql
def test_postgresql_sends_them_in_one_pipeline_each_through_djangos_cursor(people, monkeypatch):
    entered = []
    pipeline = psycopg.Connection.pipeline

    def spy(self):
        entered.append(self)
        return pipeline(self)

    monkeypatch.setattr(psycopg.Connection, "pipeline", spy)
    with CaptureQueriesContext(connection) as queries:
        rows = sql.fetch_together(READS)
    assert rows == [[("ada",), ("al",)], [(3,)], []]
    assert len(entered) == 1  # one sync: the answers of all three come back together
    assert [q["sql"].split(" FROM ")[0] for q in queries] == [q.split(" FROM ")[0] for q, _ in READS]


@pytest.mark.postgresql
def test_postgresql_waits_for_the_answers_under_the_deadline(people, monkeypatch):
    from core.postgresql import base

    armed_during_sync = []
    pipeline = psycopg.Connection.pipeline

    class Watching:
        def __init__(self, conn):
            self.inner = pipeline(conn)

        def __enter__(self):
            return self.inner.__enter__()

        def __exit__(self, *exc):
            armed_during_sync.append(bool(base.WATCHDOG._armed))  # the answers are awaited here
            return self.inner.__exit__(*exc)

    monkeypatch.setattr(psycopg.Connection, "pipeline", lambda self: Watching(self))
    sql.fetch_together(READS)
    assert armed_during_sync == [True]
    assert not base.WATCHDOG._armed


@pytest.mark.postgresql
def test_postgresql_a_failing_read_raises_djangos_error_and_the_connection_goes_on(people):
    with pytest.raises(DatabaseError), transaction.atomic():  # a savepoint: the test runs in a transaction
        sql.fetch_together([READS[0], ("SELECT no_such_column FROM accounts_user", [])])
    assert sql.fetch_together(READS[:2]) == [[("ada",), ("al",)], [(3,)]]
