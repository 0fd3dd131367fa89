"""Build long matches fast, with the records the services would have written.

The match is created and filled through ``games.services`` (so its ``created``, ``seat_taken`` and
``started`` records, its seats and its seed are the real thing). Its later records come from random
playouts through the engine (`bench.engines.choose`), found in memory first (the longest of a few
attempts), then written through the same path as every live input: ``play.inputs_play`` runs
each through ``play.apply_input`` in one transaction (records, clocks, timer, status and result exactly as a
live match gets them). Each built match is checked: a full replay from the database equals the
playout's final state.

Import this module only after ``django.setup()``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from accounts.models import User
from accounts.services import token_for
from bench.common import median
from bench.engines import Choice, choose, transition
from games import replay
from games.models import Match, Record
from games.services import lobby, play
from rules.base import Effect, Rules, Timer

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
        out.append(Person(user, token_for(user)))
    return out


def build(spec: Spec, seated: list[Person], seed: int) -> Built:
    """Create the match through the services, then append records up to ``spec.records``."""
    match = lobby.match_create(user=seated[0].user, game=spec.game, players=spec.players, options=dict(spec.options))
    for person in seated[1 : spec.players]:
        lobby.match_join(match_id=match.id, user=person.user)
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
    """Write ``steps`` through the services' one input path, in one transaction."""
    if not steps:
        return
    inputs = [(step.choice.input(), ACTORS[step.choice.kind]) for step in steps]
    play.inputs_play(match_id=match.id, inputs=inputs)
    match.refresh_from_db()


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
