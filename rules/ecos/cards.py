"""Ecos card data: the schema of `cards.json` (docs/rules/ecos.md §B2.5, §B8) and its hand-written validation.

The card file is parsed once, at import, into frozen values (`Card`, `Step`,
`TileFilter`, `Counter`). A malformed file raises `CardDataError` naming the
card id and the JSON path of the field at fault, e.g.
``cards.json: card 'brn-07': effects[0].where.adjacent[0].min: expected an integer >= 0``.
Adding a card is adding a JSON object: nothing here names a card.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

# --- components the card language refers to (§B2.1, §B2.3, §B12.1) ---------------------------

ELEMENTS = ("sun", "water", "grass", "animal", "earth", "air", "fire")  # §B2.1: a slot is never wild
TERRAINS = ("water", "desert", "grassland")  # §B2.2
TERRAIN_WORDS = {
    "water": ("water",),
    "desert": ("desert",),
    "grassland": ("grassland",),
    "land": ("desert", "grassland"),
}
SPECIES_IDS = (
    "antelope",
    "bear",
    "camel",
    "cheetah",
    "dolphin",
    "eagle",
    "elephant",
    "goat",
    "lion",
    "manatee",
    "rabbit",
    "shark",
    "stork",
)  # §B2.3, alphabetical (the canonical species order of §B8.1)
PRESETS = ("elephant", "shark", "goat", "camel", "cheetah", "stork")  # §B3 item 5
BACKS = ("blue", "brown")
PLACEMENT_OPS = (
    "add_tile",
    "flip_tile",
    "convert_tile",
    "add_mountain",
    "add_forest",
    "remove_forest",
    "add_animal",
    "remove_animal",
    "move_animal",
)  # §B8.1: every op except score, gain_energy, gain_card loops with choices
OPS = (*PLACEMENT_OPS, "gain_energy", "gain_card", "score")  # §B8.3
CARD_FILE = Path(__file__).with_name("cards.json")


class CardDataError(ValueError):
    """The card file breaks the schema; the message names the card and the field."""


# --- values ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Adjacent:
    """One ``adjacent`` entry of a TileFilter: neighbours matching ``filter`` number in [lo, hi]."""

    filter: TileFilter
    lo: int = 1
    hi: int | None = None  # None = unbounded


@dataclass(frozen=True, slots=True)
class TileFilter:
    """§B8.2: every key that is set must hold; the empty filter matches any map tile."""

    terrains: frozenset[str] | None = None  # concrete terrains ("land" expanded)
    mountain: bool | None = None
    forests_min: int | None = None
    forests_max: int | None = None
    animal: str | None = None  # None (no constraint), "any", "none" or "set"
    animals: frozenset[str] = frozenset()  # the species when animal == "set"
    adjacent: tuple[Adjacent, ...] = ()
    is_: str | None = None  # a bind name


@dataclass(frozen=True, slots=True)
class Counter:
    """§B8.4: one counter of a score term."""

    kind: str  # tiles, animals, forests, largest_group, groups, distinct_species, removed
    filter: TileFilter = TileFilter()
    species: frozenset[str] | None = None  # animals/removed; None = "any"
    min_size: int = 1


@dataclass(frozen=True, slots=True)
class Term:
    """A score term: ``count`` × ``each``."""

    count: Counter
    each: int


@dataclass(frozen=True, slots=True)
class Step:
    """One effect step (§B8.1, §B8.3)."""

    op: str
    count: int = 1
    optional: bool = False
    bind: str | None = None
    where: TileFilter = TileFilter()
    terrain: str = ""  # add_tile
    src: str = ""  # flip_tile / convert_tile: "from"
    dst: str = ""  # flip_tile / convert_tile: "to"
    species: tuple[str, ...] | None = None  # animal ops, alphabetical; None = "any"
    move_from: TileFilter = TileFilter()  # move_animal "from"
    move_to: TileFilter = TileFilter()  # move_animal "to"
    vp: int | None = None  # score
    terms: tuple[Term, ...] = ()
    max: int | None = None


@dataclass(frozen=True, slots=True)
class Card:
    """One card of §B12 (§B2.5)."""

    id: str
    name: str
    back: str
    leaves: int
    slots: tuple[str, ...]
    preset: str | None
    active: bool
    effects: tuple[Step, ...]


# --- validation helpers ---------------------------------------------------------------------


def _fail(where: str, message: str) -> CardDataError:
    return CardDataError(f"cards.json: {where}: {message}" if where else f"cards.json: {message}")


def _int(value: Any, where: str, lo: int = 0, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
        bound = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise _fail(where, f"expected an integer {bound}, got {value!r}")
    return int(value)


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, f"expected true or false, got {value!r}")
    return value


def _str(value: Any, where: str, choices: tuple[str, ...] | None = None) -> str:
    if not isinstance(value, str) or not value or (choices is not None and value not in choices):
        expected = "a non-empty string" if choices is None else f"one of {list(choices)}"
        raise _fail(where, f"expected {expected}, got {value!r}")
    return value


def _obj(value: Any, where: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, f"expected an object, got {value!r}")
    for key in value:
        if key not in allowed:
            raise _fail(f"{where}.{key}" if where else key, f"unknown field (allowed: {list(allowed)})")
    for key in required:
        if key not in value:
            raise _fail(f"{where}.{key}" if where else key, "missing field")
    return value


def _list(value: Any, where: str, lo: int = 0, hi: int | None = None) -> list[Any]:
    if not isinstance(value, list) or len(value) < lo or (hi is not None and len(value) > hi):
        size = f"at least {lo}" if hi is None else f"{lo}..{hi}"
        raise _fail(where, f"expected a list of {size} items, got {value!r}")
    return value


def _species_list(value: Any, where: str) -> tuple[str, ...]:
    items = _list(value, where, 1)
    out = tuple(_str(s, f"{where}[{i}]", SPECIES_IDS) for i, s in enumerate(items))
    if len(set(out)) != len(out):
        raise _fail(where, "a species is listed twice")
    return tuple(sorted(out))


# --- TileFilter and Counter (§B8.2, §B8.4) --------------------------------------------------

_FILTER_KEYS = ("terrain", "mountain", "forests_min", "forests_max", "animal", "adjacent", "is")


def parse_filter(
    raw: Any, where: str, binds: frozenset[str] = frozenset(), only: tuple[str, ...] = _FILTER_KEYS
) -> TileFilter:
    """A TileFilter from JSON (§B8.2); ``binds`` are the names an ``is`` may use."""
    obj = _obj(raw, where, only)
    terrains = None
    if "terrain" in obj:
        value = obj["terrain"]
        words = value if isinstance(value, list) else [value]
        if isinstance(value, list):
            _list(value, f"{where}.terrain", 1)
        terrains = frozenset(
            t
            for i, w in enumerate(words)
            for t in TERRAIN_WORDS[_str(w, f"{where}.terrain[{i}]", tuple(TERRAIN_WORDS))]
        )
    mountain = _bool(obj["mountain"], f"{where}.mountain") if "mountain" in obj else None
    fmin = _int(obj["forests_min"], f"{where}.forests_min") if "forests_min" in obj else None
    fmax = _int(obj["forests_max"], f"{where}.forests_max") if "forests_max" in obj else None
    animal, animals = None, frozenset[str]()
    if "animal" in obj:
        value = obj["animal"]
        if value in ("any", "none"):
            animal = value
        elif isinstance(value, list):
            animal, animals = "set", frozenset(_species_list(value, f"{where}.animal"))
        else:
            animal, animals = "set", frozenset({_str(value, f"{where}.animal", (*SPECIES_IDS, "any", "none"))})
    adjacent: tuple[Adjacent, ...] = ()
    if "adjacent" in obj:
        entries = []
        for i, entry in enumerate(_list(obj["adjacent"], f"{where}.adjacent", 1)):
            at = f"{where}.adjacent[{i}]"
            e = _obj(entry, at, ("filter", "min", "max"), ("filter",))
            lo = _int(e.get("min", 1), f"{at}.min", 0, 6)
            hi = _int(e["max"], f"{at}.max", lo, 6) if "max" in e else None
            entries.append(Adjacent(parse_filter(e["filter"], f"{at}.filter", binds), lo, hi))
        adjacent = tuple(entries)
    is_ = None
    if "is" in obj:
        is_ = _str(obj["is"], f"{where}.is")
        if is_ not in binds:
            raise _fail(f"{where}.is", f"bind name {is_!r} is not bound by an earlier step")
    return TileFilter(terrains, mountain, fmin, fmax, animal, animals, adjacent, is_)


_COUNTER_KEYS = (
    "tiles",
    "animals",
    "where",
    "forests",
    "largest_group",
    "groups",
    "min_size",
    "distinct_species",
    "removed",
)


def parse_counter(raw: Any, where: str, binds: frozenset[str]) -> Counter:
    """A Counter from JSON (§B8.4): exactly one of its forms."""
    obj = _obj(raw, where, _COUNTER_KEYS)
    kinds = [
        k for k in ("tiles", "animals", "forests", "largest_group", "groups", "distinct_species", "removed") if k in obj
    ]
    if len(kinds) != 1:
        raise _fail(where, f"expected exactly one counter kind, got {kinds or 'none'}")
    kind = kinds[0]
    extra = {"animals": ("where",), "groups": ("min_size",)}.get(kind, ())
    for key in obj:
        if key != kind and key not in extra:
            raise _fail(f"{where}.{key}", f"not a field of the {kind!r} counter")
    if kind in ("tiles", "forests", "largest_group"):
        return Counter(kind, parse_filter(obj[kind], f"{where}.{kind}", binds))
    if kind == "groups":
        return Counter(
            kind,
            parse_filter(obj[kind], f"{where}.groups", binds),
            min_size=_int(obj.get("min_size", 1), f"{where}.min_size", 1),
        )
    if kind == "animals":
        value = obj["animals"]
        species = None if value == "any" else frozenset(_species_list(value, f"{where}.animals"))
        return Counter(kind, parse_filter(obj.get("where", {}), f"{where}.where", binds), species)
    if kind == "distinct_species":
        if obj[kind] is not True:
            raise _fail(f"{where}.distinct_species", "expected true")
        return Counter(kind)
    return Counter(kind, species=frozenset(_species_list(obj["removed"], f"{where}.removed")))


# --- steps (§B8.1, §B8.3) -------------------------------------------------------------------

_COMMON = ("op", "count", "optional", "bind", "where")
_STEP_KEYS: dict[str, tuple[str, ...]] = {
    "add_tile": (*_COMMON, "terrain"),
    "flip_tile": (*_COMMON, "from", "to"),
    "convert_tile": (*_COMMON, "from", "to"),
    "add_mountain": _COMMON,
    "add_forest": _COMMON,
    "remove_forest": _COMMON,
    "add_animal": (*_COMMON, "species"),
    "remove_animal": (*_COMMON, "species"),
    "move_animal": ("op", "count", "optional", "bind", "species", "from", "to"),
    "gain_energy": ("op", "count"),
    "gain_card": ("op", "count"),
    "score": ("op", "vp", "terms", "max"),
}
_REQUIRED: dict[str, tuple[str, ...]] = {
    "add_tile": ("terrain",),
    "flip_tile": ("from", "to"),
    "convert_tile": ("from", "to"),
    "add_animal": ("species",),
    "remove_animal": ("species",),
    "move_animal": ("species",),
}


def parse_step(raw: Any, where: str, binds: frozenset[str]) -> Step:
    """One effect step from JSON; ``binds`` are the names bound by earlier steps of the card."""
    if not isinstance(raw, dict):
        raise _fail(where, f"expected an object, got {raw!r}")
    op = _str(raw.get("op"), f"{where}.op", OPS)
    obj = _obj(raw, where, _STEP_KEYS[op], _REQUIRED.get(op, ()))
    count = _int(obj.get("count", 1), f"{where}.count", 1, 9)
    optional = _bool(obj.get("optional", False), f"{where}.optional")
    bind = _str(obj["bind"], f"{where}.bind") if "bind" in obj else None
    # §B8.2: for add_tile, `where` is checked on an empty hex and only `adjacent` means anything there.
    only = ("adjacent",) if op == "add_tile" else _FILTER_KEYS
    where_f = parse_filter(obj.get("where", {}), f"{where}.where", binds, only)
    step = Step(op=op, count=count, optional=optional, bind=bind, where=where_f)
    if op == "add_tile":
        return replace(step, terrain=_str(obj["terrain"], f"{where}.terrain", TERRAINS))
    if op == "flip_tile":
        src = _str(obj["from"], f"{where}.from", ("desert", "grassland"))
        dst = _str(obj["to"], f"{where}.to", ("desert", "grassland"))
        if src == dst:
            raise _fail(f"{where}.to", "a flip must change the face (desert <-> grassland)")
        return replace(step, src=src, dst=dst)
    if op == "convert_tile":
        src = _str(obj["from"], f"{where}.from", TERRAINS)
        dst = _str(obj["to"], f"{where}.to", TERRAINS)
        if (src == "water") == (dst == "water"):
            raise _fail(f"{where}.to", "a conversion turns water into a land face or a land face into water")
        return replace(step, src=src, dst=dst)
    if op in ("add_animal", "remove_animal"):
        return replace(step, species=_species_list(obj["species"], f"{where}.species"))
    if op == "move_animal":
        species = None if obj["species"] == "any" else _species_list(obj["species"], f"{where}.species")
        return replace(
            step,
            species=species,
            move_from=parse_filter(obj.get("from", {}), f"{where}.from", binds),
            move_to=parse_filter(obj.get("to", {}), f"{where}.to", binds),
        )
    if op == "score":
        if ("vp" in obj) == ("terms" in obj):
            raise _fail(where, "a score step has either `vp` or `terms`")
        if "vp" in obj:
            if "max" in obj:
                raise _fail(f"{where}.max", "`max` goes with `terms`")
            return replace(step, vp=_int(obj["vp"], f"{where}.vp"))
        terms = []
        for i, t in enumerate(_list(obj["terms"], f"{where}.terms", 1)):
            at = f"{where}.terms[{i}]"
            tobj = _obj(t, at, ("count", "each"), ("count", "each"))
            terms.append(Term(parse_counter(tobj["count"], f"{at}.count", binds), _int(tobj["each"], f"{at}.each")))
        cap = _int(obj["max"], f"{where}.max") if "max" in obj else None
        return replace(step, terms=tuple(terms), max=cap)
    return step


# --- cards ----------------------------------------------------------------------------------

_CARD_KEYS = ("id", "name", "back", "leaves", "slots", "preset", "active", "effects")


def parse_card(raw: Any, index: int) -> Card:
    """One card from JSON (§B2.5)."""
    cid = raw.get("id") if isinstance(raw, dict) else None
    label = f"card {cid!r}" if isinstance(cid, str) and cid else f"cards[{index}]"
    try:
        obj = _obj(raw, "", _CARD_KEYS, _CARD_KEYS)
        _str(obj["id"], "id")
        name = _str(obj["name"], "name")
        back = _str(obj["back"], "back", BACKS)
        leaves = _int(obj["leaves"], "leaves", 1, 4)
        slots = tuple(_str(s, f"slots[{i}]", ELEMENTS) for i, s in enumerate(_list(obj["slots"], "slots", 2, 4)))
        preset = None if obj["preset"] is None else _str(obj["preset"], "preset", PRESETS)
        active = _bool(obj["active"], "active")
        if active and preset is None:
            raise _fail("active", "only a preset card can start active")
        steps: list[Step] = []
        binds: frozenset[str] = frozenset()
        for i, s in enumerate(_list(obj["effects"], "effects", 1)):
            step = parse_step(s, f"effects[{i}]", binds)
            steps.append(step)
            if step.bind is not None:
                binds = binds | {step.bind}
    except CardDataError as err:
        raise CardDataError(str(err).replace("cards.json: ", f"cards.json: {label}: ", 1)) from None
    return Card(obj["id"], name, back, leaves, slots, preset, active, tuple(steps))


def load_cards_data(data: Any) -> dict[str, Card]:
    """Validate a parsed card file and return its cards by id, in id order."""
    top = _obj(data, "", ("version", "cards"), ("version", "cards"))
    if top["version"] != 1:
        raise _fail("version", f"unsupported card file version {top['version']!r}")
    cards: dict[str, Card] = {}
    for i, raw in enumerate(_list(top["cards"], "cards", 1)):
        card = parse_card(raw, i)
        if card.id in cards:
            raise _fail(f"card {card.id!r}", "id: duplicate card id")
        cards[card.id] = card
    # §B12: a preset hand is 4 blue and 8 brown cards, 3 of them active.
    for preset in PRESETS:
        members = [c for c in cards.values() if c.preset == preset]
        blue = sum(c.back == "blue" for c in members)
        active = sum(c.active for c in members)
        if members and (blue != 4 or len(members) != 12 or active != 3):
            last = max(c.id for c in members)
            raise _fail(
                f"card {last!r}",
                f"preset: the {preset!r} hand must hold 4 blue + 8 brown cards with 3 active "
                f"(has {blue} blue, {len(members) - blue} brown, {active} active)",
            )
    return dict(sorted(cards.items()))


def load_cards(path: Path = CARD_FILE) -> dict[str, Card]:
    """Read and validate a card file; raises `CardDataError` on any fault."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise CardDataError(f"{path.name}: not valid JSON: {err}") from None
    return load_cards_data(data)


CARDS: dict[str, Card] = load_cards()  # fails loudly at import on a malformed file
CARD_IDS: tuple[str, ...] = tuple(CARDS)
