"""Enka rules (spec/rules/enka.md): every scenario of §2.10, one test per rule and edge case.

Positions are dealt with the `setup` option (§0.7). Seats: A = 0, B = 1, C = 2, D = 3; dealer A
unless stated. Cards not listed in a setup go to the bottom of the draw pile in canonical order,
so a test that cares about draws lists the pile's top cards itself.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engines import enka
from games.engines.base import Effect, IllegalMove, InvalidMove, InvalidOptions, NotAwaited, RaceLost

R = enka.RULES
A, B, C, D = 0, 1, 2, 3
Step = tuple[enka.State, tuple[Effect, ...]]


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


def kinds(effects: tuple[Effect, ...]) -> list[str]:
    return [e.kind for e in effects]


def public(effects: tuple[Effect, ...], kind: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in effects if e.kind == kind and e.to is None]


def jump(state: enka.State, seat: int, card: str, **extra: Any) -> Step:
    return move(state, seat, type="jump_in", card=card, against_seq=state.place_seq, **extra)


def moves_json(state: enka.State, seat: int) -> list[dict[str, Any]]:
    return [R.dump_move(m) for m in R.legal_moves(state, seat)]


def hand(state: enka.State, seat: int) -> list[str]:
    return list(state.hands[seat])


def no_violations(state: enka.State) -> enka.State:
    assert R.invariant_violations(state) == []
    return state


# --- §2.10 scenario 1: the deck ---------------------------------------------------------------


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


def test_wild_take5_mode_swaps_the_coloured_take5s() -> None:
    deck = Counter(enka.DECKS["wild"])
    assert deck["red-take5"] == 0 and deck["take5"] == 4 and sum(deck.values()) == 112


def test_card_values_and_a_scored_hand() -> None:
    assert enka.hand_points(["red-7", "blue-stop", "wild-take4", "green-take5"]) == 187
    assert [enka.card_value(c) for c in ("red-0", "yellow-back", "blue-take2", "wild", "take5")] == [0, 30, 30, 30, 100]


# --- scenario 2: setup -------------------------------------------------------------------------


def test_setup_from_seed_deals_six_each_and_turns_a_number_card() -> None:
    config = R.parse_config({"first_dealer": 0}, 4)
    state = no_violations(R.setup(config, 9)[0])
    assert [len(h) for h in state.hands] == [6] * 4
    assert enka.RANK_OF[state.discard[-1]].isdigit()
    assert state.current_color == enka.COLOR_OF[state.discard[-1]]
    assert state.current == B and state.direction == 1 and state.dealer == A and state.place_seq == 1
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


def test_a_returned_start_card_goes_back_and_the_next_pile_card_is_turned() -> None:
    state = deal([["red-1"], ["red-2"]], "blue-stop", ["green-5", "green-6"])
    assert state.returned[0] == "blue-stop" and "blue-stop" in state.draw_pile
    assert enka.RANK_OF[state.discard[-1]].isdigit()


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


# --- scenario 4: matching by colour and number -------------------------------------------------


def _s4() -> enka.State:
    return deal([["red-1"], ["blue-9", "red-4", "green-7"], ["yellow-1"], ["yellow-2"]], "blue-4")


@pytest.mark.parametrize("card", ["blue-9", "red-4"])
def test_a_card_of_the_current_colour_or_number_is_accepted(card: str) -> None:
    state, effects = move(_s4(), B, type="play", card=card)
    assert public(effects, "played")[0]["card"] == card and state.current == C
    assert state.current_color == enka.COLOR_OF[card]


def test_a_card_matching_neither_is_refused_without_change() -> None:
    before = _s4()
    assert reason(before, B, type="play", card="green-7") == "card_does_not_match"
    assert R.dump_state(before) == R.dump_state(_s4())


def test_play_precondition_order() -> None:
    state = _s4()
    assert reason(state, B, type="play", card="wild") == "color_required"
    assert reason(state, B, type="play", card="red-5", color="red") == "color_not_allowed"
    assert reason(state, B, type="play", card="red-5") == "card_not_in_hand"
    with pytest.raises(NotAwaited):
        move(state, C, type="play", card="yellow-1")
    with pytest.raises(NotAwaited):
        move(state, C, type="draw", if_playable="ask")


# --- scenario 5: matching by symbol ------------------------------------------------------------


def _s5(**options: Any) -> enka.State:
    state = deal([["red-1"], ["red-stop", "red-2"], ["yellow-1"], ["blue-stop", "green-2"]], "red-3", **options)
    state, effects = move(state, B, type="play", card="red-stop")
    assert public(effects, "skipped") == [{"seat": C, "cause": "stop"}] and state.current == D
    return state


def test_a_symbol_matches_across_colours() -> None:
    state, _ = move(_s5(), D, type="play", card="blue-stop")
    assert state.current_color == "blue" and state.current == B


def test_symbol_match_off_refuses_it() -> None:
    assert reason(_s5(symbol_match=False), D, type="play", card="blue-stop") == "card_does_not_match"


# --- scenario 6: CHANGE COLOR ------------------------------------------------------------------


def _s6() -> enka.State:
    return deal(
        [["red-1"], ["wild", "red-3", "blue-1"], ["yellow-8", "green-1", "wild", "red-9"], ["red-2"]], "yellow-8"
    )


def test_change_color_needs_a_colour_and_sets_it() -> None:
    state = _s6()
    assert reason(state, B, type="play", card="wild") == "color_required"
    assert reason(state, B, type="play", card="red-3", color="blue") == "color_not_allowed"
    state, effects = move(state, B, type="play", card="wild", color="green")
    assert state.current_color == "green" and public(effects, "played")[0]["color"] == "green"
    assert reason(state, C, type="play", card="yellow-8") == "card_does_not_match"  # a wild matches by colour only
    assert move(state, C, type="play", card="green-1")[0].current == D
    assert move(state, C, type="play", card="wild", color="yellow")[0].current_color == "yellow"


def test_a_wild_may_name_the_current_colour() -> None:
    state, _ = move(_s6(), B, type="play", card="wild", color="yellow")
    assert state.current_color == "yellow"


# --- scenario 7: TAKE 4 with no restriction ----------------------------------------------------


def test_take4_is_playable_while_holding_the_colour_and_hits_the_next_seat() -> None:
    pile = ["green-1", "green-2", "green-3", "green-4"]
    state = deal([["red-1"], ["red-3"], ["red-2", "wild-take4"], ["blue-1"]], "red-5", pile, dealer=B)
    assert state.current == C
    state, effects = move(state, C, type="play", card="wild-take4", color="red", one=True)
    assert public(effects, "drew") == [{"seat": D, "count": 4, "cause": "take4"}]
    assert public(effects, "skipped") == [{"seat": D, "cause": "take4"}]
    assert hand(state, D) == sorted(["blue-1", *pile])
    assert state.current == A and state.current_color == "red" and state.victims_of_top == (D,)


# --- scenario 8: STOP --------------------------------------------------------------------------


def test_stop_skips_the_next_seat() -> None:
    state = deal([["red-stop", "red-9"], ["red-1"], ["red-2"], ["red-4"]], "red-3", dealer=D)
    state, _ = move(state, A, type="play", card="red-stop")
    assert state.current == C and state.victims_of_top == (B,)


def test_stop_with_two_players_plays_again() -> None:
    state = deal([["red-stop", "red-9"], ["red-1"]], "red-3", dealer=B)
    assert state.current == A
    state, _ = move(state, A, type="play", card="red-stop")
    assert state.current == A


# --- scenario 9: BACK --------------------------------------------------------------------------


def test_back_reverses_the_direction() -> None:
    state = deal([["green-5", "red-9"], ["green-back", "red-8"], ["red-2"], ["red-4"]], "green-3")
    state, effects = move(state, B, type="play", card="green-back")
    assert public(effects, "direction_changed") == [{"direction": "counterclockwise"}]
    assert state.direction == -1 and state.current == A and state.victims_of_top == ()
    state, _ = move(state, A, type="play", card="green-5")
    assert state.current == D
    assert R.view(state, None, None)["direction"] == "counterclockwise"


def test_back_with_two_players_acts_as_stop() -> None:
    state = deal([["green-back", "red-9"], ["red-1"]], "green-3", dealer=B)
    state, effects = move(state, A, type="play", card="green-back")
    assert state.current == A and state.direction == 1 and state.victims_of_top == (B,)
    assert public(effects, "skipped") == [{"seat": B, "cause": "back"}]


def test_back_acts_as_stop_when_only_two_seats_remain_active() -> None:
    state = deal([["green-back", "red-9"], ["red-1"], ["red-2"]], "green-3", dealer=C)
    state, _ = R.resign(state, C)
    state, _ = move(state, A, type="play", card="green-back")
    assert state.current == A and state.direction == 1


# --- scenario 10: TAKE 2 and no stacking --------------------------------------------------------


def test_take2_victim_draws_at_once_and_cannot_answer() -> None:
    hands = [["red-take2", "red-5", "red-6"], ["blue-take2", "red-take2", "green-1"], ["red-2"], ["red-4"]]
    state = deal(hands, "red-3", ["yellow-1", "yellow-2"], dealer=D)
    state, effects = move(state, A, type="play", card="red-take2")
    assert kinds(effects) == ["played", "drew", "cards_received", "skipped"]
    assert hand(state, B) == sorted(["blue-take2", "red-take2", "green-1", "yellow-1", "yellow-2"])
    assert state.current == C and R.awaiting(state) == frozenset({C})
    with pytest.raises(NotAwaited):
        move(state, B, type="play", card="blue-take2")
    assert reason(state, B, type="jump_in", card="red-take2", against_seq=state.place_seq) == "penalised_by_top"
    assert moves_json(state, B) == []


def test_a_later_player_may_play_take2_on_take2() -> None:
    hands = [["red-take2", "red-5"], ["green-1"], ["blue-take2", "red-9"], ["red-4"]]
    state = deal(hands, "red-3", dealer=D)
    state, _ = move(state, A, type="play", card="red-take2")
    state, effects = move(state, C, type="play", card="blue-take2")
    assert public(effects, "drew")[0] == {"seat": D, "count": 2, "cause": "take2"} and state.current == A


# --- scenario 11: TAKE 5 -----------------------------------------------------------------------


def test_take5_makes_everyone_else_draw_five_in_play_order_and_skips_nobody() -> None:
    pile = [f"{c}-{n}" for c in ("yellow", "green") for n in range(1, 8)] + ["red-9"]
    state = deal([["blue-take5", "red-5"], ["red-1"], ["red-2"], ["red-4"]], "blue-2", pile, dealer=D)
    state, effects = move(state, A, type="play", card="blue-take5", one=True)
    received = [(e.data["seat"], e.data["cards"]) for e in effects if e.kind == "cards_received"]
    assert received == [(B, pile[0:5]), (C, pile[5:10]), (D, pile[10:15])]
    assert [e.to for e in effects if e.kind == "cards_received"] == [frozenset({s}) for s in (B, C, D)]
    assert state.current == B and state.current_color == "blue" and state.victims_of_top == (B, C, D)
    assert "skipped" not in kinds(effects)


def test_take5_is_played_on_its_colour_or_on_another_take5() -> None:
    state = deal([["red-1"], ["green-take5", "blue-take5", "red-9"], ["red-2"], ["red-4"]], "blue-7")
    assert reason(state, B, type="play", card="green-take5") == "card_does_not_match"
    assert move(state, B, type="play", card="blue-take5")[0].current == C
    state = deal([["red-1"], ["red-take5", "red-2", "red-9"], ["green-take5", "green-2"], ["red-4"]], "red-3")
    state, _ = move(state, B, type="play", card="red-take5")
    assert move(state, C, type="play", card="green-take5")[0].current_color == "green"  # symbol match


def test_wild_take5_mode_plays_take5_anywhere_with_a_colour() -> None:
    state = deal([["red-1"], ["take5", "blue-1"], ["red-2"], ["red-4"]], "yellow-7", take5_mode="wild")
    assert reason(state, B, type="play", card="take5") == "color_required"
    state, effects = move(state, B, type="play", card="take5", color="green", one=True)
    assert state.current_color == "green" and state.current == C
    assert [d["seat"] for d in public(effects, "drew")] == [C, D, A]
    assert reason(state, D, type="jump_in", card="take5", against_seq=state.place_seq) == "jump_in_on_wild"


# --- scenarios 12–14: drawing --------------------------------------------------------------------


def _s12(pile: list[str]) -> enka.State:
    return deal([["red-1"], ["red-2", "green-3"], ["blue-1", "red-5"], ["red-4"]], "blue-4", pile)


def test_draw_ask_with_a_fitting_card_enters_drawn_and_only_the_drawer_sees_it() -> None:
    state, effects = move(_s12(["blue-7"]), B, type="draw", if_playable="ask")
    assert state.phase == "drawn" and R.awaiting(state) == frozenset({B})
    assert R.view(state, B, None)["drawn"] == "blue-7"
    assert all(R.view(state, s, None)["drawn"] is None for s in (None, A, C, D))
    assert all(R.view(state, s, None)["phase"] == "drawn" for s in (None, A, C, D))
    assert public(effects, "drew") == [{"seat": B, "count": 1, "cause": "turn"}]
    assert moves_json(state, B) == [{"type": "play_drawn"}, {"type": "keep"}]
    state, effects = move(state, B, type="play_drawn")
    assert public(effects, "played")[0]["via"] == "drawn" and state.current == C and state.drawn is None


def test_draw_ask_with_a_card_that_does_not_fit_still_asks() -> None:
    state, _ = move(_s12(["red-9"]), B, type="draw", if_playable="ask")
    assert state.phase == "drawn" and state.drawn == "red-9"
    assert reason(state, B, type="play_drawn") == "drawn_card_does_not_match"
    assert moves_json(state, B) == [{"type": "keep"}]
    state, effects = move(state, B, type="keep")
    assert public(effects, "kept") == [{"seat": B}] and state.current == C and "red-9" in hand(state, B)


def test_drawn_phase_precondition_order() -> None:
    state, _ = move(_s12(["wild"]), B, type="draw", if_playable="ask")
    assert reason(state, B, type="play", card="red-2") == "wrong_phase"
    assert reason(state, B, type="draw", if_playable="ask") == "wrong_phase"
    assert reason(state, B, type="play_drawn") == "color_required"
    with pytest.raises(NotAwaited):
        move(state, C, type="keep")
    assert move(state, B, type="play_drawn", color="red")[0].current_color == "red"
    state, _ = move(_s12(["blue-7"]), B, type="draw", if_playable="ask")
    assert reason(state, B, type="play_drawn", color="red") == "color_not_allowed"
    fresh = _s12(["blue-7"])
    assert reason(fresh, B, type="play_drawn") == "wrong_phase"
    assert reason(fresh, B, type="keep") == "wrong_phase"


def test_a_voluntary_draw_is_allowed_while_holding_a_playable_card() -> None:
    state = deal([["red-1"], ["blue-9", "red-2"], ["red-3"], ["red-4"]], "blue-4", ["green-8"])
    state, effects = move(state, B, type="draw", if_playable="keep")
    assert state.current == C and kinds(effects) == ["drew", "cards_received", "kept"]
    assert hand(state, B) == ["blue-9", "green-8", "red-2"]


def test_draw_play_plays_a_fitting_card_at_once() -> None:
    state = deal([["red-1"], ["blue-9", "red-2"], ["red-3"], ["red-4"]], "blue-4", ["wild"])
    state, effects = move(state, B, type="draw", if_playable="play", color="red")
    assert state.discard[-1] == "wild" and state.current_color == "red" and state.current == C
    assert public(effects, "played")[0]["via"] == "drawn"


def test_draw_play_keeps_a_card_that_does_not_fit() -> None:
    state = deal([["red-1"], ["blue-9", "red-2"], ["red-3"], ["red-4"]], "blue-4", ["green-8"])
    state, effects = move(state, B, type="draw", if_playable="play", color="red")
    assert "green-8" in hand(state, B) and state.current == C and public(effects, "kept") == [{"seat": B}]
    assert reason(_s12([]), B, type="draw", if_playable="play") == "color_required"


def test_draw_play_ignores_the_colour_for_a_coloured_card() -> None:
    state = deal([["red-1"], ["green-9", "red-2"], ["red-3"], ["red-4"]], "blue-4", ["blue-8"])
    state, _ = move(state, B, type="draw", if_playable="play", color="red")
    assert state.discard[-1] == "blue-8" and state.current_color == "blue"


# --- scenarios 15–20: jump-in --------------------------------------------------------------------


def _s15(jumper: int = D) -> enka.State:
    hands = [["blue-4", "red-8", "red-9"], ["blue-9", "red-2"], ["red-3", "red-5"], ["red-4", "red-6"]]
    hands[jumper] = [*hands[jumper], "blue-4"]
    state = deal(hands, "blue-1", dealer=D)
    state, _ = move(state, A, type="play", card="blue-4")
    assert state.current == B
    return state


def test_jump_in_passes_over_the_seats_in_between() -> None:
    state = _s15()
    s = R.view(state, D, None)["top"]["seq"]
    assert s == state.place_seq == 2
    assert moves_json(state, D) == [{"type": "jump_in", "card": "blue-4", "against_seq": s}]
    state, effects = move(state, D, type="jump_in", card="blue-4", against_seq=s)
    assert public(effects, "played")[0] == {
        "seat": D,
        "card": "blue-4",
        "color": "blue",
        "via": "jump_in",
        "one": False,
        "seq": s + 1,
    }
    assert state.current == A and state.top_by == D


def test_jump_in_by_a_seat_before_the_current_one() -> None:
    state, _ = jump(_s15(C), C, "blue-4")
    assert state.current == D


def test_jump_in_race_lost_when_another_card_landed() -> None:
    state = _s15()
    s = state.place_seq
    state, _ = move(state, B, type="play", card="blue-9")
    assert state.place_seq == s + 1
    with pytest.raises(RaceLost) as err:
        move(state, D, type="jump_in", card="blue-4", against_seq=s)
    assert err.value.code == "race_lost"
    assert "blue-4" in hand(state, D)


def test_jump_in_exclusions() -> None:
    state = _s15()
    assert reason(state, A, type="jump_in", card="blue-4", against_seq=state.place_seq) == "own_card"
    assert reason(state, B, type="jump_in", card="blue-4", against_seq=state.place_seq) == "use_play"
    assert reason(state, C, type="jump_in", card="red-4", against_seq=state.place_seq) == "not_identical"
    assert reason(state, C, type="jump_in", card="blue-4", against_seq=state.place_seq) == "card_not_in_hand"
    assert reason(state, D, type="jump_in", card="red-4", against_seq=state.place_seq) == "not_identical"
    wild_top, _ = move(
        deal([["red-1"], ["wild", "red-2"], ["red-3"], ["wild"]], "blue-4"), B, type="play", card="wild", color="red"
    )
    assert reason(wild_top, D, type="jump_in", card="wild", against_seq=wild_top.place_seq) == "jump_in_on_wild"
    assert moves_json(wild_top, D) == []
    off = deal(
        [["blue-4", "red-8"], ["blue-9", "red-2"], ["red-3"], ["red-4", "blue-4"]], "blue-1", dealer=D, jump_in=False
    )
    off, _ = move(off, A, type="play", card="blue-4")
    assert reason(off, D, type="jump_in", card="blue-4", against_seq=off.place_seq) == "jump_in_disabled"
    assert moves_json(off, D) == []


def test_jump_in_reason_order_puts_race_lost_after_phase() -> None:
    state = _s15()
    with pytest.raises(RaceLost):
        move(state, B, type="jump_in", card="red-4", against_seq=state.place_seq - 1)  # before use_play


def test_strict_wrong_jump_in_draws_one_and_keeps_the_card() -> None:
    hands = [["blue-4", "red-8", "red-9"], ["blue-9", "red-2"], ["red-3"], ["red-4", "green-7"]]
    state = deal(hands, "blue-1", ["yellow-9"], dealer=D, strict=True)
    state, _ = move(state, A, type="play", card="blue-4")
    state, effects = move(state, D, type="jump_in", card="red-4", against_seq=state.place_seq)
    assert public(effects, "drew") == [{"seat": D, "count": 1, "cause": "penalty"}]
    assert hand(state, D) == ["green-7", "red-4", "yellow-9"] and state.current == B and state.discard[-1] == "blue-4"
    assert reason(state, D, type="jump_in", card="green-1", against_seq=state.place_seq) == "not_identical"
    with pytest.raises(RaceLost):  # a stale anchor is never penalised
        move(state, D, type="jump_in", card="red-4", against_seq=1)


def test_jump_in_during_a_drawn_decision_cancels_it() -> None:
    hands = [["blue-4", "red-8", "red-9"], ["red-2", "yellow-3"], ["red-3"], ["red-4", "blue-4", "red-6"]]
    state = deal(hands, "blue-1", ["green-1"], dealer=D)
    state, _ = move(state, A, type="play", card="blue-4")
    state, _ = move(state, B, type="draw", if_playable="ask")
    assert state.phase == "drawn" and moves_json(state, D)[0]["type"] == "jump_in"
    state, _ = jump(state, D, "blue-4")
    assert state.phase == "turn" and state.drawn is None and state.current == A
    assert "green-1" in hand(state, B)
    assert R.view(state, B, None)["drawn"] is None


def test_jump_in_on_take2_hits_the_jumpers_next_seat() -> None:
    hands = [["red-take2", "red-8", "red-9"], ["green-1"], ["green-2"], ["red-take2", "red-6", "red-7"]]
    state = deal(hands, "red-3", dealer=D)
    state, _ = move(state, A, type="play", card="red-take2")
    assert state.current == C and len(state.hands[B]) == 3 and state.victims_of_top == (B,)
    state, effects = jump(state, D, "red-take2")
    assert public(effects, "drew") == [{"seat": A, "count": 2, "cause": "take2"}]
    assert state.current == B and len(state.hands[A]) == 4 and state.victims_of_top == (A,)


def test_jump_in_on_stop_and_back_acts_from_the_jumper() -> None:
    hands = [["red-stop", "red-8"], ["green-1"], ["green-2"], ["red-stop", "red-6"], ["red-1"]]
    state = deal(hands, "red-3", dealer=4)
    state, _ = move(state, A, type="play", card="red-stop")
    assert state.current == C
    state, _ = jump(state, D, "red-stop")
    assert state.current == A and state.victims_of_top == (4,)
    hands = [["red-back", "red-8"], ["green-1"], ["green-2"], ["red-back", "red-6"], ["red-1"]]
    state = deal(hands, "red-3", dealer=4)
    state, _ = move(state, A, type="play", card="red-back")
    assert state.current == 4 and state.direction == -1
    state, _ = jump(state, D, "red-back")
    assert state.direction == 1 and state.current == 4


def test_jump_in_on_the_start_card() -> None:
    state = deal([["red-1"], ["red-2"], ["green-6", "red-3"], ["red-4"]], "green-6")
    assert state.top_by is None and state.place_seq == 1
    state, _ = move(state, C, type="jump_in", card="green-6", against_seq=1)
    assert state.current == D


def test_two_players_jump_in_only_by_the_dealer_on_a_redrawn_start_card() -> None:
    state = deal([["green-6", "red-1", "red-2"], ["green-1", "yellow-1"]], "green-6")
    assert state.top_by is None and state.current == B
    assert moves_json(state, A) == [{"type": "jump_in", "card": "green-6", "against_seq": 1}]
    state, _ = jump(state, A, "green-6")
    assert state.current == B
    assert reason(state, B, type="jump_in", card="green-1", against_seq=state.place_seq) == "use_play"
    state, _ = move(state, B, type="play", card="green-1")
    assert moves_json(state, B) == []  # B placed the top card and A is current


def test_apply_start_card_belongs_to_the_dealer() -> None:
    state = deal([["green-6", "red-1"], ["red-2"], ["red-3"], ["red-4"]], "green-6", start_card="apply")
    assert state.top_by == A
    assert reason(state, A, type="jump_in", card="green-6", against_seq=1) == "own_card"


# --- scenarios 21–22: ONE -------------------------------------------------------------------------


def _s21(b_hand: list[str], pile: tuple[str, ...] = ("green-9",)) -> enka.State:
    return deal([["red-2"], b_hand, ["red-3"], ["red-4"]], "red-1", list(pile))


def test_one_called_on_the_penultimate_card_is_public() -> None:
    state = _s21(["red-7", "blue-2"])
    assert moves_json(state, B)[0] == {"type": "play", "card": "red-7", "one": True}
    state, effects = move(state, B, type="play", card="red-7", one=True)
    assert hand(state, B) == ["blue-2"] and public(effects, "played")[0]["one"] is True
    assert all(R.view(state, s, None)["seats"][B]["one"] for s in (None, A, B, C, D))
    state, _ = move(state, C, type="draw", if_playable="keep")
    assert R.view(state, None, None)["seats"][B]["one"] is True


def test_forgetting_one_draws_a_penalty_card() -> None:
    state, effects = move(_s21(["red-7", "blue-2"]), B, type="play", card="red-7")
    assert public(effects, "drew") == [{"seat": B, "count": 1, "cause": "one_penalty"}]
    assert hand(state, B) == ["blue-2", "green-9"] and state.one_called[B] is False and state.current == C


def test_one_on_any_other_move_is_ignored() -> None:
    state, effects = move(_s21(["red-7", "blue-2", "green-3", "yellow-4"]), B, type="play", card="red-7", one=True)
    assert len(state.hands[B]) == 3 and "drew" not in kinds(effects) and state.one_called[B] is False
    assert public(effects, "played")[0]["one"] is False


def test_one_penalty_option() -> None:
    state, _ = move(
        deal([["red-2"], ["red-7", "blue-2"], ["red-3"], ["red-4"]], "red-1", one_penalty=0),
        B,
        type="play",
        card="red-7",
    )
    assert len(state.hands[B]) == 1
    state, _ = move(
        deal([["red-2"], ["red-7", "blue-2"], ["red-3"], ["red-4"]], "red-1", one_penalty=2),
        B,
        type="play",
        card="red-7",
    )
    assert len(state.hands[B]) == 3


def test_one_indicator_resets_when_a_card_effect_changes_the_hand() -> None:
    hands = [["red-take2", "red-9", "red-8"], ["red-7", "blue-2"], ["red-3", "red-6"], ["red-4", "red-5"]]
    state = deal(hands, "red-1")
    state, _ = move(state, B, type="play", card="red-7", one=True)
    state, _ = move(state, C, type="play", card="red-3", one=True)
    state, _ = move(state, D, type="play", card="red-4", one=True)
    assert state.one_called == (False, True, True, True)
    state, _ = move(state, A, type="play", card="red-take2")
    assert state.one_called == (False, False, True, True) and len(state.hands[B]) == 3


def test_one_indicator_resets_when_the_seat_draws() -> None:
    state = deal([["red-2", "red-5"], ["red-7", "blue-2"], ["red-3", "red-9"], ["red-4", "red-6"]], "red-1")
    state, _ = move(state, B, type="play", card="red-7", one=True)
    state, _ = move(state, C, type="play", card="red-3", one=True)
    state, _ = move(state, D, type="play", card="red-4", one=True)
    state, _ = move(state, A, type="play", card="red-2", one=True)
    assert state.one_called == (True, True, True, True)
    state, _ = move(state, B, type="draw", if_playable="keep")
    assert state.one_called == (True, False, True, True)


def test_one_on_a_jump_in_and_on_play_drawn() -> None:
    hands = [["blue-4", "red-8", "red-9"], ["blue-9", "red-2"], ["red-3"], ["blue-4", "red-6"]]
    state = deal(hands, "blue-1", ["green-5"], dealer=D)
    state, _ = move(state, A, type="play", card="blue-4")
    assert moves_json(state, D) == [{"type": "jump_in", "card": "blue-4", "against_seq": 2, "one": True}]
    jumped, _ = jump(state, D, "blue-4")
    assert len(jumped.hands[D]) == 2
    called, _ = jump(state, D, "blue-4", one=True)
    assert len(called.hands[D]) == 1 and called.one_called[D]
    state = deal([["red-1"], ["red-9"], ["blue-1", "red-5"], ["red-4"]], "blue-4", ["blue-7"])
    state, _ = move(state, B, type="draw", if_playable="ask")
    assert moves_json(state, B) == [{"type": "play_drawn", "one": True}, {"type": "keep"}]
    state, effects = move(state, B, type="play_drawn", one=True)
    assert hand(state, B) == ["red-9"] and "drew" not in kinds(effects) and state.one_called[B]


def test_one_on_draw_play() -> None:
    state = deal([["red-1"], ["red-9"], ["blue-1", "red-5"], ["red-4"]], "blue-4", ["blue-7"])
    assert {"type": "draw", "if_playable": "play", "color": "red", "one": True} in moves_json(state, B)
    state, _ = move(state, B, type="draw", if_playable="play", color="red", one=True)
    assert hand(state, B) == ["red-9"] and state.one_called[B]


# --- scenarios 23–25: going out ---------------------------------------------------------------------


def _s23(**options: Any) -> enka.State:
    hands = [["red-2"], ["blue-9"], ["red-7", "blue-stop", "wild-take4", "green-take5"], ["red-0"]]
    return deal(hands, "blue-4", **options)


def test_going_out_ends_the_round_and_scores_the_others() -> None:
    state = _s23()
    seq = state.place_seq + 1
    state, effects = move(state, B, type="play", card="blue-9")
    ended = public(effects, "round_ended")[0]
    assert ended["reason"] == "went_out" and ended["winner"] == B
    assert ended["round_points"] == [2, 0, 187, 0] and ended["totals"] == [2, 0, 187, 0]
    assert ended["hands"][C] == ["blue-stop", "green-take5", "red-7", "wild-take4"] and ended["next_dealer"] == B
    assert state.round == 2 and state.phase == "turn" and state.place_seq == seq + 1
    assert public(effects, "round_started")[0]["seq"] == seq + 1
    assert R.view(state, A, None)["last_round"] == ended
    with pytest.raises(RaceLost):
        move(state, D, type="jump_in", card="blue-9", against_seq=seq)
    assert "one_penalty" not in [d.get("cause") for d in public(effects, "drew")]


def test_going_out_that_ends_the_game_leaves_nothing_to_jump_on() -> None:
    state, effects = move(_s23(target_score=100), B, type="play", card="blue-9")
    assert state.phase == "game_over" and R.awaiting(state) == frozenset()
    assert kinds(effects)[-1] == "game_ended"
    assert reason(state, D, type="jump_in", card="blue-9", against_seq=state.place_seq) == "wrong_phase"
    with pytest.raises(NotAwaited):
        move(state, C, type="draw")
    assert all(moves_json(state, s) == [] for s in range(4))


def test_going_out_on_take2_makes_the_next_seat_draw_before_scoring() -> None:
    state = deal([["red-2"], ["red-take2"], ["red-3"], ["red-4"]], "red-1", ["yellow-9", "green-8"])
    state, effects = move(state, B, type="play", card="red-take2")
    ended = public(effects, "round_ended")[0]
    assert ended["hands"][C] == ["green-8", "red-3", "yellow-9"] and ended["round_points"][C] == 20
    assert ended["winner"] == B and ended["reason"] == "went_out"


def test_going_out_on_take5_with_a_short_pile() -> None:
    hands = [["red-2"], ["blue-take5"], ["red-3"], ["red-4"]]
    pile = ["yellow-1", "yellow-2", "yellow-3", "yellow-4", "yellow-5", "yellow-6", "yellow-7"]
    state = full_deal(hands, "blue-1", pile, filler=A, reshuffle="none")
    state, effects = move(state, B, type="play", card="blue-take5")
    assert public(effects, "drew") == [
        {"seat": C, "count": 5, "cause": "take5"},
        {"seat": D, "count": 2, "cause": "take5"},
    ]
    ended = public(effects, "round_ended")[0]
    assert ended["winner"] == B and ended["reason"] == "went_out" and ended["round_points"][B] == 0
    assert len(ended["hands"][C]) == 6 and len(ended["hands"][D]) == 3


def test_going_out_on_take5_everyone_draws_first() -> None:
    state = deal([["red-2"], ["blue-take5"], ["red-3"], ["red-4"]], "blue-1")
    state, effects = move(state, B, type="play", card="blue-take5")
    ended = public(effects, "round_ended")[0]
    assert [len(h) for h in ended["hands"]] == [6, 0, 6, 6] and ended["winner"] == B


def test_going_out_on_a_wild() -> None:
    _, effects = move(
        deal([["red-2"], ["wild-take4"], ["red-3"], ["red-4"]], "blue-1"),
        B,
        type="play",
        card="wild-take4",
        color="red",
    )
    ended = public(effects, "round_ended")[0]
    assert ended["winner"] == B and len(ended["hands"][C]) == 5


# --- scenarios 26–28: the pile ---------------------------------------------------------------------


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


def test_an_empty_pile_is_reshuffled_once() -> None:
    state = _exhaustible()
    assert R.view(state, None, None)["reshuffles_left"] == 1
    state, effects = move(state, B, type="draw", if_playable="keep")
    assert kinds(effects)[:2] == ["reshuffled", "drew"] and public(effects, "reshuffled") == [{"draw_pile_count": 9}]
    assert state.discard == ("red-5",) and state.current_color == "red" and len(state.draw_pile) == 8
    assert len(state.hands[B]) == 3 and R.view(state, None, None)["reshuffles_left"] == 0
    no_violations(state)


def test_a_draw_that_fails_after_the_reshuffle_ends_the_round_as_exhausted() -> None:
    state = _exhaustible()
    pile = state.discard[:-1]
    state = replace(state, hands=(state.hands[A] + pile, *state.hands[1:]), discard=("red-5",), reshuffles_used=1)
    state = replace(state, hands=(tuple(sorted(state.hands[A])), *state.hands[1:]))
    state, effects = move(no_violations(state), B, type="play", card="red-take2")
    ended = public(effects, "round_ended")[0]
    assert ended["reason"] == "exhausted" and ended["winner"] is None
    assert ended["round_points"][B] == 1 and ended["round_points"][C] == 3 and ended["round_points"][D] == 4


def test_reshuffle_none_and_unlimited() -> None:
    state = replace(_exhaustible(), config=replace(_exhaustible().config, reshuffle="none"))
    assert R.view(state, None, None)["reshuffles_left"] == 0
    assert reason(state, B, type="draw") == "must_play_pile_exhausted"
    state = replace(_exhaustible(), config=replace(_exhaustible().config, reshuffle="unlimited"), reshuffles_used=5)
    assert R.view(state, None, None)["reshuffles_left"] is None
    assert move(state, B, type="draw", if_playable="keep")[0].reshuffles_used == 6


def test_refused_draw_on_an_exhausted_pile_while_holding_a_match() -> None:
    state = full_deal([["red-2"], ["red-7", "blue-1"], ["red-3"], ["red-4"]], "red-5", [], filler=A)
    assert reason(state, B, type="draw", if_playable="keep") == "must_play_pile_exhausted"
    assert reason(state, B, type="draw", if_playable="play") == "color_required"
    assert all(m["type"] == "play" for m in moves_json(state, B))


def test_draw_on_an_exhausted_pile_without_a_match_ends_the_round() -> None:
    hands = [["red-2"], ["green-7", "blue-1"], ["red-3"], ["red-4"]]
    state = full_deal(hands, "red-5", [], filler=A, target_score=10_000)
    assert [m["type"] for m in moves_json(state, B)] == ["draw"] * 6
    state, effects = move(state, B, type="draw", if_playable="ask")
    assert public(effects, "round_ended")[0]["reason"] == "exhausted" and state.round == 2


def test_move_cap_ends_the_round() -> None:
    state = deal([["red-1"], ["red-2"]], "yellow-5", reshuffle="unlimited", round_move_cap=50)
    for i in range(50):
        seat = state.current
        assert state.round == 1 and state.moves_this_round == i
        state, effects = move(state, seat, type="draw", if_playable="keep")
    ended = public(effects, "round_ended")[0]
    assert ended["reason"] == "move_cap" and ended["winner"] is None and state.round == 2
    assert ended["round_points"] == [enka.hand_points(h) for h in ended["hands"]]


# --- scenarios 29–30: end of game and dealer rotation ---------------------------------------------------


def _s29(scores: list[int], d_hand: tuple[str, ...] = ("green-9", "green-1"), **options: Any) -> enka.State:
    hands = [
        ["red-9", "red-8", "red-8"],
        ["blue-9"],
        ["yellow-9", "yellow-9", "yellow-8", "yellow-8", "yellow-6"],
        list(d_hand),
    ]
    return deal(hands, "blue-4", scores=scores, **options)


def test_the_game_ends_once_a_total_reaches_the_target() -> None:
    state, effects = move(_s29([480, 120, 300, 90]), B, type="play", card="blue-9")
    assert public(effects, "round_ended")[0]["round_points"] == [25, 0, 40, 10]
    assert R.outcome(state).to_json() == {
        "winners": [3],
        "ranking": [[3], [1], [2], [0]],
        "scores": [505, 120, 340, 100],
        "reason": "target_score",
    }
    assert public(effects, "game_ended")[0] == {
        "totals": [505, 120, 340, 100],
        "ranking": [[3], [1], [2], [0]],
        "winners": [3],
        "reason": "target_score",
    }
    assert R.view(state, None, None)["phase"] == "game_over"


def test_a_lower_target_score() -> None:
    state, _ = move(_s29([200, 0, 0, 0], target_score=250), B, type="play", card="blue-9")
    assert state.phase == "turn" and state.scores == (225, 0, 40, 10)
    state, _ = move(_s29([225, 0, 0, 0], target_score=250), B, type="play", card="blue-9")
    assert R.outcome(state).reason == "target_score"


def test_equal_lowest_totals_share_first_place() -> None:
    state, _ = move(_s29([480, 100, 300, 100], ["red-0"]), B, type="play", card="blue-9")
    result = R.outcome(state)
    assert result.winners == frozenset({B, D}) and result.ranking[0] == frozenset({B, D})
    assert result.extra == {}
    state, _ = move(_s29([480, 100, 300, 100], ["red-0"], tie_policy="rematch"), B, type="play", card="blue-9")
    assert R.outcome(state).to_json()["rematch"] is True


def test_max_rounds_ends_the_game() -> None:
    state, effects = move(_s29([0, 0, 0, 0], max_rounds=1), B, type="play", card="blue-9")
    assert R.outcome(state).reason == "max_rounds" and R.outcome(state).winners == frozenset({B})
    assert public(effects, "round_ended")[0]["next_dealer"] is None
    state, _ = move(_s29([0, 0, 0, 0], max_rounds=2), B, type="play", card="blue-9")
    assert state.phase == "turn" and state.round == 2


def test_the_deal_passes_left() -> None:
    state, effects = move(_s29([0, 0, 0, 0]), B, type="play", card="blue-9")
    started = public(effects, "round_started")[0]
    assert state.dealer == B and started["dealer"] == B and state.current == C and state.direction == 1
    assert [len(h) for h in state.hands] == [6] * 4 and no_violations(state)
    assert [e.to for e in effects if e.kind == "hand_dealt"] == [frozenset({s}) for s in range(4)]


def test_setup_next_rounds_fix_later_deals() -> None:
    nxt = [{"hands": [["red-1"], ["red-2"], ["red-3"], ["red-4"]], "start": "red-9", "draw_pile": ["wild"]}]
    state, _ = move(_s29([0, 0, 0, 0], next_rounds=nxt), B, type="play", card="blue-9")
    assert state.hands == (("red-1",), ("red-2",), ("red-3",), ("red-4",)) and state.discard == ("red-9",)
    assert state.draw_pile[0] == "wild" and state.dealer == B and state.current == C and no_violations(state)


def test_setup_round_and_scores_are_used() -> None:
    state = deal([["red-1"], ["red-2"]], "red-3", scores=[7, 9], round=4)
    assert state.round == 4 and state.scores == (7, 9)


# --- scenario 31: timeouts ---------------------------------------------------------------------------


def test_timeout_in_turn_draws_and_keeps() -> None:
    state = deal([["red-1"], ["red-2", "blue-1"], ["red-3"], ["red-4"]], "red-5", ["green-9"])
    state, effects = R.timeout(state, B)
    assert public(effects, "drew") == [{"seat": B, "count": 1, "cause": "timeout"}]
    assert "green-9" in hand(state, B) and state.current == C and state.moves_this_round == 1


def test_timeout_in_drawn_keeps() -> None:
    state, _ = move(deal([["red-1"], ["red-2"], ["red-3"], ["red-4"]], "red-5", ["red-9"]), B, type="draw")
    state, effects = R.timeout(state, B)
    assert public(effects, "kept") == [{"seat": B}] and state.current == C and "red-9" in hand(state, B)


def test_timeout_on_an_exhausted_pile_skips_a_seat_that_could_play() -> None:
    state = full_deal([["red-2"], ["red-7", "blue-1"], ["red-3"], ["red-4"]], "red-5", [], filler=A)
    state, effects = R.timeout(state, B)
    assert public(effects, "skipped") == [{"seat": B, "cause": "timeout_no_draw"}]
    assert state.current == C and state.round == 1


def test_timeout_on_an_exhausted_pile_without_a_match_ends_the_round() -> None:
    state = full_deal([["red-2"], ["green-7", "blue-1"], ["red-3"], ["red-4"]], "red-5", [], filler=A)
    state, effects = R.timeout(state, B)
    assert public(effects, "round_ended")[0]["reason"] == "exhausted"


def test_timeout_for_a_seat_that_is_not_awaited_is_refused() -> None:
    with pytest.raises(NotAwaited):
        R.timeout(deal([["red-1"], ["red-2"]], "red-5"), A)


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


# --- scenario 33: start card "apply" ----------------------------------------------------------------------


def test_apply_take2_start_card() -> None:
    state = deal([["red-1"], ["red-2"], ["red-3"], ["red-4"]], "red-take2", ["green-1", "green-2"], start_card="apply")
    assert hand(state, B) == ["green-1", "green-2", "red-2"] and state.current == C and state.victims_of_top == (B,)


def test_apply_take4_start_card_is_returned() -> None:
    state = deal([["red-1"], ["red-2"], ["red-3"], ["red-4"]], "wild-take4", ["green-1", "green-2"], start_card="apply")
    assert state.discard[-1] != "wild-take4" and "wild-take4" in state.returned and "wild-take4" in state.draw_pile
    assert state.current == B and no_violations(state)


def test_apply_wild_start_card_accepts_any_first_card() -> None:
    state = deal([["red-1"], ["green-7", "yellow-stop"], ["red-3"], ["red-4"]], "wild", start_card="apply")
    assert state.current_color is None and R.view(state, B, None)["current_color"] is None
    assert move(state, B, type="play", card="green-7")[0].current_color == "green"
    assert move(state, B, type="play", card="yellow-stop")[0].current == D
    assert len(moves_json(state, B)) == 2 + 6


def test_apply_stop_back_and_take5_start_cards() -> None:
    hands = [["red-1"], ["red-2"], ["red-3"], ["red-4"]]
    assert deal(hands, "red-stop", start_card="apply").current == C
    back = deal(hands, "red-back", start_card="apply")
    assert back.current == D and back.direction == -1
    assert deal([["red-1"], ["red-2"]], "red-back", start_card="apply").current == A
    take5 = deal(hands, "red-take5", start_card="apply")
    assert [len(h) for h in take5.hands] == [1, 6, 6, 6] and take5.current == B and take5.victims_of_top == (B, C, D)


def test_apply_number_start_card_does_nothing() -> None:
    state = deal([["red-1"], ["red-2"], ["red-3"], ["red-4"]], "red-7", start_card="apply")
    assert state.current == B and state.returned == ()


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


def test_a_resigned_seat_loses_its_one_indicator() -> None:
    state = deal([["red-2", "red-8"], ["red-7", "blue-2"], ["red-3", "red-9"], ["red-4", "red-6"]], "red-1")
    state, _ = move(state, B, type="play", card="red-7", one=True)
    state, _ = R.resign(state, B)
    assert R.view(state, None, None)["seats"][B]["one"] is False and state.current == C
