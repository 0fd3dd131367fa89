"""``seat_active`` holds every active seat of a player, private matches' too, with the privacy as its
second column: ``GET me/turns`` finds the caller's active seats by it (it joined every seat they ever
had to its match, or every active match on the server to their seats: 0.8 to 5 ms at 100,000
matches, issue 31), and a public profile still counts the active public ones from the index alone."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0016_seat_copies_of_match")]

    operations = [
        migrations.RemoveIndex(model_name="seat", name="seat_active"),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("match_status", "active")), fields=["user", "match_private"], name="seat_active"
            ),
        ),
    ]
