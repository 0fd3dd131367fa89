"""The Ecos map: hexes, tiles, the TileFilter test, capacities, habitats, counters (docs/rules/ecos.md §B2.2, §B8)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from rules.ecos.cards import SPECIES_IDS, Counter, TileFilter, parse_filter

Hex = tuple[int, int]
Board = Mapping[Hex, "Tile"]
Binds = Mapping[str, frozenset[Hex]]

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))  # §0.4 d0..d5
LAND = frozenset({"desert", "grassland"})


@dataclass(frozen=True, slots=True)
class Tile:
    """A map tile (§B2.2): terrain plus its tokens."""

    terrain: str  # water | desert | grassland
    mountain: bool = False
    forests: int = 0
    animal: str | None = None


@dataclass(frozen=True, slots=True)
class Species:
    """A species (§B2.3): how many tokens exist and where it may live."""

    count: int
    habitat: TileFilter


def _habitat(raw: dict[str, object]) -> TileFilter:
    """A habitat TileFilter from its JSON form."""
    return parse_filter(raw, "habitat")


# §B2.3: counts and habitats [D]; 102 tokens in all.
SPECIES: dict[str, Species] = {
    "antelope": Species(12, _habitat({"terrain": "grassland"})),
    "bear": Species(6, _habitat({"terrain": "land", "forests_min": 1})),
    "camel": Species(8, _habitat({"terrain": "desert"})),
    "cheetah": Species(6, _habitat({"terrain": "land"})),
    "dolphin": Species(8, _habitat({"terrain": "water"})),
    "eagle": Species(6, _habitat({"terrain": "land", "mountain": True})),
    "elephant": Species(8, _habitat({"terrain": "grassland"})),
    "goat": Species(7, _habitat({"terrain": "land", "mountain": True})),
    "lion": Species(6, _habitat({"terrain": "land"})),
    "manatee": Species(7, _habitat({"terrain": "water", "adjacent": [{"filter": {"terrain": "land"}, "min": 1}]})),
    "rabbit": Species(12, _habitat({"terrain": "grassland"})),
    "shark": Species(8, _habitat({"terrain": "water"})),
    "stork": Species(8, _habitat({"terrain": "land", "adjacent": [{"filter": {"terrain": "water"}, "min": 1}]})),
}
assert tuple(SPECIES) == SPECIES_IDS and sum(s.count for s in SPECIES.values()) == 102


def neighbours(h: Hex) -> tuple[Hex, ...]:
    """The six neighbours of ``h`` in direction order d0..d5 (§0.4)."""
    q, r = h
    return ((q + 1, r), (q + 1, r - 1), (q, r - 1), (q - 1, r), (q - 1, r + 1), (q, r + 1))


@lru_cache(maxsize=1024)
def hex_key(h: Hex) -> str:
    """``(q, r)`` as the JSON key ``"q,r"``."""
    return f"{h[0]},{h[1]}"


def parse_hex(text: object) -> Hex:
    """``"q,r"`` as ``(q, r)``; raises ValueError when malformed."""
    if not isinstance(text, str):
        raise ValueError("a hex is a string 'q,r'")
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().lstrip("-").isdigit() and p == p.strip() for p in parts):
        raise ValueError(f"malformed hex {text!r}")
    h = (int(parts[0]), int(parts[1]))
    if hex_key(h) != text:
        raise ValueError(f"non-canonical hex {text!r}")
    return h


def canon(h: Hex) -> tuple[int, int]:
    """The canonical sort key of a hex: by r, then q (§0.4)."""
    return (h[1], h[0])


def distance(a: Hex, b: Hex) -> int:
    """Hex distance (§0.4)."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def capacity(tile: Tile) -> int:
    """Forest capacity (§B2.2): 1 on grassland, +1 with a mountain; water holds none."""
    if tile.terrain == "water":
        return 0
    return (tile.terrain == "grassland") + tile.mountain


def matches(board: Board, h: Hex, tile: Tile, f: TileFilter, binds: Binds) -> bool:
    """Does the map tile ``tile`` at ``h`` satisfy ``f`` (§B8.2)?"""
    if f.terrains is not None and tile.terrain not in f.terrains:
        return False
    if f.mountain is not None and tile.mountain != f.mountain:
        return False
    if f.forests_min is not None and tile.forests < f.forests_min:
        return False
    if f.forests_max is not None and tile.forests > f.forests_max:
        return False
    if f.animal is not None:
        if f.animal == "any":
            if tile.animal is None:
                return False
        elif f.animal == "none":
            if tile.animal is not None:
                return False
        elif tile.animal not in f.animals:
            return False
    if f.is_ is not None and h not in binds.get(f.is_, ()):
        return False
    return _adjacent_ok(board, h, f, binds)


def _adjacent_ok(board: Board, h: Hex, f: TileFilter, binds: Binds) -> bool:
    """Every ``adjacent`` entry of ``f`` holds around ``h``."""
    for entry in f.adjacent:
        n = 0
        for nb in neighbours(h):
            t = board.get(nb)
            if t is not None and matches(board, nb, t, entry.filter, binds):
                n += 1
        if n < entry.lo or (entry.hi is not None and n > entry.hi):
            return False
    return True


def empty_hex_ok(board: Board, h: Hex, f: TileFilter, binds: Binds) -> bool:
    """For add_tile (§B8.2): an empty hex with a neighbouring tile whose neighbours satisfy ``f``."""
    if h in board or not any(nb in board for nb in neighbours(h)):
        return False
    return _adjacent_ok(board, h, f, binds)


def tile_ok(board: Board, h: Hex) -> bool:
    """Does every token on the tile at ``h`` keep the rules of §B2.2?"""
    tile = board[h]
    if tile.animal is None and not tile.forests and not tile.mountain:
        return True
    if tile.mountain and tile.terrain not in LAND:
        return False
    if tile.forests > capacity(tile):
        return False
    return tile.animal is None or matches(board, h, tile, SPECIES[tile.animal].habitat, {})


def region_ok(board: Board, changed: Iterable[Hex]) -> bool:
    """The global legality rule (§B2.2) after a change at ``changed``: habitats reach one hex further."""
    seen: set[Hex] = set()
    for h in changed:
        for x in (h, *neighbours(h)):
            if x not in seen:
                seen.add(x)
                if x in board and not tile_ok(board, x):
                    return False
    return True


def frontier(board: Board) -> list[Hex]:
    """Empty hexes next to at least one tile, in canonical order."""
    out = {nb for h in board for nb in neighbours(h) if nb not in board}
    return sorted(out, key=canon)


def _components(board: Board, hexes: set[Hex]) -> list[int]:
    """Sizes of the connected components of ``hexes``."""
    sizes, seen = [], set()
    for start in hexes:
        if start in seen:
            continue
        seen.add(start)
        stack, size = [start], 0
        while stack:
            h = stack.pop()
            size += 1
            for nb in neighbours(h):
                if nb in hexes and nb not in seen:
                    seen.add(nb)
                    stack.append(nb)
        sizes.append(size)
    return sizes


def count(board: Board, counter: Counter, removed: Iterable[str], binds: Binds) -> int:
    """The value of a counter (§B8.4) on the current map."""
    kind = counter.kind
    if kind == "removed":
        assert counter.species is not None
        return sum(1 for s in removed if s in counter.species)
    if kind == "distinct_species":
        return len({t.animal for t in board.values() if t.animal is not None})
    hits = {h: t for h, t in board.items() if matches(board, h, t, counter.filter, binds)}
    if kind == "tiles":
        return len(hits)
    if kind == "forests":
        return sum(t.forests for t in hits.values())
    if kind == "animals":
        return sum(
            1
            for t in hits.values()
            if t.animal is not None and (counter.species is None or t.animal in counter.species)
        )
    sizes = _components(board, set(hits))
    if kind == "largest_group":
        return max(sizes, default=0)
    return sum(1 for s in sizes if s >= counter.min_size)  # groups
