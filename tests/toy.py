"""A tiny engine for platform tests that must not depend on a real game: take 1 or 2 from a pile;
who takes the last counter wins. A `bell` move (any seat, any time) is an interrupt, and a pile at
3 opens a 2-second game timer whose expiry removes one counter."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from rules.base import (
    Effect,
    IllegalMove,
    InvalidMove,
    InvalidOptions,
    MoveField,
    MoveSpec,
    NotAwaited,
    Option,
    Outcome,
    Rules,
    Timer,
)


@dataclass(frozen=True, slots=True)
class State:
    players: int
    pile: int
    current: int
    winner: int | None = None
    resigned: tuple[int, ...] = ()


def parse_config(options: dict[str, Any], players: int) -> dict[str, Any]:
    if set(options) - {"pile", "setup"}:
        raise InvalidOptions("unknown option")
    pile = options.get("pile", 7)
    if type(pile) is not int or not 1 <= pile <= 50:
        raise InvalidOptions("pile must be 1..50")
    return {"players": players, "pile": pile}


def initial_state(config: dict[str, Any], seed: int) -> State:
    return State(players=config["players"], pile=config["pile"], current=0)


def awaiting(s: State) -> frozenset[int]:
    return frozenset() if s.winner is not None else frozenset({s.current})


def legal_moves(s: State, seat: int) -> list[dict[str, Any]]:
    if s.winner is not None or seat in s.resigned:
        return []
    if seat != s.current:
        return []
    return [{"type": "take", "n": n} for n in (1, 2) if n <= s.pile]


def _next(s: State, seat: int) -> int:
    for k in range(1, s.players + 1):
        nxt = (seat + k) % s.players
        if nxt not in s.resigned:
            return nxt
    return seat


def apply(s: State, seat: int, move: dict[str, Any]) -> tuple[State, tuple[Effect, ...]]:
    if seat in s.resigned or seat != s.current:
        raise NotAwaited(f"seat {seat} is not awaited")
    if move["n"] > s.pile:
        raise IllegalMove("too_many", "the pile is smaller than that")
    pile = s.pile - move["n"]
    effects = (
        Effect("took", {"seat": seat, "n": move["n"]}),
        Effect("secret", {"note": "only you"}, frozenset({seat})),
    )
    if pile == 0:
        return replace(s, pile=0, winner=seat), effects
    return replace(s, pile=pile, current=_next(s, seat)), effects


def timeout(s: State, seat: int) -> tuple[State, tuple[Effect, ...]]:
    return apply(s, seat, {"type": "take", "n": 1})


def resign(s: State, seat: int) -> tuple[State, tuple[Effect, ...]]:
    s = replace(s, resigned=(*s.resigned, seat))
    active = [p for p in range(s.players) if p not in s.resigned]
    if len(active) == 1:
        return replace(s, winner=active[0]), (Effect("resigned", {"seat": seat}),)
    return replace(s, current=_next(s, seat) if s.current == seat else s.current), (Effect("resigned", {"seat": seat}),)


def timer(s: State) -> Timer | None:
    return Timer(key=f"bell:{s.pile}", seconds=2) if s.pile == 3 and s.winner is None else None


def expire(s: State) -> tuple[State, tuple[Effect, ...]]:
    return replace(s, pile=s.pile - 1), (Effect("bell_rang", {"deadline": None}),)


def outcome(s: State) -> Outcome | None:
    if s.winner is None:
        return None
    others = frozenset(p for p in range(s.players) if p != s.winner)
    return Outcome(
        frozenset({s.winner}),
        (frozenset({s.winner}), others),
        tuple(int(p == s.winner) for p in range(s.players)),
        "last_counter",
    )


def view(s: State, viewer: int | None, deadline: str | None) -> dict[str, Any]:
    return {
        "game": "toy",
        "phase": "over" if s.winner is not None else "play",
        "pile": s.pile,
        "current": s.current,
        "timer_deadline": deadline,
        "seats": [{"seat": p, "resigned": p in s.resigned} for p in range(s.players)],
    }


def parse_move(data: Any) -> dict[str, Any]:
    if (
        not isinstance(data, dict)
        or data.get("type") != "take"
        or set(data) != {"type", "n"}
        or data["n"] not in (1, 2)
    ):
        raise InvalidMove("a move is {type: take, n: 1|2}")
    return dict(data)


def parse_state(data: dict[str, Any]) -> State:
    return State(**{**data, "resigned": tuple(data["resigned"])})


def dump_state(s: State) -> dict[str, Any]:
    return {
        "players": s.players,
        "pile": s.pile,
        "current": s.current,
        "winner": s.winner,
        "resigned": list(s.resigned),
    }


def determinize(v: dict[str, Any], seat: int, gen: random.Random) -> State:
    raise NotImplementedError


RULES = Rules(
    name="toy",
    title="Toy",
    version=1,
    seats=range(2, 5),
    max_moves=200,
    options=(Option("pile", "integer", 7, "counters", minimum=1, maximum=50),),
    moves=(MoveSpec("take", "take counters", (MoveField("n", "integer", minimum=1, maximum=2),)),),
    parse_config=parse_config,
    setup=lambda config, seed: (initial_state(config, seed), ()),
    awaiting=awaiting,
    legal_moves=legal_moves,
    view=view,
    outcome=outcome,
    apply=apply,
    timeout=timeout,
    resign=resign,
    parse_move=parse_move,
    dump_move=dict,
    parse_state=parse_state,
    dump_state=dump_state,
    invariant_violations=lambda s: [],
    determinize=determinize,
    heuristic=lambda s, seat: 0.0,
    timer=timer,
    expire=expire,
)
