"""Ekö rules (docs/rules/eko.md): the §A10 scenarios as data files, board fixtures, codecs and edge cases."""

from __future__ import annotations

import dataclasses
import json
import random
import tomllib
from pathlib import Path
from typing import Any

import pytest

from rules import RULES, eko
from rules.base import IllegalMove, InvalidMove, InvalidOptions, NotAwaited, put
from rules.rng import rng
from tests.engines.scenarios import runner

RULESET = RULES["eko"]
SCENARIOS = Path(__file__).parent / "scenarios" / "eko"
SCENARIO_FILES = runner.files("eko")


# --- helpers ---------------------------------------------------------------------------------


def _setup_options(case: dict[str, Any]) -> dict[str, Any]:
    """The match options of a scenario case: standard layout, its `setup`, filled per `fill`."""
    players = case.get("players", 2)
    setup = json.loads(json.dumps(case.get("setup", {})))
    fill = case.get("fill")
    if fill is not None:  # test helper: height-1 plain stacks on every unlisted sand space, owners in turn
        board = eko.build_board(players, "standard", 0)
        stacks = setup.setdefault("stacks", {})
        free = [
            board.keys[i] for i in board.sand if board.keys[i] not in stacks and board.keys[i] not in fill["except"]
        ]
        for k, key in enumerate(free):
            stacks[key] = {"owner": fill["owners"][k % len(fill["owners"])], "height": 1, "emperor": False}
    return {"layout": "standard", "setup": setup}


def _start(setup: dict[str, Any], players: int = 2, **options: Any) -> eko.State:
    config = RULESET.parse_config({"layout": "standard", "setup": setup, **options}, players)
    return RULESET.setup(config, 1)[0]


def _play(state: eko.State, seat: int, raw: dict[str, Any]) -> tuple[eko.State, tuple[Any, ...]]:
    return RULESET.apply(state, seat, RULESET.parse_move(raw))


def _legal_json(state: eko.State, seat: int) -> list[dict[str, Any]]:
    return [RULESET.dump_move(m) for m in RULESET.legal_moves(state, seat)]


def _stack(owner: int, height: int, emperor: bool = False) -> dict[str, Any]:
    return {"owner": owner, "height": height, "emperor": emperor}


E0 = {"-4,2": _stack(0, 1, True)}
E1 = {"2,-4": _stack(1, 1, True)}


# --- 1. scenarios as data (§A10) ---------------------------------------------------------------


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.stem)
def test_scenario(path: Path) -> None:
    assert runner.run_file(RULESET, path, options_of=_setup_options) > 0


# --- 2. board (§A3) ----------------------------------------------------------------------------

BOARDS = tomllib.loads((SCENARIOS / "boards.toml").read_text())


def _by_type(board: eko.Board) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for key, kind in zip(board.keys, board.types, strict=True):
        out.setdefault(kind, set()).add(key)
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_standard_board_matches_the_page_fixture(players: int) -> None:
    board = eko.build_board(players, "standard", 0)
    got = _by_type(board)
    want: dict[str, set[str]] = {}
    for n in range(2, players + 1):
        for kind, keys in BOARDS["players"][str(n)].items():
            if kind != "totals":
                want.setdefault(kind, set()).update(keys)
    for kind in ("capital", "mountain", "gorge", "reg", "chasm"):
        assert got.get(kind, set()) == want.get(kind, set()), kind
    totals = BOARDS["players"][str(players)]["totals"]
    assert {k: len(got.get(k, ())) for k in totals} == totals
    assert len(board.sand) == 16 * players
    assert len(got["capital"]) == players - 1
    assert eko.board_valid(board)
    centres = {p.tile: eko.key_of(2 * p.i - p.j, p.i + 3 * p.j) for p in board.tiles}
    assert centres == {t: k for t, k in BOARDS["centres"].items() if int(t[1:]) <= eko.TILE_COUNT[players]}


def test_setup_fills_the_board() -> None:
    """§A10.1."""
    for seed in (0, 1, 99):
        state = RULESET.setup(RULESET.parse_config({"layout": "standard"}, 2), seed)[0]
        view = RULESET.view(state, None, None)
        sand = [sp for sp in view["board"]["spaces"].values() if sp["type"] == "sand"]
        assert len(sand) == 32 and all(sp["stack"]["height"] == 1 for sp in sand)
        for seat in (0, 1):
            mine = [sp["stack"] for sp in sand if sp["stack"]["owner"] == seat]
            assert len(mine) == 16 and sum(st["emperor"] for st in mine) == 1
            assert view["seats"][seat]["reserve"] == {"discs": 0, "emperor": False}
            assert view["seats"][seat]["boxed"] == 0
        assert sum(sp["type"] == "capital" for sp in view["board"]["spaces"].values()) == 1
        assert view["phase"] == "emperor_swap" and view["active"] is None and view["turn"] == 1
        again = RULESET.setup(RULESET.parse_config({"layout": "standard"}, 2), seed)[0]
        assert RULESET.dump_state(again) == RULESET.dump_state(state)
    dumps = {
        json.dumps(RULESET.dump_state(RULESET.setup(RULESET.parse_config({"layout": "standard"}, 2), s)[0]))
        for s in range(6)
    }
    assert len(dumps) > 1, "the seed must change the disc layout"


def test_setup_colours_and_first_seat_follow_the_seed() -> None:
    """§A4.3–4: colours are the first N, shuffled; the first seat is drawn; all from the seed."""
    firsts, orders = set(), set()
    for seed in range(40):
        state = RULESET.setup(RULESET.parse_config({"layout": "standard"}, 4), seed)[0]
        colours = tuple(s.color for s in state.seats)
        assert sorted(colours) == sorted(eko.COLORS)
        firsts.add(state.first)
        orders.add(colours)
    assert firsts == {0, 1, 2, 3} and len(orders) > 5


def test_random_layout_is_valid_and_deterministic() -> None:
    """§A10.3, and V1/V2 for every player count over many seeds."""
    a = eko.build_board(2, "random", 7)
    b = eko.build_board(2, "random", 7)
    assert a == b and a.keys == b.keys and a.types == b.types
    assert sorted(p.tile for p in a.tiles) == [f"T{k:02d}" for k in range(1, 8)]
    assert eko.board_valid(a)
    for players in (2, 3, 4):
        shapes = set()
        for seed in range(60):
            board = eko.build_board(players, "random", seed)
            assert eko.board_valid(board) and len(board.sand) == 16 * players
            assert sum(t == "capital" for t in board.types) == players - 1
            shapes.add(board.tiles)
        assert len(shapes) > 50


def test_placement_rotates_ring_entries() -> None:
    """§A3.2: ring entry x of a tile with rotation k goes in direction (x + k) mod 6."""
    cells = eko._cells((eko.Placement("T02", 0, 0, 2),))  # T02 ring d0 = mountain, d3 = reg
    assert cells[(0, -1)] == "mountain"  # d2 = (0, -1)
    assert cells[(0, 1)] == "reg"  # d5 = (0, +1)
    assert sum(t == "sand" for t in cells.values()) == 5


# --- 3. options and setup validation (§A4.1) ----------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"colour": "sky"},
        {"layout": "hex"},
        {"max_turns": 0},
        {"max_turns": True},
        {"setup": {"stacks": {"1,0": _stack(0, 5, True)} | E1}},
        {"setup": {"stacks": {"1,1": _stack(0, 1, True)} | E1}},
        {"setup": {"stacks": {"9,9": _stack(0, 1, True)} | E1}},
        {"setup": {"stacks": E0 | E1, "buildings": {"1,1": {"owner": 0, "kind": "tower"}}}},
        {"setup": {"stacks": E0 | E1, "buildings": {"1,0": {"owner": 0, "kind": "camp"}}}},
        {"setup": {"stacks": {"1,0": _stack(0, 1, True), "-4,2": _stack(0, 1, True)} | E1}},
        {"setup": {"stacks": {"1,0": _stack(0, 1)} | E1}},
        {"setup": {"stacks": E0 | E1, "reserve": [{"discs": 1, "emperor": True}, {"discs": 0}]}},
        {"setup": {"stacks": E0 | E1, "reserve": [{"discs": 16}, {"discs": 0}]}},
        {"setup": {"stacks": E0 | E1, "prisoners": [[0], []]}},
        {"setup": {"stacks": E0 | E1, "colors": ["sky", "sky"]}},
        {"setup": {"stacks": E0 | E1, "phase": "finished"}},
        {"setup": {"stacks": E0, "reserve": [{"discs": 0}, {"discs": 1, "emperor": True}]}},
        {"setup": {"stacks": E0 | E1, "extra": 1}},
        {
            "setup": {
                "stacks": E0 | E1,
                "reserve": [{"discs": 2, "emperor": True}, {"discs": 0}],
                "phase": "emperor_swap",
            }
        },
    ],
)
def test_parse_config_refuses_bad_options(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        RULESET.parse_config({"layout": "standard", **options}, 2)


def test_parse_config_refuses_bad_player_counts_and_accepts_defaults() -> None:
    for players in (1, 5):
        with pytest.raises(InvalidOptions):
            RULESET.parse_config({}, players)
    assert RULESET.parse_config({"layout": "random", "max_turns": 400}, 4).players == 4


def test_setup_puts_unlisted_discs_in_the_box_and_derives_supplies() -> None:
    state = _start(
        {"stacks": {"1,0": _stack(0, 3)} | E0 | E1, "buildings": {"0,2": {"owner": 1, "kind": "tower"}}},
    )
    view = RULESET.view(state, None, None)
    assert view["seats"][0]["boxed"] == 12 and view["seats"][1]["boxed"] == 15
    assert view["seats"][1]["supply"] == {"camp": 5, "tower": 2, "castle": 1}
    assert view["seats"][0]["color"] == "sky" and view["seats"][1]["color"] == "ink"


def test_setup_on_a_random_layout_is_checked_against_that_board() -> None:
    config = RULESET.parse_config({"layout": "random", "setup": {"stacks": {"99,99": _stack(0, 1, True)} | E1}}, 2)
    with pytest.raises(InvalidOptions):
        RULESET.setup(config, 3)[0]


# --- 4. codecs ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "emperor_swap", "with": None},
        {"type": "emperor_swap", "with": "-2,3"},
        {"type": "move", "from": "1,0", "to": "1,-2"},
        {"type": "move", "from": "1,0", "to": "1,-2", "expect": "kamikaze"},
        {"type": "construct", "space": "0,2", "building": "tower", "from_stack": "0,1", "sacrifice_emperor": False},
        {"type": "forced_march"},
        {"type": "end_actions"},
        {"type": "reinforce", "stack": "1,0", "count": 2, "include_emperor": True},
    ],
)
def test_canonical_moves_round_trip(raw: dict[str, Any]) -> None:
    assert RULESET.dump_move(RULESET.parse_move(raw)) == raw


@pytest.mark.parametrize(
    "raw",
    [
        [],
        {"type": "pass"},
        {"type": "emperor_swap"},
        {"type": "emperor_swap", "with": "1;0"},
        {"type": "emperor_swap", "with": 3},
        {"type": "move", "from": "1,0"},
        {"type": "move", "from": "1,0", "to": "1,-1", "expect": "charge"},
        {"type": "move", "from": "1,0", "to": "1,-1", "speed": 2},
        {"type": "construct", "space": "0,2", "building": "palace", "from_stack": "0,1"},
        {"type": "construct", "space": "0,2", "building": "camp", "from_stack": "0,1", "sacrifice_emperor": 1},
        {"type": "forced_march", "count": 3},
        {"type": "reinforce", "stack": "1,0", "count": "2"},
        {"type": "reinforce", "stack": "1,0", "count": True},
    ],
)
def test_malformed_moves_are_invalid(raw: Any) -> None:
    with pytest.raises(InvalidMove):
        RULESET.parse_move(raw)


def test_optional_move_fields_default_and_keys_are_normalised() -> None:
    assert RULESET.parse_move({"type": "construct", "space": "0,2", "building": "camp", "from_stack": "0,01"}) == (
        eko.Construct("0,2", "camp", "0,1", False)
    )
    assert RULESET.parse_move({"type": "reinforce", "stack": "-0,1", "count": 1}) == eko.Reinforce("0,1", 1, False)


def test_the_move_catalogue_says_what_the_parser_accepts() -> None:
    """The OpenAPI description comes from the move dataclasses: check it against `parse_move`."""
    specs = {spec.type: {f.name: f for f in spec.fields} for spec in RULESET.moves}
    assert set(specs) == {"emperor_swap", "move", "construct", "forced_march", "end_actions", "reinforce"}
    swap = specs["emperor_swap"]["with"]
    assert swap.required and swap.nullable  # the platform lists {"type": "emperor_swap", "with": null}
    assert {"type": "emperor_swap", "with": None} in _legal_json(RULESET.setup(RULESET.parse_config({}, 2), 0)[0], 0)
    for name, field in specs["move"].items():
        assert field.required == (name != "expect")
    assert specs["move"]["expect"].choices == eko.EXPECTS
    assert specs["construct"]["building"].choices == eko.BUILDINGS
    count = specs["reinforce"]["count"]
    assert (count.type, count.minimum, count.maximum) == ("integer", 1, eko.REINFORCE_MAX)
    for spec in RULESET.moves:
        required = {f.name: "1,0" if f.type == "string" else 1 for f in spec.fields if f.required}
        if spec.type == "construct":
            required["building"] = "camp"
        RULESET.parse_move({"type": spec.type, **required})
        for name in required:
            with pytest.raises(InvalidMove):
                RULESET.parse_move({"type": spec.type, **{k: v for k, v in required.items() if k != name}})


def test_a_count_out_of_range_is_a_rule_not_a_malformed_move() -> None:
    """§A5.4: `count` documents 1..3, but 0 or 9 are well-formed moves refused with `count_out_of_range`."""
    state = _start({"stacks": {"1,0": _stack(0, 1)} | E0 | E1, "reserve": [{"discs": 2}, {"discs": 0}]})
    state, _ = _play(state, 0, {"type": "move", "from": "1,0", "to": "1,-1"})
    assert state.phase == "reinforcement"  # no Forced March with 2 reserve discs
    for count in (0, 9):
        with pytest.raises(IllegalMove) as exc:
            _play(state, 0, {"type": "reinforce", "stack": "1,-1", "count": count})
        assert exc.value.reason == "count_out_of_range"


def test_max_turns_is_bounded_and_the_defaults_come_from_the_options() -> None:
    cap = RULESET.option("max_turns").maximum
    assert cap is not None
    with pytest.raises(InvalidOptions):
        RULESET.parse_config({"max_turns": cap + 1}, 2)
    config = RULESET.parse_config({}, 3)
    assert (config.layout, config.max_turns, config.setup) == tuple(
        RULESET.option(name).default for name in ("layout", "max_turns", "setup")
    )
    assert RULESET.max_moves >= 4 * cap


def test_state_round_trips_through_json_mid_swap() -> None:
    state = RULESET.setup(RULESET.parse_config({}, 3), 11)[0]
    seat = min(RULESET.awaiting(state))
    state, _ = RULESET.apply(state, seat, RULESET.legal_moves(state, seat)[0])
    assert RULESET.parse_state(json.loads(json.dumps(RULESET.dump_state(state)))) == state


# --- 5. the blind swap: no leak, replacement, determinize (§A4.6, §A9) -------------------------------


def _swap_state() -> eko.State:
    stacks = {"1,0": _stack(0, 1), "1,-1": _stack(1, 1), "0,1": _stack(2, 1)}
    stacks |= E0 | E1 | {"-2,4": _stack(2, 1, True)}
    return _start({"stacks": stacks, "phase": "emperor_swap"}, players=3)


def test_swap_answers_never_leak_to_other_seats() -> None:
    state = _swap_state()
    state, effects = _play(state, 0, {"type": "emperor_swap", "with": "1,0"})
    for viewer in (None, 1, 2):
        seen = [e.to_json() for e in effects if e.visible_to(viewer)]
        assert "1,0" not in json.dumps(seen)
        view = RULESET.view(state, viewer, None)
        assert view["emperor_swap"] == {"answered": [0], "mine": None}
        assert view["board"]["spaces"]["1,0"]["stack"]["emperor"] is False
    private = [e for e in effects if e.to is not None]
    assert [e.data["with"] for e in private] == ["1,0"] and private[0].to == frozenset({0})
    assert RULESET.view(state, 0, None)["emperor_swap"]["mine"] == {"with": "1,0"}


def test_an_answered_seat_may_replace_its_answer_but_lists_no_move() -> None:
    state = _swap_state()
    state, _ = _play(state, 0, {"type": "emperor_swap", "with": "1,0"})
    assert RULESET.legal_moves(state, 0) == []
    assert sorted(RULESET.awaiting(state)) == [1, 2]
    with pytest.raises(NotAwaited):
        _play(state, 0, {"type": "end_actions"})
    state, effects = _play(state, 0, {"type": "emperor_swap", "with": None})
    assert effects[0].data == {"seat": 0, "replaced": True}
    state, _ = RULESET.timeout(state, 1)
    state, effects = _play(state, 2, {"type": "emperor_swap", "with": "0,1"})
    closed = next(e for e in effects if e.kind == "emperor_swap_closed")
    assert closed.data["answers"] == [{"seat": 0, "with": None}, {"seat": 1, "with": None}, {"seat": 2, "with": "0,1"}]
    view = RULESET.view(state, None, None)
    assert view["board"]["spaces"]["-4,2"]["stack"]["emperor"] is True
    assert view["board"]["spaces"]["0,1"]["stack"]["emperor"] is True
    assert view["board"]["spaces"]["-2,4"]["stack"]["emperor"] is False
    assert view["phase"] == "action" and view["active"] == 0


def test_determinize_samples_only_the_others_swap_answers() -> None:
    state = _swap_state()
    state, _ = _play(state, 0, {"type": "emperor_swap", "with": "1,0"})
    state, _ = _play(state, 1, {"type": "emperor_swap", "with": None})
    view = RULESET.view(state, 1, None)
    answers = set()
    for k in range(30):
        sampled = RULESET.determinize(json.loads(json.dumps(view)), 1, rng(k, "det"))
        assert RULESET.view(sampled, 1, None) == view
        assert sampled.swap[1] == eko.SwapAnswer(None)
        answers.add(sampled.swap[0])
        assert sampled.stacks == state.stacks and sampled.seats == state.seats
    assert len(answers) > 1


def test_resigning_during_the_swap_keeps_the_layout_and_may_close_it() -> None:
    state = _swap_state()
    state, _ = _play(state, 0, {"type": "emperor_swap", "with": "1,0"})
    state, _ = _play(state, 1, {"type": "emperor_swap", "with": "1,-1"})
    state, effects = RULESET.resign(state, 2)
    assert [e.kind for e in effects][:2] == ["seat_resigned", "emperor_swap_closed"]
    view = RULESET.view(state, None, None)
    assert view["seats"][2]["status"] == "resigned"
    assert view["board"]["spaces"]["-2,4"]["stack"]["emperor"] is True
    assert view["board"]["spaces"]["1,-1"]["stack"]["emperor"] is True
    assert view["phase"] == "action"


# --- 6. legal moves agree with validation ---------------------------------------------------------


def _random_positions(count: int, seed: int) -> list[eko.State]:
    """States from random playouts, past the swap, in action/post_action/reinforcement prompts."""
    gen = random.Random(seed)
    out = []
    for k in range(count):
        players = 2 + k % 3
        state = RULESET.setup(RULESET.parse_config({}, players), seed * 1000 + k)[0]
        for _ in range(gen.randrange(20, 160)):
            if not RULESET.awaiting(state):
                break
            seat = min(RULESET.awaiting(state))
            state, _ = RULESET.apply(state, seat, gen.choice(RULESET.legal_moves(state, seat)))
        if RULESET.awaiting(state):
            out.append(state)
    return out


def test_every_listed_move_applies_and_every_unlisted_move_is_refused() -> None:
    """Generation (`legal_moves`) and validation (`apply`) are separate code: they must agree exactly."""
    for state in _random_positions(12, 5):
        seat = min(RULESET.awaiting(state))
        listed = {json.dumps(m) for m in _legal_json(state, seat)}
        assert len(listed) == len(RULESET.legal_moves(state, seat)), "duplicates"
        keys = state.board.keys
        candidates: list[dict[str, Any]] = [{"type": "forced_march"}, {"type": "end_actions"}]
        if state.phase in ("action", "action2"):
            for f in keys:
                st = state.stacks[state.board.index[f]]
                if st is None or st.owner != seat:
                    continue
                for t in keys:
                    candidates.extend({"type": "move", "from": f, "to": t, "expect": x} for x in eko.EXPECTS)
            for c in state.board.construction:
                for s in state.board.nbrs[c]:
                    for b in eko.BUILDINGS:
                        for sac in (False, True):
                            candidates.append(
                                {
                                    "type": "construct",
                                    "space": keys[c],
                                    "building": b,
                                    "from_stack": keys[s],
                                    "sacrifice_emperor": sac,
                                }
                            )
        if state.phase == "reinforcement":
            for key in keys:
                for count in range(0, 5):
                    for inc in (False, True):
                        candidates.append({"type": "reinforce", "stack": key, "count": count, "include_emperor": inc})
        accepted = set()
        for raw in candidates:
            try:
                new, _ = _play(state, seat, raw)
            except IllegalMove:
                continue
            assert RULESET.invariant_violations(new) == []
            accepted.add(json.dumps(raw))
        assert accepted == {m for m in listed if json.loads(m)["type"] != "emperor_swap"}


def test_the_cheap_action_check_agrees_with_the_listing() -> None:
    for state in _random_positions(20, 9):
        for seat in range(len(state.seats)):
            if state.seats[seat].status != "active":
                continue
            listed = bool(eko._move_options(state, seat) or eko._construct_options(state, seat))
            assert eko._has_action(state, seat) == listed


def test_the_default_move_is_always_legal() -> None:
    for state in _random_positions(20, 13):
        for seat in RULESET.awaiting(state):
            assert eko.default_move(state, seat) in RULESET.legal_moves(state, seat)


def test_legal_moves_come_in_page_order() -> None:
    """§A8: every `move` first, then every `construct`, each in canonical key order."""
    for state in _random_positions(10, 21):
        seat = min(RULESET.awaiting(state))
        moves = RULESET.legal_moves(state, seat)
        index = state.board.index
        kinds = [type(m).__name__ for m in moves]
        assert kinds == sorted(kinds, key=lambda k: {"MoveStack": 0, "Construct": 1}.get(k, 2))
        pairs = [(index[m.from_], index[m.to]) for m in moves if isinstance(m, eko.MoveStack)]
        assert pairs == sorted(pairs)
        builds = [
            (index[m.space], eko.VALUE[m.building], index[m.from_stack]) for m in moves if isinstance(m, eko.Construct)
        ]
        assert builds == sorted(builds)


def test_wrong_phase_and_not_awaited() -> None:
    state = _start({"stacks": {"1,0": _stack(0, 2)} | E0 | E1})
    with pytest.raises(IllegalMove) as exc:
        _play(state, 0, {"type": "reinforce", "stack": "1,0", "count": 1})
    assert exc.value.reason == "wrong_phase"
    with pytest.raises(IllegalMove) as exc:
        _play(state, 0, {"type": "emperor_swap", "with": None})
    assert exc.value.reason == "wrong_phase"
    with pytest.raises(IllegalMove) as exc:
        _play(state, 0, {"type": "end_actions"})
    assert exc.value.reason == "wrong_phase"
    with pytest.raises(NotAwaited):
        _play(state, 1, {"type": "move", "from": "2,-4", "to": "1,-3"})
    assert RULESET.legal_moves(state, 1) == [] and RULESET.legal_moves(state, 7) == []


# --- 7. resignation, wipe-out, turn cap, ranking (§A5.5, §A6.4, §A7) ------------------------------


def _three_seats(active: int = 0) -> eko.State:
    stacks = {"1,0": _stack(0, 2), "1,-1": _stack(1, 2), "0,1": _stack(2, 2)}
    stacks |= E0 | E1 | {"-2,4": _stack(2, 1, True)}
    return _start({"stacks": stacks, "active": active}, players=3)


def test_a_resigned_active_seat_passes_the_turn_and_stays_on_the_board() -> None:
    state = _three_seats(active=0)
    state, effects = RULESET.resign(state, 0)
    assert [e.kind for e in effects] == ["seat_resigned", "turn_started"]
    assert state.active == 1 and state.phase == "action"
    assert RULESET.view(state, None, None)["board"]["spaces"]["1,0"]["stack"] == _stack(0, 2)
    with pytest.raises(NotAwaited):
        RULESET.resign(state, 0)
    with pytest.raises(NotAwaited):
        _play(state, 0, {"type": "move", "from": "1,0", "to": "2,0"})
    state, _ = RULESET.resign(state, 2)
    out = RULESET.outcome(state)
    assert out is not None and out.reason == "resignation" and out.winners == frozenset({1})
    assert [sorted(g) for g in out.ranking] == [[1], [0, 2]]


def test_a_resigned_seat_is_skipped_and_its_stacks_are_targets() -> None:
    state = _three_seats(active=1)
    state, _ = RULESET.resign(state, 2)
    assert state.active == 1
    legal = _legal_json(state, 1)
    assert {"type": "move", "from": "1,-1", "to": "0,1", "expect": "attack"} not in legal  # 2 vs 2
    state, _ = _play(state, 1, {"type": "move", "from": "1,-1", "to": "1,-2", "expect": "simple"})
    assert state.active == 0, "seat 2 resigned: its turn is skipped"
    state, _ = _play(state, 0, {"type": "move", "from": "1,0", "to": "1,-1", "expect": "simple"})
    assert state.active == 1 and RULESET.outcome(state) is None
    assert {"type": "move", "from": "1,-1", "to": "0,1", "expect": "attack"} not in _legal_json(state, 1)
    state = _start(
        {
            "stacks": {"1,0": _stack(0, 2), "1,-1": _stack(1, 3), "0,1": _stack(2, 2)}
            | E0
            | E1
            | {"-2,4": _stack(2, 1, True)},
            "active": 1,
        },
        players=3,
    )
    state, _ = RULESET.resign(state, 2)
    state, _ = _play(state, 1, {"type": "move", "from": "1,-1", "to": "0,1", "expect": "attack"})
    assert state.seats[2].reserve == 2, "a resigned seat's stack is still a target"


def test_mutual_wipe_out_by_kamikaze_is_a_draw_on_equal_vp() -> None:
    """§A6.4.4 [D]: nobody left with discs; most VP wins, equal VP share."""
    setup = {
        "stacks": {"1,0": _stack(0, 1, True), "1,-1": _stack(1, 4, True)},
    }
    state = _start(setup)
    state, effects = _play(state, 0, {"type": "move", "from": "1,0", "to": "1,-1", "expect": "kamikaze"})
    out = RULESET.outcome(state)
    assert out is not None and out.reason == "wipeout" and out.winners == frozenset({0, 1})
    assert [e.kind for e in effects].count("seat_eliminated") == 2
    setup["buildings"] = {"1,1": {"owner": 1, "kind": "camp"}}
    state = _start(setup)
    state, _ = _play(state, 0, {"type": "move", "from": "1,0", "to": "1,-1"})
    out = RULESET.outcome(state)
    assert out is not None and out.winners == frozenset({1}) and out.scores == (0, 1)


def test_the_turn_cap_ends_the_game_on_vp_then_discs() -> None:
    """§A6.4.5: the game ends once turn `max_turns` is over."""
    base = {"stacks": {"1,0": _stack(0, 2)} | E0 | E1, "turn": 3}
    state = _start(base, max_turns=3)
    state, effects = _play(state, 0, {"type": "move", "from": "1,0", "to": "1,-1"})
    out = RULESET.outcome(state)
    assert out is not None and out.reason == "turn_cap" and out.winners == frozenset({0})  # 3 discs to 1
    assert "turn_started" not in [e.kind for e in effects]
    with_vp = base | {"buildings": {"1,1": {"owner": 1, "kind": "camp"}}}
    state, _ = _play(_start(with_vp, max_turns=3), 0, {"type": "move", "from": "1,0", "to": "1,-1"})
    out = RULESET.outcome(state)
    assert out is not None and out.winners == frozenset({1}) and out.ranking == (frozenset({1}), frozenset({0}))
    even = {"stacks": E0 | E1, "turn": 3}
    state, _ = _play(_start(even, max_turns=3), 0, {"type": "move", "from": "-4,2", "to": "-3,2"})
    out = RULESET.outcome(state)
    assert out is not None and out.winners == frozenset({0, 1}) and out.ranking == (frozenset({0, 1}),)


def test_the_turn_cap_is_not_reached_before_the_last_turn() -> None:
    state = _start({"stacks": {"1,0": _stack(0, 2)} | E0 | E1, "turn": 2}, max_turns=3)
    state, _ = _play(state, 0, {"type": "move", "from": "1,0", "to": "1,-1"})
    assert RULESET.outcome(state) is None and state.turn == 3 and state.active == 1


def test_ranking_puts_active_seats_then_eliminated_then_resigned() -> None:
    """§A7: winners, then active seats by VP, then eliminated by VP, then resigned seats together."""
    stacks = {"1,0": _stack(0, 3), "1,-1": _stack(1, 1, True), "0,1": _stack(2, 1), "-2,4": _stack(3, 1, True)}
    stacks |= E0 | {"2,-4": _stack(2, 1, True)}
    buildings = {"1,1": {"owner": 1, "kind": "camp"}, "0,2": {"owner": 2, "kind": "tower"}}
    state = _start({"stacks": stacks, "buildings": buildings}, players=4)
    state, _ = RULESET.resign(state, 3)
    state, effects = _play(state, 0, {"type": "move", "from": "1,0", "to": "1,-1", "expect": "attack"})
    assert "seat_eliminated" in [e.kind for e in effects]
    state, _ = RULESET.resign(state, 2)
    out = RULESET.outcome(state)
    assert out is not None and out.reason == "resignation"
    assert out.ranking == (frozenset({0}), frozenset({1}), frozenset({2, 3}))
    assert out.scores == (3, 1, 2, 0)


def test_an_own_kamikaze_that_empties_the_board_ends_the_turn() -> None:
    """[D] A seat that eliminates itself (3+ players) ends its turn; the others play on."""
    stacks = {"1,0": _stack(0, 1, True), "1,-1": _stack(1, 4, True), "0,1": _stack(2, 1, True), "2,1": _stack(1, 1)}
    state = _start({"stacks": stacks, "reserve": [{"discs": 3}, {"discs": 0}, {"discs": 0}]}, players=3)
    state, effects = _play(state, 0, {"type": "move", "from": "1,0", "to": "1,-1"})
    kinds = [e.kind for e in effects]
    assert kinds[:3] == ["kamikaze_struck", "seat_eliminated", "turn_started"]
    assert state.active == 1 and state.seats[0].status == "eliminated"
    assert RULESET.invariant_violations(state) == []


# --- 8. invariant checker actually catches things ----------------------------------------------------


def test_invariant_violations_detect_lost_discs_and_double_emperors() -> None:
    state = _start({"stacks": {"1,0": _stack(0, 2)} | E0 | E1})
    assert RULESET.invariant_violations(state) == []
    broken = dataclasses.replace(state, seats=put(state.seats, 0, dataclasses.replace(state.seats[0], boxed=0)))
    assert any("seat 0" in v for v in RULESET.invariant_violations(broken))
    idx = state.board.index["1,0"]
    broken = dataclasses.replace(state, stacks=put(state.stacks, idx, eko.Stack(0, 2, True)))
    assert any("Emperor" in v for v in RULESET.invariant_violations(broken))


def test_heuristic_prefers_vp_and_the_end() -> None:
    state = _start({"stacks": {"1,0": _stack(0, 2)} | E0 | E1, "buildings": {"1,1": {"owner": 0, "kind": "camp"}}})
    assert RULESET.heuristic(state, 0) > RULESET.heuristic(state, 1)
    state, _ = RULESET.resign(state, 1)
    assert RULESET.heuristic(state, 0) == 1000.0 and RULESET.heuristic(state, 1) == -1000.0
