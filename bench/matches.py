"""Build long matches fast, with the records the services would have written.

The match is created and filled through ``games.services`` (so its ``created``, ``seat_taken`` and
``started`` records, its seats and its seed are the real thing). Its later records come from random
playouts through the engine (`bench.engines.choose`) and are bulk-inserted as ``move_submit`` /
``deadlines_process`` write them: the parsed move dumped, the effects as JSON with the game timer's
deadline stamped in, then ``Match.version``, ``awaiting``, the timer and the status (and the result,
when the game ended). Each built match is checked: a full replay from the database equals the
playout's final state.

Import this module only after ``django.setup()``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from accounts.models import User
from accounts.services import ratings_update
from bench.common import median
from bench.engines import Choice, choose, transition
from games import replay, services
from games.engines.base import Effect, Rules, Timer
from games.models import Match, Record

ATTEMPTS = 10  # random playouts tried per match before settling for the longest
REPLAYS = 5  # full replays timed per match
ACTORS = {"move": Record.Actor.PLAYER, "timeout": Record.Actor.TIMEOUT, "expired": Record.Actor.TIMEOUT}

AnyRules = Rules[Any, Any, Any]


@dataclass(frozen=True)
class Spec:
    game: str
    players: int
    options: dict[str, Any] = field(hash=False)
    records: int  # the match's version once built, if a game lasts that long


@dataclass(frozen=True)
class Person:
    user: User
    token: str


@dataclass(frozen=True)
class Built:
    spec: Spec
    match_id: str
    records: int
    status: str
    replay_per_record: float  # seconds: full replay from rows in memory / records


@dataclass(frozen=True)
class _Step:
    choice: Choice
    effects: tuple[Effect, ...]
    timer: Timer | None  # the game timer after this record


def people(count: int) -> list[Person]:
    """``count`` accounts with tokens (no password: nobody logs in with one)."""
    out = []
    for i in range(count):
        user = User(username=f"bench-reader-{i}")
        user.set_unusable_password()
        user.save()
        out.append(Person(user, Token.objects.create(user=user).key))
    return out


def build(spec: Spec, seated: list[Person], seed: int) -> Built:
    """Create the match through the services, then append records up to ``spec.records``."""
    match = services.match_create(user=seated[0].user, game=spec.game, players=spec.players, options=dict(spec.options))
    for person in seated[1 : spec.players]:
        services.match_join(match_id=match.id, user=person.user)
    match = Match.objects.get(id=match.id)
    rules = replay.rules_for(match)
    steps, final = _longest_playout(rules, replay.full_replay(match), spec.records - match.version, seed)
    _append(match, rules, steps, final)
    return Built(spec, match.id, match.version, match.status, _replay_cost(match, rules, final))


def _playout(rules: AnyRules, state: Any, needed: int, rng: random.Random) -> tuple[list[_Step], Any]:
    steps: list[_Step] = []
    while len(steps) < needed and rules.outcome(state) is None:
        choice = choose(rules, state, rng)
        state, effects = transition(rules, state, choice)
        steps.append(_Step(choice, effects, rules.timer(state)))
    return steps, state


def _longest_playout(rules: AnyRules, start: Any, needed: int, seed: int) -> tuple[list[_Step], Any]:
    """The first playout that reaches ``needed`` records, else the longest of ATTEMPTS (a finished game)."""
    best: tuple[list[_Step], Any] | None = None
    for attempt in range(ATTEMPTS):
        steps, final = _playout(rules, start, needed, random.Random(seed * ATTEMPTS + attempt))
        if len(steps) >= needed:
            return steps, final
        if best is None or len(steps) > len(best[0]):
            best = (steps, final)
    assert best is not None
    return best


def _append(match: Match, rules: AnyRules, steps: list[_Step], final: Any) -> None:
    """Write ``steps`` as records and bring the match row up to date, in one transaction."""
    now = timezone.now()
    rows = []
    timer_key, timer_deadline = match.timer_key, match.timer_deadline
    for seq, step in enumerate(steps, start=match.version + 1):
        effects = [e.to_json() for e in step.effects]
        timer_key, timer_deadline = _stamp_timer(effects, step.timer, timer_key, timer_deadline, now)
        move = rules.dump_move(step.choice.move) if step.choice.kind == "move" else None
        rows.append(
            Record(
                match=match,
                seq=seq,
                type=step.choice.kind,
                seat=step.choice.seat,
                actor=ACTORS[step.choice.kind],
                move=move,
                effects=effects,
                data={},
                at=now,
            )
        )
    outcome = rules.outcome(final)
    with transaction.atomic():
        Record.objects.bulk_create(rows, batch_size=500)
        match.version += len(rows)
        match.awaiting = sorted(rules.awaiting(final))
        match.updated_at = now
        match.timer_key, match.timer_deadline = timer_key, timer_deadline
        if outcome is not None:
            match.status, match.finished_at, match.result = Match.Status.FINISHED, now, outcome.to_json()
            match.timer_key, match.timer_deadline = "", None
        match.save()
        if outcome is not None:
            ratings_update(match)


def _stamp_timer(
    effects: list[dict[str, Any]], timer: Timer | None, key: str, deadline: datetime | None, now: datetime
) -> tuple[str, datetime | None]:
    """As ``services._timer_update``: a new timer key starts a countdown, stamped into its effects."""
    if timer is None:
        return "", None
    if timer.key == key:
        return key, deadline
    deadline = now + timedelta(seconds=timer.seconds)
    for effect in effects:
        if effect["data"].get("deadline", 0) is None:
            effect["data"]["deadline"] = deadline.isoformat()
    return timer.key, deadline


def _replay_cost(match: Match, rules: AnyRules, final: Any) -> float:
    """Seconds per record of a full replay of the stored log (rows fetched once, outside the timing)."""
    rows = list(Record.objects.filter(match_id=match.id).order_by("seq").values_list("type", "seat", "move"))
    times = []
    state = None
    for _ in range(REPLAYS):
        started = time.perf_counter()
        state = replay.replay(match, rows)
        times.append(time.perf_counter() - started)
    if rules.dump_state(state) != rules.dump_state(final):
        raise RuntimeError(f"match {match.id}: the stored records do not replay to the playout's state")
    return median(times) / len(rows)
