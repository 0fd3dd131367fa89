"""manage.py tallies_rebuild [username …]: recompute the tallies public profiles read (`games.tallies`)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import User
from games import tallies


class Command(BaseCommand):
    help = (
        "Recompute the players' tallies (a profile's counts and statistics) from their finished public "
        "matches: after matches were deleted or loaded in bulk, around the services. Everyone's by default."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("usernames", nargs="*", help="Only these players (by their exact username).")

    def handle(self, *args: Any, usernames: list[str], **options: Any) -> None:
        user_ids = None
        if usernames:
            found = dict(User.objects.filter(username__in=usernames).values_list("username", "pk"))
            missing = sorted(set(usernames) - set(found))
            if missing:
                raise CommandError(f"no such user: {', '.join(missing)}")
            user_ids = list(found.values())
        written = tallies.rebuild(user_ids)
        players = "every player" if user_ids is None else f"{len(user_ids)} players"
        self.stdout.write(f"rebuilt {written} tallies ({players})")
