"""Ecos scenarios of docs/rules/ecos.md §B13 (seats 0-based: the page's pK is seat K−1), built with `setup`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rules import RULES
from rules.base import Effect, IllegalMove, NotAwaited
from rules.ecos.board import Tile
from rules.ecos.cards import CARDS
from rules.ecos.model import InPlay, State
from tests.engines.scenarios import runner

ECOS = RULES["ecos"]


# --- helpers (imported by the other test_ecos_*.py files) -----------------------------------


def make(setup: dict[str, Any], *, seed: int = 0, **options: Any) -> State:
    """A state from a `setup` fixture (§B3.3); the player count is the number of setup seats.

    A bare card id in a tableau stands for ``{"card": id}``.
    """
    for seat in setup["seats"]:
        if "tableau" in seat:
            seat["tableau"] = [{"card": c} if isinstance(c, str) else c for c in seat["tableau"]]
    config = ECOS.parse_config({"setup": setup, **options}, len(setup["seats"]))
    return ECOS.setup(config, seed)[0]


def play(state: State, seat: int, move: dict[str, Any]) -> tuple[State, tuple[Effect, ...]]:
    """Apply a JSON move (through the codec, as the API does)."""
    new, fx = ECOS.apply(state, seat, ECOS.parse_move(move))
    assert ECOS.invariant_violations(new) == []
    return new, fx


def refused(state: State, seat: int, move: dict[str, Any]) -> str:
    """The reason code of an illegal move."""
    with pytest.raises(IllegalMove) as err:
        ECOS.apply(state, seat, ECOS.parse_move(move))
    assert err.value.reason is not None
    return err.value.reason


def place(card: str, slot: int, token: int = 0, src: tuple[str, int] | None = None) -> dict[str, Any]:
    """A one-entry placement answer."""
    answer: dict[str, Any] = {"token": token, "type": "place", "card": card, "slot": slot}
    if src is not None:
        answer["move_cube_from"] = {"card": src[0], "slot": src[1]}
    return {"type": "respond", "answers": [answer]}


def rotate(token: int = 0) -> dict[str, Any]:
    """A one-entry rotation answer."""
    return {"type": "respond", "answers": [{"token": token, "type": "rotate"}]}


def kinds(fx: tuple[Effect, ...]) -> list[str]:
    return [e.kind for e in fx]


def public(fx: tuple[Effect, ...], kind: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in fx if e.kind == kind and e.to is None]


def inplay(state: State, seat: int, card: str) -> InPlay:
    return next(ip for ip in state.seats[seat].tableau if ip.card == card)


def board(state: State) -> dict[tuple[int, int], Tile]:
    return dict(state.tiles)


def seats(*tableaux: list[Any], **common: Any) -> list[dict[str, Any]]:
    """Setup seats from tableaux (card ids or full entries)."""
    out = []
    for t in tableaux:
        entries = [{"card": c} if isinstance(c, str) else c for c in t]
        out.append({"tableau": entries, "hand": [], **common})
    return out


def almost(card: str, missing: int | None = None, **extra: Any) -> dict[str, Any]:
    """A tableau entry with every slot filled but one (the last, or ``missing``)."""
    n = len(CARDS[card].slots)
    gap = n - 1 if missing is None else missing
    return {"card": card, "cubes": [i != gap for i in range(n)], **extra}


def options_of(state: State, seat: int) -> list[dict[str, Any]]:
    """The `choice` objects of the seat's open `effect_choice`."""
    return [ECOS.dump_move(m)["choice"] for m in ECOS.legal_moves(state, seat) if "choice" in ECOS.dump_move(m)]


def eco(
    card: str, *, tiles: dict[str, Any] | None = None, players: int = 3, **seat0: Any
) -> tuple[State, tuple[Effect, ...]]:
    """Seat 0 completes ``card`` (last slot missing) on the first draw; the other seats hold nothing."""
    element = CARDS[card].slots[-1]
    setup: dict[str, Any] = {
        "seats": [{"tableau": [almost(card)], "hand": [], **seat0}] + [{"tableau": []}] * (players - 1),
        "draws": [element, element],  # the second draw stops the run where seat 0 may answer again
    }
    if tiles is not None:
        setup["map"] = tiles
    state = make(setup)
    return play(state, 0, place(card, len(CARDS[card].slots) - 1))


def settle(state: State) -> State:
    """Give every open resolution prompt its timeout default, until a draw waits for answers or the game ends."""
    while state.phase == "resolve" and state.prompt is not None:
        state, _ = ECOS.timeout(state, state.prompt.seat)
    return state


def pass_draw(state: State) -> State:
    """Every awaited seat rotates (the `respond` default), then the resolution prompts take their defaults."""
    assert state.phase == "respond"
    for seat in sorted(ECOS.awaiting(state)):
        state, _ = ECOS.timeout(state, seat)
    return settle(state)


def tile(terrain: str, mountain: bool = False, forests: int = 0, animal: str | None = None) -> dict[str, Any]:
    return {"terrain": terrain, "mountain": mountain, "forests": forests, "animal": animal}


STANDARD = {
    "0,0": tile("grassland"),
    "1,0": tile("desert"),
    "1,-1": tile("water"),
    "0,1": tile("water"),
}


# --- §B13 scenarios -------------------------------------------------------------------------


# --- the scenarios written as data (tests/engines/scenarios/ecos/) ----------------------------


@pytest.mark.parametrize("path", runner.files("ecos"), ids=lambda p: p.stem)
def test_scenario(path: Path) -> None:
    assert runner.run_file(ECOS, path) > 0


def test_b13_1_four_player_preset_setup() -> None:
    config = ECOS.parse_config({}, 4)
    state = ECOS.setup(config, 11)[0]
    presets = []
    for st in state.seats:
        assert len(st.tableau) == 3
        preset = CARDS[st.tableau[0].card].preset
        presets.append(preset)
        assert {ip.card for ip in st.tableau} == {
            c for c, card in CARDS.items() if card.preset == preset and card.active
        }
        assert all(ip.uses_left == CARDS[ip.card].leaves and not any(ip.cubes) for ip in st.tableau)
        assert len(st.hand) == 9 and sum(CARDS[c].back == "blue" for c in st.hand) == 3
        assert (st.energy, st.dial, st.score) == (7, 0, 0)
    assert len(set(presets)) == 4
    assert state.energy == 38
    assert (len(state.blue), len(state.brown)) == (20, 28)
    # The game goes straight to its first draw (§B3 item 6): bag + that token are the 40 of §B2.1.
    remaining = dict(zip(["sun", "water", "grass", "animal", "earth", "air", "fire", "wild"], state.bag, strict=True))
    for token in state.drawn_this_round:
        remaining[token] += 1
    assert remaining == {"sun": 7, "water": 7, "grass": 6, "animal": 6, "earth": 5, "air": 4, "fire": 3, "wild": 2}
    assert len(state.drawn_this_round) == 1
    assert board(state) == {
        (0, 0): Tile("grassland"),
        (1, 0): Tile("desert"),
        (1, -1): Tile("water"),
        (0, 1): Tile("water"),
    }
    assert (state.land, state.water) == (43, 28)
    again = ECOS.setup(config, 11)[0]
    assert [CARDS[st.tableau[0].card].preset for st in again.seats] == presets
    assert again.harbinger == state.harbinger
    assert ECOS.dump_state(again) == ECOS.dump_state(state)


def test_b13_2_two_player_setup() -> None:
    state = ECOS.setup(ECOS.parse_config({}, 2), 3)[0]
    assert state.phase == "choose_active" and ECOS.awaiting(state) == {0, 1}
    for st in state.seats:
        owned = [ip.card for ip in st.tableau] + list(st.hand)
        assert len(owned) == 18 and sum(CARDS[c].back == "brown" for c in owned) == 12
    assert ECOS.view(state, 0, None)["prompt"]["choose"] == 2
    for s in (0, 1):
        first, second = state.seats[s].hand[:2]
        state, _ = play(state, s, {"type": "choose_active", "cards": [first]})
        assert s in ECOS.awaiting(state)  # one card per move: still owes the second
        state, _ = play(state, s, {"type": "choose_active", "cards": [second]})
    assert all(len(st.tableau) == 5 for st in state.seats)
    assert (len(state.blue), len(state.brown)) == (24, 36)
    assert state.phase in ("respond", "resolve")


def test_b13_6_answers_hidden_then_resolved_from_the_harbinger() -> None:
    setup = {"seats": seats(["brn-01"], ["brn-17"], ["brn-31"]), "harbinger": 1, "draws": ["sun", "earth"]}
    state = make(setup)
    assert ECOS.awaiting(state) == {0, 1, 2}
    state, fx3 = play(state, 2, place("brn-31", 0))
    state, fx1 = play(state, 0, place("brn-01", 1))
    view = ECOS.view(state, 0, None)
    assert view["respond_status"]["answered"] == [0, 2] and view["respond_status"]["awaiting"] == [1]
    assert view["seats"][2]["tableau"] == [{"card": "brn-31", "uses_left": 4, "cubes": [False, False]}]
    assert "brn-31" not in json.dumps([e.to_json() for e in fx3 if e.visible_to(0)])
    assert all(e.kind in ("respond_answered", "respond_answer") for e in fx3 + fx1)
    state, fx = play(state, 1, place("brn-17", 1))
    placed = [d["seat"] for d in public(fx, "cube_placed")]
    assert placed == [1, 2, 0]
    answers = public(fx, "respond_closed")[0]["answers"]
    assert answers[2] == [{"token": 0, "type": "place", "card": "brn-31", "slot": 0}]


def _retraction_setup(p1_completes: bool) -> State:
    p1 = {"card": "brn-09", "cubes": [False, p1_completes]}
    return make(
        {"seats": [{"tableau": [p1]}, {"tableau": [almost("brn-15", missing=0)]}, {}], "draws": ["water", "water"]}
    )


def _dial_setup(p3: dict[str, Any], **extra: Any) -> State:
    return make(
        {"seats": [{"tableau": ["brn-01"]}, {"tableau": []}, p3], "harbinger": 2, "draws": ["sun", "sun"], **extra}
    )


def test_b13_10_dial() -> None:
    state = _dial_setup({"tableau": [], "hand": ["blu-10"], "dial": 1})
    state, _ = play(state, 0, rotate())
    assert state.prompt is not None and (state.prompt.type, state.prompt.seat) == ("dial_gain_card", 2)
    accepted, _ = play(state, 2, {"type": "dial_gain_card", "accept": True})
    assert accepted.seats[2].dial == 0 and accepted.prompt is not None and accepted.prompt.type == "gain_card_source"
    state, _ = play(state, 2, {"type": "dial_gain_card", "accept": False})
    assert state.seats[2].dial == 2
    state, _ = play(state, 0, rotate())  # next draw: p3 resolves first (Harbinger) and its dial reaches 3
    assert state.prompt is not None and (state.prompt.type, state.prompt.seat) == ("dial_reward", 2)
    state, _ = play(state, 2, {"type": "dial_reward", "reward": "play_card", "card": "blu-10"})
    assert inplay(state, 2, "blu-10") == InPlay("blu-10", 3, (False, False, False))
    assert state.seats[2].hand == () and state.seats[2].dial == 0


def _gain_setup(**extra: Any) -> State:
    setup = {
        "seats": [{"tableau": ["brn-01"]}, {"tableau": [], "dial": 1}],
        "harbinger": 1,
        "draws": ["sun", "sun"],
        "decks": {"blue": ["blu-29"], "brown": ["brn-49"]},
        **extra,
    }
    state = make(setup)
    state, _ = play(
        state, 0, {"type": "respond", "answers": [{"token": 0, "type": "rotate"}, {"token": 1, "type": "rotate"}]}
    )
    return state


def test_b13_12_gaining_a_card() -> None:
    state = _gain_setup()
    # Two players: two tokens, so p2 rotates twice: 1 → 2 (offer) …
    assert state.prompt is not None and (state.prompt.type, state.prompt.seat) == ("dial_gain_card", 1)
    state, _ = play(state, 1, {"type": "dial_gain_card", "accept": True})
    assert refused(state, 1, {"type": "gain_card", "source": "faceup", "card": "blu-29"}) == "not_faceup"
    state, fx = play(state, 1, {"type": "gain_card", "source": "deck", "from": ["blue", "brown"]})
    shown = [e for e in fx if e.kind == "cards_revealed"]
    assert [(e.to, dict(e.data)) for e in shown] == [
        (None, {"seat": 1, "backs": ["blue", "brown"]}),
        (frozenset({1}), {"seat": 1, "cards": ["blu-29", "brn-49"]}),
    ]
    other = ECOS.view(state, 0, None)["prompt"]
    assert other["revealed_backs"] == ["blue", "brown"] and other["revealed"] is None
    assert ECOS.view(state, 1, None)["prompt"]["revealed"] == ["blu-29", "brn-49"]
    assert refused(state, 1, {"type": "gain_card", "source": "faceup", "card": "blu-29"}) == "wrong_phase"
    state, fx = play(state, 1, {"type": "gain_card_keep", "card": "brn-49"})
    assert "brn-49" in state.seats[1].hand and state.faceup == ("blu-29",)
    assert "brn-49" not in json.dumps([e.to_json() for e in fx if e.visible_to(0)])
    # In any later gain the face-up card is a legal choice.
    later = _gain_setup(faceup=["blu-29"], decks={"blue": [], "brown": ["brn-49"]})
    later, _ = play(later, 1, {"type": "dial_gain_card", "accept": True})
    assert {"type": "gain_card", "source": "faceup", "card": "blu-29"} in [
        ECOS.dump_move(m) for m in ECOS.legal_moves(later, 1)
    ]


def _tiebreak_setup(p2_answer: dict[str, Any]) -> tuple[State, tuple[Effect, ...]]:
    tiles = {f"{q},0": tile("water") for q in range(6)}
    setup = {
        "seats": [
            {"tableau": [], "score": 82},
            {"tableau": [almost("blu-34")], "score": 79},
            {"tableau": [], "score": 82},
        ],
        "map": tiles,
        "draws": ["wild", "sun", "sun"],
    }
    state = make(setup)
    state, fx = play(state, 1, rotate())  # the wild: p2 keeps its card for later
    assert state.tiebreak and state.tiebreak_draws == 1 and state.harbinger == 1
    assert public(fx, "tiebreak_started") == [{"tied": [0, 2], "harbinger": 1, "tiebreak_draws": 1}]
    assert sum(state.bag) == 39 and state.current_draw == ("sun",)
    return play(state, 1, p2_answer)


def test_b13_14_end_and_tiebreak() -> None:
    state, _ = _tiebreak_setup(place("blu-34", 3))
    state = settle(state)
    assert state.seats[1].score == 85
    result = ECOS.outcome(state)
    assert result is not None and result.winners == {1} and result.reason == "target_score"
    assert result.to_json()["tiebreak_draws"] == 1
    assert result.ranking == (frozenset({1}), frozenset({0, 2}))
    state, _ = _tiebreak_setup(rotate())
    state = settle(state)
    assert ECOS.outcome(state) is None and state.tiebreak_draws == 2 and state.harbinger == 2


def test_b13_15_short_game_and_mid_round_scores() -> None:
    setup = {
        "seats": [{"tableau": ["brn-31"]}, {}, {}, {"tableau": [almost("brn-16")], "score": 59}],
        "draws": ["animal", "sun", "wild"],
    }
    state = make(setup, target_score=60)
    state, _ = play(state, 3, place("brn-16", 2))
    state = settle(state)
    assert state.seats[3].score == 61 and ECOS.outcome(state) is None
    assert state.current_draw == ("sun",)
    state = pass_draw(state)
    assert ECOS.outcome(state) is None and state.current_draw == ("wild",)
    state = pass_draw(state)  # the wild: the round ends, and the game with it
    result = ECOS.outcome(state)
    assert result is not None and result.winners == {3} and result.reason == "target_score"


def test_b13_24_two_player_double_draw() -> None:
    setup = {"seats": [{"tableau": ["brn-25"]}, {"tableau": ["brn-31"]}], "draws": ["sun", "wild"]}
    state = make(setup)
    assert (
        refused(
            state,
            0,
            {
                "type": "respond",
                "answers": [place("brn-25", 0)["answers"][0], place("brn-25", 0, token=1)["answers"][0]],
            },
        )
        == "slot_filled"
    )
    state, _ = play(
        state,
        0,
        {"type": "respond", "answers": [place("brn-25", 0)["answers"][0], place("brn-25", 1, token=1)["answers"][0]]},
    )
    state, fx = play(
        state, 1, {"type": "respond", "answers": [{"token": 0, "type": "rotate"}, {"token": 1, "type": "rotate"}]}
    )
    assert public(fx, "eco") == [{"seat": 0, "card": "brn-25", "cubes_returned": 2}]
    state, _ = play(state, 0, {"type": "effect", "choice": options_of(state, 0)[0]})
    assert [d["dial"] for d in public(_, "dial_rotated")] == [1, 2]
    assert state.prompt is not None and (state.prompt.type, state.prompt.seat) == ("dial_gain_card", 1)
    state, fx = play(state, 1, {"type": "dial_gain_card", "accept": False})
    assert public(fx, "round_ended") == [{"round": 1}] and state.round == 2


def test_b13_24_one_token_per_move() -> None:
    state = make({"seats": [{"tableau": ["brn-25"]}, {"tableau": ["brn-31"]}], "draws": ["sun", "wild"]})
    moves = [ECOS.dump_move(m)["answers"][0] for m in ECOS.legal_moves(state, 0)]
    assert {m["token"] for m in moves} == {0, 1}
    state, _ = play(state, 0, place("brn-25", 1, token=1))
    assert 0 in ECOS.awaiting(state)
    assert refused(state, 0, place("brn-25", 1, token=1)) == "wrong_answer_count"
    assert refused(state, 0, place("brn-25", 1, token=0)) == "slot_filled"
    state, _ = play(state, 0, place("brn-25", 0, token=0))
    assert 0 not in ECOS.awaiting(state) and ECOS.legal_moves(state, 0) == []
    assert refused(state, 0, rotate(0)) == "already_answered"  # a replacement is a whole answer


def test_b13_25_timeouts() -> None:
    state = make({"seats": seats(["brn-01"], ["brn-09"], []), "draws": ["sun"]})
    with pytest.raises(NotAwaited):
        ECOS.timeout(state, 1)  # rotated automatically: nothing to time out
    state, fx = ECOS.timeout(state, 0)
    assert [d for d in (dict(e.data) for e in fx if e.kind == "respond_answer")] == [
        {"seat": 0, "answers": [{"token": 0, "type": "rotate"}]}
    ]
    state, _ = eco("brn-01")
    state, _ = ECOS.timeout(state, 0)
    assert board(state)[(0, -1)] == Tile("grassland")  # first canonical option
    tiles = {"0,0": tile("water", animal="dolphin"), "1,0": tile("water"), "-1,0": tile("grassland")}
    state, _ = eco("brn-13", tiles=tiles)
    state, fx = ECOS.timeout(state, 0)
    assert "step_stopped" in kinds(fx) and board(state)[(0, 0)].animal == "dolphin"
    state = _retraction_setup(True)
    state, _ = play(state, 0, place("brn-09", 0))
    state, _ = play(state, 1, place("brn-15", 0))
    state, _ = ECOS.timeout(state, 0)
    assert state.prompt is not None and state.prompt.type == "eco_confirm"
    state, fx = ECOS.timeout(state, 1)
    assert public(fx, "eco")[0]["card"] == "brn-15"
    # Consecutive timeouts (and `bot_after`) are the platform's to count: every one is a plain default.
    state = make({"seats": seats(["brn-01"], [], []), "draws": ["sun", "sun", "sun", "sun"]})
    for _ in range(3):
        assert ECOS.awaiting(state) == {0}
        state, fx = ECOS.timeout(state, 0)
        assert fx and state.phase != "finished"


def test_b13_26_redaction() -> None:
    state = ECOS.setup(ECOS.parse_config({}, 3), 5)[0]
    view = ECOS.view(state, 1, None)
    assert view["hand"] == list(state.seats[1].hand)
    assert "hand" not in view["seats"][0] and view["seats"][0]["hand_counts"] == {"blue": 3, "brown": 6}
    assert view["bag"]["size"] == 40 - len(view["drawn_this_round"]) == sum(view["bag"]["remaining"].values())
    for card in state.seats[0].hand:
        assert card not in json.dumps(view)
    assert "seed" not in json.dumps(ECOS.view(state, None, None))
    hidden = make({"seats": seats(["brn-01"], ["brn-09"], []), "draws": ["wild"]})
    hidden, fx = play(hidden, 0, place("brn-01", 1))
    assert "brn-01" not in json.dumps([e.to_json() for e in fx if e.visible_to(1)])
    assert ECOS.view(hidden, 1, None)["my_answers"] == []
    assert ECOS.view(hidden, 0, None)["my_answers"] == [{"token": 0, "type": "place", "card": "brn-01", "slot": 1}]
    hidden, fx = play(hidden, 1, rotate())
    assert public(fx, "respond_closed")[0]["answers"][0] == [{"token": 0, "type": "place", "card": "brn-01", "slot": 1}]
