"""The one interpreter of the Ecos effect language (docs/rules/ecos.md §B8): options, choices and their application.

Every card's steps run through `options` (the legal choices of one iteration of a
placement-type step, in canonical order), `apply_choice` and `score_value`. The
interpreter reads the frozen `State` (its map, supplies, binds and removed animals);
`apply_choice` returns the changed `State` fields, for the caller's `Draft`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.ecos.board import (
    LAND,
    Hex,
    Tile,
    canon,
    count,
    empty_hex_ok,
    frontier,
    hex_key,
    matches,
    neighbours,
    region_ok,
)
from rules.ecos.cards import SPECIES_IDS, Step
from rules.ecos.model import Choice, State

SHAPES = {"add_tile": "hex", "add_animal": "animal", "move_animal": "move"}  # §B8.1 answer shapes; the rest: "tile"


def _board(state: State) -> dict[Hex, Tile]:
    """The map as a dict."""
    return dict(state.tiles)


def _binds(state: State) -> dict[str, frozenset[Hex]]:
    """§B8.1 `bind`s of the card resolving now, by name."""
    return {k: frozenset(v) for k, v in state.binds}


def _with(board: dict[Hex, Tile], changes: dict[Hex, Tile]) -> dict[Hex, Tile]:
    """A copy of the map with ``changes`` applied (a trial; a dict copy is cheaper than an overlay)."""
    trial = board.copy()
    trial.update(changes)
    return trial


def _in_order(board: dict[Hex, Tile]) -> list[Hex]:
    """Map hexes in canonical order."""
    return sorted(board, key=canon)


def options(state: State, step: Step) -> list[Choice]:
    """The legal choices of one iteration of a placement-type step on the current map (§B8.3)."""
    board, binds, where = _board(state), _binds(state), step.where
    op = step.op
    out: list[Choice] = []
    if op == "add_tile":
        if (state.water if step.terrain == "water" else state.land) <= 0:
            return out
        new = Tile(step.terrain)
        for h in frontier(board):
            if empty_hex_ok(board, h, where, binds) and region_ok(_with(board, {h: new}), (h,)):
                out.append(Choice("hex", h))
        return out
    if op == "move_animal":
        return _move_options(board, binds, step)
    animals = dict(zip(SPECIES_IDS, state.animal_supply, strict=True))
    for h in _in_order(board):
        t = board[h]
        if op == "add_animal":
            if t.animal is not None or not matches(board, h, t, where, binds):
                continue
            assert step.species is not None
            for sp in step.species:
                if animals[sp] > 0 and region_ok(_with(board, {h: replace(t, animal=sp)}), (h,)):
                    out.append(Choice("animal", h, species=sp))
            continue
        changed = _changed_tile(state, step, t)
        if changed is not None and matches(board, h, t, where, binds) and region_ok(_with(board, {h: changed}), (h,)):
            out.append(Choice("tile", h))
    return out


def _changed_tile(state: State, step: Step, t: Tile) -> Tile | None:
    """The tile after a one-tile op, or None when the op cannot touch this tile at all."""
    op = step.op
    if op == "flip_tile":
        return replace(t, terrain=step.dst) if t.terrain == step.src else None
    if op == "convert_tile":
        stock = state.water if step.dst == "water" else state.land
        return replace(t, terrain=step.dst) if t.terrain == step.src and stock > 0 else None
    if op == "add_mountain":
        return replace(t, mountain=True) if state.mountains > 0 and t.terrain in LAND and not t.mountain else None
    if op == "add_forest":
        return replace(t, forests=t.forests + 1) if state.forests > 0 else None  # capacity: region_ok
    if op == "remove_forest":
        return replace(t, forests=t.forests - 1) if t.forests > 0 else None
    if op == "remove_animal":
        assert step.species is not None
        return replace(t, animal=None) if t.animal in step.species else None
    raise ValueError(f"not a one-tile op: {op}")


def _move_options(board: dict[Hex, Tile], binds: dict[str, frozenset[Hex]], step: Step) -> list[Choice]:
    """move_animal options: (from, to) pairs, one step, habitat kept (§B8.3)."""
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


def apply_choice(state: State, step: Step, choice: Choice) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """Apply one legal choice: the changed `State` fields, and the public effect (kind, data) that reports it."""
    board, op, h = _board(state), step.op, choice.at
    changes: dict[str, Any] = {}
    data: dict[str, Any]
    bound = h
    if op == "add_tile":
        board[h] = Tile(step.terrain)
        if step.terrain == "water":
            changes["water"] = state.water - 1
        else:
            changes["land"] = state.land - 1
        kind, data = "tile_added", {"hex": hex_key(h), "terrain": step.terrain}
    elif op == "move_animal":
        assert choice.to is not None
        ta = board[h]
        board[h] = replace(ta, animal=None)
        board[choice.to] = replace(board[choice.to], animal=ta.animal)
        bound = choice.to
        kind, data = "animal_moved", {"from": hex_key(h), "to": hex_key(choice.to), "species": ta.animal}
    elif op == "add_animal":
        assert choice.species is not None
        board[h] = replace(board[h], animal=choice.species)
        changes["animal_supply"] = _animals(state, choice.species, -1)
        kind, data = "animal_added", {"tile": hex_key(h), "species": choice.species}
    elif op == "remove_animal":
        t = board[h]
        assert t.animal is not None
        board[h] = replace(t, animal=None)
        changes["animal_supply"] = _animals(state, t.animal, +1)
        changes["removed"] = (*state.removed, t.animal)
        kind, data = "animal_removed", {"tile": hex_key(h), "species": t.animal}
    else:
        new = _changed_tile(state, step, board[h])
        assert new is not None
        board[h] = new
        data = {"tile": hex_key(h)}  # mountains and forests
        if op == "flip_tile":
            kind, data = "tile_flipped", {"tile": hex_key(h), "from": step.src, "to": step.dst}
        elif op == "convert_tile":
            turn = 1 if step.dst == "water" else -1  # to water: a water tile from its stack, the land tile back
            changes["water"], changes["land"] = state.water - turn, state.land + turn
            kind, data = "tile_converted", {"tile": hex_key(h), "from": step.src, "to": step.dst}
        elif op == "add_mountain":
            changes["mountains"] = state.mountains - 1
            kind = "mountain_added"
        elif op == "add_forest":
            changes["forests"] = state.forests - 1
            kind = "forest_added"
        else:  # remove_forest
            changes["forests"] = state.forests + 1
            kind = "forest_removed"
    changes["tiles"] = tuple(sorted(board.items(), key=lambda kv: canon(kv[0])))
    if step.bind is not None:  # §B8.1: remember the hex under the step's bind name
        binds = _binds(state)
        binds[step.bind] = binds.get(step.bind, frozenset()) | {bound}
        changes["binds"] = tuple((k, tuple(sorted(v, key=canon))) for k, v in sorted(binds.items()))
    return changes, kind, data


def _animals(state: State, species: str, delta: int) -> tuple[int, ...]:
    """The animal supply with ``delta`` more of ``species``."""
    i = SPECIES_IDS.index(species)
    supply = state.animal_supply
    return (*supply[:i], supply[i] + delta, *supply[i + 1 :])


def score_value(state: State, step: Step) -> int:
    """VP of a `score` step now (§B8.3): ``vp``, or min(Σ count × each, max); never negative."""
    if step.vp is not None:
        return max(0, step.vp)
    board, binds = _board(state), _binds(state)
    total = sum(count(board, t.count, state.removed, binds) * t.each for t in step.terms)
    if step.max is not None:
        total = min(total, step.max)
    return max(0, total)


def default_choice(state: State, step: Step) -> Choice | None:
    """The timeout default of §B8.1: the first canonical option of a non-optional step, else stop."""
    if step.optional:
        return None
    opts = options(state, step)
    return opts[0] if opts else None
