"""Ecos cards as data (docs/rules/ecos.md §B2.5, §B12) and the effect language (§B8): schema, validation, each op."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from rules.ecos import effects
from rules.ecos.board import SPECIES, Hex, Tile, canon, count, matches, parse_hex
from rules.ecos.cards import (
    CARD_FILE,
    CARDS,
    SPECIES_IDS,
    CardDataError,
    Step,
    load_cards_data,
    parse_card,
    parse_counter,
    parse_filter,
)
from rules.ecos.model import Choice, State
from tests.engines.test_ecos import ECOS, almost, board, eco, kinds, make, options_of, place, play, public, tile

RAW = json.loads(CARD_FILE.read_text())


# --- the card file --------------------------------------------------------------------------


def test_the_card_set_of_b12() -> None:
    assert len(CARDS) == 96
    assert sum(c.back == "brown" for c in CARDS.values()) == 60
    presets = {  # §B12.1: active cards first
        "elephant": ("brn-01 brn-02 blu-01", "brn-03 brn-04 brn-05 brn-06 brn-07 brn-08 blu-02 blu-03 blu-04"),
        "shark": ("brn-09 brn-10 blu-05", "brn-11 brn-12 brn-13 brn-14 brn-15 brn-16 blu-06 blu-07 blu-08"),
        "goat": ("brn-17 brn-18 blu-09", "brn-19 brn-20 brn-21 brn-22 brn-23 brn-24 blu-10 blu-11 blu-12"),
        "camel": ("brn-25 brn-26 blu-13", "brn-27 brn-28 brn-29 brn-30 brn-31 brn-32 blu-14 blu-15 blu-16"),
        "cheetah": ("brn-34 brn-35 blu-17", "brn-33 brn-36 brn-37 brn-38 brn-39 brn-40 blu-18 blu-19 blu-20"),
        "stork": ("brn-41 brn-42 blu-21", "brn-43 brn-44 brn-45 brn-46 brn-47 brn-48 blu-22 blu-23 blu-24"),
    }
    for preset, (active, rest) in presets.items():
        assert {c for c, card in CARDS.items() if card.preset == preset and card.active} == set(active.split())
        assert {c for c, card in CARDS.items() if card.preset == preset and not card.active} == set(rest.split())
    assert sum(c.preset is None for c in CARDS.values()) == 24
    brn07 = CARDS["brn-07"]
    assert (brn07.name, brn07.leaves, brn07.slots) == ("Floodplain", 2, ("water", "water", "grass"))
    assert [s.op for s in brn07.effects] == ["add_tile", "add_tile", "score"] and brn07.effects[0].bind == "w"


def _broken(card_id: str, mutate: Any) -> dict[str, Any]:
    data = copy.deepcopy(RAW)
    card = next(c for c in data["cards"] if c["id"] == card_id)
    mutate(card)
    return data


BROKEN = [
    ("brn-07", lambda c: c["effects"][0].update(op="teleport"), "card 'brn-07': effects[0].op"),
    (
        "brn-07",
        lambda c: c["effects"][0]["where"]["adjacent"][0].update(min=-1),
        "card 'brn-07': effects[0].where.adjacent[0].min",
    ),
    (
        "brn-07",
        lambda c: c["effects"][1]["where"]["adjacent"][0]["filter"].update({"is": "x"}),
        "card 'brn-07': effects[1].where.adjacent[0].filter.is",
    ),
    ("brn-07", lambda c: c["effects"][0]["where"].update(terrain="water"), "card 'brn-07': effects[0].where.terrain"),
    ("brn-01", lambda c: c.update(slots=["grass", "wild"]), "card 'brn-01': slots[1]"),
    ("brn-01", lambda c: c.update(slots=["grass"]), "card 'brn-01': slots"),
    ("brn-01", lambda c: c.update(leaves=5), "card 'brn-01': leaves"),
    ("brn-01", lambda c: c.update(back="green"), "card 'brn-01': back"),
    ("brn-01", lambda c: c.pop("name"), "card 'brn-01': name: missing field"),
    ("brn-01", lambda c: c.update(colour="red"), "card 'brn-01': colour: unknown field"),
    ("brn-01", lambda c: c["effects"][0].pop("terrain"), "card 'brn-01': effects[0].terrain: missing field"),
    ("brn-01", lambda c: c["effects"][1].update(terms=[]), "card 'brn-01': effects[1]"),
    ("brn-02", lambda c: c["effects"][0].update(species=["unicorn"]), "card 'brn-02': effects[0].species[0]"),
    ("brn-02", lambda c: c["effects"][0].update(count=0), "card 'brn-02': effects[0].count"),
    (
        "blu-01",
        lambda c: c["effects"][0]["terms"][0]["count"].update(tiles={}),
        "card 'blu-01': effects[0].terms[0].count",
    ),
    ("blu-01", lambda c: c["effects"][0]["terms"][0].update(each="2"), "card 'blu-01': effects[0].terms[0].each"),
    ("blu-01", lambda c: c["effects"][0].update(vp=3), "card 'blu-01': effects[0]: a score step has either"),
    ("brn-04", lambda c: c["effects"][0].update(to="desert"), "card 'brn-04': effects[0].to"),
    ("brn-46", lambda c: c["effects"][0].update(to="water"), "card 'brn-46': effects[0].to"),
    ("brn-31", lambda c: c["effects"][0].update(optional=True), "card 'brn-31': effects[0].optional: unknown field"),
    ("brn-49", lambda c: c.update(active=True, preset=None), "card 'brn-49': active"),
    ("brn-49", lambda c: c.update(preset="elephant"), "preset: the 'elephant' hand must hold"),
    ("brn-13", lambda c: c["effects"][0].update(species="all"), "card 'brn-13': effects[0].species"),
    (
        "blu-25",
        lambda c: c["effects"][0]["terms"][0]["count"].update(distinct_species=1),
        "card 'blu-25': effects[0].terms[0].count.distinct_species",
    ),
]


@pytest.mark.parametrize(("card_id", "mutate", "message"), BROKEN)
def test_a_malformed_card_names_the_card_and_the_field(card_id: str, mutate: Any, message: str) -> None:
    with pytest.raises(CardDataError) as err:
        load_cards_data(_broken(card_id, mutate))
    assert message in str(err.value)


def test_a_duplicate_id_and_a_bad_file_fail() -> None:
    data = copy.deepcopy(RAW)
    data["cards"].append(copy.deepcopy(data["cards"][0]))
    with pytest.raises(CardDataError, match="card 'blu-01': id: duplicate"):
        load_cards_data(data)
    with pytest.raises(CardDataError, match="version"):
        load_cards_data({**RAW, "version": 2})
    with pytest.raises(CardDataError, match=r"cards\[0\]"):
        load_cards_data({"version": 1, "cards": ["brn-01"]})


def test_a_malformed_card_file_fails_loudly_at_import(tmp_path: Path) -> None:
    package = tmp_path / "ecos_broken"
    shutil.copytree(Path(CARD_FILE).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    for module in package.glob("*.py"):  # the copy imports its own modules
        module.write_text(module.read_text().replace("rules.ecos.", "ecos_broken."))
    data = _broken("brn-12", lambda c: c["effects"][1].update(count="two"))
    (package / "cards.json").write_text(json.dumps(data))
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [sys.executable, "-c", "import ecos_broken"],
        cwd=tmp_path,
        env={"PYTHONPATH": f"{tmp_path}:{root}"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode != 0
    assert "CardDataError: cards.json: card 'brn-12': effects[1].count: expected an integer in 1..9" in run.stderr


def test_adding_a_card_needs_no_code() -> None:
    raw = {
        "id": "brn-99",
        "name": "Test Marsh",
        "back": "brown",
        "leaves": 2,
        "slots": ["water", "grass"],
        "preset": None,
        "active": False,
        "effects": [
            {
                "op": "add_tile",
                "terrain": "water",
                "bind": "m",
                "where": {"adjacent": [{"filter": {"terrain": "grassland"}, "min": 1}]},
            },
            {"op": "add_animal", "species": ["dolphin"], "where": {"is": "m"}, "optional": True},
            {"op": "score", "terms": [{"count": {"tiles": {"terrain": "water"}}, "each": 1}], "max": 3},
        ],
    }
    data = copy.deepcopy(RAW)
    data["cards"].append(raw)
    card = load_cards_data(data)["brn-99"]
    env = Env({(0, 0): Tile("grassland")})
    first = options(env, card.effects[0])
    assert first == [Choice("hex", h) for h in [(0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1)]]
    apply_choice(env, card.effects[0], first[0])
    assert options(env, card.effects[1]) == [Choice("animal", (0, -1), species="dolphin")]
    assert score_value(env, card.effects[2]) == 1


# --- a minimal world for the interpreter ---------------------------------------------------
# The interpreter reads a `State` and returns the fields it changes; `Env` is the test's editable
# world, turned into a State for each call (and updated from the changes `apply_choice` returns).

BASE = ECOS.setup(ECOS.parse_config({}, 2), 0)[0]


@dataclass
class Env:
    """The interpreter's world: a map, supplies, binds and removed animals."""

    board: dict[Hex, Tile]
    land: int = 40
    water: int = 25
    mountains: int = 15
    forests: int = 25
    animals: dict[str, int] = field(default_factory=lambda: {s: sp.count for s, sp in SPECIES.items()})
    binds: dict[str, frozenset[Hex]] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)

    @property
    def state(self) -> State:
        return replace(
            BASE,
            tiles=tuple(sorted(self.board.items(), key=lambda kv: canon(kv[0]))),
            land=self.land,
            water=self.water,
            mountains=self.mountains,
            forests=self.forests,
            animal_supply=tuple(self.animals[s] for s in SPECIES_IDS),
            binds=tuple((k, tuple(sorted(v, key=canon))) for k, v in sorted(self.binds.items())),
            removed=tuple(self.removed),
        )


def options(env: Env, s: Step) -> list[Choice]:
    return effects.options(env.state, s)


def score_value(env: Env, s: Step) -> int:
    return effects.score_value(env.state, s)


def apply_choice(env: Env, s: Step, choice: Choice) -> tuple[str, dict[str, Any]]:
    """Apply a choice to ``env`` (in place, from the changed fields); the effect it reports."""
    changes, kind, data = effects.apply_choice(env.state, s, choice)
    new = replace(env.state, **changes)
    env.board = dict(new.tiles)
    env.land, env.water, env.mountains, env.forests = new.land, new.water, new.mountains, new.forests
    env.animals = dict(zip(SPECIES_IDS, new.animal_supply, strict=True))
    env.binds = {k: frozenset(v) for k, v in new.binds}
    env.removed = list(new.removed)
    return kind, data


def env_of(tiles: dict[str, dict[str, Any]], **supplies: Any) -> Env:
    return Env({parse_hex(k): Tile(**t) for k, t in tiles.items()}, **supplies)


def step(raw: dict[str, Any], binds: frozenset[str] = frozenset()) -> Any:
    card = {
        "id": "t-00",
        "name": "T",
        "back": "blue",
        "leaves": 1,
        "slots": ["sun", "sun"],
        "preset": None,
        "active": False,
    }
    effects = [{"op": "add_tile", "terrain": "water", "bind": b} for b in binds] + [raw]
    return parse_card({**card, "effects": effects}, 0).effects[-1]


def hexes(choices: list[Choice]) -> list[str]:
    return [f"{c.at[0]},{c.at[1]}" for c in choices]


# --- one test per op (§B8.3) ----------------------------------------------------------------


def test_op_add_tile() -> None:
    env = env_of({"0,0": tile("grassland"), "1,0": tile("water")})
    s = step(
        {"op": "add_tile", "terrain": "desert", "where": {"adjacent": [{"filter": {"terrain": "water"}, "min": 1}]}}
    )
    assert hexes(options(env, s)) == ["1,-1", "2,-1", "2,0", "0,1", "1,1"]
    kind, data = apply_choice(env, s, options(env, s)[0])
    assert (kind, data) == ("tile_added", {"hex": "1,-1", "terrain": "desert"}) and env.land == 39
    assert env.board[(1, -1)] == Tile("desert")
    assert options(Env(env.board, land=0), s) == []  # the land stack is empty
    two = step({"op": "add_tile", "terrain": "water", "where": {"adjacent": [{"filter": {}, "min": 2}]}})
    assert hexes(options(env_of({"0,0": tile("grassland"), "1,0": tile("water")}), two)) == ["1,-1", "0,1"]


def test_op_flip_tile() -> None:
    env = env_of({"0,0": tile("desert"), "1,0": tile("desert", animal="camel"), "2,0": tile("grassland")})
    s = step({"op": "flip_tile", "from": "desert", "to": "grassland"})
    assert hexes(options(env, s)) == ["0,0"]  # the camel would be stranded on 1,0
    assert apply_choice(env, s, options(env, s)[0]) == (
        "tile_flipped",
        {"tile": "0,0", "from": "desert", "to": "grassland"},
    )
    assert env.board[(0, 0)].terrain == "grassland" and env.land == 40


def test_op_convert_tile() -> None:
    env = env_of(
        {"0,0": tile("water"), "1,0": tile("grassland"), "0,1": tile("desert"), "5,5": tile("water", animal="dolphin")}
    )
    s = step(
        {
            "op": "convert_tile",
            "from": "water",
            "to": "grassland",
            "where": {"adjacent": [{"filter": {"terrain": "land"}, "min": 2}]},
        }
    )
    assert hexes(options(env, s)) == ["0,0"]
    apply_choice(env, s, options(env, s)[0])
    assert env.board[(0, 0)].terrain == "grassland" and (env.water, env.land) == (26, 39)
    back = step({"op": "convert_tile", "from": "grassland", "to": "water"})
    assert options(Env(env.board, water=0), back) == []  # no water tile in stock
    hill = env_of({"0,0": tile("grassland", mountain=True), "1,0": tile("grassland")})
    assert hexes(options(hill, back)) == ["1,0"]  # a mountain cannot stand on water


def test_op_add_mountain() -> None:
    env = env_of({"0,0": tile("water"), "1,0": tile("desert"), "2,0": tile("grassland", mountain=True)})
    s = step({"op": "add_mountain", "where": {"terrain": "land"}})
    assert hexes(options(env, s)) == ["1,0"]
    apply_choice(env, s, options(env, s)[0])
    assert env.board[(1, 0)].mountain and env.mountains == 14
    assert options(Env(env.board, mountains=0), step({"op": "add_mountain"})) == []


def test_op_add_forest() -> None:
    env = env_of(
        {"0,0": tile("water"), "1,0": tile("desert"), "2,0": tile("grassland", forests=1), "3,0": tile("grassland")}
    )
    s = step({"op": "add_forest"})
    assert hexes(options(env, s)) == ["3,0"]
    apply_choice(env, s, options(env, s)[0])
    assert env.board[(3, 0)].forests == 1 and env.forests == 24
    assert options(Env(env.board, forests=0), s) == []


def test_op_remove_forest() -> None:
    env = env_of(
        {
            "0,0": tile("grassland", forests=1, animal="bear"),
            "1,0": tile("grassland", mountain=True, forests=2, animal="bear"),
        }
    )
    s = step({"op": "remove_forest", "where": {"terrain": "land"}})
    assert hexes(options(env, s)) == ["1,0"]  # removing the bear's only forest would strand it
    apply_choice(env, s, options(env, s)[0])
    assert env.board[(1, 0)].forests == 1 and env.forests == 26


def test_op_add_animal() -> None:
    env = env_of(
        {
            "0,0": tile("grassland"),
            "1,0": tile("water"),
            "2,0": tile("desert"),
            "3,0": tile("grassland", animal="rabbit"),
        }
    )
    s = step({"op": "add_animal", "species": ["elephant", "camel", "stork"]})
    assert [(h, c.species) for h, c in zip(hexes(options(env, s)), options(env, s), strict=True)] == [
        ("0,0", "elephant"),
        ("0,0", "stork"),
        ("2,0", "camel"),
        ("2,0", "stork"),
    ]
    assert apply_choice(env, s, Choice("animal", (2, 0), species="camel")) == (
        "animal_added",
        {"tile": "2,0", "species": "camel"},
    )
    assert env.animals["camel"] == 7
    env.animals["elephant"] = 0
    assert [c.species for c in options(env, s)] == ["stork"]


def test_op_remove_animal() -> None:
    env = env_of(
        {
            "0,0": tile("grassland", animal="lion"),
            "1,0": tile("grassland", animal="rabbit"),
            "3,0": tile("grassland", animal="rabbit"),
        }
    )
    s = step(
        {
            "op": "remove_animal",
            "species": ["rabbit", "antelope"],
            "where": {"adjacent": [{"filter": {"animal": "lion"}, "min": 1}]},
        }
    )
    assert hexes(options(env, s)) == ["1,0"]
    apply_choice(env, s, options(env, s)[0])
    assert env.board[(1, 0)].animal is None and env.animals["rabbit"] == 13 and env.removed == ["rabbit"]


def test_op_move_animal() -> None:
    env = env_of(
        {
            "0,0": tile("grassland", animal="antelope"),
            "1,0": tile("desert"),
            "-1,0": tile("grassland"),
            "0,1": tile("water", animal="shark"),
        }
    )
    s = step({"op": "move_animal", "species": "any", "count": 2, "optional": True})
    assert [(hexes([c]), c.to) for c in options(env, s)] == [(["0,0"], (-1, 0))]
    assert apply_choice(env, s, options(env, s)[0]) == (
        "animal_moved",
        {"from": "0,0", "to": "-1,0", "species": "antelope"},
    )
    assert options(env, step({"op": "move_animal", "species": ["shark"]})) == []
    limited = step({"op": "move_animal", "species": "any", "from": {"terrain": "water"}})
    assert options(env, limited) == []


def test_op_gain_energy() -> None:
    state, fx = eco("brn-16", energy_available=3)
    assert public(fx, "energy_gained") == [{"seat": 0, "card": "brn-16", "count": 2}]
    assert state.seats[0].energy == 3 - 1 + 3 + 2
    # 63 available + 2 on the card: the supply holds 1 cube, and the step takes only that one.
    setup = {
        "seats": [{"tableau": [almost("brn-16")], "energy_available": 63}, {"energy_available": 0}],
        "draws": ["animal", "sun"],
    }
    state, fx = play(make(setup), 0, place("brn-16", 2))
    assert public(fx, "energy_gained")[0]["count"] == 1 and state.energy == 0


def test_op_gain_card() -> None:
    state, _ = eco("brn-48")
    assert state.prompt is not None and state.prompt.type == "gain_card_source"
    state, _ = play(state, 0, {"type": "gain_card", "source": "deck", "from": ["brown", "brown"]})
    assert state.prompt is not None and state.prompt.type == "gain_card_keep" and len(state.prompt.revealed) == 2
    kept = state.prompt.revealed[1]
    state, _ = play(state, 0, {"type": "gain_card_keep", "card": kept})
    assert kept in state.seats[0].hand and len(state.faceup) == 1
    assert state.seats[0].score == 2


def test_op_score_vp_terms_and_max() -> None:
    env = env_of({f"{q},0": tile("water", animal="shark") for q in range(5)} | {"0,1": tile("water", animal="dolphin")})
    assert score_value(env, step({"op": "score", "vp": 3})) == 3
    terms = [{"count": {"animals": ["shark"]}, "each": 2}, {"count": {"animals": ["dolphin"]}, "each": 1}]
    assert score_value(env, step({"op": "score", "terms": terms})) == 11
    assert score_value(env, step({"op": "score", "terms": terms, "max": 7})) == 7
    _, fx = eco("blu-05", tiles={"0,0": tile("water", animal="shark"), "1,0": tile("water", animal="dolphin")})
    assert public(fx, "scored") == [{"seat": 0, "card": "blu-05", "vp": 3, "score": 3}]


# --- counters (§B8.4) and filters (§B8.2) ---------------------------------------------------


def counter(raw: dict[str, Any]) -> Any:
    return parse_counter(raw, "test", frozenset())


def test_counters() -> None:
    env = env_of(
        {
            "0,0": tile("grassland", forests=1, animal="antelope"),
            "1,0": tile("grassland", mountain=True, forests=2),
            "2,0": tile("water", animal="shark"),
            "5,0": tile("grassland", animal="antelope"),
            "6,0": tile("grassland", animal="lion"),
            "9,9": tile("grassland"),
        }
    )
    b, removed = env.board, ["rabbit", "antelope", "rabbit"]
    grass = {"terrain": "grassland"}
    assert count(b, counter({"tiles": grass}), [], {}) == 5
    assert count(b, counter({"animals": "any"}), [], {}) == 4
    assert count(b, counter({"animals": ["antelope"], "where": {"forests_min": 1}}), [], {}) == 1
    assert count(b, counter({"forests": {}}), [], {}) == 3
    assert count(b, counter({"largest_group": grass}), [], {}) == 2
    assert count(b, counter({"largest_group": {"terrain": "desert"}}), [], {}) == 0
    assert count(b, counter({"groups": grass, "min_size": 2}), [], {}) == 2
    assert count(b, counter({"groups": grass}), [], {}) == 3
    assert count(b, counter({"distinct_species": True}), [], {}) == 3
    assert count(b, counter({"removed": ["rabbit"]}), removed, {}) == 2


def test_filters() -> None:
    b = {
        parse_hex(k): Tile(**t)
        for k, t in {
            "0,0": tile("grassland", mountain=True, forests=2, animal="goat"),
            "1,0": tile("water"),
            "-1,0": tile("water"),
            "0,1": tile("desert"),
        }.items()
    }
    here = b[(0, 0)]

    def ok(raw: dict[str, Any], binds: dict[str, frozenset[Hex]] | None = None) -> bool:
        names = frozenset(binds or {})
        return matches(b, (0, 0), here, parse_filter(raw, "f", names), binds or {})

    assert (
        ok({}) and ok({"terrain": "land"}) and ok({"terrain": ["water", "grassland"]}) and not ok({"terrain": "desert"})
    )
    assert ok({"mountain": True}) and not ok({"mountain": False})
    assert ok({"forests_min": 2, "forests_max": 2}) and not ok({"forests_max": 1}) and not ok({"forests_min": 3})
    assert (
        ok({"animal": "any"})
        and not ok({"animal": "none"})
        and ok({"animal": "goat"})
        and ok({"animal": ["eagle", "goat"]})
    )
    assert not ok({"animal": ["eagle"]})
    assert ok({"adjacent": [{"filter": {"terrain": "water"}, "min": 2, "max": 2}]})
    assert not ok({"adjacent": [{"filter": {"terrain": "water"}, "min": 3}]})
    assert not ok({"adjacent": [{"filter": {"terrain": "water"}, "max": 1}]})
    assert ok({"adjacent": [{"filter": {"terrain": "water"}}, {"filter": {"terrain": "desert"}}]})
    assert ok({"is": "x"}, {"x": frozenset({(0, 0)})}) and not ok({"is": "x"}, {"x": frozenset({(1, 0)})})


def test_habitats_of_b2_3() -> None:
    assert sum(s.count for s in SPECIES.values()) == 102 and len(SPECIES) == 13
    state, _ = eco("brn-42")  # stork: land next to water; the start map has 0,0 and 1,0
    assert options_of(state, 0) == [{"tile": "0,0", "species": "stork"}, {"tile": "1,0", "species": "stork"}]
    state, fx = eco("brn-26")  # camel: desert only, one option: placed without asking
    assert public(fx, "animal_added") == [{"seat": 0, "card": "brn-26", "tile": "1,0", "species": "camel"}]
    assert board(state)[(1, 0)].animal == "camel" and "scored" in kinds(fx)
