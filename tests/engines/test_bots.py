"""Bot players (rules/bots.py): legal, deterministic, blind to hidden information, and `strong` is stronger.

The bots are tested on a small toy engine defined here (so these tests never wait for the
real games) and, more lightly, on every registered engine.

The toy game, *Duel*, exercises what the real games throw at a bot: 2–3 seats; a deck of
1..10·players; 6 cards dealt face down each, the rest stay hidden in a stock. First a
simultaneous, hidden prompt: every seat discards one card face down. Then tricks: the
leader (seat 0 first) plays any card, every other seat with cards follows in seat order,
the highest card takes the trick (1 point) and its owner leads next. An interrupt: a seat
that is neither the current player nor the author of the top card of the trick, and that
holds the top card + 1 and at least two cards, may ``snap`` it (anchor ``against`` = the top
card) for 1 point; the card leaves the game. The game ends when no hand holds a card; most
points wins. Resigning ends the game with the resigned seat last.
"""

from __future__ import annotations

import dataclasses
import doctest
import json
from dataclasses import dataclass
from typing import Any

import pytest

import rules.bots
from rules import RULES
from rules.base import (
    IllegalMove,
    InvalidMove,
    InvalidOptions,
    Moved,
    MoveField,
    MoveSpec,
    NotAwaited,
    Outcome,
    RaceLost,
    Rules,
    Seat,
    fallback,
    put,
    rank_groups,
    step,
)
from rules.bots import (
    LEVELS,
    choose_interrupt,
    choose_move,
    play_match,
)
from rules.rng import pick, rng, shuffled

# --- the toy engine -------------------------------------------------------------------------

HAND = 6


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard one card face down (the simultaneous opening prompt)."""

    card: int


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card to the trick."""

    card: int


@dataclass(frozen=True, slots=True)
class Snap:
    """Interrupt: take 1 point for the card one above the top of the trick."""

    card: int
    against: int


ToyMove = Discard | Play | Snap


@dataclass(frozen=True, slots=True)
class ToyState:
    """A Duel position."""

    phase: str  # "discard" | "trick" | "over"
    hands: tuple[tuple[int, ...], ...]
    discards: tuple[int | None, ...]
    stock: tuple[int, ...]
    trick: tuple[tuple[Seat, int], ...]
    current: Seat
    points: tuple[int, ...]
    played: tuple[int, ...]
    snapped: tuple[tuple[int, ...], ...]
    resigned: Seat | None = None


def _deck(players: int) -> tuple[int, ...]:
    """The cards of a game for ``players``."""
    return tuple(range(1, 10 * players + 1))


def toy_parse_config(options: dict[str, Any], players: int) -> int:
    """The config is the player count; Duel has no options."""
    if options:
        raise InvalidOptions(f"unknown options {sorted(options)}")
    if players not in range(2, 4):
        raise InvalidOptions("Duel takes 2 or 3 players")
    return players


def toy_initial_state(players: int, seed: int) -> ToyState:
    """Deal 6 cards each from a shuffled deck; the rest is the hidden stock."""
    cards = shuffled(_deck(players), rng(seed, "deal"))
    hands = tuple(tuple(sorted(cards[i * HAND : (i + 1) * HAND])) for i in range(players))
    return ToyState(
        phase="discard",
        hands=hands,
        discards=(None,) * players,
        stock=tuple(sorted(cards[players * HAND :])),
        trick=(),
        current=0,
        points=(0,) * players,
        played=(),
        snapped=((),) * players,
    )


def toy_awaiting(state: ToyState) -> frozenset[Seat]:
    """Every seat that has not discarded, then the current player; nobody once over."""
    if state.phase == "discard":
        return frozenset(s for s, d in enumerate(state.discards) if d is None)
    if state.phase == "trick":
        return frozenset({state.current})
    return frozenset()


def _snap_card(state: ToyState, seat: Seat) -> int | None:
    """The card ``seat`` could snap now, if any."""
    if state.phase != "trick" or not state.trick or seat == state.current:
        return None
    author, top = state.trick[-1]
    hand = state.hands[seat]
    if author != seat and len(hand) >= 2 and top + 1 in hand:
        return top + 1
    return None


def toy_legal_moves(state: ToyState, seat: Seat) -> list[ToyMove]:
    """Discards, plays on one's turn, and a snap whenever one is possible."""
    moves: list[ToyMove] = []
    if state.phase == "discard" and state.discards[seat] is None:
        moves.extend(Discard(c) for c in state.hands[seat])
    if state.phase == "trick":
        if seat == state.current:
            moves.extend(Play(c) for c in state.hands[seat])
        card = _snap_card(state, seat)
        if card is not None:
            moves.append(Snap(card, card - 1))
    return moves


def _next_in_trick(hands: tuple[tuple[int, ...], ...], trick: tuple[tuple[Seat, int], ...], seat: Seat) -> Seat | None:
    """The next seat after ``seat`` that still owes a card to the trick."""
    players = len(hands)
    done = {s for s, _ in trick}
    for k in range(1, players):
        s = (seat + k) % players
        if s not in done and hands[s]:
            return s
    return None


def toy_apply(state: ToyState, seat: Seat, move: ToyMove) -> tuple[ToyState, tuple[Any, ...]]:
    """Validate and apply a move: not awaited, race lost, then illegal."""
    if state.phase == "over":
        raise NotAwaited("the game is over")
    hand = state.hands[seat]
    match move:
        case Snap(card, against):
            if state.phase != "trick" or not state.trick:
                raise IllegalMove("no_trick", "there is no card to snap")
            if against != state.trick[-1][1]:
                raise RaceLost("another card has landed")
            if _snap_card(state, seat) != card:
                raise IllegalMove("cannot_snap", "you cannot snap that card")
            return dataclasses.replace(
                state,
                hands=put(state.hands, seat, tuple(c for c in hand if c != card)),
                points=put(state.points, seat, state.points[seat] + 1),
                snapped=put(state.snapped, seat, (*state.snapped[seat], card)),
            ), ()
        case Discard(card):
            if state.phase != "discard" or state.discards[seat] is not None:
                raise NotAwaited("no discard is awaited from you")
            if card not in hand:
                raise IllegalMove("not_in_hand", "you do not hold that card")
            discards = put(state.discards, seat, card)
            after = dataclasses.replace(
                state, hands=put(state.hands, seat, tuple(c for c in hand if c != card)), discards=discards
            )
            if all(d is not None for d in discards):
                after = dataclasses.replace(after, phase="trick", current=0)
            return after, ()
        case Play(card):
            if state.phase != "trick" or seat != state.current:
                raise NotAwaited("it is not your turn")
            if card not in hand:
                raise IllegalMove("not_in_hand", "you do not hold that card")
            hands = put(state.hands, seat, tuple(c for c in hand if c != card))
            trick = (*state.trick, (seat, card))
            following = _next_in_trick(hands, trick, seat)
            if following is not None:
                return dataclasses.replace(state, hands=hands, trick=trick, current=following), ()
            winner = max(trick, key=lambda sc: sc[1])[0]
            points = put(state.points, winner, state.points[winner] + 1)
            played = state.played + tuple(c for _, c in trick)
            leader = winner if hands[winner] else _next_in_trick(hands, (), winner)
            if leader is None:
                return dataclasses.replace(state, phase="over", hands=hands, trick=(), points=points, played=played), ()
            return dataclasses.replace(state, hands=hands, trick=(), current=leader, points=points, played=played), ()
    raise InvalidMove("not a Duel move")


def toy_timeout(state: ToyState, seat: Seat) -> tuple[ToyState, tuple[Any, ...]]:
    """The default move: the lowest card."""
    if seat not in toy_awaiting(state):
        raise NotAwaited("not awaited")
    low = min(state.hands[seat])
    return toy_apply(state, seat, Discard(low) if state.phase == "discard" else Play(low))


def toy_resign(state: ToyState, seat: Seat) -> tuple[ToyState, tuple[Any, ...]]:
    """A resignation ends the game with the resigned seat last."""
    return dataclasses.replace(state, phase="over", resigned=seat), ()


def toy_outcome(state: ToyState) -> Outcome | None:
    """Most points wins; ties share a rank."""
    if state.phase != "over":
        return None
    seats = [s for s in range(len(state.hands)) if s != state.resigned]
    ranking = rank_groups([-p for p in state.points], seats)
    if state.resigned is not None:
        ranking = (*ranking, frozenset({state.resigned}))
    reason = "tricks" if state.resigned is None else "resignation"
    return Outcome(winners=ranking[0], ranking=ranking, scores=state.points, reason=reason)


def toy_view(state: ToyState, viewer: Seat | None, deadline: str | None) -> dict[str, Any]:
    """Everything but the other seats' hands and discards and the stock."""
    return {
        "game": "toy",
        "phase": state.phase,
        "seats": [
            {
                "seat": s,
                "points": state.points[s],
                "hand_size": len(state.hands[s]),
                "discarded": state.discards[s] is not None,
                "snapped": list(state.snapped[s]),
            }
            for s in range(len(state.hands))
        ],
        "hand": None if viewer is None else list(state.hands[viewer]),
        "my_discard": None if viewer is None else state.discards[viewer],
        "trick": [[s, c] for s, c in state.trick],
        "current": state.current,
        "played": list(state.played),
        "stock_size": len(state.stock),
        "resigned": state.resigned,
    }


def toy_determinize(view: dict[str, Any], seat: Seat, gen: Any) -> ToyState:
    """A state behind ``view``: the unseen cards dealt at random to the places the view counts."""
    seats = view["seats"]
    players = len(seats)
    known = set(view["hand"]) | {c for _, c in view["trick"]} | set(view["played"])
    known |= {c for s in seats for c in s["snapped"]}
    if view["my_discard"] is not None:
        known.add(view["my_discard"])
    unknown = shuffled(sorted(set(_deck(players)) - known), gen)
    hands: list[tuple[int, ...]] = []
    discards: list[int | None] = []
    for s in seats:
        if s["seat"] == seat:
            hands.append(tuple(view["hand"]))
            discards.append(view["my_discard"])
            continue
        hands.append(tuple(sorted(unknown[: s["hand_size"]])))
        unknown = unknown[s["hand_size"] :]
        if s["discarded"]:
            discards.append(unknown[0])
            unknown = unknown[1:]
        else:
            discards.append(None)
    assert len(unknown) == view["stock_size"]
    return ToyState(
        phase=view["phase"],
        hands=tuple(hands),
        discards=tuple(discards),
        stock=tuple(sorted(unknown)),
        trick=tuple((s, c) for s, c in view["trick"]),
        current=view["current"],
        points=tuple(s["points"] for s in seats),
        played=tuple(view["played"]),
        snapped=tuple(tuple(s["snapped"]) for s in seats),
        resigned=view["resigned"],
    )


def toy_heuristic(state: ToyState, seat: Seat) -> float:
    """Points first, then the strength kept in hand."""
    return 100.0 * state.points[seat] + sum(state.hands[seat])


def toy_dump_move(move: ToyMove) -> dict[str, Any]:
    """A move as JSON."""
    match move:
        case Discard(card):
            return {"type": "discard", "card": card}
        case Play(card):
            return {"type": "play", "card": card}
        case Snap(card, against):
            return {"type": "snap", "card": card, "against": against}
    raise InvalidMove("not a Duel move")


def toy_parse_move(data: dict[str, Any]) -> ToyMove:
    """JSON as a move, or InvalidMove."""
    kind = data.get("type")
    fields = {"discard": {"type", "card"}, "play": {"type", "card"}, "snap": {"type", "card", "against"}}
    if (
        kind not in fields
        or set(data) != fields[kind]
        or not all(isinstance(data[f], int) for f in fields[kind] - {"type"})
    ):
        raise InvalidMove(f"not a Duel move: {data!r}")
    if kind == "discard":
        return Discard(data["card"])
    if kind == "play":
        return Play(data["card"])
    return Snap(data["card"], data["against"])


def toy_dump_state(state: ToyState) -> dict[str, Any]:
    """A state as JSON."""
    return json.loads(json.dumps(dataclasses.asdict(state)))


def toy_parse_state(data: dict[str, Any]) -> ToyState:
    """JSON as a state."""
    return ToyState(
        phase=data["phase"],
        hands=tuple(tuple(h) for h in data["hands"]),
        discards=tuple(data["discards"]),
        stock=tuple(data["stock"]),
        trick=tuple((s, c) for s, c in data["trick"]),
        current=data["current"],
        points=tuple(data["points"]),
        played=tuple(data["played"]),
        snapped=tuple(tuple(s) for s in data["snapped"]),
        resigned=data["resigned"],
    )


def toy_invariant_violations(state: ToyState) -> list[str]:
    """Every card is in exactly one place."""
    cards = [c for h in state.hands for c in h] + [d for d in state.discards if d is not None]
    cards += list(state.stock) + [c for _, c in state.trick] + list(state.played)
    cards += [c for s in state.snapped for c in s]
    return [] if sorted(cards) == list(_deck(len(state.hands))) else ["cards are not conserved"]


TOY: Rules[ToyState, ToyMove, int] = Rules(
    name="toy",
    title="Duel",
    version=1,
    seats=range(2, 4),
    max_moves=200,
    options=(),
    moves=(
        MoveSpec("discard", "discard a card face down", (MoveField("card", "integer"),)),
        MoveSpec("play", "play a card to the trick", (MoveField("card", "integer"),)),
        MoveSpec("snap", "interrupt: snap top + 1", (MoveField("card", "integer"), MoveField("against", "integer"))),
    ),
    parse_config=toy_parse_config,
    setup=lambda players, seed: (toy_initial_state(players, seed), ()),
    awaiting=toy_awaiting,
    legal_moves=toy_legal_moves,
    view=toy_view,
    outcome=toy_outcome,
    apply=toy_apply,
    timeout=toy_timeout,
    resign=toy_resign,
    parse_move=toy_parse_move,
    dump_move=toy_dump_move,
    parse_state=toy_parse_state,
    dump_state=toy_dump_state,
    invariant_violations=toy_invariant_violations,
    determinize=toy_determinize,
    heuristic=toy_heuristic,
)


# --- helpers --------------------------------------------------------------------------------

FAST = {"iterations": 40, "seconds": None}  # a small, deterministic budget for `strong`


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _decision_inputs(
    rules: Rules[Any, Any, Any], state: Any, seat: Seat
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """What the platform hands a bot: the seat's view and legal moves, as the API carries them."""
    return _json(rules.view(state, seat, None)), _json([rules.dump_move(m) for m in rules.legal_moves(state, seat)])


def _positions(rules: Rules[Any, Any, Any], players: int, seed: int, limit: int) -> list[tuple[Any, Seat]]:
    """Up to ``limit`` (state, seat) pairs with legal moves, spread over a random playout.

    The pick is evenly spaced, plus the first few positions where the seat is not awaited
    (an interrupt) or shares ``awaiting`` with others (a simultaneous prompt), when the
    playout has any.
    """
    state = rules.setup(rules.parse_config({}, players), seed)[0]
    gen = rng(seed, "test", "positions")
    found: list[tuple[Any, Seat]] = []
    for _ in range(min(rules.max_moves, 400)):
        if not rules.awaiting(state):
            break
        movers = [s for s in range(players) if rules.legal_moves(state, s)]
        found.extend((state, s) for s in movers)
        if movers:
            seat = pick(movers, gen)
            state = step(rules, state, Moved(seat, pick(list(rules.legal_moves(state, seat)), gen)))[0]
        else:
            nudge = fallback(rules, state)
            assert nudge is not None
            state = step(rules, state, nudge)[0]
    interrupts = [i for i, (st, s) in enumerate(found) if s not in rules.awaiting(st)][:2]
    simultaneous = [i for i, (st, _) in enumerate(found) if len(rules.awaiting(st)) > 1][:2]
    stride = max(1, len(found) // max(1, limit - len(interrupts) - len(simultaneous)))
    chosen = sorted(set(range(0, len(found), stride)) | set(interrupts) | set(simultaneous))
    return [found[i] for i in chosen]


def _toy_state(**changes: Any) -> ToyState:
    """A trick-phase Duel position for two: seat 0 leads, nothing played yet."""
    base = ToyState(
        phase="trick",
        hands=((3, 9, 14, 17, 20), (1, 5, 8, 12, 16)),
        discards=(2, 4),
        stock=(6, 7, 10, 11, 13, 15, 18, 19),
        trick=(),
        current=0,
        points=(0, 0),
        played=(),
        snapped=((), ()),
    )
    return dataclasses.replace(base, **changes)


# --- the toy engine keeps the contract the bots rely on ---------------------------------------


@pytest.mark.parametrize("players", [2, 3])
def test_toy_engine_determinizes_consistently_with_its_views(players: int) -> None:
    for index, (state, seat) in enumerate(_positions(TOY, players, 11, 60)):
        view, legal = _decision_inputs(TOY, state, seat)
        sampled = TOY.determinize(view, seat, rng(index, "det"))
        assert TOY.invariant_violations(sampled) == []
        assert _json(TOY.view(sampled, seat, None)) == view
        assert [TOY.dump_move(m) for m in TOY.legal_moves(sampled, seat)] == legal


def test_toy_engine_offers_interrupts_to_seats_that_are_not_awaited() -> None:
    state = ToyState(
        phase="trick",
        hands=((1, 2), (5, 6), (8, 9)),
        discards=(3, 4, 7),
        stock=tuple(range(11, 31)),
        trick=((0, 10),),
        current=1,
        points=(0, 0, 0),
        played=(),
        snapped=((), (), ()),
    )
    assert TOY.invariant_violations(state) == []
    assert TOY.legal_moves(state, 2) == []
    state = dataclasses.replace(state, trick=((0, 7),), discards=(3, 4, 10))
    assert TOY.invariant_violations(state) == []
    assert 2 not in TOY.awaiting(state)
    assert TOY.legal_moves(state, 2) == [Snap(8, 7)]
    with pytest.raises(RaceLost):
        TOY.apply(state, 2, Snap(8, 6))
    after, _ = TOY.apply(state, 2, Snap(8, 7))
    assert after.points == (0, 0, 1) and after.hands[2] == (9,) and after.current == 1


# --- every level plays a legal move -----------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("players", [2, 3])
def test_every_level_returns_one_of_the_legal_moves(level: str, players: int) -> None:
    positions = _positions(TOY, players, 3, 40)
    if players == 3:
        assert any(s not in TOY.awaiting(st) for st, s in positions), "the playout offers an interrupt"
    assert any(len(TOY.awaiting(st)) > 1 for st, _ in positions), "the playout has a simultaneous prompt"
    for index, (state, seat) in enumerate(positions):
        view, legal = _decision_inputs(TOY, state, seat)
        move = choose_move(TOY, view, legal, seat, level, index, **FAST)
        assert move in legal
        interrupt = choose_interrupt(TOY, view, legal, seat, level, index, **FAST)
        assert interrupt is None or interrupt in legal


@pytest.mark.parametrize("level", ["greedy", "strong"])
def test_a_bot_takes_a_free_point_by_interrupting(level: str) -> None:
    state = ToyState(
        phase="trick",
        hands=((1, 2), (5, 6), (8, 9)),
        discards=(3, 4, 10),
        stock=tuple(range(11, 31)),
        trick=((0, 7),),
        current=1,
        points=(0, 0, 0),
        played=(),
        snapped=((), (), ()),
    )
    view, legal = _decision_inputs(TOY, state, 2)
    assert legal == [{"type": "snap", "card": 8, "against": 7}]
    assert choose_interrupt(TOY, view, legal, 2, level, 0, **FAST) == legal[0]


def test_choose_interrupt_with_nothing_to_do_waits() -> None:
    view, _ = _decision_inputs(TOY, _toy_state(), 1)
    assert choose_interrupt(TOY, view, [], 1, "strong", 0, **FAST) is None


def test_a_bot_refuses_an_unknown_level_and_an_empty_move_list() -> None:
    view, legal = _decision_inputs(TOY, _toy_state(), 0)
    with pytest.raises(ValueError, match="unknown bot level"):
        choose_move(TOY, view, legal, 0, "genius", 0)
    with pytest.raises(ValueError, match="at least one legal move"):
        choose_move(TOY, view, [], 0, "random", 0)


def test_a_single_legal_move_is_played_without_searching() -> None:
    state = _toy_state(hands=((3,), (1, 5)), discards=(2, 4), stock=tuple(range(6, 21)), current=0)
    view, legal = _decision_inputs(TOY, state, 0)
    for level in LEVELS:
        assert choose_move(TOY, view, legal, 0, level, 1, **FAST) == {"type": "play", "card": 3}


# --- determinism --------------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_a_decision_is_a_function_of_the_seed(level: str) -> None:
    for index, (state, seat) in enumerate(_positions(TOY, 3, 8, 12)):
        view, legal = _decision_inputs(TOY, state, seat)
        first = choose_move(TOY, view, legal, seat, level, 1000 + index, **FAST)
        assert choose_move(TOY, _json(view), _json(legal), seat, level, 1000 + index, **FAST) == first


def test_different_seeds_can_give_different_random_moves() -> None:
    view, legal = _decision_inputs(TOY, _toy_state(), 0)
    assert len({json.dumps(choose_move(TOY, view, legal, 0, "random", seed)) for seed in range(30)}) > 1


def test_a_bot_match_replays_identically_for_a_seed() -> None:
    first = play_match(TOY, ["strong", "greedy", "random"], 3, iterations=30, seconds=None)
    second = play_match(TOY, ["strong", "greedy", "random"], 3, iterations=30, seconds=None)
    assert first.outcome == second.outcome and first.records == second.records
    assert [d[:2] for d in first.decisions] == [d[:2] for d in second.decisions]


# --- no cheating ----------------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_two_true_states_with_the_same_view_get_the_same_decision(level: str) -> None:
    # Seat 0 leads; seat 1's hand and the stock differ between the two states (seat 1 holds
    # the 20 in one and not in the other), which a cheating bot would exploit.
    weak = _toy_state(hands=((3, 9, 14, 17, 19), (1, 5, 8, 12, 16)), stock=(6, 7, 10, 11, 13, 15, 18, 20))
    strong = _toy_state(hands=((3, 9, 14, 17, 19), (1, 5, 8, 18, 20)), stock=(6, 7, 10, 11, 12, 13, 15, 16))
    assert TOY.invariant_violations(weak) == TOY.invariant_violations(strong) == []
    assert TOY.dump_state(weak) != TOY.dump_state(strong)
    assert _decision_inputs(TOY, weak, 0) == _decision_inputs(TOY, strong, 0)
    for seed in range(4):
        decisions = [choose_move(TOY, *_decision_inputs(TOY, s, 0), 0, level, seed, **FAST) for s in (weak, strong)]
        assert decisions[0] == decisions[1]


def _duel_for_three(hands: tuple[tuple[int, ...], ...], discards: tuple[int, ...]) -> ToyState:
    """A three-seat trick-phase Duel position, seat 0 to lead; the stock is whatever is left."""
    placed = {c for h in hands for c in h} | set(discards)
    return ToyState(
        phase="trick",
        hands=hands,
        discards=discards,
        stock=tuple(c for c in _deck(3) if c not in placed),
        trick=(),
        current=0,
        points=(0, 0, 0),
        played=(),
        snapped=((), (), ()),
    )


# Seat 0 sees the same in both; what it does not see (seats 1 and 2's hands and discards, the
# stock) differs: in the second, the opponents hold every card above 20 that seat 0 lacks.
TRUTHS = (
    _duel_for_three(((2, 9, 14, 21, 27), (1, 5, 8, 12, 16), (4, 6, 11, 13, 15)), (3, 7, 10)),
    _duel_for_three(((2, 9, 14, 21, 27), (22, 23, 24, 25, 26), (19, 20, 28, 29, 30)), (3, 1, 4)),
)
_STATE_ARGUMENT = ("apply", "legal_moves", "awaiting", "heuristic", "outcome", "view", "timeout", "resign", "timer")


def test_the_bot_never_touches_the_true_state() -> None:
    """Behind one view there are two true states; for every level and seed the bot decides the
    same in both (it cannot tell them apart, so it must not), and no engine function it calls is
    ever given either true state: every state it works on is one it sampled from the view.

    A sample equal to a true state is possible in principle, but the view hides 24 cards in 5 + 5
    + 1 + 1 + 12 places: about 1 chance in 10**10 per sample.
    """
    truths = TRUTHS
    assert all(TOY.invariant_violations(t) == [] for t in truths)
    inputs = [_decision_inputs(TOY, t, 0) for t in truths]
    assert inputs[0] == inputs[1] and TOY.dump_state(truths[0]) != TOY.dump_state(truths[1])
    seen: list[Any] = []

    def spy(function: Any) -> Any:
        def wrapped(state: Any, *rest: Any) -> Any:
            seen.append(state)
            return function(state, *rest)

        return wrapped

    watched = dataclasses.replace(TOY, **{name: spy(getattr(TOY, name)) for name in _STATE_ARGUMENT})
    for level in LEVELS:
        for seed in range(6):
            decisions = [choose_move(watched, *given, 0, level, seed, **FAST) for given in inputs]
            assert decisions[0] == decisions[1], (level, seed)
    assert len(seen) > 1000, "the bots do consult the engine"
    forbidden = {json.dumps(TOY.dump_state(t), sort_keys=True) for t in truths}
    touched = [s for s in seen if json.dumps(TOY.dump_state(s), sort_keys=True) in forbidden]
    assert touched == [], "a bot worked on the true state"


# --- strength -----------------------------------------------------------------------------------


def _win_rate(strong_level: str, other: str, games: int, iterations: int) -> float:
    wins = 0.0
    for game in range(games):
        strong_seat = game % 2
        levels = [other, other]
        levels[strong_seat] = strong_level
        outcome = play_match(TOY, levels, 100 + game, iterations=iterations, seconds=None).outcome
        if strong_seat in outcome.winners:
            wins += 1 / len(outcome.winners)
    return wins / games


def test_strong_beats_random_on_the_toy_game_by_a_clear_margin() -> None:
    assert _win_rate("strong", "random", games=16, iterations=120) >= 0.75


def test_greedy_beats_random_on_the_toy_game() -> None:
    assert _win_rate("greedy", "random", games=16, iterations=0) >= 0.65


# --- the bench helper -----------------------------------------------------------------------------


def test_play_match_reports_every_decision() -> None:
    record = play_match(TOY, ["random", "random", "random"], 4)
    assert record.outcome.reason == "tricks"
    assert sorted(s for g in record.outcome.ranking for s in g) == [0, 1, 2]
    assert len(record.decisions) >= record.records
    assert {level for _, level, _ in record.decisions} == {"random"}
    assert all(seconds >= 0 for *_, seconds in record.decisions)


def test_module_doctests_pass() -> None:
    assert doctest.testmod(rules.bots).failed == 0


# --- every registered engine ----------------------------------------------------------------------

ENGINES = sorted(RULES)


@pytest.mark.parametrize("game", ENGINES)
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_legal_moves_in_every_registered_game(game: str, level: str) -> None:
    rules = RULES[game]
    players = min(rules.seats.stop - 1, max(rules.seats.start, 3))
    for index, (state, seat) in enumerate(_positions(rules, players, 21, 12)):
        view, legal = _decision_inputs(rules, state, seat)
        if seat in rules.awaiting(state):
            assert choose_move(rules, view, legal, seat, level, index, iterations=20, seconds=None) in legal
        else:
            move = choose_interrupt(rules, view, legal, seat, level, index, iterations=20, seconds=None)
            assert move is None or move in legal


@pytest.mark.parametrize("game", ENGINES)
def test_a_registered_games_bot_decides_from_the_view_alone(game: str) -> None:
    rules = RULES[game]
    players = rules.seats.start if rules.seats.start >= 2 else 2
    for index, (state, seat) in enumerate(_positions(rules, players, 31, 4)):
        view, legal = _decision_inputs(rules, state, seat)
        # Another true state behind the same view: sampled from it, hidden parts drawn afresh.
        other = rules.determinize(view, seat, rng(index, "other"))
        assert _decision_inputs(rules, other, seat) == (view, legal)
        if seat in rules.awaiting(state):
            decide = [
                choose_move(
                    rules, *_decision_inputs(rules, s, seat), seat, "strong", index, iterations=15, seconds=None
                )
                for s in (state, other)
            ]
            assert decide[0] == decide[1]
