"""manage.py abort_match <match id> [--reason …]: end a stuck or unwanted live match with no result."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import ApplicationError
from games.services import operators


class Command(BaseCommand):
    help = "Abort a live match: an `aborted` record is appended through the services, under the match lock."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("match_id", help="The match id (one that starts with '-' goes after --).")
        parser.add_argument("--reason", default="operator", help="Stored in the record (default: operator).")

    def handle(self, *args: Any, match_id: str, reason: str, **options: Any) -> None:
        try:
            match = operators.match_abort(match_id=match_id, reason=reason)
        except ApplicationError as exc:
            raise CommandError(f"{exc.code}: {exc.detail}") from exc
        self.stdout.write(f"aborted {match.id} at version {match.version} ({reason})")
