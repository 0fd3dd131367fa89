"""manage.py keep_final_states [--game G]: keep the final state of every ended match that has none.

A match keeps the state it ended in when the engine ends it (`games.replay.keep_final`), so that a
cold ``GET state`` of it unpickles that instead of replaying its log. Matches that ended before
that was so, or by an agreement or an abort, have none: this command replays each of them once
from record 1 (`games.replay.full_replay`, from its archive when it has one) and keeps what the
replay gets. A match that never started (no state) is passed over; one that does not replay is
reported (``verify_matches`` says why) and left without. It can run beside live play, and again:
a match that keeps its state is not read. A progress bar is drawn on a terminal.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.db.models import Exists, OuterRef
from tqdm import tqdm

from games import replay
from games.models import FinalState, Match


class Command(BaseCommand):
    help = "Replay every ended match that keeps no final state once, and keep the state it ended in."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", help="Only this game's matches.")

    def handle(self, *args: Any, game: str | None, **options: Any) -> None:
        kept_now = FinalState.objects.filter(match_id=OuterRef("id"), version=OuterRef("version"))
        matches = Match.objects.filter(status__in=[Match.Status.FINISHED, Match.Status.ABORTED]).filter(
            ~Exists(kept_now)
        )
        if game:
            matches = matches.filter(game=game)
        total = matches.count()
        kept = unstarted = failed = 0
        bar = tqdm(total=total, unit="match", disable=not sys.stderr.isatty(), file=sys.stderr)
        for match_id in matches.order_by("id").values_list("id", flat=True).iterator(chunk_size=200):
            with transaction.atomic():
                match = Match.objects.select_for_update().filter(id=match_id).first()
                try:
                    state = replay.full_replay(match) if match is not None else None
                except Exception as exc:  # the audit reports it in full; the state stays unkept
                    failed += 1
                    bar.write(
                        f"{match_id}: does not replay ({type(exc).__name__}); see verify_matches", file=self.stdout
                    )
                else:
                    if match is not None and state is not None:
                        replay.keep_final(match, state)
                        kept += 1
                    else:
                        unstarted += 1
            bar.update(1)
        bar.close()
        self.stdout.write(
            f"kept the final state of {kept} of {total} ended matches"
            f" ({unstarted} never started, {failed} do not replay)"
        )
