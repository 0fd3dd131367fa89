"""A seat keeps its match's creation time (`Seat.match_created_at`), copied from the match, and a
player's history is read newest first by the index ``seat_history`` (user, that time, match): the
single-column index on the seat's user, which it starts with, goes."""

from django.conf import settings
from django.db import migrations, models


def _copy(apps, schema_editor):  # type: ignore[no-untyped-def]
    quote = schema_editor.connection.ops.quote_name
    seat, match = quote("games_seat"), quote("games_match")
    if schema_editor.connection.vendor == "postgresql":
        # One statement over every seat: the service's bound on a statement is for requests.
        schema_editor.execute("SET LOCAL statement_timeout = 0")
        schema_editor.execute(
            f"UPDATE {seat} s SET match_created_at = m.created_at FROM {match} m WHERE m.id = s.match_id"
        )
        return
    schema_editor.execute(
        f"UPDATE {seat} SET match_created_at = (SELECT m.created_at FROM {match} m WHERE m.id = {seat}.match_id)"
    )


class Migration(migrations.Migration):
    dependencies = [("games", "0014_tally"), migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        migrations.AddField(
            model_name="seat", name="match_created_at", field=models.DateTimeField(editable=False, null=True)
        ),
        migrations.RunPython(_copy, migrations.RunPython.noop),
        migrations.AlterField(model_name="seat", name="match_created_at", field=models.DateTimeField(editable=False)),
        migrations.AlterField(
            model_name="seat",
            name="user",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=models.deletion.PROTECT,
                related_name="seats",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(fields=["user", "-match_created_at", "-match"], name="seat_history"),
        ),
    ]
