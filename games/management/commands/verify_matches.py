"""manage.py verify_matches [--game G] [--since YYYY-MM-DD] [--match ID]: audit the record logs.

Each match's records are replayed from record 1 through its engine (`games.replay.full_replay`);
reported: a gap in ``seq``, a replay that fails, and a replayed outcome (or awaiting seats, for a
live match) that differs from what is stored, and a final state kept with a finished match
(`games.models.FinalState`) that is not what the replay gets, or does not read back. A progress
bar is drawn on a terminal. Exits 1 when any match has a problem.

Each match is read in one snapshot (`core.sql.snapshot`): its row, its records and the replay's
reads see the same committed state, so moves appended while the command runs on a live system are
never reported as a gap (the match row read before them, the records after).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from tqdm import tqdm

from core import sql
from games import archive, replay
from games.models import Match


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def match_problems(match: Match) -> list[str]:
    """What is wrong with one match's log (empty when it replays to what is stored)."""
    seqs = [r.seq for r in archive.records(match)]  # from the table, or the archive of an old match
    problems = []
    if seqs != list(range(1, match.version + 1)):
        missing = sorted(set(range(1, match.version + 1)) - set(seqs))
        extra = sorted(set(seqs) - set(range(1, match.version + 1)))
        problems.append(f"seq gap: version {match.version}, missing {missing[:10]}, beyond {extra[:10]}")
    try:
        rules = replay.rules_for(match)
        state = replay.full_replay(match)
    except Exception as exc:
        return [*problems, f"replay error: {type(exc).__name__}: {exc}"]
    if state is None:
        if match.status in (Match.Status.ACTIVE, Match.Status.FINISHED):
            problems.append(f"replay error: no started record, yet the match is {match.status}")
        return problems
    outcome = rules.outcome(state)
    if match.status == Match.Status.FINISHED:
        if outcome is None:
            problems.append("outcome mismatch: stored finished, the replay has no outcome")
        elif _plain(outcome.to_json()) != _plain(match.result):
            problems.append(f"outcome mismatch: stored {match.result}, replayed {_plain(outcome.to_json())}")
    elif match.status == Match.Status.ACTIVE:
        if outcome is not None:
            problems.append(f"outcome mismatch: stored active, the replay ended ({outcome.reason})")
        elif sorted(rules.awaiting(state)) != sorted(match.awaiting):
            problems.append(f"awaiting mismatch: stored {match.awaiting}, replayed {sorted(rules.awaiting(state))}")
    kept, final = replay.kept_final(match)
    if kept and final is None:
        problems.append("final state: kept, but it does not read back (reads replay instead; delete it)")
    elif final is not None and rules.dump_state(final[1]) != rules.dump_state(state):
        problems.append("final state mismatch: the kept state is not what the replay gets")
    return problems


class Command(BaseCommand):
    help = "Replay every match (or a game's, or those created since a date) and report any inconsistency."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", help="Only this game's matches.")
        parser.add_argument("--since", help="Only matches created on or after this date (YYYY-MM-DD).")
        parser.add_argument("--match", dest="match_id", help="Only this match.")

    def handle(self, *args: Any, game: str | None, since: str | None, match_id: str | None, **options: Any) -> None:
        matches = Match.objects.order_by("created_at", "id")
        if game:
            matches = matches.filter(game=game)
        if match_id:
            matches = matches.filter(id=match_id)
        if since:
            try:
                day = datetime.strptime(since, "%Y-%m-%d").date()
            except ValueError as exc:
                raise CommandError("--since takes a date: YYYY-MM-DD") from exc
            matches = matches.filter(created_at__gte=timezone.make_aware(datetime.combine(day, time.min)))
        total = matches.count()
        bad = 0
        bar = tqdm(total=total, unit="match", disable=not sys.stderr.isatty(), file=sys.stderr)
        for match_id in matches.values_list("id", flat=True).iterator(chunk_size=200):
            with sql.snapshot():
                match = Match.objects.filter(id=match_id).first()
                problems = match_problems(match) if match is not None else []
            for problem in problems:
                assert match is not None
                bad += 1
                bar.write(f"{match.id} ({match.game}, {match.status}, v{match.version}): {problem}", file=self.stdout)
            bar.update(1)
        bar.close()
        self.stdout.write(f"verified {total} matches: {bad} problems")
        if bad:
            raise CommandError(f"{bad} problems in the record logs")
