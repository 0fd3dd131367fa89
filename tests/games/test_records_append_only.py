"""Records are append-only: every path that writes one INSERTs it complete; none is UPDATEd or DELETEd.

Every SQL statement sent while real matches of every game run through the services (the start,
moves by players and bots, seat timeouts, the game timer's expiry, a resignation, a bot taking a
seat over, a rematch, an abort) is watched; one that updates or deletes a ``games_record`` row fails
the test.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games import selectors
from games.models import Match, Record
from games.services import deadlines, lobby, operators, play
from games.tasks import deadlines_sweep
from rules import RULES

pytestmark = pytest.mark.django_db

TABLE = Record._meta.db_table
_NAME = rf"""["`]?{TABLE}["`]?(\s|$)"""
# Anywhere in a statement, not only at its start: a record may be inserted in a data-modifying CTE
# (``WITH i AS (INSERT INTO games_record …) UPDATE games_match …``, `core.sql.insert_and_update`).
CHANGES_A_RECORD = re.compile(  # an UPDATE, a DELETE, or an upsert (INSERT … ON CONFLICT … DO UPDATE)
    rf"\b(UPDATE\s+{_NAME}|DELETE\s+FROM\s+{_NAME}|INSERT\s+INTO\s+{_NAME}.*\sDO\s+UPDATE\s)",
    re.IGNORECASE | re.DOTALL,
)
INSERTS_A_RECORD = re.compile(rf"\bINSERT\s+INTO\s+{_NAME}", re.IGNORECASE)
MOVES_BEFORE_RESIGNING = 120  # ann's moves; then she resigns if the game is still on
MAX_TURNS = 2000


class Watch:
    """What was sent to the database: statements that change a record, and how many records were inserted."""

    def __init__(self) -> None:
        self.changes: list[str] = []
        self.inserts = 0

    def __call__(self, execute, sql, params, many, context):
        if CHANGES_A_RECORD.search(sql):
            self.changes.append(sql)
        elif inserts := len(INSERTS_A_RECORD.findall(sql)):
            self.inserts += len(params) * inserts if many else inserts
        return execute(sql, params, many, context)


@contextmanager
def watched() -> Iterator[Watch]:
    watch = Watch()
    with connection.execute_wrapper(watch):
        yield watch


@pytest.fixture
def clock(monkeypatch):
    """A settable now: ``clock.advance(seconds)`` moves every service's time on."""

    class Clock:
        now = timezone.now()

        def advance(self, seconds: float) -> None:
            self.now += timedelta(seconds=seconds)

    c = Clock()
    monkeypatch.setattr(timezone, "now", lambda: c.now)
    return c


def test_the_watch_sees_a_record_update_and_a_delete(make_user):
    ann = make_user("ann")
    with watched() as watch:
        match = lobby.match_create(user=ann, game="ekko", players=2)
        Record.objects.filter(match=match, seq=1).update(data={})
        Record.objects.filter(match=match, seq=2).delete()
    assert watch.inserts == 2
    assert len(watch.changes) == 2


def test_the_watch_sees_records_inside_a_cte():
    watch = Watch()
    run = lambda sql: watch(lambda *args: None, sql, [], False, None)  # noqa: E731
    run(f'WITH i AS (INSERT INTO "{TABLE}" ("seq") VALUES (%s) RETURNING "id") UPDATE "games_match" SET "version" = %s')
    assert (watch.inserts, watch.changes) == (1, [])
    run(f'WITH d AS (DELETE FROM "{TABLE}" WHERE "seq" = %s RETURNING 1) SELECT 1')
    run(f'WITH u AS (UPDATE {TABLE} SET "data" = %s RETURNING 1) SELECT 1')
    assert len(watch.changes) == 2


@pytest.mark.parametrize("game", list(RULES))
def test_a_match_against_a_bot_never_updates_a_record(game, make_user, clock, django_capture_on_commit_callbacks):
    """ann plays (and lets her clock run out now and then) against a random bot until the end.

    What follows each commit runs (the bot's turns, the timers' bookkeeping), as on a worker.
    """
    ann = make_user("ann")
    rnd = random.Random(f"append-only:{game}")
    with watched() as watch:
        with django_capture_on_commit_callbacks(execute=True):
            match = lobby.match_create(
                user=ann,
                game=game,
                players=2,
                options={"reaction_window_s": 30} if game == "ekko" else {},  # a window may expire
                bots=[{"seat": 1, "level": "random"}],
                time_control={"per_move_s": 60},
            )
        moves = 0
        for _ in range(MAX_TURNS):
            match.refresh_from_db()
            if match.status != Match.Status.ACTIVE:
                break
            state = selectors.match_state_view(match, 0)
            with django_capture_on_commit_callbacks(execute=True):
                if 0 in state["awaiting"] and state["legal_moves"] and rnd.random() < 0.9:
                    if moves >= MOVES_BEFORE_RESIGNING:
                        play.match_resign(match_id=match.id, user=ann)
                    else:
                        move = rnd.choice(state["legal_moves"])
                        play.move_submit(match_id=match.id, user=ann, move=move, expected_version=state["version"])
                        moves += 1
                else:  # her clock or the game's timer runs out: the sweep applies it and wakes the bot
                    clock.advance(61)
                    deadlines_sweep()
        else:
            pytest.fail(f"the {game} match did not end within {MAX_TURNS} turns")
    types = set(Record.objects.filter(match=match).values_list("type", flat=True))
    assert {"started", "move", "timeout"} <= types
    assert watch.inserts == match.version == Record.objects.filter(match=match).count()
    assert watch.changes == []


def test_lifecycle_records_are_only_inserted(make_user, clock):
    """A game timer stamped into the effects that open it, its expiry, a timeout and a bot taking
    the seat over, a resignation, a rematch, joining, leaving, an abort: records are only added."""
    ann, ben, cy = make_user("ann"), make_user("ben"), make_user("cy")
    last_card = {"dealer": 1, "hands": [[40], [5]], "start": 37}  # ann's 40 empties her hand
    with watched() as watch:
        match = lobby.match_create(
            user=ann,
            game="ekko",
            players=2,
            options={"setup": last_card, "reaction_window_s": 30},
            time_control={"per_move_s": 60, "bot_after": 1},
        )
        match = lobby.match_join(match_id=match.id, user=ben)
        play.move_submit(match_id=match.id, user=ann, move={"type": "play", "card": 40}, expected_version=4)
        clock.advance(31)
        deadlines.deadlines_process(match_id=match.id)  # the reaction window expires
        clock.advance(61)
        deadlines.deadlines_process(match_id=match.id)  # an awaited seat times out: a bot takes it over
        taken = Record.objects.get(match=match, type=Record.Type.BOT_TOOK_OVER).seat
        human = ben if taken == 0 else ann
        play.match_resign(match_id=match.id, user=human)
        lobby.match_rematch(match_id=match.id, user=human)
        other = lobby.match_create(user=ann, game="enka", players=3)
        lobby.match_join(match_id=other.id, user=cy)
        lobby.match_leave(match_id=other.id, user=cy)
        operators.match_abort(match_id=other.id, reason="test")
    opened = Record.objects.get(match=match, seq=5)
    window = next(e for e in opened.effects if e["kind"] == "reaction_opened")
    assert window["data"]["deadline"] is not None  # stamped before the one INSERT
    types = list(Record.objects.filter(match=match).values_list("type", flat=True))
    assert {"expired", "timeout", "bot_took_over", "resigned"} <= set(types)
    assert Record.objects.filter(match=other, type=Record.Type.ABORTED).count() == 1
    assert Match.objects.filter(rematch_of=match).exists()
    assert watch.inserts == Record.objects.count()
    assert watch.changes == []
