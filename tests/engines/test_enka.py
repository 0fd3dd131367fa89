"""Enka rules (docs/rules/enka.md): the §2.10 scenarios as data files, and the edge cases and properties around them.

Positions are dealt with the `setup` option (§0.7). Seats: A = 0, B = 1, C = 2, D = 3; dealer A
unless stated. Cards not listed in a setup go to the bottom of the draw pile in canonical order,
so a test that cares about draws lists the pile's top cards itself.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import enka
from rules.base import Effect, IllegalMove, InvalidMove, InvalidOptions, NotAwaited
from tests.engines.scenarios import runner

R = enka.RULES
A, B, C, D = 0, 1, 2, 3
Step = tuple[enka.State, tuple[Effect, ...]]
IN_CODE = {3, 32, 34}  # §2.10 scenarios tested here: option refusals, the leak scan, the property test


# --- helpers ----------------------------------------------------------------------------------


def deal(
    hands: list[list[str]],
    start: str | None,
    pile: list[str] | tuple[str, ...] = (),
    *,
    dealer: int = A,
    **options: Any,
) -> enka.State:
    """A round-1 state fixed by `setup`; extra setup keys (scores, round, next_rounds) pass through."""
    setup: dict[str, Any] = {"dealer": dealer, "hands": hands, "draw_pile": list(pile)}
    if start is not None:
        setup["start"] = start
    for key in ("scores", "round", "next_rounds"):
        if key in options:
            setup[key] = options.pop(key)
    return R.setup(R.parse_config({**options, "setup": setup}, len(hands)), 12345)[0]


def full_deal(
    hands: list[list[str]], start: str, pile: list[str] = (), *, filler: int = A, **options: Any
) -> enka.State:
    """Like `deal`, but every unlisted card goes to ``filler``'s hand, so the draw pile is exactly ``pile``."""
    listed = Counter(c for h in hands for c in h) + Counter(pile) + Counter([start])
    rest = Counter(enka.DECKS[options.get("take5_mode", "coloured")]) - listed
    hands = [list(h) for h in hands]
    hands[filler] += sorted(rest.elements())
    return deal(hands, start, pile, **options)


def move(state: enka.State, seat: int, **data: Any) -> Step:
    return R.apply(state, seat, R.parse_move(data))


def reason(state: enka.State, seat: int, **data: Any) -> str:
    with pytest.raises(IllegalMove) as err:
        R.apply(state, seat, R.parse_move(data))
    assert err.value.reason is not None
    return err.value.reason


def public(effects: tuple[Effect, ...], kind: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in effects if e.kind == kind and e.to is None]


def moves_json(state: enka.State, seat: int) -> list[dict[str, Any]]:
    return [R.dump_move(m) for m in R.legal_moves(state, seat)]


def hand(state: enka.State, seat: int) -> list[str]:
    return list(state.hands[seat])


def no_violations(state: enka.State) -> enka.State:
    assert R.invariant_violations(state) == []
    return state


# --- §2.10 as data: tests/engines/scenarios/enka/ ---------------------------------------------


def _setup_options(case: dict[str, Any]) -> dict[str, Any]:
    """A case's options: its `setup` dealt by A unless it says otherwise (§2.10); with ``filler``,
    every card the setup does not list goes to that seat's hand, so the draw pile is exactly
    ``setup.draw_pile``."""
    options = runner.default_options(case)
    if "setup" in options:
        setup = options["setup"]
        setup.setdefault("dealer", A)
        if "filler" in case:
            listed = Counter(c for h in setup["hands"] for c in h) + Counter(setup.get("draw_pile", []))
            listed[setup["start"]] += 1
            rest = Counter(enka.DECKS[options.get("take5_mode", "coloured")]) - listed
            setup["hands"][case["filler"]] += sorted(rest.elements())
    return options


@pytest.mark.parametrize("path", runner.files("enka"), ids=lambda p: p.stem)
def test_scenario(path: Path) -> None:
    assert runner.run_file(R, path, options_of=_setup_options) > 0


def test_every_scenario_of_the_page_has_a_file_or_a_test() -> None:
    numbers = {int(p.stem[1:3]) for p in runner.files("enka")}
    assert numbers | IN_CODE == set(range(1, 35))


# --- scenario 1: the deck table and the scores (§2.2, §2.6) --------------------------------------


def test_default_deck_has_112_cards_in_the_page_composition() -> None:
    deck = Counter(enka.DECKS["coloured"])
    assert sum(deck.values()) == 112
    for color in enka.COLORS:
        assert deck[f"{color}-0"] == 1
        assert all(deck[f"{color}-{n}"] == 2 for n in range(1, 10))
        assert deck[f"{color}-stop"] == deck[f"{color}-back"] == deck[f"{color}-take2"] == 2
        assert deck[f"{color}-take5"] == 1
    assert deck["wild"] == deck["wild-take4"] == 4
    assert enka.DECKS["coloured"][:3] == ("red-0", "red-1", "red-1")  # canonical order (§2.2)


def test_card_values_and_a_scored_hand() -> None:
    assert enka.hand_points(["red-7", "blue-stop", "wild-take4", "green-take5"]) == 187
    assert [enka.card_value(c) for c in ("red-0", "yellow-back", "blue-take2", "wild", "take5")] == [0, 30, 30, 30, 100]


# --- scenario 2: setup -------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_deal() -> None:
    config = R.parse_config({"first_dealer": 0}, 4)
    state = no_violations(R.setup(config, 9)[0])
    assert R.dump_state(R.setup(config, 9)[0]) == R.dump_state(state)
    assert R.dump_state(R.setup(config, 10)[0]) != R.dump_state(state)


def test_special_start_cards_are_listed_as_returned_and_back_in_the_pile() -> None:
    config = R.parse_config({"first_dealer": 0}, 4)
    seen = 0
    for seed in range(40):
        state = R.setup(config, seed)[0]
        view = R.view(state, None, None)
        assert view["returned"] == list(state.returned)
        assert all(not enka.RANK_OF[c].isdigit() for c in state.returned)
        assert set(state.returned) <= set(state.draw_pile)
        seen += bool(state.returned)
    assert seen, "some seed turns up a special card first"


def test_random_first_dealer_comes_from_the_seed() -> None:
    dealers = {R.setup(R.parse_config({}, 4), seed)[0].dealer for seed in range(30)}
    assert dealers == {0, 1, 2, 3}


# --- scenario 3: player limits and options -----------------------------------------------------


@pytest.mark.parametrize("players", [1, 9, 11])
def test_player_counts_outside_two_to_eight_are_refused(players: int) -> None:
    with pytest.raises(InvalidOptions):
        R.parse_config({}, players)


@pytest.mark.parametrize("players", [2, 8])
def test_two_and_eight_players_are_accepted(players: int) -> None:
    assert R.parse_config({}, players).players == players


def test_max_players_override_allows_nine_and_ten() -> None:
    for players in (9, 10):
        state = R.setup(R.parse_config({"max_players_override": True}, players), 3)[0]
        assert no_violations(state) and [len(h) for h in state.hands] == [6] * players
    with pytest.raises(InvalidOptions):
        R.parse_config({"max_players_override": True}, 11)


@pytest.mark.parametrize(
    "options",
    [
        {"nope": 1},
        {"target_score": 0},
        {"target_score": True},
        {"hand_size": 2},
        {"hand_size": 11},
        {"start_card": "keep"},
        {"take5_mode": "black"},
        {"symbol_match": 1},
        {"reshuffle": "twice"},
        {"round_move_cap": 0},
        {"one_penalty": -1},
        {"first_dealer": 4},
        {"tie_policy": "coin"},
        {"max_rounds": 0},
        {"setup": {"hands": [["red-1"], ["red-2"], [], []], "start": "purple-1"}},
        {"setup": {"hands": [["red-0"], ["red-0"], [], []], "start": "red-1"}},  # only one red-0
        {"setup": {"hands": [["red-1"], ["red-2"]], "start": "red-3"}},  # one list per seat
        {"setup": {"hands": [[], [], [], []], "start": "red-3", "dealer": 4}},
        {"setup": {"hands": [["take5"], [], [], []], "start": "red-3"}},  # no take5 in the coloured deck
        {"setup": {"hands": [[], [], [], []], "start": "red-3", "extra": 1}},
        {"setup": {"hands": [list(enka.DECKS["coloured"]), [], [], []]}},  # nothing left to turn up
    ],
)
def test_invalid_options_and_setups_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        R.parse_config(options, 4)


def test_every_option_of_the_page_is_in_the_catalogue() -> None:
    assert {o.name for o in R.options} == {  # the table of docs/rules/enka.md §2.7.1
        "target_score",
        "max_rounds",
        "first_dealer",
        "hand_size",
        "start_card",
        "take5_mode",
        "symbol_match",
        "jump_in",
        "reshuffle",
        "round_move_cap",
        "one_penalty",
        "strict",
        "tie_policy",
        "max_players_override",
        "setup",
    }
    assert R.option("setup").restricted and R.option("max_players_override").restricted
    defaults = {o.name: o.default for o in R.options if o.name != "setup"}
    config = R.parse_config(defaults, 4)
    assert config == R.parse_config({}, 4)
    assert R.view(R.setup(config, 1)[0], None, None)["options"] == defaults


def test_hand_size_option_changes_the_deal() -> None:
    state = R.setup(R.parse_config({"hand_size": 10}, 8), 4)[0]
    assert [len(h) for h in state.hands] == [10] * 8 and no_violations(state)


# --- move parsing -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        {"type": "play", "card": "red-7"},
        {"type": "play", "card": "wild", "color": "blue"},
        {"type": "play", "card": "wild-take4", "color": "green", "one": True},
        {"type": "draw", "if_playable": "ask"},
        {"type": "draw", "if_playable": "keep"},
        {"type": "draw", "if_playable": "play", "color": "red", "one": False},
        {"type": "play_drawn", "color": "yellow", "one": True},
        {"type": "keep"},
        {"type": "jump_in", "card": "blue-4", "against_seq": 32, "one": False},
    ],
)
def test_page_moves_round_trip(data: dict[str, Any]) -> None:
    assert R.dump_move(R.parse_move(data)) == data
    assert R.parse_move(R.dump_move(R.parse_move(data))) == R.parse_move(data)


def test_draw_defaults_to_ask() -> None:
    assert R.parse_move({"type": "draw"}) == enka.Draw("ask")


@pytest.mark.parametrize(
    "data",
    [
        {"type": "pass"},
        {"card": "red-7"},
        {"type": "play"},
        {"type": "play", "card": "red-10"},
        {"type": "play", "card": "wild", "color": "purple"},
        {"type": "play", "card": "red-7", "one": "yes"},
        {"type": "play", "card": "red-7", "seat": 1},
        {"type": "draw", "if_playable": "maybe"},
        {"type": "draw", "if_playable": "keep", "color": "red"},
        {"type": "keep", "one": True},
        {"type": "jump_in", "card": "blue-4"},
        {"type": "jump_in", "card": "blue-4", "against_seq": True},
        {"type": "jump_in", "card": "blue-4", "against_seq": "3"},
        {"type": "jump_in", "card": "blue-4", "against_seq": 3, "color": "red"},
        "play",
    ],
)
def test_malformed_moves_are_invalid(data: Any) -> None:
    with pytest.raises(InvalidMove):
        R.parse_move(data)


# --- edge cases the scenario files do not reach -------------------------------------------------


def _exhaustible() -> enka.State:
    """B to play on red-5 with an empty draw pile and nine cards under the top."""
    hands = [["red-2"], ["red-take2", "yellow-1"], ["red-3"], ["red-4"]]
    state = full_deal(hands, "red-5", [], filler=A)
    under = ("green-1", "green-2", "green-3", "green-4", "green-5", "green-6", "green-7", "green-8", "green-9")
    rest = list(state.hands[A])
    for card in under:
        rest.remove(card)
    state = replace(state, hands=(tuple(rest), *state.hands[1:]), discard=(*under, "red-5"))
    return no_violations(state)


def test_reshuffle_none_and_unlimited() -> None:
    state = replace(_exhaustible(), config=replace(_exhaustible().config, reshuffle="none"))
    assert R.view(state, None, None)["reshuffles_left"] == 0
    assert reason(state, B, type="draw") == "must_play_pile_exhausted"
    state = replace(_exhaustible(), config=replace(_exhaustible().config, reshuffle="unlimited"), reshuffles_used=5)
    assert R.view(state, None, None)["reshuffles_left"] is None
    assert move(state, B, type="draw", if_playable="keep")[0].reshuffles_used == 6


def _s29(scores: list[int], d_hand: tuple[str, ...] = ("green-9", "green-1"), **options: Any) -> enka.State:
    hands = [
        ["red-9", "red-8", "red-8"],
        ["blue-9"],
        ["yellow-9", "yellow-9", "yellow-8", "yellow-8", "yellow-6"],
        list(d_hand),
    ]
    return deal(hands, "blue-4", scores=scores, **options)


def test_a_shared_first_place_asks_for_a_rematch_under_tie_policy_rematch() -> None:
    state, _ = move(_s29([480, 100, 300, 100], ["red-0"]), B, type="play", card="blue-9")
    assert R.outcome(state).extra == {}
    state, _ = move(_s29([480, 100, 300, 100], ["red-0"], tie_policy="rematch"), B, type="play", card="blue-9")
    assert R.outcome(state).to_json()["rematch"] is True
    state, _ = move(_s29([480, 120, 300, 90], tie_policy="rematch"), B, type="play", card="blue-9")
    assert "rematch" not in R.outcome(state).to_json()  # a single winner


# --- scenario 32: redaction ----------------------------------------------------------------------------


SECRET = {"red-0", "yellow-take5", "green-0"}  # unique ids in B's hand and on top of the pile


def _check_no_leak(state: enka.State, effects: tuple[Effect, ...], owner: int, secret: set[str]) -> None:
    for viewer in (None, A, C, D):
        if viewer == owner:
            continue
        text = json.dumps(R.view(state, viewer, None))
        assert not any(f'"{card}"' in text for card in secret), (viewer, text)
        assert 'draw_pile"' not in text
        for effect in effects:
            if effect.visible_to(viewer):
                private = "cards" in effect.data or "hand" in effect.data
                assert not private or effect.to == frozenset({viewer})
                assert not any(f'"{c}"' in json.dumps(effect.to_json()) for c in secret)


def test_no_view_or_effect_shows_a_hidden_card_to_another_seat() -> None:
    hands = [
        ["blue-4", "red-8", "red-9"],
        ["red-0", "yellow-take5", "green-2"],
        ["red-3", "blue-4", "red-5"],
        ["red-4", "green-4"],
    ]
    state = deal(hands, "blue-1", ["green-0", "yellow-3"], dealer=D)
    _check_no_leak(state, (), B, SECRET)
    state, effects = move(state, A, type="play", card="blue-4")
    assert moves_json(state, C) == [{"type": "jump_in", "card": "blue-4", "against_seq": state.place_seq}]
    assert moves_json(state, D) == []
    state, effects = move(state, B, type="draw", if_playable="ask")  # B draws green-0
    assert R.view(state, B, None)["drawn"] == "green-0"
    _check_no_leak(state, effects, B, SECRET)
    assert [e.to for e in effects if e.kind == "cards_received"] == [frozenset({B})]
    state, effects = move(state, B, type="keep")
    _check_no_leak(state, effects, B, SECRET)
    assert R.view(state, B, None)["hand"] == ["green-0", "green-2", "red-0", "yellow-take5"]


def test_a_spectator_sees_no_hand() -> None:
    view = R.view(deal([["red-1"], ["red-2"]], "red-5"), None, None)
    assert view["you"] is None and view["hand"] == [] and view["drawn"] is None


def test_legal_moves_are_empty_for_seats_with_nothing_to_do() -> None:
    state = deal([["red-1"], ["red-2"], ["red-3"], ["red-4"]], "red-5")
    assert moves_json(state, A) == [] and moves_json(state, C) == []


# --- resignation (§0.6) ------------------------------------------------------------------------------------


def test_the_current_seat_resigning_passes_the_turn() -> None:
    state = deal([["red-1"], ["red-2", "red-6"], ["red-3"], ["red-4"]], "red-5")
    state, effects = R.resign(state, B)
    assert public(effects, "skipped") == [{"seat": B, "cause": "resigned"}]
    assert state.current == C and state.hands[B] == () and set(state.aside) == {"red-2", "red-6"}
    assert R.view(state, None, None)["seats"][B] == {
        "seat": B,
        "hand_count": 0,
        "one": False,
        "total": 0,
        "active": False,
    }
    no_violations(state)
    with pytest.raises(NotAwaited):
        move(state, B, type="play", card="red-2")
    with pytest.raises(NotAwaited):
        move(state, B, type="jump_in", card="red-5", against_seq=state.place_seq)
    with pytest.raises(NotAwaited):
        R.resign(state, B)
    assert moves_json(state, B) == []


def test_a_resigned_seat_is_skipped_and_does_not_draw() -> None:
    state = deal([["red-take5", "red-9"], ["red-2"], ["red-3"], ["red-4"]], "red-5", dealer=D)
    state, _ = R.resign(state, B)
    state, effects = move(state, A, type="play", card="red-take5", one=True)
    assert [d["seat"] for d in public(effects, "drew")] == [C, D] and state.current == C


def test_resigning_during_a_drawn_decision() -> None:
    state, _ = move(deal([["red-1"], ["red-2"], ["red-3"], ["red-4"]], "red-5", ["green-1"]), B, type="draw")
    state, _ = R.resign(state, B)
    assert state.phase == "turn" and state.drawn is None and state.current == C and no_violations(state)


def test_the_dealer_resigning_hands_the_deal_on() -> None:
    state, _ = R.resign(deal([["red-1"], ["red-2"], ["red-3"], ["red-4"]], "red-5"), A)
    assert state.dealer == B and state.current == B


def test_the_last_active_seat_wins_by_resignation_and_resigned_seats_rank_last() -> None:
    state = deal([["red-1"], ["red-2"], ["red-3"]], "red-5", scores=[0, 50, 10])
    state, _ = R.resign(state, A)
    state, effects = R.resign(state, C)
    result = R.outcome(state)
    assert result.reason == "resignation" and result.winners == frozenset({B})
    assert result.ranking == (frozenset({B}), frozenset({A, C}))
    assert public(effects, "game_ended")[0]["ranking"] == [[B], [A, C]]


def test_resigned_seats_rank_last_at_a_normal_end() -> None:
    state = deal([["red-1", "red-2"], ["blue-9"], ["yellow-9"], ["green-1"]], "blue-4", scores=[0, 0, 600, 0])
    state, _ = R.resign(state, A)
    state, _ = move(state, B, type="play", card="blue-9")
    result = R.outcome(state)
    assert result.ranking == (frozenset({B}), frozenset({D}), frozenset({C}), frozenset({A}))
    assert result.scores == (0, 0, 609, 1)


def test_a_resigned_seat_is_not_dealt_next_round() -> None:
    state = deal([["red-1", "red-2"], ["blue-9"], ["yellow-9"], ["green-1"]], "blue-4")
    state, _ = R.resign(state, C)
    state, effects = move(state, B, type="play", card="blue-9")
    assert state.hands[C] == () and state.aside == () and [len(h) for h in state.hands] == [6, 6, 0, 6]
    assert public(effects, "round_ended")[0]["hands"][C] is None
    no_violations(state)


# --- strict mode (§2.7.6) -----------------------------------------------------------------------------------


def test_strict_wrong_card_draws_one_and_stays_current() -> None:
    state = deal([["red-1"], ["green-7", "red-2"], ["red-3"], ["red-4"]], "blue-5", ["yellow-9"], strict=True)
    state, effects = move(state, B, type="play", card="green-7")
    assert public(effects, "drew") == [{"seat": B, "count": 1, "cause": "penalty"}]
    assert hand(state, B) == ["green-7", "red-2", "yellow-9"] and state.current == B and state.phase == "turn"
    assert reason(state, B, type="play", card="green-9") == "card_not_in_hand"  # refusals stay refusals
    assert reason(state, B, type="play", card="wild") == "color_required"


# --- properties (scenario 34) --------------------------------------------------------------------------------


def _leak_free(effects: tuple[Effect, ...]) -> None:
    for effect in effects:
        if "cards" in effect.data or "hand" in effect.data:
            assert effect.to == frozenset({effect.data["seat"]})


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # examples: the profile (tests/conftest.py)
@given(
    players=st.integers(2, 8),
    seed=st.integers(0, 2**63 - 1),
    take5_mode=st.sampled_from(["coloured", "wild"]),
    start_card=st.sampled_from(["redraw", "apply"]),
    strict=st.booleans(),
    choices=st.randoms(use_true_random=False),
)
def test_random_playouts_conserve_cards_and_end(
    players: int, seed: int, take5_mode: str, start_card: str, strict: bool, choices: Any
) -> None:
    options = {"take5_mode": take5_mode, "start_card": start_card, "strict": strict, "target_score": 200}
    state = R.setup(R.parse_config(options, players), seed)[0]
    rounds = [state.round]
    for _ in range(20_000):
        assert R.invariant_violations(state) == []
        if not R.awaiting(state):
            break
        assert state.phase in ("turn", "drawn") and R.awaiting(state)
        movers = [s for s in range(players) if R.legal_moves(state, s)]
        seat = choices.choice(movers)
        state, effects = R.apply(state, seat, choices.choice(list(R.legal_moves(state, seat))))
        _leak_free(effects)
        if state.round != rounds[-1]:
            rounds.append(state.round)
            assert state.moves_this_round == 0 or state.phase == "game_over"
    else:
        pytest.fail("the game did not end")
    assert R.outcome(state) is not None and state.phase == "game_over"


def test_state_round_trips_through_json() -> None:
    state = deal([["red-1"], ["red-2"]], "red-5", scores=[1, 2], next_rounds=[{"hands": [[], []]}])
    dumped = json.loads(json.dumps(R.dump_state(state)))
    assert R.parse_state(dumped) == state
