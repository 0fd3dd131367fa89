"""The one interpreter of the Ecos effect language (ecos.md §B8): options, choices and their application.

Every card's steps run through `options` (the legal choices of one iteration of a
placement-type step, in canonical order), `apply_choice` and `score_value`. The
interpreter works on an `Env`: the mutable map, supplies, binds and removed
animals of the transition in progress, never on the frozen state itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

from games.engines.ecos.board import (
    LAND,
    SPECIES,
    Hex,
    Tile,
    canon,
    count,
    empty_hex_ok,
    frontier,
    hex_key,
    matches,
    neighbours,
    parse_hex,
    region_ok,
)
from games.engines.ecos.cards import Step

SHAPES = {"add_tile": "hex", "add_animal": "animal", "move_animal": "move"}  # §B8.1 answer shapes; the rest: "tile"


class Env(Protocol):
    """What the interpreter reads and changes during one transition."""

    board: dict[Hex, Tile]
    land: int
    water: int
    mountains: int
    forests: int
    animals: dict[str, int]
    binds: dict[str, frozenset[Hex]]
    removed: list[str]


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer to `effect_choice` (§B8.1 table): a hex, a tile, a tile and species, or a from/to pair."""

    shape: str  # hex | tile | animal | move
    at: Hex
    to: Hex | None = None
    species: str | None = None

    def to_json(self) -> dict[str, str]:
        if self.shape == "hex":
            return {"hex": hex_key(self.at)}
        if self.shape == "tile":
            return {"tile": hex_key(self.at)}
        if self.shape == "animal":
            assert self.species is not None
            return {"tile": hex_key(self.at), "species": self.species}
        assert self.to is not None
        return {"from": hex_key(self.at), "to": hex_key(self.to)}


def choice_from_json(raw: Any) -> Choice:
    """Parse a `choice` object; raises ValueError when it has none of the §B8.1 shapes."""
    if not isinstance(raw, dict):
        raise ValueError("choice must be an object")
    keys = set(raw)
    if keys == {"hex"}:
        return Choice("hex", parse_hex(raw["hex"]))
    if keys == {"tile"}:
        return Choice("tile", parse_hex(raw["tile"]))
    if keys == {"tile", "species"}:
        if raw["species"] not in SPECIES:
            raise ValueError(f"unknown species {raw['species']!r}")
        return Choice("animal", parse_hex(raw["tile"]), species=raw["species"])
    if keys == {"from", "to"}:
        return Choice("move", parse_hex(raw["from"]), parse_hex(raw["to"]))
    raise ValueError(f"choice has none of the shapes hex / tile / tile+species / from+to: {sorted(keys)}")


def _with(board: dict[Hex, Tile], changes: dict[Hex, Tile]) -> dict[Hex, Tile]:
    """A copy of the map with ``changes`` applied (a trial; a dict copy is cheaper than an overlay)."""
    trial = board.copy()
    trial.update(changes)
    return trial


def _in_order(board: dict[Hex, Tile]) -> list[Hex]:
    """Map hexes in canonical order."""
    return sorted(board, key=canon)


def options(env: Env, step: Step) -> list[Choice]:
    """The legal choices of one iteration of a placement-type step on the current map (§B8.3)."""
    board, binds, where = env.board, env.binds, step.where
    op = step.op
    out: list[Choice] = []
    if op == "add_tile":
        if (env.water if step.terrain == "water" else env.land) <= 0:
            return out
        new = Tile(step.terrain)
        for h in frontier(board):
            if empty_hex_ok(board, h, where, binds) and region_ok(_with(board, {h: new}), (h,)):
                out.append(Choice("hex", h))
        return out
    if op == "move_animal":
        return _move_options(env, step)
    for h in _in_order(board):
        t = board[h]
        if op == "add_animal":
            if t.animal is not None or not matches(board, h, t, where, binds):
                continue
            assert step.species is not None
            for sp in step.species:
                if env.animals[sp] > 0 and region_ok(_with(board, {h: replace(t, animal=sp)}), (h,)):
                    out.append(Choice("animal", h, species=sp))
            continue
        new = _changed_tile(env, step, t)
        if new is not None and matches(board, h, t, where, binds) and region_ok(_with(board, {h: new}), (h,)):
            out.append(Choice("tile", h))
    return out


def _changed_tile(env: Env, step: Step, t: Tile) -> Tile | None:
    """The tile after a one-tile op, or None when the op cannot touch this tile at all."""
    op = step.op
    if op == "flip_tile":
        return replace(t, terrain=step.dst) if t.terrain == step.src else None
    if op == "convert_tile":
        stock = env.water if step.dst == "water" else env.land
        return replace(t, terrain=step.dst) if t.terrain == step.src and stock > 0 else None
    if op == "add_mountain":
        return replace(t, mountain=True) if env.mountains > 0 and t.terrain in LAND and not t.mountain else None
    if op == "add_forest":
        return replace(t, forests=t.forests + 1) if env.forests > 0 else None  # capacity: region_ok
    if op == "remove_forest":
        return replace(t, forests=t.forests - 1) if t.forests > 0 else None
    if op == "remove_animal":
        assert step.species is not None
        return replace(t, animal=None) if t.animal in step.species else None
    raise ValueError(f"not a one-tile op: {op}")


def _move_options(env: Env, step: Step) -> list[Choice]:
    """move_animal options: (from, to) pairs, one step, habitat kept (§B8.3)."""
    board, binds = env.board, env.binds
    out: list[Choice] = []
    for a in _in_order(board):
        ta = board[a]
        if ta.animal is None or (step.species is not None and ta.animal not in step.species):
            continue
        if not matches(board, a, ta, step.move_from, binds):
            continue
        for b in sorted(neighbours(a), key=canon):
            tb = board.get(b)
            if tb is None or tb.animal is not None or not matches(board, b, tb, step.move_to, binds):
                continue
            trial = _with(board, {a: replace(ta, animal=None), b: replace(tb, animal=ta.animal)})
            if region_ok(trial, (a, b)):
                out.append(Choice("move", a, b))
    return out


def _bind(env: Env, step: Step, h: Hex) -> None:
    """Remember ``h`` under the step's bind name (§B8.1)."""
    if step.bind is not None:
        env.binds[step.bind] = env.binds.get(step.bind, frozenset()) | {h}


def apply_choice(env: Env, step: Step, choice: Choice) -> tuple[str, dict[str, Any]]:
    """Apply one legal choice; returns the public effect (kind, data) that reports it."""
    board, op, h = env.board, step.op, choice.at
    if op == "add_tile":
        board[h] = Tile(step.terrain)
        if step.terrain == "water":
            env.water -= 1
        else:
            env.land -= 1
        _bind(env, step, h)
        return "tile_added", {"hex": hex_key(h), "terrain": step.terrain}
    if op == "move_animal":
        assert choice.to is not None
        ta = board[h]
        board[h] = replace(ta, animal=None)
        board[choice.to] = replace(board[choice.to], animal=ta.animal)
        _bind(env, step, choice.to)
        return "animal_moved", {"from": hex_key(h), "to": hex_key(choice.to), "species": ta.animal}
    t = board[h]
    _bind(env, step, h)
    if op == "add_animal":
        assert choice.species is not None
        board[h] = replace(t, animal=choice.species)
        env.animals[choice.species] -= 1
        return "animal_added", {"tile": hex_key(h), "species": choice.species}
    new = _changed_tile(env, step, t)
    assert new is not None
    board[h] = new
    if op == "flip_tile":
        return "tile_flipped", {"tile": hex_key(h), "from": step.src, "to": step.dst}
    if op == "convert_tile":
        if step.dst == "water":
            env.water, env.land = env.water - 1, env.land + 1
        else:
            env.water, env.land = env.water + 1, env.land - 1
        return "tile_converted", {"tile": hex_key(h), "from": step.src, "to": step.dst}
    if op == "add_mountain":
        env.mountains -= 1
        return "mountain_added", {"tile": hex_key(h)}
    if op == "add_forest":
        env.forests -= 1
        return "forest_added", {"tile": hex_key(h)}
    if op == "remove_forest":
        env.forests += 1
        return "forest_removed", {"tile": hex_key(h)}
    assert t.animal is not None  # remove_animal
    env.animals[t.animal] += 1
    env.removed.append(t.animal)
    return "animal_removed", {"tile": hex_key(h), "species": t.animal}


def score_value(env: Env, step: Step) -> int:
    """VP of a `score` step now (§B8.3): ``vp``, or min(Σ count × each, max); never negative."""
    if step.vp is not None:
        return max(0, step.vp)
    total = sum(count(env.board, t.count, env.removed, env.binds) * t.each for t in step.terms)
    if step.max is not None:
        total = min(total, step.max)
    return max(0, total)


def default_choice(env: Env, step: Step) -> Choice | None:
    """The timeout default of §B8.1: the first canonical option of a non-optional step, else stop."""
    if step.optional:
        return None
    opts = options(env, step)
    return opts[0] if opts else None
