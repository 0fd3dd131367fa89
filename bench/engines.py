"""Section 1: the rules engines in-process (pure: no database, no HTTP).

For every registered engine, random 4-player playouts with the default options: a random awaited
seat that has legal moves plays a random one of them; when no awaited seat has a move,
``rules.base.fallback`` decides (the game's timer expires if one is open, else the lowest
awaited seat times out), and every record goes through ``base.step``. Each call is timed on its
own: apply cost per record, ``legal_moves``, and a whole game. `choose` and `transition` are shared
with the read benchmark, which builds its matches the same way.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.common import heading, median, ms, us
from rules import RULES
from rules.base import Effect, Expired, Input, Moved, Rules, TimedOut, fallback, step

PLAYERS = 4
GAMES = 12  # playouts per engine
RECORD_CAP = 100_000  # a guard: every engine terminates far sooner
EKO_MIDGAME_TURNS = 200  # half of Ekö's default turn cap
EKO_GAMES = 3
REPEAT = 50  # timings of one legal_moves call on a fixed position

AnyRules = Rules[Any, Any, Any]
LegalMoves = Callable[[Any, int], Sequence[Any]]


@dataclass(frozen=True)
class Choice:
    """One input of a playout, as the record it becomes (``bench.matches`` writes these)."""

    kind: str  # a Record.Type: "move", "timeout" or "expired"
    seat: int | None
    move: Any = None

    @classmethod
    def of(cls, given: Input) -> Choice:
        if isinstance(given, Moved):
            return cls(given.record, given.seat, given.move)
        if isinstance(given, TimedOut):
            return cls(given.record, given.seat)
        assert isinstance(given, Expired), given
        return cls(given.record, None)

    def input(self) -> Input:
        if self.kind == Moved.record:
            assert self.seat is not None
            return Moved(self.seat, self.move)
        if self.kind == TimedOut.record:
            assert self.seat is not None
            return TimedOut(self.seat)
        return Expired()


def choose(rules: AnyRules, state: Any, rng: random.Random, legal_moves: LegalMoves | None = None) -> Choice:
    """A random legal move of a random awaited seat; else what `base.fallback` says (the open timer
    expires, or the lowest awaited seat times out)."""
    legal = legal_moves or rules.legal_moves
    seats = sorted(rules.awaiting(state))
    rng.shuffle(seats)
    for seat in seats:
        moves = legal(state, seat)
        if moves:
            return Choice("move", seat, moves[rng.randrange(len(moves))])
    given = fallback(rules, state)
    assert given is not None, "an awaited seat without legal moves, and nothing moves the game on"
    return Choice.of(given)


def transition(rules: AnyRules, state: Any, choice: Choice) -> tuple[Any, tuple[Effect, ...]]:
    """The record ``choice`` applied (`base.step`)."""
    return step(rules, state, choice.input())


@dataclass
class Timings:
    apply: list[float] = field(default_factory=list)  # seconds per record
    legal: list[float] = field(default_factory=list)  # seconds per legal_moves call
    games: list[float] = field(default_factory=list)  # seconds per whole game
    records: list[int] = field(default_factory=list)  # records per game
    kinds: Counter[str] = field(default_factory=Counter)


def timed_game(rules: AnyRules, seed: int, into: Timings) -> None:
    """Play one random 4-player game from ``seed``, timing every call into ``into``."""
    clock = time.perf_counter
    state, _ = rules.setup(rules.parse_config({}, PLAYERS), seed)
    rng = random.Random(seed)

    def legal(state: Any, seat: int) -> Sequence[Any]:
        started = clock()
        moves = rules.legal_moves(state, seat)
        into.legal.append(clock() - started)
        return moves

    records = 0
    started_game = clock()
    while rules.outcome(state) is None and records < RECORD_CAP:
        choice = choose(rules, state, rng, legal)
        started = clock()
        state, _ = transition(rules, state, choice)
        into.apply.append(clock() - started)
        into.kinds[choice.kind] += 1
        records += 1
    into.games.append(clock() - started_game)
    into.records.append(records)


def eko_crowded() -> tuple[float, str]:
    """Median ``legal_moves`` time in a crowded Ekö mid-game position, and what the position is.

    Random games are played up to turn EKO_MIDGAME_TURNS; the position where the awaited seat has
    the most legal moves (tall stacks and buildings everywhere) is kept.
    """
    rules = RULES["eko"]
    best: tuple[int, Any, int] | None = None
    for seed in range(EKO_GAMES):
        state, _ = rules.setup(rules.parse_config({}, PLAYERS), 1000 + seed)
        rng = random.Random(seed)
        while rules.outcome(state) is None and state.turn <= EKO_MIDGAME_TURNS:
            for seat in rules.awaiting(state):
                count = len(rules.legal_moves(state, seat))
                if best is None or count > best[0]:
                    best = (count, state, seat)
            state, _ = transition(rules, state, choose(rules, state, rng))
    assert best is not None
    count, state, seat = best
    times = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        rules.legal_moves(state, seat)
        times.append(time.perf_counter() - started)
    stacks = sum(s is not None for s in state.stacks)
    buildings = sum(b is not None for b in state.buildings)
    return median(times), f"turn {state.turn}, {stacks} stacks, {buildings} buildings, {count} legal moves"


def run() -> None:
    heading(f"1. Engines (pure, in-process): {GAMES} random {PLAYERS}-player games each, default options")
    print("   target (bench/README.md): applying a record costs at most 20 µs for the card games")
    print(
        f"   {'game':6} {'apply/record':>13} {'legal_moves':>12} {'full game':>10} {'records/game':>13}"
        "  kinds of record, all games"
    )
    for name, rules in RULES.items():
        timings = Timings()
        for seed in range(GAMES):
            timed_game(rules, seed, timings)
        kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(timings.kinds.items()))
        print(
            f"   {name:6} {us(median(timings.apply)):>13} {us(median(timings.legal)):>12}"
            f" {ms(median(timings.games)):>10} {median(timings.records):>13.0f}  {kinds}",
            flush=True,
        )
    if "eko" in RULES:
        seconds, where = eko_crowded()
        print(f"   eko legal_moves in a crowded mid-game position: {us(seconds)} ({where})")
