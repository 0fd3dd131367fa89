"""``FinalState``: the state a match ended in, kept with it when it ends (`games.replay.keep_final`),
so that a cold read of a finished match unpickles it instead of replaying its log (issue 31)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0017_seat_active_private_too"),
    ]

    operations = [
        migrations.CreateModel(
            name="FinalState",
            fields=[
                (
                    "match",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="games.match",
                    ),
                ),
                ("version", models.PositiveIntegerField()),
                ("state", models.BinaryField()),
            ],
        ),
    ]
