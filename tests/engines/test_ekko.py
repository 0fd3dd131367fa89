"""EKKO rules (docs/rules/ekko.md): the §1.10 scenarios, most as data files under
``tests/engines/scenarios/ekko/`` (run by `test_scenario`), the rest here where they need more than
the runner checks, plus the reason codes, codecs, views, events, timers and no-leak checks.

Seats are A = 0, B = 1, C = 2, D = 3 as on the page. Scenario tests name their number in §1.10.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from rules import RULES, ekko
from rules.base import Effect, IllegalMove, InvalidMove, InvalidOptions, NotAwaited, RaceLost
from rules.ekko import Draw, Mirror, Pass, Play, State
from tests.engines.scenarios import runner

R = ekko.RULES
A, B, C, D = 0, 1, 2, 3


# --- helpers --------------------------------------------------------------------------------


def deal(
    hands: Sequence[Iterable[int]],
    start: int,
    pile: Sequence[int] = (),
    *,
    dealer: int = 0,
    rest: Sequence[int] | None = None,
    scores: Sequence[int] | None = None,
    next_rounds: list[dict[str, Any]] | None = None,
    seed: int = 0,
    **options: Any,
) -> Table:
    """A match dealt by `setup`. ``rest`` receives every unlisted card, so that the pile is exactly ``pile``."""
    hand_lists = [sorted(h) for h in hands]
    if rest is not None:
        listed = {c for h in hand_lists for c in h} | {start, *pile}
        extra = [c for c in range(1, 99) if c not in listed]
        for i, card in enumerate(extra):
            hand_lists[rest[i % len(rest)]].append(card)
    setup: dict[str, Any] = {"dealer": dealer, "hands": hand_lists, "start": start, "draw_pile": list(pile)}
    if scores is not None:
        setup["scores"] = list(scores)
    if next_rounds is not None:
        setup["next_rounds"] = next_rounds
    config = R.parse_config({**options, "setup": setup}, len(hand_lists))
    return Table(R.setup(config, seed)[0])


class Table:
    """A match under test: the state, the last record's effects, and shorthands for the moves."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.effects: tuple[Effect, ...] = ()

    def move(self, seat: int, **move: Any) -> Table:
        self.state, self.effects = R.apply(self.state, seat, R.parse_move(move))
        return self

    def play(self, seat: int, card: int) -> Table:
        return self.move(seat, type="play", card=card)

    def draw(self, seat: int) -> Table:
        return self.move(seat, type="draw")

    def pass_(self, seat: int) -> Table:
        return self.move(seat, type="pass")

    def mirror(
        self, seat: int, card: int, against: int, effect: str = "others_draw", discard: int | None = None
    ) -> Table:
        move: dict[str, Any] = {"type": "mirror", "card": card, "against": against, "effect": effect}
        if discard is not None:
            move["discard"] = discard
        return self.move(seat, **move)

    def timeout(self, seat: int) -> Table:
        self.state, self.effects = R.timeout(self.state, seat)
        return self

    def expire(self) -> Table:
        assert R.expire is not None
        self.state, self.effects = R.expire(self.state)
        return self

    def resign(self, seat: int) -> Table:
        self.state, self.effects = R.resign(self.state, seat)
        return self

    def refused(self, seat: int, reason: str, **move: Any) -> None:
        """The move is not among the seat's legal moves, and applying it raises with exactly ``reason``."""
        parsed = R.parse_move(move)
        assert parsed not in R.legal_moves(self.state, seat), f"{move} is listed as legal for seat {seat}"
        with pytest.raises(IllegalMove) as caught:
            R.apply(self.state, seat, parsed)
        assert caught.value.reason == reason, f"refused with {caught.value.reason}, not {reason}"

    def kinds(self) -> list[str]:
        return [e.kind for e in self.effects]

    def data(self, kind: str) -> list[dict[str, Any]]:
        return [dict(e.data) for e in self.effects if e.kind == kind]

    def view(self, seat: int | None) -> dict[str, Any]:
        return dict(R.view(self.state, seat, None))

    def legal(self, seat: int) -> list[dict[str, Any]]:
        return [R.dump_move(m) for m in R.legal_moves(self.state, seat)]

    def hand(self, seat: int) -> list[int]:
        return list(self.state.hands[seat])

    @property
    def current(self) -> int | None:
        return self.state.current

    @property
    def required(self) -> str | None:
        return self.view(None)["required"]


_CARD_KEYS = {"card", "against", "start_card", "discard", "hand", "hands", "play_area", "my_removed", "my_locked"}


def cards_in(obj: Any, keys: set[str] = _CARD_KEYS) -> set[int]:
    """Every card value found under a card-bearing key of a view or an effect's data."""
    found: set[int] = set()

    def walk(value: Any, inside: bool) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, inside or k in keys)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v, inside)
        elif inside and type(value) is int:
            found.add(value)

    walk(obj, False)
    return found


def visible(effects: Sequence[Effect], seat: int | None) -> list[Effect]:
    return [e for e in effects if e.visible_to(seat)]


# --- §1.2 deck and identifiers --------------------------------------------------------------


def test_s01_deck_and_mirror_table() -> None:
    assert tuple(range(1, 99)) == ekko.DECK and len(set(ekko.DECK)) == 98
    assert [n for n in ekko.DECK if ekko.mirror(n) is None] == [11, 22, 33, 44, 55, 66, 77, 88]
    assert (ekko.mirror(1), ekko.mirror(10), ekko.mirror(9), ekko.mirror(37), ekko.mirror(98)) == (10, 1, 90, 73, 89)
    pairs = {frozenset((n, m)) for n in ekko.DECK if (m := ekko.mirror(n)) is not None}
    assert len(pairs) == 45
    mirrors = {n: ekko.mirror(n) for n in ekko.DECK}
    assert all(m is None or (1 <= m <= 98 and mirrors[m] == n) for n, m in mirrors.items())


def test_forty_mirrors_break_parity_and_fifty_respect_it() -> None:
    forbidden = [n for n in ekko.DECK if (m := ekko.mirror(n)) is not None and (m < n if n % 2 else m > n)]
    assert len(forbidden) == 40


# --- §1.3 setup -----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "size"), [(2, 6), (3, 6), (4, 5), (5, 5), (6, 4), (7, 4), (8, 4)])
def test_s02_deal_sizes(players: int, size: int) -> None:
    config = R.parse_config({"auto_forced_draw": False}, players)
    for seed in range(5):
        state = R.setup(config, seed)[0]
        assert [len(h) for h in state.hands] == [size] * players
        assert len(state.area) == 1 and state.area_how == ("start",) and state.area_by == (state.dealer,)
        assert len(state.draw_pile) == 98 - size * players - 1
        assert R.invariant_violations(state) == []


@pytest.mark.parametrize("players", [0, 1, 9, 12])
def test_s02_player_limits_are_refused(players: int) -> None:
    assert R.seats == range(2, 9)
    with pytest.raises(InvalidOptions):
        R.parse_config({}, players)


def test_deal_goes_one_card_at_a_time_from_the_dealers_left() -> None:
    """§1.3.4: deck[0] to the dealer's left, clockwise; then the start card; then the pile."""
    config = R.parse_config({"first_dealer": 2, "auto_forced_draw": False}, 3)
    state = R.setup(config, 99)[0]
    deck = ekko.shuffled(ekko.DECK, ekko.rng(99, "deal", 1))
    order = [0, 1, 2]  # the left of seat 2 is seat 0
    for j, seat in enumerate(order):
        assert state.hands[seat] == tuple(sorted(deck[j:18:3]))
    assert state.area == (deck[18],)
    assert state.draw_pile == tuple(deck[19:])


def test_s03_same_seed_same_game() -> None:
    config = R.parse_config({}, 4)
    one, two = R.setup(config, 42)[0], R.setup(config, 42)[0]
    assert (one.dealer, one.hands, one.area, one.draw_pile) == (two.dealer, two.hands, two.area, two.draw_pile)
    assert R.setup(config, 43)[0].draw_pile != one.draw_pile
    rnd = random.Random(3)
    moves = []
    state = one
    for _ in range(60):
        if not R.awaiting(state):
            break
        seat = rnd.choice([s for s in range(4) if R.legal_moves(state, s)] or [None])
        if seat is None:
            break
        move = rnd.choice(R.legal_moves(state, seat))
        moves.append((seat, move))
        state, _ = R.apply(state, seat, move)
    replayed = two
    for seat, move in moves:
        replayed, _ = R.apply(replayed, seat, move)
    assert all(R.view(replayed, s, None) == R.view(state, s, None) for s in [None, 0, 1, 2, 3])


def test_first_dealer_random_uses_the_seed_and_the_option_names_a_seat() -> None:
    dealers = {R.setup(R.parse_config({}, 5), seed)[0].dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3, 4}
    assert R.setup(R.parse_config({"first_dealer": 3}, 5), 7)[0].dealer == 3


def test_first_player_is_left_of_the_dealer() -> None:
    t = deal([[1], [2], [3], [4]], 50, dealer=3, auto_forced_draw=False)
    assert t.current == A and t.state.obligation == "normal"


# --- §1.4, §1.5.1 parity ----------------------------------------------------------------------


def test_holding_only_the_mirror_still_allows_a_draw() -> None:
    """§1.4, EK-1: the mirror is an option, not a legal card."""
    t = deal([[5], [83, 90], [30], [60]], 38, dealer=A)
    legal = t.legal(B)
    assert legal[0] == {"type": "draw"}
    assert {"type": "mirror", "card": 83, "against": 38, "effect": "others_draw"} in legal
    t.draw(B)
    assert t.current == C


def test_a_parity_legal_play_of_the_mirror_card_is_an_ordinary_play() -> None:
    """§1.5.4, EK-14: only the `mirror` move triggers an effect."""
    t = deal([[5], [73, 90], [30, 80], [60]], 37, [1, 2, 3], dealer=A)
    t.play(B, 73)
    assert t.kinds() == ["played"] and t.current == C
    assert [len(h) for h in t.state.hands] == [1, 1, 2, 1]


# --- §1.5.2 multiples of 11 ------------------------------------------------------------------


def test_s11_a_multiple_of_11_as_the_last_card_on_an_empty_pile() -> None:
    t = deal([[5], [44], [30], [60]], 50, [], dealer=A, rest=[A, C, D], target_score=100)
    hands = [list(h) for h in t.state.hands]
    t.play(B, 44)
    (ended,) = t.data("round_ended")
    assert ended["reason"] == "draw_pile_empty" and ended["went_out"] is None
    assert ended["round_points"] == [ekko.points(hands[A]), 0, ekko.points(hands[C]), ekko.points(hands[D])]
    assert ended["hands"][B] == []


def test_free_play_does_not_carry_over_to_the_follow_up() -> None:
    """§1.5.2: a multiple of 11 played as a free play still needs parity next."""
    t = deal([[33, 50, 20], [1], [2], [3]], 95, dealer=A, auto_forced_draw=False)
    for seat in (B, C, D):
        t.draw(seat)
    assert t.current == A and t.state.obligation == "free"
    t.play(A, 33)
    assert t.state.obligation == "again" and t.required == "higher"
    t.refused(A, "must_play_higher", type="play", card=20)


# --- §1.5.3 free play ---------------------------------------------------------------------------

# --- §1.5.4 the mirror --------------------------------------------------------------------------


def test_s17_a_mirror_with_discard_stays_secret() -> None:
    t = deal([[5, 80], [20], [30], [12, 50, 73]], 37, dealer=A)
    t.mirror(D, 73, 37, "discard", 12)
    assert t.hand(D) == [50] and t.current == A
    assert t.view(A)["seats"][D]["removed_count"] == 1
    for seat in (A, B, C, None):
        assert 12 not in cards_in(t.view(seat))
        assert all(12 not in cards_in(dict(e.data)) for e in visible(t.effects, seat))
    assert t.view(D)["my_removed"] == [12]
    assert t.data("mirrored") == [{"seat": D, "card": 73, "against": 37, "effect": "discard"}]
    (private,) = [e for e in t.effects if e.kind == "card_discarded"]
    assert private.to == frozenset({D}) and private.data["card"] == 12


def test_s20_wrong_reflex() -> None:
    t = deal([[5], [40], [30], [74, 1]], 37, [9], dealer=A)
    t.refused(D, "not_the_mirror", type="mirror", card=74, against=37, effect="others_draw")
    t = deal([[5], [40], [30], [74, 1]], 37, [9], dealer=A, strict=True)
    t.mirror(D, 74, 37)
    assert t.data("penalty") == [{"seat": D, "kind": "wrong_reflex", "card": 74}]
    assert t.hand(D) == [1, 9, 74] and t.state.locked[D] == (9,)
    assert t.current == B and [len(h) for h in t.state.hands[:3]] == [1, 1, 1]
    assert t.view(D)["my_locked"] == [9] and t.view(B)["my_locked"] == []


def test_s21_a_multiple_of_11_cannot_be_mirrored() -> None:
    t = deal([[60, 70], [5], [30], [1, 2]], 55, dealer=A)
    for seat in (A, B, C, D):
        t.refused(seat, "no_mirror_exists", type="mirror", card=55, against=55, effect="others_draw")
    assert t.view(None)["mirror_of_top"] is None
    t = deal([[60, 70], [5], [30], [1, 2]], 55, [9], dealer=A, strict=True)
    t.mirror(D, 1, 55)  # strict: a held card "mirrored" against an 11 is a wrong reflex
    assert t.data("penalty") == [{"seat": D, "kind": "wrong_reflex", "card": 1}]


# --- §1.5.5, §1.7.3 the reaction window ------------------------------------------------------------


def test_s28_the_window_has_its_own_timer_and_pauses_the_clocks() -> None:
    """The rest of §1.10 #28 is data (s25_reaction.toml); the timer is not part of a view."""
    t = deal([[40], [5], [30], [60]], 37, dealer=D, reaction_window_s=20)
    t.play(A, 40).pass_(B)
    timer = R.timer(t.state)
    assert timer is not None and timer.seconds == 20
    assert R.clocked_seats(t.state) == frozenset()  # seat clocks pause in a window (§0.4)


def test_window_timer_key_is_stable_inside_a_window_and_new_for_the_next() -> None:
    t = deal([[40], [5, 73], [30, 4], [60]], 37, [1, 2, 3, 6], dealer=D)
    assert R.timer(t.state) is None and R.clocked_seats(t.state) == {A}
    t.play(A, 40)
    first = R.timer(t.state)
    t.pass_(B)
    assert R.timer(t.state) == first
    t.mirror(C, 4, 40, "discard", 30)  # reopens the round; A now holds 1 card
    assert R.timer(t.state) is None
    assert R.author_hidden(Pass()) and not R.author_hidden(Draw()) and not R.author_hidden(Play(3))
    with pytest.raises(IllegalMove):
        t.expire()


def test_timer_deadline_reaches_the_view_only() -> None:
    t = deal([[40], [5], [30], [60]], 37, dealer=D)
    t.play(A, 40)
    assert t.data("reaction_opened") == [{"emptied": A, "card": 40, "deadline": None}]  # the platform fills it in
    assert R.view(t.state, B, "2030-01-01T00:00:00Z")["reaction"]["deadline"] == "2030-01-01T00:00:00Z"
    assert R.view(t.state, None, None)["reaction"]["you_answered"] is None
    assert R.view(t.state, A, None)["reaction"]["you_answered"] is None  # the emptied seat is not asked


def test_a_passed_seat_can_no_longer_mirror() -> None:
    """EK-13: a pass is final."""
    t = deal([[40], [5, 4], [30], [60]], 37, dealer=D)
    t.play(A, 40)
    assert {"type": "mirror", "card": 4, "against": 40, "effect": "others_draw"} in t.legal(B)
    t.pass_(B)
    t.refused(B, "already_answered", type="mirror", card=4, against=40, effect="others_draw")


def test_moves_other_than_answers_in_a_window() -> None:
    t = deal([[40], [5], [30], [60]], 37, dealer=D)
    t.play(A, 40)
    t.refused(B, "wrong_phase", type="play", card=5)
    t.refused(B, "wrong_phase", type="draw")
    with pytest.raises(NotAwaited):
        t.pass_(A)  # the emptied seat is not in the window
    with pytest.raises(NotAwaited):
        t.play(A, 5)


# --- §1.6 end of round, scoring, end of game ----------------------------------------------------


def test_s30_empty_pile_on_an_ordinary_draw() -> None:
    t = deal([[], [50, 60], [], []], 12, [], dealer=A, rest=[A, C, D], target_score=100)
    assert R.awaiting(t.state) == {B}  # 21 is not public, so no automatic draw
    hands = [list(h) for h in t.state.hands]
    t.draw(B)
    (ended,) = t.data("round_ended")
    assert ended["reason"] == "draw_pile_empty"
    assert ended["round_points"] == [ekko.points(h) for h in hands]
    assert ended["hands"] == hands


def test_s31_others_draw_with_a_short_pile() -> None:
    t = deal([[], [], [], [2, 73]], 37, [5], dealer=A, rest=[A, B, C], target_score=100)
    a_hand = t.hand(A)
    t.mirror(D, 73, 37)
    assert [(d["seat"], d["card"]) for d in t.data("card_drawn")] == [(A, 5)]
    (ended,) = t.data("round_ended")
    assert ended["reason"] == "draw_pile_empty" and ended["went_out"] is None
    assert ended["round_points"][A] == ekko.points([*a_hand, 5])
    assert ended["next_dealer"] == D  # last_placer (EK-7)


def test_s32_scoring() -> None:
    t = deal([[5, 11, 22, 80, 90], [40], [88], [3, 14, 73]], 37, dealer=A)
    t.mirror(D, 73, 37, "discard", 14).play(A, 80).play(B, 40)
    t.pass_(C).pass_(D).pass_(A)
    (ended,) = t.data("round_ended")
    assert ended["hands"] == [[5, 11, 22, 90], [], [88], [3]]
    assert ended["round_points"] == [6, 0, 2, 1]


def _last_card_round(scores: list[int], hands: list[list[int]], **options: Any) -> Table:
    """B goes out with 40 on 37 and everyone passes; the others keep ``hands``."""
    all_hands = [hands[0], [40], hands[1], hands[2]]
    t = deal(all_hands, 37, dealer=A, scores=scores, **options)
    return t.play(B, 40).pass_(C).pass_(D).pass_(A)


def test_s33_end_of_game() -> None:
    t = _last_card_round([20, 23, 10, 24], [[5, 6], [7, 8, 9], [10]])
    assert t.data("round_ended")[0]["round_points"] == [2, 0, 3, 1]
    assert t.state.phase == "game_over" and R.awaiting(t.state) == frozenset()
    result = R.outcome(t.state)
    assert result is not None
    assert result.to_json() == {
        "winners": [2],
        "ranking": [[2], [0], [1], [3]],
        "scores": [22, 23, 13, 25],
        "reason": "target_score",
    }
    assert t.data("game_ended") == [
        {"totals": [22, 23, 13, 25], "ranking": [[2], [0], [1], [3]], "winners": [2], "reason": "target_score"}
    ]
    assert all(R.legal_moves(t.state, s) == [] for s in range(4))


@pytest.mark.parametrize(("policy", "rematch"), [("shared", "offered"), ("rematch", "automatic")])
def test_s33_a_tie_is_a_shared_win(policy: str, rematch: str) -> None:
    t = _last_card_round([11, 12, 28, 13], [[5], [7, 8], [10]], tie_policy=policy)
    result = R.outcome(t.state)
    assert result is not None and result.scores == (12, 12, 30, 14)
    assert result.to_json()["winners"] == [0, 1] and result.to_json()["ranking"] == [[0, 1], [3], [2]]
    assert result.to_json()["rematch"] == rematch


def test_s33_target_score_option() -> None:
    t = _last_card_round([9, 0, 0, 0], [[5], [7], [10]], target_score=10)
    assert t.state.phase == "game_over"
    t = _last_card_round([8, 0, 0, 0], [[5], [7], [10]], target_score=10)
    assert t.state.phase == "turn" and t.state.round == 2 and R.outcome(t.state) is None
    assert t.view(None)["target_score"] == 10


def test_s34_dealer_rotation() -> None:
    second = {"hands": [[1, 2], [3, 4], [5, 6], [7, 8]], "start": 50}
    # C goes out: B plays 60, C plays its last card 40, everyone passes.
    t = deal([[5], [60, 1], [40], [70]], 37, dealer=A, next_rounds=[second])
    t.play(B, 60).play(C, 40).pass_(D).pass_(A).pass_(B)
    assert t.data("round_ended")[0]["next_dealer"] == C
    assert t.state.dealer == C and t.current == D and t.state.area == (50,)
    assert t.view(None)["last_round"]["went_out"] == C
    # An empty pile right after B's mirror: B placed the last card, so B deals.
    t = deal([[], [73, 1], [], []], 37, [], dealer=A, rest=[A, C, D], target_score=100)
    t.mirror(B, 73, 37)
    assert t.data("round_ended")[0]["reason"] == "draw_pile_empty"
    assert t.state.dealer == B


def test_round_started_is_public_and_hands_are_private() -> None:
    t = _last_card_round([0, 0, 0, 0], [[5], [7], [10]], seed=5)
    (started,) = t.data("round_started")
    assert set(started) == {"round", "dealer", "hand_size", "hand_counts", "start_card", "draw_pile_count"}
    assert started["round"] == 2 and started["dealer"] == B and started["hand_size"] == 5
    dealt = [e for e in t.effects if e.kind == "hand_dealt"]
    assert [e.to for e in dealt] == [frozenset({s}) for s in (C, D, A, B)]
    assert all(len(e.data["hand"]) == 5 and set(e.data["hand"]) <= set(t.state.hands[e.data["seat"]]) for e in dealt)
    assert not any(e.visible_to(None) for e in dealt)
    assert all(not e.visible_to(other) for e in dealt for other in range(4) if other != e.data["seat"])


def test_next_rounds_fix_later_deals() -> None:
    second = {"hands": [[1, 2], [3, 4], [5, 6], [7, 8]], "start": 50, "draw_pile": [9, 10], "dealer": D}
    t = deal([[5], [40], [30], [60]], 37, dealer=A, next_rounds=[second])
    t.play(B, 40).pass_(C).pass_(D).pass_(A)
    assert t.state.round == 2 and t.state.dealer == D  # setup.dealer overrides last_placer
    assert [list(h) for h in t.state.hands] == [[1, 2], [3, 4], [5, 6], [7, 8]]
    assert t.state.draw_pile[:2] == (9, 10) and len(t.state.draw_pile) == 98 - 9
    assert t.current == A


# --- §1.7.4 timeouts ------------------------------------------------------------------------------


def test_s36_timeouts_in_turn() -> None:
    t = deal([[5], [40], [30], [60]], 37, [9], dealer=A)
    t.timeout(B)
    assert t.data("drew") == [{"seat": B, "cause": "timeout"}] and t.hand(B) == [9, 40] and t.current == C
    t = deal([[], [40], [], []], 37, [], dealer=A, rest=[A, C, D])
    t.timeout(B)
    assert t.data("skipped") == [{"seat": B, "cause": "timeout_empty_pile"}]
    assert t.current == C and t.state.round == 1 and t.hand(B) == [40]


def test_timeout_without_a_legal_card_on_an_empty_pile_ends_the_round() -> None:
    t = deal([[], [10, 20], [], []], 37, [], dealer=A, rest=[A, C, D], target_score=100)
    t.timeout(B)
    assert t.data("round_ended")[0]["reason"] == "draw_pile_empty"


def test_timeout_draws_even_under_free_play_and_again() -> None:
    t = deal([[5, 10], [20, 30]], 97, [1, 2, 3], dealer=A)
    t.draw(B)
    assert t.state.obligation == "free"
    t.timeout(A)
    assert t.data("drew") == [{"seat": A, "cause": "timeout"}] and t.current == B
    t = deal([[5], [33, 50], [70], [60]], 40, [9], dealer=A)
    t.play(B, 33).timeout(B)  # B could play 50 but was absent
    assert t.data("drew") == [{"seat": B, "cause": "timeout"}] and t.current == C


def test_a_full_lap_of_skips_ends_the_round() -> None:
    """Termination guard: every active seat timed out in turn on an empty pile."""
    t = deal([[], [], []], 1, [], dealer=A, rest=[A, B, C], target_score=100)
    t.timeout(B).timeout(C)
    assert t.state.round == 1 and t.state.idle == 2
    t.timeout(A)
    assert t.data("round_ended")[0]["reason"] == "draw_pile_empty"
    t = deal([[], [], []], 1, [], dealer=A, rest=[A, B, C], target_score=100)
    t.timeout(B)
    t.play(C, t.hand(C)[-1])
    assert t.state.idle == 0


def test_timeout_in_a_window_is_a_pass() -> None:
    t = deal([[40], [5], [30], [60]], 37, dealer=D)
    t.play(A, 40).timeout(B)
    assert t.data("reaction_answer") == [{}] and t.state.reaction is not None
    assert t.state.reaction.answered == (B,)
    before = t.state
    t.timeout(B)
    assert t.state == before and t.effects == ()
    with pytest.raises(NotAwaited):
        t.timeout(A)


def test_timeout_of_a_seat_that_is_not_awaited_is_refused() -> None:
    t = deal([[5], [40], [30], [60]], 37, dealer=A)
    with pytest.raises(NotAwaited):
        t.timeout(C)


# --- §1.7.5 automatic actions ----------------------------------------------------------------------


def test_s37_the_forced_draw_guard_against_leaks() -> None:
    t = deal([[5], [70], [50, 60], [80]], 12, [1, 2, 3], dealer=B)
    assert R.awaiting(t.state) == {C} and t.effects == ()
    assert t.view(None)["mirror_of_top_public_dead"] is False
    t = deal([[5], [12, 70, 71], [50, 60], [6]], 21, [1, 2, 4, 7], dealer=A)
    t.mirror(B, 12, 21, "discard", 70)
    assert t.data("drew") == [{"seat": C, "cause": "turn", "auto": True}]
    assert t.current == D and t.hand(C) == [1, 50, 60]


def test_automatic_draws_cascade_and_stop_at_a_choice() -> None:
    # Start 88: the dealer A plays again but holds nothing lower, and 88 has no mirror, so
    # everyone knows: A draws; B, C (nothing lower either) draw in turn; D holds 4 and stops it.
    t = deal([[90, 95], [91, 96], [92, 97], [4, 93]], 88, [10, 20, 30, 40], dealer=A)
    assert t.hand(A) == [10, 90, 95] and t.hand(B) == [20, 91, 96] and t.hand(C) == [30, 92, 97]
    assert t.current == D and t.hand(D) == [4, 93]


# --- §1.7.6 strict mode ------------------------------------------------------------------------------


def test_s35_strict_mode_wrong_card() -> None:
    t = deal([[5], [20, 40], [30], [60]], 37, [45, 46], dealer=A, strict=True)
    t.play(B, 20)
    assert t.data("penalty") == [{"seat": B, "kind": "wrong_card", "card": 20}]
    assert t.data("drew") == [{"seat": B, "cause": "penalty"}]
    assert t.hand(B) == [20, 40, 45] and t.state.locked[B] == (45,) and t.current == B
    t.refused(B, "card_locked", type="play", card=45)
    assert [m["card"] for m in t.legal(B)] == [40]
    t.play(B, 40)
    assert t.current == C and t.state.locked == ((), (), (), ())


def test_strict_mode_locked_cards_do_not_count_as_legal() -> None:
    t = deal([[5], [20], [30], [60]], 37, [45, 46], dealer=A, strict=True)
    t.play(B, 20)
    assert t.legal(B) == [{"type": "draw"}]
    t.draw(B)
    assert t.hand(B) == [20, 45, 46] and t.current == C


def test_strict_penalty_on_an_empty_pile_ends_the_round() -> None:
    t = deal([[], [20, 40], [], []], 37, [], dealer=A, rest=[A, C, D], strict=True, target_score=100)
    t.play(B, 20)
    assert t.data("round_ended")[0]["reason"] == "draw_pile_empty"


def test_strict_wrong_reflex_in_a_window_is_not_an_answer() -> None:
    t = deal([[40], [5, 6], [30], [60]], 37, [9], dealer=D, strict=True)
    t.play(A, 40).mirror(B, 6, 40)
    assert t.data("penalty") == [{"seat": B, "kind": "wrong_reflex", "card": 6}]
    assert t.state.phase == "reaction" and t.state.reaction is not None and t.state.reaction.answered == ()
    assert t.legal(B) == [{"type": "pass"}]


def test_never_penalised_even_in_strict_mode() -> None:
    t = deal([[5], [20, 40], [30], [60]], 37, [45], dealer=A, strict=True)
    t.refused(B, "card_not_in_hand", type="play", card=98)
    t.refused(B, "has_playable_card", type="draw")
    t.refused(D, "card_not_in_hand", type="mirror", card=73, against=37, effect="others_draw")
    with pytest.raises(NotAwaited):
        t.play(C, 30)
    t.refused(B, "wrong_phase", type="pass")


# --- §1.7.7 reasons, in the page's order --------------------------------------------------------------


def test_play_reasons_in_order() -> None:
    t = deal([[5], [20, 40], [30], [60]], 37, dealer=A)
    t.refused(B, "card_not_in_hand", type="play", card=30)
    with pytest.raises(NotAwaited):
        t.play(A, 5)
    t = deal([[5], [40], [30], [60]], 38, dealer=A)
    t.refused(B, "must_play_lower", type="play", card=40)


def test_mirror_reasons_in_order() -> None:
    t = deal([[5], [20, 40], [30, 2], [60, 73, 9]], 37, dealer=A)
    t.refused(D, "card_not_in_hand", type="mirror", card=12, against=37, effect="others_draw")
    t.refused(D, "not_the_mirror", type="mirror", card=60, against=37, effect="others_draw")
    t.refused(D, "discard_missing", type="mirror", card=73, against=37, effect="discard")
    t.refused(D, "discard_not_allowed", type="mirror", card=73, against=37, effect="others_draw", discard=9)
    t.refused(D, "discard_not_in_hand", type="mirror", card=73, against=37, effect="discard", discard=73)
    t.refused(D, "discard_not_in_hand", type="mirror", card=73, against=37, effect="discard", discard=2)
    with pytest.raises(RaceLost):  # race_lost comes before every card check
        t.mirror(D, 12, 40)


def test_mirror_of_a_locked_card_and_locked_discards_are_refused() -> None:
    t = deal([[5], [20, 40], [30], [60, 1]], 37, [73, 12, 9], dealer=A, strict=True)
    t.mirror(D, 60, 37)  # wrong reflex: D draws 73, locked
    t.refused(D, "card_locked", type="mirror", card=73, against=37, effect="others_draw")
    assert not any(m["type"] == "mirror" for m in t.legal(D))
    t.mirror(D, 1, 37)  # another wrong reflex: 12, locked
    assert t.state.locked[D] == (12, 73)


def test_self_mirror_disabled_comes_before_card_checks() -> None:
    t = deal([[37, 73, 5], [10], [20], [30]], 21, dealer=D, allow_self_mirror=False)
    t.play(A, 37)
    t.refused(A, "self_mirror_disabled", type="mirror", card=73, against=37, effect="others_draw")
    t.refused(A, "self_mirror_disabled", type="mirror", card=12, against=37, effect="others_draw")


def test_a_mirror_against_the_start_card() -> None:
    t = deal([[5, 80], [20], [30], [73, 1]], 37, [2, 3, 4], dealer=A)
    t.mirror(D, 73, 37)
    assert [d["seat"] for d in t.data("drew")] == [A, B, C] and t.current == A


def test_resigned_and_game_over_seats_are_not_awaited() -> None:
    t = deal([[5], [20], [30], [73, 1]], 37, dealer=A)
    t.resign(D)
    with pytest.raises(NotAwaited):
        t.mirror(D, 73, 37)
    assert t.legal(D) == []


# --- §1.8 views ------------------------------------------------------------------------------------------


def test_view_fields_match_the_page() -> None:
    t = deal([[3, 41, 66], [20, 40, 73, 91], [5, 18, 44, 70], [50, 90]], 37, dealer=A)
    view = t.view(B)
    assert set(view) == {
        "game", "round", "phase", "you", "dealer", "current", "awaiting", "obligation", "required", "top",
        "play_area", "mirror_of_top", "mirror_of_top_public_dead", "draw_pile_count", "hand", "my_removed",
        "my_locked", "seats", "reaction", "target_score", "last_round", "options",
    }  # fmt: skip
    assert view["you"] == B and view["hand"] == [20, 40, 73, 91] and view["required"] == "higher"
    assert view["top"] == {"card": 37, "by": A, "how": "start"} and view["mirror_of_top"] == 73
    assert view["seats"][0] == {"seat": 0, "hand_count": 3, "removed_count": 0, "total": 0, "active": True}
    assert view["last_round"] is None and view["reaction"] is None
    json.dumps(view)


def test_legal_moves_example_of_the_page() -> None:
    t = deal([[3, 41, 66], [20, 40, 73, 91], [5, 18, 44, 70], [50, 90]], 37, dealer=A)
    assert t.legal(B) == [
        {"type": "play", "card": 40},
        {"type": "play", "card": 73},
        {"type": "play", "card": 91},
        {"type": "mirror", "card": 73, "against": 37, "effect": "others_draw"},
        {"type": "mirror", "card": 73, "against": 37, "effect": "discard", "discard": 20},
        {"type": "mirror", "card": 73, "against": 37, "effect": "discard", "discard": 40},
        {"type": "mirror", "card": 73, "against": 37, "effect": "discard", "discard": 91},
    ]
    assert t.legal(C) == [] and t.legal(A) == []


def test_spectator_view_hides_everything_private() -> None:
    t = deal([[5], [20], [30], [12, 50, 73]], 37, dealer=A)
    t.mirror(D, 73, 37, "discard", 12)
    view = t.view(None)
    assert view["you"] is None and view["hand"] == [] and view["my_removed"] == [] and view["my_locked"] == []
    assert R.legal_moves(t.state, 7) == []


def test_last_round_summary_in_the_view() -> None:
    t = _last_card_round([0, 0, 0, 0], [[5, 6], [7], [10]])
    last = t.view(C)["last_round"]
    assert last == {
        "round": 1,
        "reason": "went_out",
        "went_out": B,
        "hands": [[5, 6], [], [7], [10]],
        "round_points": [2, 0, 1, 1],
        "totals": [2, 0, 1, 1],
        "next_dealer": B,
    }
    assert [s["total"] for s in t.view(C)["seats"]] == [2, 0, 1, 1]


# --- §0.6 resignation --------------------------------------------------------------------------------------


def test_s39_resignation_in_a_three_player_game() -> None:
    t = deal([[5, 37], [20, 30], [40, 50]], 21, [1, 2, 3, 4], dealer=C)
    t.resign(C)
    assert t.data("resigned") == [{"seat": C}]
    assert t.view(A)["seats"][C] == {"seat": C, "hand_count": 0, "removed_count": 0, "total": 0, "active": False}
    assert t.current == A
    t.play(A, 37)
    assert t.current == B  # turns skip C
    t.draw(B)
    assert t.current == A
    t = deal([[5, 37, 80], [73, 30], [40, 50]], 21, [1, 2, 3, 4], dealer=C)
    t.resign(C).play(A, 37).mirror(B, 73, 37)
    assert [d["seat"] for d in t.data("drew")] == [A]  # others_draw gives C nothing
    assert R.invariant_violations(t.state) == []


def test_s39_resigned_seats_rank_last() -> None:
    t = deal([[5], [40], [6], [7]], 37, dealer=A, scores=[30, 0, 0, 0], target_score=50)
    t.resign(C)
    t.play(B, 40).pass_(D).pass_(A)
    assert t.data("round_ended")[0]["round_points"] == [1, 0, 0, 1]
    assert t.data("round_ended")[0]["hands"][C] is None  # a resigned hand is not shown
    t = deal([[5], [40], [6], [7]], 37, dealer=A, scores=[30, 0, 0, 0], target_score=31)
    t.resign(C).play(B, 40).pass_(D).pass_(A)
    result = R.outcome(t.state)
    assert result is not None and result.reason == "target_score"
    assert result.to_json()["ranking"] == [[1], [3], [0], [2]]


def test_s39_two_players_and_one_resigns() -> None:
    t = deal([[5, 6], [20, 30]], 21, dealer=A)
    t.resign(A)
    result = R.outcome(t.state)
    assert result is not None and result.to_json() == {
        "winners": [1],
        "ranking": [[1], [0]],
        "scores": [0, 0],
        "reason": "resignation",
    }
    assert R.awaiting(t.state) == frozenset() and "game_ended" in t.kinds()
    with pytest.raises(NotAwaited):
        t.resign(B)


def test_s39_the_emptied_seat_resigns_during_its_window() -> None:
    t = deal([[40], [5], [30], [60]], 37, dealer=D)
    t.play(A, 40).resign(A)
    assert t.data("reaction_closed") == [{"result": "no_mirror"}]
    (ended,) = t.data("round_ended")
    assert ended["went_out"] == A and ended["next_dealer"] == B  # A placed last but left: next active deals
    assert t.state.dealer == B and t.state.phase == "turn"


def test_a_window_with_nobody_left_to_answer_closes() -> None:
    t = deal([[40], [5], [30], [60]], 37, dealer=D)
    t.play(A, 40).pass_(B).pass_(C).resign(D)
    assert t.data("round_ended")[0]["went_out"] == A


def test_the_current_player_resigning_hands_over_a_fresh_turn() -> None:
    t = deal([[5], [33, 40], [30, 70], [60]], 50, [9], dealer=A)
    t.play(B, 33).resign(B)  # B was in `again`
    assert t.data("skipped") == [{"seat": B, "cause": "resigned"}]
    assert t.current == C and t.state.obligation == "normal" and t.required == "higher"


# --- codecs and options -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "move",
    [
        {"type": "play", "card": 40},
        {"type": "draw"},
        {"type": "pass"},
        {"type": "mirror", "card": 73, "against": 37, "effect": "others_draw"},
        {"type": "mirror", "card": 73, "against": 37, "effect": "discard", "discard": 12},
        {"type": "mirror", "card": 73, "against": 37, "effect": "discard"},
        {"type": "mirror", "card": 73, "against": 37, "effect": "others_draw", "discard": 12},
    ],
)
def test_moves_round_trip(move: dict[str, Any]) -> None:
    assert R.dump_move(R.parse_move(move)) == move
    assert R.parse_move(json.loads(json.dumps(R.dump_move(R.parse_move(move))))) == R.parse_move(move)


@pytest.mark.parametrize(
    "move",
    [
        [],
        {},
        {"type": "jump_in"},
        {"type": "play"},
        {"type": "play", "card": 0},
        {"type": "play", "card": 99},
        {"type": "play", "card": "40"},
        {"type": "play", "card": True},
        {"type": "play", "card": 40.0},
        {"type": "play", "card": 40, "extra": 1},
        {"type": "draw", "card": 4},
        {"type": "pass", "seat": 1},
        {"type": "mirror", "card": 73, "against": 37},
        {"type": "mirror", "card": 73, "against": 37, "effect": "burn"},
        {"type": "mirror", "card": 73, "against": 100, "effect": "others_draw"},
        {"type": "mirror", "card": 73, "against": 37, "effect": "discard", "discard": 0},
        {"type": "mirror", "card": 73, "against": 37, "effect": "discard", "discard": None},
        {"type": "mirror", "card": 73, "against": 37, "effect": "discard", "discard": "12"},
    ],
)
def test_malformed_moves_are_invalid(move: Any) -> None:
    with pytest.raises(InvalidMove):
        R.parse_move(move)


def test_catalogue_options_are_what_an_empty_options_object_gives() -> None:
    """§1.7.1: the catalogue's defaults are the page's, and they are what `parse_config({})` applies."""
    page_defaults = {
        "target_score": 25, "first_dealer": "random", "allow_self_mirror": True, "reaction_draw_stacks": False,
        "reaction_window_s": 21600, "auto_forced_draw": True, "strict": False, "tie_policy": "shared",
    }  # fmt: skip
    state = R.setup(R.parse_config({}, 3), 1)[0]
    assert R.view(state, None, None)["options"] == page_defaults
    assert {o.name: o.default for o in R.options} == {**page_defaults, "setup": None}
    assert ekko.dump_options(state.config) == page_defaults
    assert R.parse_config(ekko.dump_options(state.config), 3) == state.config
    assert [o.name for o in R.options if o.restricted] == ["setup"]
    for option in R.options:  # every bound the catalogue announces is enforced
        if option.maximum is not None:
            R.parse_config({option.name: option.maximum}, 3)
            with pytest.raises(InvalidOptions):
                R.parse_config({option.name: option.maximum + 1}, 3)
    assert RULES["ekko"] is R


def test_catalogue_moves_describe_what_parse_move_accepts() -> None:
    """The OpenAPI move specs (derived from the dataclasses) agree with the parser."""
    specs = {m.type: m for m in R.moves}
    assert list(specs) == ["play", "draw", "mirror", "pass"]
    for spec in specs.values():
        assert spec.description
        sample = {"type": spec.type, **{f.name: f.minimum or "discard" for f in spec.fields if f.required}}
        if spec.type == "mirror":
            sample["effect"] = "others_draw"
        assert R.dump_move(R.parse_move(sample)) == sample
        for f in spec.fields:
            if f.maximum is not None:
                with pytest.raises(InvalidMove):
                    R.parse_move({**sample, f.name: f.maximum + 1})
            if f.required:
                with pytest.raises(InvalidMove):
                    R.parse_move({k: v for k, v in sample.items() if k != f.name})
    effect = next(f for f in specs["mirror"].fields if f.name == "effect")
    assert effect.choices == ("discard", "others_draw")
    discard = next(f for f in specs["mirror"].fields if f.name == "discard")
    assert not discard.required and not discard.nullable


@pytest.mark.parametrize(
    "options",
    [
        {"colour": "red"},
        {"target_score": 0},
        {"target_score": "25"},
        {"target_score": 101},
        {"first_dealer": 4},
        {"first_dealer": "left"},
        {"strict": 1},
        {"reaction_window_s": 0},
        {"reaction_window_s": 31_536_001},  # our cap: one year
        {"reaction_window_s": None},
        {"setup": {"hands": [[1], [2], [3], [4]], "start": 5.0}},
        {"tie_policy": "coin"},
        {"setup": []},
        {"setup": {"hands": [[1], [2], [3]], "start": 4}},
        {"setup": {"hands": [[1], [2], [3], [4]]}},
        {"setup": {"hands": [[1], [2], [3], [1]], "start": 5}},
        {"setup": {"hands": [[1], [2], [3], [4]], "start": 4}},
        {"setup": {"hands": [[1], [2], [3], [4]], "start": 5, "draw_pile": [5]}},
        {"setup": {"hands": [[1], [2], [3], [99]], "start": 5}},
        {"setup": {"hands": [[1], [2], [3], [4]], "start": 5, "dealer": 4}},
        {"setup": {"hands": [[1], [2], [3], [4]], "start": 5, "scores": [0, 0]}},
        {"setup": {"hands": [[1], [2], [3], [4]], "start": 5, "round": 0}},
        {"setup": {"hands": [[1], [2], [3], [4]], "start": 5, "deck": []}},
        {"setup": {"hands": [[1], [2], [3], [4]], "start": 5, "next_rounds": [{"hands": [[1], [2], [3], [4]]}]}},
        {
            "setup": {
                "hands": [[1], [2], [3], [4]],
                "start": 5,
                "next_rounds": [{"hands": [[1], [2], [3], [4]], "start": 6, "round": 3}],
            }
        },
        {
            "setup": {
                "hands": [[1], [2], [3], [4]],
                "start": 5,
                "next_rounds": [{"hands": [[1], [2], [3], [4]], "start": 6, "scores": [0, 0, 0, 0]}],
            }
        },
    ],
)
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        R.parse_config(options, 4)


def test_setup_scores_round_and_unlisted_cards() -> None:
    t = deal([[1], [2], [3], [4]], 50, [98, 97], dealer=C, scores=[3, 4, 5, 6], auto_forced_draw=False)
    assert t.state.scores == (3, 4, 5, 6) and t.state.dealer == C and t.current == D
    assert t.state.draw_pile[:3] == (98, 97, 5) and t.state.draw_pile[-1] == 96
    config = R.parse_config({"setup": {"hands": [[1], [2]], "start": 50, "round": 4}}, 2)
    assert R.setup(config, 1)[0].round == 4


def test_state_round_trips_through_json_in_every_phase() -> None:
    t = deal(
        [[40], [5, 4, 6], [30], [60]],
        37,
        [9, 10],
        dealer=D,
        strict=True,
        next_rounds=[{"hands": [[1], [2], [3], [7]], "start": 50}],
    )
    states = [t.state]
    t.play(A, 40)
    states.append(t.state)
    t.mirror(B, 6, 40)  # penalty: a locked card inside a window
    states.append(t.state)
    t.pass_(B).resign(C)
    states.append(t.state)
    for state in states:
        dumped = R.dump_state(state)
        assert R.parse_state(json.loads(json.dumps(dumped))) == state
        assert dumped["last_placer"] == state.area_by[-1]


# --- §1.7.8 events and no-leak -------------------------------------------------------------------------

_PUBLIC_KEYS = {
    "played": {"seat", "card", "obligation_before"},
    "drew": {"seat", "cause"},
    "mirrored": {"seat", "card", "against", "effect"},
    "reaction_opened": {"emptied", "card", "deadline"},
    "reaction_closed": {"result"},
    "reaction_answer": set(),
    "penalty": {"seat", "kind", "card"},
    "skipped": {"seat", "cause"},
    "round_started": {"round", "dealer", "hand_size", "hand_counts", "start_card", "draw_pile_count"},
    "round_ended": {"round", "reason", "went_out", "hands", "round_points", "totals", "next_dealer"},
    "game_ended": {"totals", "ranking", "winners", "reason"},
    "resigned": {"seat"},
}
_OPTIONAL_PUBLIC_KEYS = {"drew": {"auto"}, "reaction_closed": {"seat", "expired"}}
_PRIVATE_KINDS = {"hand_dealt", "card_drawn", "card_discarded", "you_passed"}


def _check_effects(before: State, after: State, effects: Sequence[Effect]) -> None:
    """Public effects carry only the page's public data; private ones reach their own seat only."""
    removed = {c for r in before.removed for c in r}
    removed |= {e.data["card"] for e in effects if e.kind == "card_discarded"}
    for e in effects:
        json.dumps(e.to_json())
        if e.kind == "round_started":  # a new deal: last round's face-down cards are back in play
            removed = set()
        if e.to is None:
            keys = set(e.data)
            assert e.kind in _PUBLIC_KEYS, e.kind
            assert _PUBLIC_KEYS[e.kind] <= keys <= _PUBLIC_KEYS[e.kind] | _OPTIONAL_PUBLIC_KEYS.get(e.kind, set())
            assert not (cards_in(dict(e.data)) & removed), f"{e.kind} shows a face-down card"
            if e.kind in ("played", "mirrored", "penalty"):
                assert e.data["card"] in before.hands[e.data["seat"]]
        else:
            assert e.kind in _PRIVATE_KINDS and e.to == frozenset({e.data["seat"]})
    if after.round != before.round:
        return
    for e in effects:  # cards that moved from the pile into a hand reach only that hand's seat
        if e.kind == "card_drawn":
            card = e.data["card"]
            assert (
                card in after.hands[e.data["seat"]]
                or card in after.area
                or card in {c for r in after.removed for c in r}
            )


def _check_views(state: State) -> None:
    n = state.config.players
    for viewer in [None, *range(n)]:
        view = R.view(state, viewer, None)
        shown = cards_in({k: v for k, v in view.items() if k != "last_round"})
        mine = set() if viewer is None else set(state.hands[viewer]) | set(state.removed[viewer])
        assert shown <= set(state.area) | mine, f"seat {viewer} sees hidden cards"
        assert "draw_pile" not in view
        if view["reaction"] is not None:
            assert set(view["reaction"]) == {"emptied", "card", "deadline", "you_answered"}


_OPTION_SETS = [
    {},
    {"strict": True},
    {"auto_forced_draw": False, "allow_self_mirror": False},
    {"reaction_draw_stacks": True, "tie_policy": "rematch", "target_score": 10},
    {"strict": True, "auto_forced_draw": False, "reaction_draw_stacks": True, "target_score": 5},
]


def _random_playout(players: int, seed: int, options: dict[str, Any], rnd: random.Random) -> int:
    """Property test §1.10 #40: conservation, termination, no leak, awaiting never empty in play."""
    state = R.setup(R.parse_config(options, players), seed)[0]
    rounds_seen = {state.round}
    records = 0
    while R.awaiting(state):
        assert R.invariant_violations(state) == []
        assert state.phase in ("turn", "reaction") and R.awaiting(state)
        movers = [s for s in range(players) if R.legal_moves(state, s)]
        roll = rnd.random()
        if roll < 0.005:
            before, (state, effects) = state, R.resign(state, rnd.choice(sorted(R.awaiting(state))))
        elif roll < 0.03 or not movers:
            if state.phase == "reaction" and (roll < 0.015 or not movers):
                assert R.expire is not None
                before, (state, effects) = state, R.expire(state)
            else:
                before, (state, effects) = state, R.timeout(state, rnd.choice(sorted(R.awaiting(state))))
        elif roll < 0.06 and options.get("strict"):  # a mistake, penalised or refused
            seat = rnd.choice([s for s in range(players) if state.hands[s]])
            card = rnd.choice(state.hands[seat])
            wrong = Play(card) if rnd.random() < 0.5 else Mirror(card, state.area[-1], "others_draw")
            try:
                before, (state, effects) = state, R.apply(state, seat, wrong)
            except (IllegalMove, NotAwaited, RaceLost):
                continue
        else:
            seat = rnd.choice(movers)
            before, (state, effects) = state, R.apply(state, seat, rnd.choice(R.legal_moves(state, seat)))
        records += 1
        _check_effects(before, state, effects)
        _check_views(state)
        rounds_seen.add(state.round)
        assert records < 20_000, "a game did not end"
    assert R.invariant_violations(state) == [] and R.outcome(state) is not None
    return records


@pytest.mark.parametrize("players", range(2, 9))
def test_s40_random_playouts_keep_the_invariants(players: int) -> None:
    rnd = random.Random(players)
    for i, options in enumerate(_OPTION_SETS):
        _random_playout(players, 1000 * players + i, options, rnd)


def test_determinize_keeps_every_view_and_legal_move() -> None:
    rnd = random.Random(11)
    state = R.setup(R.parse_config({"strict": True}, 5), 11)[0]
    for _ in range(150):
        if not R.awaiting(state):
            break
        for seat in range(5):
            view = R.view(state, seat, None)
            sampled = R.determinize(json.loads(json.dumps(view)), seat, random.Random(seat))
            assert R.invariant_violations(sampled) == []
            assert R.view(sampled, seat, None) == view
            assert R.legal_moves(sampled, seat) == R.legal_moves(state, seat)
        movers = [s for s in range(5) if R.legal_moves(state, s)]
        if not movers:
            state, _ = R.expire(state) if R.expire and R.timer(state) else R.timeout(state, min(R.awaiting(state)))
            continue
        seat = rnd.choice(movers)
        state, _ = R.apply(state, seat, rnd.choice(R.legal_moves(state, seat)))


def test_heuristic_prefers_fewer_points() -> None:
    t = deal([[5], [40, 11], [30], [60]], 37, dealer=A)
    assert R.heuristic(t.state, A) > R.heuristic(t.state, B)


# --- §1.10 scenarios as data ------------------------------------------------------------------


@pytest.mark.parametrize("path", runner.files("ekko"), ids=lambda p: p.stem)
def test_scenario(path: Path) -> None:
    assert runner.run_file(R, path) > 0
