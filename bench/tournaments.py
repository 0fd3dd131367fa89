"""Section 8: two tournaments played to the end by bots, with no staff action.

- a 12-player Ekö round robin in tables of three (every round at once, as correspondence players
  expect);
- a 20-player Enka Swiss in tables of four, four rounds.

In-process, on the bench database, with Celery's tasks inline as a worker would run them: every
move goes through the same service as ``POST moves`` (`games.services.play.move_submit`), chosen
for its seat by the greedy bot from the seat's own view; each match's end queues the tournament's
``advance`` (`games.scheduling.ended_on_commit`), which scores it and pairs the next round. Nobody
calls the tournament service after the joins. Printed: the time each round's pairing took (as the
tournament stored it), each round's tables and moves, the seat balance, the final standings, and
whether they equal a recomputation from the matches' own results.
"""

from __future__ import annotations

import secrets
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import heading
from bench.infra import Database, environment, migrate
from bench.reads import setup_django

SETTINGS = "config.settings.test"  # Celery inline (a worker's work in this process), limits off
LEVEL = "greedy"
CUPS = [
    ("Ekö round robin", "eko", {"format": "round_robin", "table_size": 3, "max_players": 12}),
    ("Enka Swiss", "enka", {"format": "swiss", "table_size": 4, "max_players": 20, "rounds": 4}),
]


def _players(prefix: str, n: int) -> list[Any]:
    from accounts.models import User

    out = []
    for i in range(n):
        user = User(username=f"{prefix}-{i:02d}")
        user.set_unusable_password()
        user.save()
        out.append(user)
    return out


def _play_all(tournament_id: str) -> tuple[int, int]:
    """Play every live table of the tournament until none is left (the tournament pairs new ones
    as rounds end); answers (matches, moves)."""
    from games import replay
    from games.botplay import bot_inputs
    from games.models import Match, Seat
    from games.services import play
    from rules import bots

    matches = moves = 0
    while True:
        live = list(Match.objects.filter(tournament=tournament_id, status=Match.Status.ACTIVE).order_by("id"))
        if not live:
            return matches, moves
        for match in live:
            users = {s.index: s.user for s in Seat.objects.filter(match=match).select_related("user")}
            while match.status == Match.Status.ACTIVE:
                seat = sorted(match.awaiting)[0]
                view, legal = bot_inputs(match, seat)
                move = bots.choose_move(replay.rules_for(match), view, legal, seat, LEVEL, secrets.randbits(63))
                played = play.move_submit(
                    match_id=match.id, move=move, expected_version=match.version, user=users[seat]
                )
                match = played.match
                moves += 1
            matches += 1


def _cup(title: str, game: str, shape: dict[str, Any], prefix: str) -> None:
    from tournaments import pairing, selectors, services
    from tournaments.models import Round, Table

    people = _players(prefix, shape["max_players"])
    body = {"name": title, "game": game, "time_control": {"per_move_s": 86400}, **shape}
    t = services.tournament_create(user=people[0], data=body)
    started = time.perf_counter()
    for user in people:  # the last join starts it
        services.join(tournament_id=t.id, user=user)
    matches, moves = _play_all(t.id)
    wall = time.perf_counter() - started
    t.refresh_from_db()
    print(
        f"\n   {title}: {len(people)} players, tables of {t.table_size}, status {t.status} "
        f"after {matches} matches and {moves:,} moves ({wall:.1f} s in all)"
    )
    print(f"   {'round':>5} {'tables':>6} {'byes':>4} {'pairing':>9}")
    for one in Round.objects.filter(tournament=t).order_by("number"):
        print(f"   {one.number:>5} {one.tables.count():>6} {one.byes.count():>4} {one.pairing_ms:>7.1f} ms")
    rows = selectors.standings(t)
    spreads = Counter(max(r["seats"]) - min(r["seats"]) for r in rows)
    print(f"   seat balance (most − least times in one seat, per entrant): {dict(sorted(spreads.items()))}")
    met = pairing.met_counts([pairing.Round([tb.entrants]) for tb in Table.objects.filter(round__tournament=t)])
    print(f"   meetings per pair: {dict(sorted(Counter(met.values()).items()))}")
    again = selectors.standings_from_matches(t)
    same = again == [(r["username"], r["points"]) for r in rows]
    print(f"   standings equal a recomputation from the matches' results: {'yes' if same else 'NO'}")
    print(f"   {'rank':>4} {'player':10} {'points':>6} {'Buchholz':>9} {'S-B':>7} {'played':>6}  seats")
    for r in rows[:5]:
        print(
            f"   {r['rank']:>4} {r['username']:10} {r['points']:>6.1f} {r['buchholz']:>9.2f} "
            f"{r['sonneborn_berger']:>7.2f} {r['played']:>6}  {r['seats']}"
        )
    if len(rows) > 5:
        print(f"   … {len(rows) - 5} more")


def run(var_dir: Path, database: Database) -> None:
    heading("8. Tournaments: played to the end by bots, paired by the tournament itself")
    env = environment(var_dir, database, SETTINGS)
    migrate(env)
    setup_django(env)
    # Celery's tasks inline, as a worker would run them, whatever settings an earlier section of
    # this process started Django with; deadlines only by the sweep (an inline task cannot wait).
    from celery import current_app
    from django.conf import settings

    current_app.conf.CELERY_TASK_ALWAYS_EAGER = True  # the namespaced name: the app reads Django's settings
    settings.TABULA_QUEUE_TIMERS = False
    print(f"   database: {database.kind} ({database.label}); moves by the {LEVEL} bot through the move service")
    for i, (title, game, shape) in enumerate(CUPS):
        _cup(title, game, shape, f"cup{i}")
