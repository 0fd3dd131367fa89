"""A seat carries its match's status, end and privacy (`Seat.match_status`, ``match_finished_at``,
``match_private``), kept equal to the match's by the database, so that a public profile reads a
player's recent finished matches and counts their active ones from their seats alone (the partial
indexes ``seat_finished`` and ``seat_active``), however long their history (issue 31).

The database keeps them, not the services: a match's status changes in several services and may be
written by the ORM, an operator's SQL or a bulk load, and a seat's full save sends whatever its
instance last read. Three triggers:

- a seat, when inserted or when a write names one of the three (a full save), reads them from its match;
- a match whose status, end or privacy changes writes them to its seats (every move writes the
  status unchanged: the ``WHEN`` clause keeps that free).

On SQLite a trigger cannot change the row being written, so the seat's are ``AFTER`` triggers that
update it (SQLite runs no trigger again from within itself). Rebuilding either table on SQLite
(a later migration's AlterField) drops them: `tests/games/test_seat_copies.py` fails then.
"""

from django.conf import settings
from django.db import migrations, models

_COPY = ("match_status", "match_finished_at", "match_private")
_FROM = ("status", "finished_at", "private")

POSTGRESQL = [
    """CREATE FUNCTION games_seat_reads_its_match() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        SELECT m.status, m.finished_at, m.private INTO NEW.match_status, NEW.match_finished_at, NEW.match_private
        FROM games_match m WHERE m.id = NEW.match_id;
        RETURN NEW;
    END $$""",
    f"CREATE TRIGGER games_seat_reads_its_match BEFORE INSERT OR UPDATE OF match_id, {', '.join(_COPY)}"
    " ON games_seat FOR EACH ROW EXECUTE FUNCTION games_seat_reads_its_match()",
    """CREATE FUNCTION games_match_writes_its_seats() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE games_seat SET match_status = NEW.status, match_finished_at = NEW.finished_at,
            match_private = NEW.private
        WHERE match_id = NEW.id;
        RETURN NULL;
    END $$""",
    f"CREATE TRIGGER games_match_writes_its_seats AFTER UPDATE OF {', '.join(_FROM)} ON games_match FOR EACH ROW"
    " WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.finished_at IS DISTINCT FROM NEW.finished_at"
    " OR OLD.private IS DISTINCT FROM NEW.private) EXECUTE FUNCTION games_match_writes_its_seats()",
]
POSTGRESQL_DROP = [
    "DROP TRIGGER IF EXISTS games_match_writes_its_seats ON games_match",
    "DROP FUNCTION IF EXISTS games_match_writes_its_seats()",
    "DROP TRIGGER IF EXISTS games_seat_reads_its_match ON games_seat",
    "DROP FUNCTION IF EXISTS games_seat_reads_its_match()",
]

_SQLITE_READ = ", ".join(
    f"{copy} = (SELECT m.{column} FROM games_match m WHERE m.id = NEW.match_id)"
    for copy, column in zip(_COPY, _FROM, strict=True)
)
SQLITE = [
    f"CREATE TRIGGER games_seat_reads_its_match_on_insert AFTER INSERT ON games_seat FOR EACH ROW"
    f" BEGIN UPDATE games_seat SET {_SQLITE_READ} WHERE id = NEW.id; END",
    f"CREATE TRIGGER games_seat_reads_its_match_on_update AFTER UPDATE OF match_id, {', '.join(_COPY)}"
    f" ON games_seat FOR EACH ROW BEGIN UPDATE games_seat SET {_SQLITE_READ} WHERE id = NEW.id; END",
    f"CREATE TRIGGER games_match_writes_its_seats AFTER UPDATE OF {', '.join(_FROM)} ON games_match FOR EACH ROW"
    " WHEN OLD.status IS NOT NEW.status OR OLD.finished_at IS NOT NEW.finished_at OR OLD.private IS NOT NEW.private"
    " BEGIN UPDATE games_seat SET match_status = NEW.status, match_finished_at = NEW.finished_at,"
    " match_private = NEW.private WHERE match_id = NEW.id; END",
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS games_match_writes_its_seats",
    "DROP TRIGGER IF EXISTS games_seat_reads_its_match_on_update",
    "DROP TRIGGER IF EXISTS games_seat_reads_its_match_on_insert",
]


def _keep(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Copy every seat's values once, then create the triggers that keep them."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("SET LOCAL statement_timeout = 0")  # one statement over every seat
        schema_editor.execute(
            "UPDATE games_seat s SET match_status = m.status, match_finished_at = m.finished_at,"
            " match_private = m.private FROM games_match m WHERE m.id = s.match_id"
        )
        for statement in POSTGRESQL:
            schema_editor.execute(statement)
        return
    schema_editor.execute(
        "UPDATE games_seat SET "
        + ", ".join(
            f"{copy} = (SELECT m.{column} FROM games_match m WHERE m.id = games_seat.match_id)"
            for copy, column in zip(_COPY, _FROM, strict=True)
        )
    )
    for statement in SQLITE:
        schema_editor.execute(statement)


def _drop(apps, schema_editor):  # type: ignore[no-untyped-def]
    postgresql = schema_editor.connection.vendor == "postgresql"
    for statement in POSTGRESQL_DROP if postgresql else SQLITE_DROP:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("games", "0015_seat_history"), migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        migrations.AddField(
            model_name="seat", name="match_finished_at", field=models.DateTimeField(editable=False, null=True)
        ),
        migrations.AddField(
            model_name="seat", name="match_private", field=models.BooleanField(default=False, editable=False)
        ),
        migrations.AddField(
            model_name="seat", name="match_status", field=models.CharField(default="", editable=False, max_length=16)
        ),
        migrations.RunPython(_keep, _drop),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("match_private", False), ("match_status", "finished")),
                fields=["user", "-match_finished_at", "-match"],
                name="seat_finished",
            ),
        ),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("match_private", False), ("match_status", "active")),
                fields=["user"],
                name="seat_active",
            ),
        ),
    ]
