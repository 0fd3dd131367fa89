"""Drop the single-column ``match_id`` indexes of records and seats: their unique ``(match_id, seq)``
and ``(match_id, index)`` indexes serve every lookup by match. Only the indexes go: Django's own
AlterField would also drop and re-add the foreign keys, which re-checks every row of a table of
millions under a lock. On PostgreSQL each index is dropped CONCURRENTLY (no lock on writes)."""

import django.db.models.deletion
from django.db import migrations, models

INDEXES = {
    "games_record": ["games_record_match_id_149e208d", "games_record_match_id_149e208d_like"],
    "games_seat": ["games_seat_match_id_72fea2e9", "games_seat_match_id_72fea2e9_like"],
}


def drop(apps, schema_editor):
    concurrently = " CONCURRENTLY" if schema_editor.connection.vendor == "postgresql" else ""
    for names in INDEXES.values():
        for name in names:
            schema_editor.execute(f'DROP INDEX{concurrently} IF EXISTS "{name}"')


def create(apps, schema_editor):
    postgres = schema_editor.connection.vendor == "postgresql"
    for table, (plain, like) in INDEXES.items():
        schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{plain}" ON "{table}" ("match_id")')
        if postgres:
            schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{like}" ON "{table}" ("match_id" varchar_pattern_ops)')


class Migration(migrations.Migration):
    atomic = False  # DROP INDEX CONCURRENTLY cannot run in a transaction

    dependencies = [
        ("games", "0011_match_tournament_adjudicated"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop, create)],
            state_operations=[
                migrations.AlterField(
                    model_name="record",
                    name="match",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="records",
                        to="games.match",
                    ),
                ),
                migrations.AlterField(
                    model_name="seat",
                    name="match",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="seats",
                        to="games.match",
                    ),
                ),
            ],
        ),
    ]
