"""Ecos rules beyond §B13: the draft, every reason code, options and `setup`, resignation, limits, codecs, leaks."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from rules.base import InvalidMove, InvalidOptions, NotAwaited
from rules.ecos.cards import CARD_IDS, CARDS
from rules.ecos.model import ROUND_LIMIT, State
from rules.rng import rng
from tests.engines.test_ecos import (
    ECOS,
    almost,
    board,
    eco,
    inplay,
    kinds,
    make,
    options_of,
    pass_draw,
    place,
    play,
    public,
    refused,
    rotate,
    seats,
    settle,
    tile,
)


def start(players: int, seed: int = 1, **options: Any) -> State:
    return ECOS.setup(ECOS.parse_config(options, players), seed)[0]


def default_all(state: State) -> State:
    """Every awaited seat of a simultaneous prompt takes its timeout default."""
    for seat in sorted(ECOS.awaiting(state)):
        state, _ = ECOS.timeout(state, seat)
    return state


# --- the draft (§B3.2, §B3.1) ---------------------------------------------------------------


def test_draft_three_players() -> None:
    state = start(3, cards="draft")
    assert state.phase == "draft" and ECOS.awaiting(state) == {0, 1, 2}
    assert all(len(p) == 5 and all(CARDS[c].back == "blue" for c in p) for p in state.packs)
    view = ECOS.view(state, 0, None)
    assert view["prompt"]["pack"] == list(state.packs[0]) and view["prompt"]["keep"] == 1
    assert ECOS.view(state, 1, None)["prompt"]["pack"] == list(state.packs[1])
    assert all(c not in json.dumps(ECOS.view(state, 1, None)) for c in state.packs[0])
    assert [ECOS.dump_move(m) for m in ECOS.legal_moves(state, 0)] == [
        {"type": "draft_pick", "cards": [c]} for c in state.packs[0]
    ]
    packs = state.packs
    picks = [p[0] for p in packs]
    for s in range(3):
        state, fx = play(state, s, {"type": "draft_pick", "cards": [picks[s]]})
        if s < 2:
            assert [e.to for e in fx] == [None, frozenset({s})] and picks[s] not in json.dumps(fx[0].to_json())
            assert ECOS.view(state, s, None)["my_picks"] == [picks[s]]
    assert [st.hand for st in state.seats] == [(p,) for p in picks]
    assert state.packs[1] == tuple(c for c in packs[0] if c != picks[0])  # blue passes left
    for _ in range(3):
        state = default_all(state)
    assert state.draft_color == "brown" and all(len(p) == 9 for p in state.packs)
    assert len(state.blue) == 36 - 12 and all(len(st.hand) == 4 for st in state.seats)
    packs = state.packs
    state = default_all(state)
    assert state.packs[2] == tuple(c for c in packs[0] if c != min(packs[0]))  # brown passes right
    for _ in range(7):
        state = default_all(state)
    assert state.phase == "choose_active" and len(state.brown) == 60 - 24
    assert all(len(st.hand) == 12 and sum(CARDS[c].back == "brown" for c in st.hand) == 8 for st in state.seats)
    assert ECOS.view(state, 0, None)["prompt"]["choose"] == 3
    hand = state.seats[0].hand
    state, _ = play(state, 0, {"type": "choose_active", "cards": list(hand[:3])})
    state = default_all(state)
    assert [ip.card for ip in state.seats[0].tableau] == list(hand[:3]) and len(state.seats[0].hand) == 9
    assert state.phase in ("respond", "resolve")
    assert ECOS.invariant_violations(state) == []


def test_draft_reason_codes() -> None:
    state = start(3, cards="draft")
    pack = state.packs[0]
    assert refused(state, 0, {"type": "choose_active", "cards": [pack[0]]}) == "wrong_phase"
    assert refused(state, 0, {"type": "draft_pick", "cards": list(pack[:2])}) == "wrong_card_count"
    assert refused(state, 0, {"type": "draft_pick", "cards": [state.packs[1][0]]}) == "not_in_pack"
    state, _ = play(state, 0, {"type": "draft_pick", "cards": [pack[0]]})
    assert 0 not in ECOS.awaiting(state) and ECOS.legal_moves(state, 0) == []
    state, _ = play(state, 0, {"type": "draft_pick", "cards": [pack[1]]})  # a replacement: a whole choice
    assert state.picks[0] == (pack[1],)
    state, _ = play(state, 0, {"type": "draft_pick", "cards": [pack[2]]})
    state, _ = play(state, 0, {"type": "draft_pick", "cards": [pack[3]]})
    assert refused(state, 0, {"type": "draft_pick", "cards": [pack[4]]}) == "already_answered"  # 3 replacements at most


def test_choose_active_reason_codes() -> None:
    state = start(2)
    hand = state.seats[0].hand
    assert refused(state, 0, {"type": "draft_pick", "cards": [hand[0]]}) == "wrong_phase"
    assert refused(state, 0, {"type": "choose_active", "cards": list(hand[:3])}) == "wrong_card_count"
    assert refused(state, 0, {"type": "choose_active", "cards": [hand[0], hand[0]]}) == "wrong_card_count"
    assert refused(state, 0, {"type": "choose_active", "cards": [state.seats[1].hand[0]]}) == "not_in_hand"
    state, _ = play(state, 0, {"type": "choose_active", "cards": [hand[0]]})
    assert refused(state, 0, {"type": "choose_active", "cards": [hand[0]]}) == "wrong_card_count"
    state, _ = play(state, 0, {"type": "choose_active", "cards": [hand[1]]})
    assert refused(state, 0, {"type": "choose_active", "cards": [hand[2]]}) == "already_answered"
    state, _ = play(state, 0, {"type": "choose_active", "cards": [hand[2], hand[3]]})
    assert state.picks[0] == (hand[2], hand[3])
    state, _ = ECOS.timeout(state, 1)  # the lowest ids
    assert {ip.card for ip in state.seats[1].tableau} >= set(sorted(start(2).seats[1].hand)[:2])


def test_two_player_draft() -> None:
    state = start(2, seed=4, cards="draft")
    assert all(len(st.hand) == 6 and sum(CARDS[c].back == "blue" for c in st.hand) == 2 for st in state.seats)
    assert ECOS.view(state, 0, None)["prompt"]["keep"] == 2
    first, second = state.packs[0][:2]
    state, _ = play(state, 0, {"type": "draft_pick", "cards": [first]})
    assert 0 in ECOS.awaiting(state)
    assert refused(state, 0, {"type": "draft_pick", "cards": [first]}) == "wrong_card_count"
    state, _ = play(state, 0, {"type": "draft_pick", "cards": [second]})
    state, _ = ECOS.timeout(state, 1)
    assert first in state.seats[0].hand and len(state.packs[1]) == 3
    while state.phase == "draft":
        state = default_all(state)
    assert state.phase == "choose_active" and state.choose == (5, 5)
    assert all(len(st.hand) == 18 and sum(CARDS[c].back == "blue" for c in st.hand) == 6 for st in state.seats)
    state = default_all(state)
    assert all(len(st.tableau) == 5 for st in state.seats)


def test_preset_seats_mix_presets_and_draft() -> None:
    state = start(3, cards="draft", preset_seats=[1])
    assert ECOS.awaiting(state) == {0, 2} and state.packs[1] == ()
    assert len(state.seats[1].tableau) == 3 and len(state.seats[1].hand) == 9
    with pytest.raises(NotAwaited):
        ECOS.apply(state, 1, ECOS.parse_move({"type": "draft_pick", "cards": [state.packs[0][0]]}))
    picks = [state.packs[0][0], state.packs[2][0]]
    state, _ = play(state, 0, {"type": "draft_pick", "cards": [picks[0]]})
    state, _ = play(state, 2, {"type": "draft_pick", "cards": [picks[1]]})
    assert state.packs[2] == tuple(c for c in start(3, cards="draft", preset_seats=[1]).packs[0] if c != picks[0])
    while state.phase in ("draft", "choose_active"):
        assert 1 not in ECOS.awaiting(state)
        state = default_all(state)
    assert [len(st.tableau) for st in state.seats] == [3, 3, 3]


# --- options and `setup` (§B3.3) ------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"colour": "red"},
        {"target_score": 0},
        {"target_score": True},
        {"cards": "random"},
        {"preset_seats": [0]},
        {"cards": "draft", "preset_seats": [0, 0]},
        {"cards": "draft", "preset_seats": [3]},
        {"start_map": "ring"},
        {"setup": {"seats": [{}, {}]}},
        {"setup": {"seats": [{"hand": ["brn-01"]}, {"hand": ["brn-01"]}, {}]}},
        {"setup": {"seats": [{"tableau": [{"card": "brn-01", "cubes": [True, True]}]}, {}, {}]}},
        {"setup": {"seats": [{"energy_available": 60}, {}, {}]}},
        {"setup": {"seats": [{}, {}, {}], "map": {"0,0": tile("grassland", animal="camel")}}},
        {"setup": {"seats": [{}, {}, {}], "map": {"0,0": tile("desert", forests=1)}}},
        {"setup": {"seats": [{}, {}, {}], "map": {"0,0": tile("water", mountain=True)}}},
        {"setup": {"seats": [{}, {}, {}], "map": {"0,0": tile("swamp")}}},
        {"setup": {"seats": [{}, {}, {}], "map": {"0, 0": tile("water")}}},
        {"setup": {"seats": [{}, {}, {}], "map": {f"{q},0": tile("desert") for q in range(46)}}},
        {"setup": {"seats": [{}, {}, {}], "decks": {"blue": ["brn-01"]}}},
        {"setup": {"seats": [{}, {}, {}], "draws": ["lava"]}},
        {"setup": {"seats": [{}, {}, {}], "harbinger": 3}},
        {"setup": {"seats": [{"dial": 3}, {}, {}]}},
        {"setup": {"seats": [{}, {}, {}], "faceup": ["blu-01"], "discard": ["blu-01"]}},
        {"setup": {"seats": [{}, {}, {}], "weather": "sunny"}},
    ],
)
def test_bad_options_and_setups_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        ECOS.parse_config(options, 3)


def test_setup_defaults_and_supplies() -> None:
    state = make(
        {
            "seats": [{"tableau": [{"card": "brn-01", "cubes": [True, False]}]}, {"hand": ["blu-02"]}, {}],
            "draws": ["sun"],
        }
    )
    assert inplay(state, 0, "brn-01").uses_left == 4
    assert state.energy == 66 - 7 * 3 - 1 and board(state).keys() == {(0, 0), (1, 0), (1, -1), (0, 1)}
    assert state.blue[0] == "blu-01" and list(state.blue) == sorted(state.blue) and "blu-02" not in state.blue
    assert (state.round, state.harbinger) == (1, 0)
    line = make({"seats": [{}, {}, {}]}, start_map="line")
    assert sorted(board(line)) == [(-1, 0), (0, 0), (1, 0), (2, 0)]
    assert ECOS.setup(ECOS.parse_config({"start_map": "line"}, 3), 1)[0].tiles == line.tiles


def test_forced_draws_drop_when_the_token_is_gone() -> None:
    state = make(
        {"seats": seats(["brn-25", "blu-16", "brn-49"], [], []), "draws": ["fire", "fire", "fire", "fire", "sun"]}
    )
    for _ in range(3):
        assert state.current_draw == ("fire",)
        state = pass_draw(state)
    assert state.drawn_this_round[:3] == ("fire", "fire", "fire")
    assert state.forced == ()  # the 4th fire was not in the bag: the rest of the list is dropped


def test_catalogue_defaults_and_bounds_are_what_parse_config_applies() -> None:
    # The defaults the catalogue announces are the ones a match without options gets...
    defaults = {o.name: o.default for o in ECOS.options}
    assert ECOS.parse_config({}, 3) == ECOS.parse_config(defaults, 3)
    # ...every bound and choice it announces is enforced, and values inside them are accepted.
    for o in ECOS.options:
        if o.minimum is not None:
            ECOS.parse_config({o.name: o.minimum}, 3)
            with pytest.raises(InvalidOptions):
                ECOS.parse_config({o.name: o.minimum - 1}, 3)
        if o.maximum is not None:
            ECOS.parse_config({o.name: o.maximum}, 3)
            with pytest.raises(InvalidOptions):
                ECOS.parse_config({o.name: o.maximum + 1}, 3)
        for choice in o.choices or ():
            ECOS.parse_config({o.name: choice}, 3)
    assert ECOS.option("setup").restricted
    short = ECOS.setup(ECOS.parse_config({"target_score": 60}, 3), 2)[0]
    assert ECOS.view(short, 0, None)["target_score"] == 60


# --- respond (§B4.1) ------------------------------------------------------------------------


def test_respond_reason_codes() -> None:
    setup = {
        "seats": [
            {"tableau": [{"card": "brn-01", "cubes": [True, False]}, "brn-09"], "energy_available": 0},
            {"tableau": ["brn-17"]},
            {},
        ],
        "draws": ["sun"],
    }
    state = make(setup)
    assert refused(state, 0, {"type": "eco", "resolve": True}) == "wrong_phase"
    assert refused(state, 0, place("brn-01", 1, token=1)) == "wrong_answer_count"
    two = {"type": "respond", "answers": [{"token": 0, "type": "rotate"}, {"token": 0, "type": "rotate"}]}
    assert refused(state, 0, two) == "wrong_answer_count"
    assert refused(state, 0, place("brn-01", 1, src=("brn-09", 0))) == "bad_move_source"
    assert refused(state, 0, place("brn-01", 1, src=("brn-17", 0))) == "bad_move_source"
    assert refused(state, 0, place("brn-01", 0, src=("brn-01", 0))) == "slot_filled"
    with pytest.raises(NotAwaited):
        ECOS.apply(state, 2, ECOS.parse_move(rotate()))  # seat 2 was rotated automatically
    moves = [ECOS.dump_move(m) for m in ECOS.legal_moves(state, 0)]
    assert moves == [place("brn-01", 1, src=("brn-01", 0)), rotate()]  # the only filled slot is the source


def test_a_cube_may_move_on_the_same_card() -> None:
    setup = {
        "seats": [{"tableau": [{"card": "brn-11", "cubes": [True, False, False]}], "energy_available": 0}, {}, {}],
        "draws": ["water", "earth"],
    }
    state, fx = play(make(setup), 0, place("brn-11", 1, src=("brn-11", 0)))
    assert inplay(state, 0, "brn-11").cubes == (False, True, False)
    assert public(fx, "cube_placed") == [
        {"seat": 0, "card": "brn-11", "slot": 1, "from": {"card": "brn-11", "slot": 0}}
    ]


def test_replacing_an_answer() -> None:
    state = make({"seats": seats(["brn-01"], ["brn-17"], []), "draws": ["sun"]})
    state, _ = play(state, 0, place("brn-01", 1))
    assert ECOS.legal_moves(state, 0) == []
    state, fx = play(state, 0, rotate())
    assert public(fx, "respond_answered") == [{"seat": 0, "complete": True, "replacement": True}]
    state, fx = play(state, 1, rotate())
    assert public(fx, "respond_closed")[0]["answers"][0] == [{"token": 0, "type": "rotate"}]
    assert inplay(state, 0, "brn-01").cubes == (False, False)
    with pytest.raises(NotAwaited):  # not a simultaneous prompt any more
        ECOS.apply(state, 2, ECOS.parse_move(rotate()))


def test_two_player_scratch_copy() -> None:
    tableau = [
        {"card": "brn-01"},
        {"card": "brn-17", "cubes": [True, False]},
        {"card": "brn-09", "cubes": [True, False]},
    ]
    state = make({"seats": [{"tableau": tableau, "energy_available": 1}, {}], "draws": ["sun", "grass"]})

    def pair(second: dict[str, Any]) -> dict[str, Any]:
        return {"type": "respond", "answers": [place("brn-17", 1)["answers"][0], second["answers"][0]]}

    assert refused(state, 0, pair(place("brn-01", 0, token=1))) == "no_energy"  # answer 1 took the last free cube
    assert (
        refused(state, 0, pair(place("brn-01", 0, token=1, src=("brn-17", 0)))) == "bad_move_source"
    )  # completed by 1
    assert refused(state, 0, pair(place("brn-17", 0, token=1, src=("brn-09", 0)))) == "slot_filled"
    state, _ = play(state, 0, pair(place("brn-01", 0, token=1, src=("brn-09", 0))))
    state = settle(state)
    assert inplay(state, 0, "brn-09").cubes == (False, False) and inplay(state, 0, "brn-01").cubes == (True, False)
    assert inplay(state, 0, "brn-17") == inplay(state, 0, "brn-17").__class__("brn-17", 3, (False, False))


# --- the resolution prompts -----------------------------------------------------------------


def test_effect_choice_reason_codes_and_not_awaited() -> None:
    state, _ = eco("brn-01")
    assert refused(state, 0, {"type": "effect", "stop": True}) == "cannot_stop"
    assert refused(state, 0, {"type": "effect", "choice": {"hex": "5,5"}}) == "not_an_option"
    assert refused(state, 0, {"type": "effect", "choice": {"tile": "0,0"}}) == "not_an_option"
    assert refused(state, 0, {"type": "eco", "resolve": True}) == "wrong_phase"
    with pytest.raises(NotAwaited):
        ECOS.apply(state, 1, ECOS.parse_move({"type": "effect", "choice": {"hex": "0,-1"}}))
    view = ECOS.view(state, 1, None)
    assert view["phase"] == "resolve" and view["cursor"] == 0
    assert view["prompt"] == {
        "type": "effect_choice",
        "seats": [0],
        "card": "brn-01",
        "step": 0,
        "op": "add_tile",
        "remaining": 1,
        "can_stop": False,
    }


def _reward_state(hand: list[str], energy_supply_empty: bool) -> State:
    energies = [60, 3, 3] if energy_supply_empty else [7, 7, 7]
    p3 = {"tableau": [], "hand": hand, "dial": 2, "energy_available": energies[2]}
    state = make(
        {
            "seats": [{"tableau": ["brn-01"], "energy_available": energies[0]}, {"energy_available": energies[1]}, p3],
            "harbinger": 2,
            "draws": ["sun", "sun"],
        }
    )
    state, _ = play(state, 0, rotate())
    return state


def test_dial_reward_reasons_and_defaults() -> None:
    state = _reward_state(["blu-10"], energy_supply_empty=True)
    assert [ECOS.dump_move(m) for m in ECOS.legal_moves(state, 2)] == [
        {"type": "dial_reward", "reward": "play_card", "card": "blu-10"}
    ]
    assert refused(state, 2, {"type": "dial_reward", "reward": "energy"}) == "supply_empty"
    assert refused(state, 2, {"type": "dial_reward", "reward": "play_card", "card": "blu-11"}) == "not_in_hand"
    timed, _ = ECOS.timeout(state, 2)
    assert inplay(timed, 2, "blu-10").uses_left == 3
    state = _reward_state([], energy_supply_empty=False)
    assert [ECOS.dump_move(m) for m in ECOS.legal_moves(state, 2)] == [{"type": "dial_reward", "reward": "energy"}]
    energy = state.seats[2].energy
    state, _ = ECOS.timeout(state, 2)
    assert state.seats[2].energy == energy + 1 and state.seats[2].dial == 0


def test_dial_gain_card_default_declines() -> None:
    state = make({"seats": [{"tableau": ["brn-01"]}, {}, {"dial": 1}], "harbinger": 2, "draws": ["sun", "sun"]})
    state, _ = play(state, 0, rotate())
    assert [ECOS.dump_move(m) for m in ECOS.legal_moves(state, 2)] == [
        {"type": "dial_gain_card", "accept": True},
        {"type": "dial_gain_card", "accept": False},
    ]
    state, fx = ECOS.timeout(state, 2)
    assert "dial_gain_declined" in kinds(fx) and state.seats[2].dial == 2


def _gain(**extra: Any) -> State:
    state = make(
        {"seats": [{"tableau": ["brn-01"]}, {}, {"dial": 1}], "harbinger": 2, "draws": ["sun", "sun"], **extra}
    )
    state, _ = play(state, 0, rotate())
    state, _ = play(state, 2, {"type": "dial_gain_card", "accept": True})
    assert state.prompt is not None and state.prompt.type == "gain_card_source"
    return state


def test_gain_card_sources_rebuild_and_reasons() -> None:
    blues = [c for c in CARD_IDS if c.startswith("blu")]
    browns = [c for c in CARD_IDS if c.startswith("brn") and c != "brn-01"]
    # Blue deck empty with two blue discards; brown deck and brown discards empty; one face-up card.
    state = _gain(
        decks={"blue": []},
        discard=["blu-01", "blu-02"],
        faceup=["blu-03"],
        seats=[{"tableau": ["brn-01"], "hand": blues[3:] + browns}, {}, {"dial": 1}],
    )
    assert [ECOS.dump_move(m) for m in ECOS.legal_moves(state, 2)] == [
        {"type": "gain_card", "source": "deck", "from": ["blue", "brown"]},
        {"type": "gain_card", "source": "deck", "from": ["blue", "blue"]},
        {"type": "gain_card", "source": "faceup", "card": "blu-03"},
    ]
    assert refused(state, 2, {"type": "gain_card", "source": "deck", "from": ["brown", "brown"]}) == "empty_deck"
    assert refused(state, 2, {"type": "gain_card", "source": "faceup", "card": "blu-04"}) == "not_faceup"
    timed, fx = ECOS.timeout(state, 2)  # brown+brown reveals nothing: the default falls back to blue+brown
    assert public(fx, "deck_rebuilt") == [{"back": "blue", "size": 2}] and timed.discard == ()
    assert public(fx, "cards_revealed") == [{"seat": 2, "backs": ["blue"]}]  # one card: kept without a prompt
    assert len(timed.seats[2].hand) == 1 and timed.faceup == ("blu-03",)
    state, fx = play(state, 2, {"type": "gain_card", "source": "deck", "from": ["blue", "blue"]})
    assert state.prompt is not None and sorted(state.prompt.revealed) == ["blu-01", "blu-02"]
    assert refused(state, 2, {"type": "gain_card_keep", "card": "blu-03"}) == "not_revealed"
    taken = _gain(faceup=["blu-03"])
    taken, fx = play(taken, 2, {"type": "gain_card", "source": "faceup", "card": "blu-03"})
    assert (
        taken.seats[2].hand == ("blu-03",)
        and taken.faceup == ()
        and public(fx, "card_taken") == [{"seat": 2, "card": "blu-03"}]
    )


def test_gain_card_default_is_brown_brown_then_first_revealed() -> None:
    state = _gain(decks={"brown": ["brn-50", "brn-51"]})
    state, _ = ECOS.timeout(state, 2)
    assert state.prompt is not None and state.prompt.revealed == ("brn-50", "brn-51")
    state, _ = ECOS.timeout(state, 2)
    assert state.seats[2].hand == ("brn-50",) and state.faceup == ("brn-51",)


def test_gain_with_nothing_to_gain() -> None:
    everything = [c for c in CARD_IDS if c != "brn-01"]
    state = make(
        {
            "seats": [{"tableau": ["brn-01"], "hand": everything}, {}, {"dial": 1}],
            "harbinger": 2,
            "draws": ["sun", "sun"],
        }
    )
    state, _ = play(state, 0, rotate())
    state, fx = play(state, 2, {"type": "dial_gain_card", "accept": True})
    assert public(fx, "gain_nothing") == [{"seat": 2}]


# --- end of the game, limits, resignation (§B9) ---------------------------------------------


def test_round_limit_ends_the_game() -> None:
    state = make(
        {"seats": [{"tableau": ["brn-01"], "score": 5}, {"score": 9}, {}], "round": ROUND_LIMIT, "draws": ["wild"]}
    )
    state, _ = play(state, 0, rotate())
    state = settle(state)
    result = ECOS.outcome(state)
    assert result is not None and result.reason == "round_limit" and result.winners == {1}
    assert ECOS.awaiting(state) == frozenset() and ECOS.legal_moves(state, 0) == []


def test_a_tie_after_the_tiebreak_limit_is_shared() -> None:
    setup = {"seats": [{"tableau": ["brn-01"], "score": 82}, {}, {"score": 82}], "draws": ["wild", "sun"]}
    state, _ = play(make(setup), 0, rotate())
    state = settle(state)
    assert state.tiebreak and state.tiebreak_draws == 1
    raw = ECOS.dump_state(state)
    raw["tiebreak_draws"] = 20
    state = pass_draw(ECOS.parse_state(raw))
    result = ECOS.outcome(state)
    assert result is not None and result.winners == {0, 2} and result.ranking[0] == {0, 2}


def test_resignation() -> None:
    state = make({"seats": seats(["brn-01"], ["brn-17"], ["brn-31"], [], score=0), "draws": ["sun", "sun"]})
    state, fx = ECOS.resign(state, 1)
    assert public(fx, "seat_resigned") == [{"seat": 1}]
    assert ECOS.awaiting(state) == {0, 2} and ECOS.legal_moves(state, 1) == []
    assert ECOS.view(state, 0, None)["seats"][1]["status"] == "resigned"
    with pytest.raises(NotAwaited):
        ECOS.apply(state, 1, ECOS.parse_move(rotate()))
    with pytest.raises(NotAwaited):
        ECOS.resign(state, 1)
    state = pass_draw(state)
    assert 1 not in ECOS.awaiting(state)
    state, _ = ECOS.resign(state, 0)
    state, fx = ECOS.resign(state, 3)
    result = ECOS.outcome(state)
    assert result is not None and result.reason == "resignation" and result.winners == {2}
    assert result.ranking == (frozenset({2}), frozenset({0, 1, 3}))
    assert "game_over" in kinds(fx)


def test_a_resigned_seat_gets_every_default_at_once() -> None:
    state, _ = eco("brn-01")
    state, fx = ECOS.resign(state, 0)
    assert "tile_added" in kinds(fx) and board(state)[(0, -1)].terrain == "grassland"
    assert state.phase != "finished"


def test_resigned_seats_are_ranked_last_whatever_their_score() -> None:
    state = make({"seats": [{"tableau": ["brn-01"], "score": 10}, {"score": 90}, {"score": 20}], "draws": ["wild"]})
    state, _ = ECOS.resign(state, 1)
    state, _ = play(state, 0, rotate())
    state = settle(state)
    assert ECOS.outcome(state) is None  # the resigned seat's 90 does not end the game
    raw = ECOS.dump_state(state)
    raw["seats"][2]["score"] = 85
    state = ECOS.parse_state(raw)
    while ECOS.outcome(state) is None:
        state = pass_draw(state) if state.phase == "respond" else settle(state)
    result = ECOS.outcome(state)
    assert result is not None and result.ranking[-1] == {1} and result.winners == {2}


# --- codecs ---------------------------------------------------------------------------------


ROUND_TRIP: list[dict[str, Any]] = [
    {"type": "respond", "answers": [{"token": 0, "type": "place", "card": "brn-01", "slot": 1}]},
    {
        "type": "respond",
        "answers": [
            {
                "token": 1,
                "type": "place",
                "card": "brn-01",
                "slot": 0,
                "move_cube_from": {"card": "blu-01", "slot": 2},
            }
        ],
    },
    {"type": "respond", "answers": [{"token": 0, "type": "rotate"}, {"token": 1, "type": "rotate"}]},
    {"type": "draft_pick", "cards": ["blu-07"]},
    {"type": "choose_active", "cards": ["brn-01", "brn-02", "blu-01"]},
    {"type": "eco", "resolve": False},
    {"type": "effect", "choice": {"hex": "-1,0"}},
    {"type": "effect", "choice": {"tile": "2,-3"}},
    {"type": "effect", "choice": {"tile": "0,0", "species": "antelope"}},
    {"type": "effect", "choice": {"from": "0,0", "to": "1,0"}},
    {"type": "effect", "stop": True},
    {"type": "dial_gain_card", "accept": True},
    {"type": "dial_reward", "reward": "energy"},
    {"type": "dial_reward", "reward": "play_card", "card": "blu-10"},
    {"type": "gain_card", "source": "deck", "from": ["blue", "brown"]},
    {"type": "gain_card", "source": "faceup", "card": "blu-29"},
    {"type": "gain_card_keep", "card": "brn-49"},
]


@pytest.mark.parametrize("move", ROUND_TRIP)
def test_moves_round_trip(move: dict[str, Any]) -> None:
    assert ECOS.dump_move(ECOS.parse_move(move)) == move


def test_every_catalogued_move_type_parses_and_its_members_are_its_fields() -> None:
    samples = ROUND_TRIP
    assert {m.type for m in ECOS.moves} == {m["type"] for m in samples}
    for spec in ECOS.moves:
        members = {k for m in samples if m["type"] == spec.type for k in m} - {"type"}
        assert members == {f.name for f in spec.fields}, spec.type
        assert all(not f.nullable for f in spec.fields), spec.type  # no Ecos member takes null


@pytest.mark.parametrize(
    "move",
    [
        "respond",
        {"type": "pass"},
        {"type": "respond"},
        {"type": "respond", "answers": []},
        {"type": "respond", "answers": [{"token": 2, "type": "rotate"}]},
        {"type": "respond", "answers": [{"token": 0, "type": "jump"}]},
        {"type": "respond", "answers": [{"token": 0, "type": "rotate", "card": "brn-01"}]},
        {"type": "respond", "answers": [{"token": 0, "type": "place", "card": "brn-99", "slot": 0}]},
        {"type": "respond", "answers": [{"token": 0, "type": "place", "card": "brn-01", "slot": 2}]},
        {"type": "respond", "answers": [{"token": 0, "type": "place", "card": "brn-01", "slot": True}]},
        {"type": "draft_pick", "cards": []},
        {"type": "draft_pick", "cards": "blu-01"},
        {"type": "eco", "resolve": "yes"},
        {"type": "effect", "stop": False},
        {"type": "effect", "choice": {"hex": "1;0"}},
        {"type": "effect", "choice": {"hex": "01,0"}},
        {"type": "effect", "choice": {"tile": "0,0", "species": "dragon"}},
        {"type": "effect", "choice": {"hex": "0,0", "tile": "0,0"}},
        {"type": "effect", "choice": {"hex": "0,0"}, "stop": True},
        {"type": "dial_reward", "reward": "nothing"},
        {"type": "dial_reward", "reward": "energy", "card": "blu-01"},
        {"type": "gain_card", "source": "deck", "from": ["brown", "blue"]},
        {"type": "gain_card", "source": "deck", "from": ["blue"]},
        {"type": "gain_card", "source": "pool", "card": "blu-01"},
        {"type": "gain_card_keep", "card": 7},
        # the shapes that tie two members together, and null, which no member takes
        {"type": "effect"},
        {"type": "effect", "stop": None},
        {"type": "effect", "choice": None},
        {"type": "effect", "choice": None, "stop": True},
        {"type": "effect", "choice": {"tile": "0,0", "species": ["lion"]}},
        {"type": "dial_reward", "reward": "play_card"},
        {"type": "dial_reward", "reward": "energy", "card": None},
        {"type": "gain_card", "source": "deck"},
        {"type": "gain_card", "source": "faceup"},
        {"type": "gain_card", "source": "deck", "from": ["blue", "blue"], "card": "blu-01"},
        {"type": "gain_card", "source": "faceup", "card": "blu-01", "from": None},
        {"type": "eco", "resolve": None},
    ],
)
def test_malformed_moves_are_invalid(move: Any) -> None:
    with pytest.raises(InvalidMove):
        ECOS.parse_move(move)


def test_state_round_trip_and_view_fields() -> None:
    state, _ = eco("brn-07")
    raw = json.loads(json.dumps(ECOS.dump_state(state)))
    assert ECOS.dump_state(ECOS.parse_state(raw)) == raw
    view = ECOS.view(state, 0, None)
    for name in (
        "game",
        "round",
        "draw",
        "target_score",
        "you",
        "harbinger",
        "phase",
        "cursor",
        "prompt",
        "current_draw",
        "drawn_this_round",
        "bag",
        "map",
        "supply",
        "decks",
        "faceup",
        "discard",
        "hand",
        "my_answers",
        "seats",
        "respond_status",
    ):
        assert name in view
    assert view["map"]["0,0"] == {"terrain": "grassland", "mountain": False, "forests": 0, "animal": None}
    assert set(view["supply"]) == {"land", "water", "mountains", "forests", "energy", "animals"}
    assert set(view["seats"][0]) >= {"seat", "score", "energy_available", "dial", "status", "tableau", "hand_counts"}
    assert ECOS.view(state, None, None)["you"] is None and ECOS.view(state, None, None)["hand"] == []


# --- no leaks -------------------------------------------------------------------------------


def _public_cards(state: State) -> set[str]:
    out = set(state.faceup) | set(state.discard)
    for st in state.seats:
        out.update(ip.card for ip in st.tableau)
    return out


def _cards_in(data: Any) -> set[str]:
    text = json.dumps(data)
    return {c for c in CARD_IDS if f'"{c}"' in text}


@pytest.mark.parametrize(
    ("players", "options"),
    [(2, {}), (3, {"cards": "draft"}), (4, {}), (5, {"cards": "draft", "preset_seats": [0, 3]}), (6, {})],
)
def test_public_effects_never_carry_hidden_cards(players: int, options: dict[str, Any]) -> None:
    state = ECOS.setup(ECOS.parse_config(options, players), players * 13)[0]
    gen = random.Random(players)
    for _ in range(600):
        waiting = sorted(ECOS.awaiting(state))
        if not waiting:
            break
        seat = gen.choice(waiting)
        before = state
        if gen.random() < 0.1:
            state, fx = ECOS.timeout(state, seat)
        else:
            state, fx = ECOS.apply(state, seat, gen.choice(ECOS.legal_moves(state, seat)))
        allowed = _public_cards(before) | _public_cards(state)
        for effect in fx:
            if effect.to is None:
                assert _cards_in(effect.to_json()) <= allowed, effect
            else:
                assert len(effect.to) == 1
        # Until `respond` closes, no public effect tells what a seat answered.
        if state.phase == "respond" and before.phase == "respond" and state.draws_total == before.draws_total:
            for e in fx:
                if e.to is None:
                    assert e.kind == "respond_answered" and set(e.data) == {"seat", "complete", "replacement"}


def test_determinize_hides_packs_answers_and_revealed_cards() -> None:
    draft = start(4, seed=3, cards="draft")
    draft, _ = play(draft, 1, {"type": "draft_pick", "cards": [draft.packs[1][0]]})
    gain = _gain(decks={"blue": ["blu-30"], "brown": ["brn-55"]})
    gain, _ = play(gain, 2, {"type": "gain_card", "source": "deck", "from": ["blue", "brown"]})
    answered = make({"seats": seats(["brn-01"], ["brn-17"], []), "draws": ["sun"]})
    answered, _ = play(answered, 1, place("brn-17", 1))
    for state in (draft, gain, answered):
        for seat in range(state.players):
            view = json.loads(json.dumps(ECOS.view(state, seat, None)))
            for k in range(3):
                sampled = ECOS.determinize(view, seat, rng(k, "determinize"))
                assert ECOS.invariant_violations(sampled) == []
                assert ECOS.view(sampled, seat, None) == view
                assert [ECOS.dump_move(m) for m in ECOS.legal_moves(sampled, seat)] == [
                    ECOS.dump_move(m) for m in ECOS.legal_moves(state, seat)
                ]
    # Another seat's revealed cards are sampled, not copied from the truth.
    other_view = json.loads(json.dumps(ECOS.view(gain, 0, None)))
    samples = {ECOS.dump_state(ECOS.determinize(other_view, 0, rng(k, "d")))["prompt"]["revealed"][0] for k in range(5)}
    assert len(samples) > 1


def test_heuristic_prefers_the_leader() -> None:
    state = make({"seats": [{"score": 30}, {"score": 10}, {}], "draws": ["sun"]})
    assert ECOS.heuristic(state, 0) > ECOS.heuristic(state, 1)


def test_full_games_end() -> None:
    for players in (2, 3, 6):
        state = ECOS.setup(ECOS.parse_config({"target_score": 40}, players), 7)[0]
        gen = random.Random(players)
        for _ in range(ECOS.max_moves):
            waiting = sorted(ECOS.awaiting(state))
            if not waiting:
                break
            seat = gen.choice(waiting)
            state, _ = ECOS.apply(state, seat, gen.choice(ECOS.legal_moves(state, seat)))
        result = ECOS.outcome(state)
        assert result is not None and result.reason in ("target_score", "round_limit")
        assert result.to_json()["tiebreak_draws"] == state.tiebreak_draws
        assert max(result.scores) >= 40 or result.reason == "round_limit"


def test_start_effects_deal_hands_privately() -> None:
    config = ECOS.parse_config({}, 4)
    state, fx = ECOS.setup(config, 9)
    assert ECOS.dump_state(state) == ECOS.dump_state(ECOS.setup(config, 9)[0])
    assert public(fx, "game_started") == [{"harbinger": state.harbinger, "cards": "preset", "start_map": "standard"}]
    dealt = [e for e in fx if e.kind == "hand_dealt"]
    assert [(e.to, e.data["cards"]) for e in dealt] == [(frozenset({s}), list(state.seats[s].hand)) for s in range(4)]
    assert "token_drawn" in kinds(fx)
    hidden = {c for st in state.seats for c in st.hand}
    assert not any(c in json.dumps(e.to_json()) for e in fx if e.to is None for c in hidden)
    draft, fx = ECOS.setup(ECOS.parse_config({"cards": "draft"}, 3), 9)
    assert [(e.to, e.data["cards"]) for e in fx if e.kind == "pack_received"] == [
        (frozenset({s}), list(draft.packs[s])) for s in range(3)
    ]


def test_two_rotations_in_one_draw_trigger_one_after_the_other() -> None:
    state = make({"seats": [{"tableau": ["brn-25"]}, {"tableau": ["brn-31"], "dial": 1}], "draws": ["sun", "sun"]})
    state, _ = play(
        state, 0, {"type": "respond", "answers": [{"token": 0, "type": "rotate"}, {"token": 1, "type": "rotate"}]}
    )
    state, _ = play(
        state, 1, {"type": "respond", "answers": [{"token": 0, "type": "rotate"}, {"token": 1, "type": "rotate"}]}
    )
    assert state.prompt is not None and (state.prompt.type, state.prompt.seat) == ("dial_gain_card", 0)
    state, _ = play(state, 0, {"type": "dial_gain_card", "accept": False})
    assert state.prompt is not None and (state.prompt.type, state.prompt.seat) == ("dial_gain_card", 1)  # 1 → 2
    state, _ = play(state, 1, {"type": "dial_gain_card", "accept": False})
    assert state.prompt is not None and (state.prompt.type, state.prompt.seat) == ("dial_reward", 1)  # then 2 → 3
    state, _ = play(state, 1, {"type": "dial_reward", "reward": "energy"})
    assert state.seats[1].dial == 0 and state.seats[1].energy == 8


def test_retracting_a_moved_cube_leaves_it_available() -> None:
    p2 = {"tableau": [almost("brn-15", missing=0), {"card": "brn-41", "cubes": [False, True]}], "energy_available": 0}
    state = make({"seats": [{"tableau": [almost("brn-09", missing=0)]}, p2, {}], "draws": ["water", "water"]})
    state, _ = play(state, 0, place("brn-09", 0))
    state, _ = play(state, 1, place("brn-15", 0, src=("brn-41", 1)))
    state, _ = play(state, 0, {"type": "effect", "choice": options_of(state, 0)[0]})
    assert state.prompt is not None and state.prompt.type == "eco_confirm"
    assert ECOS.view(state, 2, None)["prompt"]["move_cube_from"] == {"card": "brn-41", "slot": 1}
    state, _ = play(state, 1, {"type": "eco", "resolve": False})
    assert inplay(state, 1, "brn-15").cubes == (False, True) and inplay(state, 1, "brn-41").cubes == (False, False)
    assert state.seats[1].energy == 1 and state.seats[1].dial == 1


def test_a_tiebreak_wild_is_just_a_wild() -> None:
    setup = {"seats": [{"tableau": ["brn-01"], "score": 82}, {}, {"score": 82}], "draws": ["wild", "wild"]}
    state, _ = play(make(setup), 0, rotate())
    state = settle(state)
    assert state.tiebreak and state.current_draw == ("wild",) and state.round == 1
    state, _ = play(state, 0, place("brn-01", 0))  # any slot: the wild stands for any element
    state = settle(state)
    assert state.round == 1 and state.tiebreak and state.tiebreak_draws >= 2  # no new round: more tiebreak draws


def test_a_draft_timeout_keeps_the_picks_already_sent() -> None:
    state = start(2, seed=4, cards="draft")
    pack = state.packs[0]
    state, _ = play(state, 0, {"type": "draft_pick", "cards": [pack[-1]]})
    state, fx = ECOS.timeout(state, 0)
    assert state.picks[0] == (pack[-1], pack[0])
    assert [dict(e.data) for e in fx if e.kind == "draft_pick"] == [{"seat": 0, "cards": [pack[-1], pack[0]]}]
