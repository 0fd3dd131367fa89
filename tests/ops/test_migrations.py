"""Models that moved between apps moved by state only: no SQL, tables and rows untouched, content
types relabelled (and back on a rollback); and the models and the migrations agree."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

# (app, migration) of each state-only move, and the models it moved with their tables.
STATE_ONLY = [("notify", "0001"), ("games", "0005"), ("api", "0001"), ("games", "0006")]
MOVED = {
    "notify": {
        "notification": "games_notification",
        "inboxcounter": "games_inboxcounter",
        "webhook": "games_webhook",
        "delivery": "games_delivery",
        "streamticket": "games_streamticket",
    },
    "api": {"idempotentrequest": "games_idempotentrequest"},
}


def _statements(app: str, migration: str) -> list[str]:
    """What ``sqlmigrate`` prints for the migration, without transaction brackets and comments."""
    out = StringIO()
    call_command("sqlmigrate", app, migration, stdout=out)
    lines = [line.strip() for line in out.getvalue().splitlines()]
    return [line for line in lines if line and not line.startswith("--") and line not in ("BEGIN;", "COMMIT;")]


@pytest.mark.django_db(transaction=True)  # SQLite's schema editor refuses to run inside the test's transaction
@pytest.mark.parametrize(("app", "migration"), STATE_ONLY)
def test_a_state_only_move_prints_no_sql(app, migration):
    assert _statements(app, migration) == []


@pytest.mark.django_db(transaction=True)
def test_the_sql_check_sees_a_statement():
    """The check above can fail: a migration that creates a table prints its SQL."""
    assert any(s.startswith("CREATE TABLE") for s in _statements("games", "0001"))


def test_the_moved_models_keep_their_tables():
    from django.apps import apps

    for app, tables in MOVED.items():
        for model, table in tables.items():
            assert apps.get_model(app, model)._meta.db_table == table


@pytest.mark.django_db
def test_the_models_and_the_migrations_agree():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


@pytest.mark.django_db(transaction=True)
def test_content_types_follow_the_moved_models_and_come_back_on_a_rollback():
    from django.contrib.contenttypes.models import ContentType

    moved = {model: app for app, tables in MOVED.items() for model in tables}

    def labels() -> dict[str, tuple[int, str]]:
        rows = ContentType.objects.filter(model__in=moved).values_list("model", "pk", "app_label")
        return {model: (pk, app) for model, pk, app in rows}

    before = labels()
    assert {model: app for model, (_, app) in before.items()} == moved
    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate([("games", "0004_notifications"), ("notify", None), ("api", None)])
        back = labels()
        assert back == {model: (pk, "games") for model, (pk, _) in before.items()}  # the same rows, relabelled
        with connection.cursor() as cursor:  # no table was dropped: the rows stayed where they were
            tables = set(connection.introspection.table_names(cursor))
        assert {table for tables in MOVED.values() for table in tables.values()} <= tables
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(leaves)
        ContentType.objects.clear_cache()
    assert labels() == before
