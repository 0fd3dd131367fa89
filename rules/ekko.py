"""EKKO: a 2–8 player shedding game with 98 numbered cards and out-of-turn Mirror cards.

Rules summary (the rules as implemented: ``docs/rules/ekko.md``; every § below refers to it):

- Deck (§1.2): the cards 1–98, each once. The mirror of a card swaps its two digits
  (01↔10, 37↔73); the eight multiples of 11 have none. Odd cards need a higher card next,
  even cards a lower one.
- Deal (§1.3): 6/6/5/5/4/4/4 cards for 2–8 players, dealt from the seeded shuffle
  (``rng(seed, "deal", round)``) clockwise from the dealer's left; the next card is the start
  card, counted as played by the dealer; the rest is the draw pile (index 0 is the top).
- Turn (§1.4, §1.5): the current player plays a legal card (strictly higher on odd, lower on
  even), or draws when holding none (a drawn card is not played this turn). A multiple of 11
  plays again (obligation ``again``); as the last card it forces a draw instead. When the turn
  comes back to the seat whose card is still on top, that seat has free play.
- Mirror (§1.5.4, §1.5.5): any active seat, at any moment, may put the mirror of the top card
  on it, ignoring parity, with one effect: ``discard`` one card face down, or ``others_draw``
  (clockwise from the mirror player's left). Play continues left of the mirror player.
- Reaction window (§1.7.3): a non-11 last card opens a window in which every other active seat
  is awaited; the first mirror re-opens the round (the emptied seat draws), all passes or the
  window deadline end it. No window when the card's mirror already lies in the play area.
- Round end (§1.6): R1 someone goes out, R2 a required draw meets an empty pile. Hands score
  2 per multiple of 11 and 1 per other card. The game ends when a total reaches
  ``target_score``; lowest total wins, ties share the win. The last placer deals next.
- Asynchronous rules (§1.7): auto-draws only when publicly forced (§1.7.5), strict mode's
  locked penalty cards (§1.7.6), timeouts (§1.7.4), resignation (§0.6), the ``setup``
  fixture (§0.7).

Events (§1.7.8): each public event is one effect with ``to=None``; the data only its seat may
see travels in a private companion effect: ``hand_dealt`` (with ``round_started``),
``card_drawn`` (with ``drew``), ``card_discarded`` (with ``mirrored``) and ``you_passed``
(with ``reaction_answer``). Added public events: ``resigned``.

Invariants (`invariant_violations`): the 98 cards lie exactly once in hands, draw pile, play
area, face-down discards (``removed``) and the hands set aside by resignations (``aside``);
every locked card is in its owner's hand; hands are sorted; a resigned seat holds nothing;
``turn`` has an active current player and ``reaction`` an empty-handed emptied seat with at
least one other active seat. ``last_placer`` (§1.3.2) is always the top card's ``by``.

Termination: every draw shrinks the pile and every play a hand, so a round ends (§1.6); each
round adds at least one point to some total, and ``target_score`` is capped at 100. The one
endless case the page leaves open, every active seat timing out in turn on an empty pile (each
timeout is a skip, §1.7.4), ends the round as R2 after a full lap of skips (our addition).
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, TypedDict

from rules.base import (
    JSON,
    Effect,
    IllegalMove,
    InvalidMove,
    InvalidOptions,
    NotAwaited,
    Option,
    Outcome,
    RaceLost,
    Rules,
    Seat,
    Timer,
    put,
    rank_groups,
)
from rules.kit import Draft, MoveCodec, arg, parse_options
from rules.rng import randbelow, rng, shuffled

# --- 1. constants ---------------------------------------------------------------------------

DECK: tuple[int, ...] = tuple(range(1, 99))  # §1.2: one card of each value 1–98
HAND_SIZE: Mapping[int, int] = {2: 6, 3: 6, 4: 5, 5: 5, 6: 4, 7: 4, 8: 4}  # §1.3.1
ELEVENS: frozenset[int] = frozenset(range(11, 99, 11))  # §1.2: "play again" cards, no mirror
MIRROR: tuple[int | None, ...] = (None,) + tuple(  # MIRROR[n] is mirror(n), index 0 unused
    None if (n % 10) * 10 + n // 10 == n else (n % 10) * 10 + n // 10 for n in DECK
)
MAX_TARGET_SCORE = 100  # our cap on `target_score`, so that `max_moves` is a real bound
MAX_REACTION_WINDOW_S = 31_536_000  # our cap on `reaction_window_s`: one year
MOVE_LIMIT = 4_000_000  # ≤ 8·99+1 rounds × ≤ 5,000 records per round (module docstring)

TURN: Literal["turn"] = "turn"
REACTION: Literal["reaction"] = "reaction"
GAME_OVER: Literal["game_over"] = "game_over"
NORMAL: Literal["normal"] = "normal"
AGAIN: Literal["again"] = "again"
FREE: Literal["free"] = "free"
RoundEnd = Literal["went_out", "draw_pile_empty"]
WENT_OUT: RoundEnd = "went_out"  # R1
PILE_EMPTY: RoundEnd = "draw_pile_empty"  # R2
How = Literal["start", "play", "mirror"]  # how a card reached the play area

Phase = Literal["turn", "reaction", "game_over"]
Obligation = Literal["normal", "again", "free"]
MirrorEffect = Literal["discard", "others_draw"]

_ONLY: tuple[frozenset[Seat], ...] = tuple(frozenset({s}) for s in range(8))  # private audiences
_HOW = ("start", "play", "mirror")


def mirror(n: int) -> int | None:
    """The card with the two digits of ``n`` swapped, or None for a multiple of 11 (§1.2).

    >>> mirror(37), mirror(1), mirror(10), mirror(9), mirror(98), mirror(55)
    (73, 10, 1, 90, 89, None)
    """
    return MIRROR[n]


def needs(top: int) -> Literal["higher", "lower"]:
    """The direction the card on top requires (§1.5.1).

    >>> needs(37), needs(38)
    ('higher', 'lower')
    """
    return "higher" if top % 2 else "lower"


def is_eleven(n: int) -> bool:
    """True for the multiples of 11 (§1.5.2).

    >>> [n for n in range(1, 99) if is_eleven(n)]
    [11, 22, 33, 44, 55, 66, 77, 88]
    """
    return n % 11 == 0


def points(hand: Sequence[int]) -> int:
    """Round points of a hand: 2 per multiple of 11, 1 per other card (§1.6).

    >>> points((11, 22, 5, 90))
    6
    """
    return sum(2 if c % 11 == 0 else 1 for c in hand)


# --- 2. values ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundSetup:
    """One fixed deal (§0.7). ``draw_pile`` already holds the unlisted cards at its bottom."""

    hands: tuple[tuple[int, ...], ...]
    start: int
    draw_pile: tuple[int, ...]
    listed_pile: tuple[int, ...]  # the pile as given, for dumping the options back
    dealer: int | None = None
    round: int | None = None


@dataclass(frozen=True, slots=True)
class Setup:
    """The `setup` option (§0.7): the first deal, optional scores, later deals."""

    first: RoundSetup
    scores: tuple[int, ...] | None
    next_rounds: tuple[RoundSetup, ...]


@dataclass(frozen=True, slots=True)
class Config:
    """Parsed match options (§1.7.1): one field per `OPTIONS` entry, defaults and bounds there."""

    players: int
    target_score: int
    first_dealer: int | None  # None: "random"
    allow_self_mirror: bool
    reaction_draw_stacks: bool
    reaction_window_s: int
    auto_forced_draw: bool
    strict: bool
    tie_policy: Literal["shared", "rematch"]
    setup: Setup | None


@dataclass(frozen=True, slots=True)
class Reaction:
    """An open last-card window (§1.7.3). ``answered`` is secret: it never reaches a view."""

    emptied: Seat
    card: int
    answered: tuple[Seat, ...] = ()  # sorted


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """The public `round_ended` summary (§1.7.8), kept for the view's ``last_round``."""

    round: int
    reason: RoundEnd
    went_out: Seat | None
    hands: tuple[tuple[int, ...] | None, ...]  # None for a resigned seat (§0.6: not shown)
    round_points: tuple[int, ...]
    totals: tuple[int, ...]
    next_dealer: Seat


@dataclass(frozen=True, slots=True)
class State:
    """The complete server-side state (§1.7.2); never sent as is."""

    config: Config
    seed: int
    round: int
    dealer: Seat
    phase: Phase
    current: Seat | None  # None outside `turn`
    obligation: Obligation | None  # None outside `turn`
    hands: tuple[tuple[int, ...], ...]  # sorted ascending
    draw_pile: tuple[int, ...]  # index 0 is the top
    area: tuple[int, ...]  # the play area, last element on top
    area_by: tuple[Seat, ...]  # who placed each card
    area_how: tuple[How, ...]
    removed: tuple[tuple[int, ...], ...]  # face-down mirror discards, sorted
    locked: tuple[tuple[int, ...], ...]  # strict-mode penalty cards, a subset of the hand
    aside: tuple[tuple[int, ...], ...]  # hands set aside by resignation (§0.6)
    reaction: Reaction | None
    scores: tuple[int, ...]  # running totals
    active: tuple[bool, ...]
    last_round: RoundSummary | None
    idle: int = 0  # consecutive timeout skips on an empty pile (termination guard)

    @property
    def top(self) -> int:
        """The card on top of the play area."""
        return self.area[-1]

    @property
    def last_placer(self) -> Seat:
        """The seat that most recently placed a card (§1.3.2): always the top card's placer."""
        return self.area_by[-1]


@dataclass(frozen=True, slots=True)
class Play:
    """``{"type": "play", "card": n}`` (§1.7.7)."""

    TYPE: ClassVar[str] = "play"
    DESCRIPTION: ClassVar[str] = "Play a legal card on your turn (odd → higher, even → lower)"
    card: int = arg("the card", minimum=1, maximum=98)


@dataclass(frozen=True, slots=True)
class Draw:
    """``{"type": "draw"}`` (§1.7.7)."""

    TYPE: ClassVar[str] = "draw"
    DESCRIPTION: ClassVar[str] = "Draw the top card when you hold no legal card"


@dataclass(frozen=True, slots=True)
class Mirror:
    """``{"type": "mirror", "card", "against", "effect", "discard"?}`` (§1.7.7), an interrupt."""

    TYPE: ClassVar[str] = "mirror"
    DESCRIPTION: ClassVar[str] = "Put the mirror of the top card on it, at any moment, with one effect"
    card: int = arg("the mirror card", minimum=1, maximum=98)
    against: int = arg("the top card it answers", minimum=1, maximum=98)
    effect: MirrorEffect = arg("discard or others_draw")  # noqa: RUF009 (codec metadata, like the others)
    discard: int | None = arg(
        "the card put face down (effect discard only)", default=None, minimum=1, maximum=98, nullable=False
    )


@dataclass(frozen=True, slots=True)
class Pass:
    """``{"type": "pass"}``: a reaction-window answer (§1.7.7)."""

    TYPE: ClassVar[str] = "pass"
    DESCRIPTION: ClassVar[str] = "Let a last card stand in an open reaction window"


Move = Play | Draw | Mirror | Pass


class SeatView(TypedDict):
    """One entry of the view's ``seats`` (§1.8)."""

    seat: int
    hand_count: int
    removed_count: int
    total: int
    active: bool


class TopView(TypedDict):
    """The top card of the play area: who placed it (the dealer, for the start card) and how."""

    card: int
    by: int
    how: How


class ReactionView(TypedDict):
    """The open last-card window (§1.7.3); who answered it stays secret."""

    emptied: int
    card: int
    deadline: str | None
    you_answered: bool | None  # the viewer's own answer; null for the seat that emptied and for spectators


class RoundSummaryView(TypedDict):
    """The `round_ended` summary (§1.6): every active hand (null for a resigned seat) and the points."""

    round: int
    reason: RoundEnd
    went_out: int | None
    hands: list[list[int] | None]
    round_points: list[int]
    totals: list[int]
    next_dealer: int


class OptionsView(TypedDict):
    """The match options as the engine reads them, without `setup` (§1.7.1)."""

    target_score: int
    first_dealer: int | Literal["random"]
    allow_self_mirror: bool
    reaction_draw_stacks: bool
    reaction_window_s: int
    auto_forced_draw: bool
    strict: bool
    tie_policy: Literal["shared", "rematch"]


class EkkoView(TypedDict):
    """What one seat (or a spectator) sees (§1.8)."""

    game: str
    round: int
    phase: str
    you: int | None
    dealer: int
    current: int | None
    awaiting: list[int]
    obligation: str | None
    required: str | None
    top: TopView
    play_area: list[int]
    mirror_of_top: int | None
    mirror_of_top_public_dead: bool
    draw_pile_count: int
    hand: list[int]
    my_removed: list[int]
    my_locked: list[int]
    seats: list[SeatView]
    reaction: ReactionView | None
    target_score: int
    last_round: RoundSummaryView | None
    options: OptionsView


# --- 3. setup -------------------------------------------------------------------------------

OPTIONS: tuple[Option, ...] = (
    Option("target_score", "integer", 25, "End-of-game threshold; lowest total wins", 1, MAX_TARGET_SCORE),
    Option("first_dealer", "seat_or_random", "random", "Dealer of round 1: a seat index, or random"),
    Option("allow_self_mirror", "boolean", True, "May a seat mirror a card it placed itself"),
    Option("reaction_draw_stacks", "boolean", False, "A reaction mirror's forced draw adds to others_draw"),
    Option(
        "reaction_window_s",
        "integer",
        21600,
        "Seconds the last-card reaction window stays open",
        1,
        MAX_REACTION_WINDOW_S,
    ),
    Option("auto_forced_draw", "boolean", True, "Draw for a player who publicly cannot play or mirror"),
    Option("strict", "boolean", False, "Apply the printed wrong-card penalty instead of refusing"),
    Option(
        "tie_policy",
        "string",
        "shared",
        "A tie for lowest: shared win, or also a rematch",
        choices=("shared", "rematch"),
    ),
    Option("setup", "object", None, "Test fixture fixing the deal (rules §0.7)", restricted=True),
)


def _is_int(value: object) -> bool:
    return type(value) is int


def parse_config(options: JSON, players: int) -> Config:
    """Validate the match options (§1.7.1) and the `setup` fixture (§0.7); raises InvalidOptions."""
    if not _is_int(players) or players not in HAND_SIZE:
        raise InvalidOptions("EKKO is played by 2 to 8 players")
    values = parse_options(OPTIONS, options, players)
    first, fixture = values["first_dealer"], values["setup"]
    return Config(
        players=players,
        **{
            **values,
            "first_dealer": None if first == "random" else first,
            "setup": None if fixture is None else _parse_setup(fixture, players),
        },
    )


def _card_list(value: object, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(_is_int(c) and 1 <= c <= 98 for c in value):
        raise InvalidOptions(f"setup.{what} must be a list of cards 1–98")
    return tuple(value)


def _parse_round_setup(obj: object, players: int, *, first: bool, expected_round: int | None) -> RoundSetup:
    allowed = {"dealer", "hands", "start", "draw_pile", "round"} | ({"scores", "next_rounds"} if first else set())
    if not isinstance(obj, dict):
        raise InvalidOptions("setup must be an object")
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise InvalidOptions(f"unknown setup key(s): {', '.join(unknown)}")
    hands_raw = obj.get("hands")
    if not isinstance(hands_raw, list) or len(hands_raw) != players:
        raise InvalidOptions("setup.hands must hold one list per seat")
    hands = tuple(tuple(sorted(_card_list(h, "hands"))) for h in hands_raw)
    start = obj.get("start")
    if not isinstance(start, int) or not _is_int(start) or not 1 <= start <= 98:
        raise InvalidOptions("setup.start must be a card 1–98")
    pile = _card_list(obj.get("draw_pile", []), "draw_pile")
    listed = [c for h in hands for c in h] + [start, *pile]
    if len(set(listed)) != len(listed):
        raise InvalidOptions("setup lists a card more than once (every value exists once)")
    dealer = obj.get("dealer")
    if dealer is not None and (not _is_int(dealer) or not 0 <= dealer < players):
        raise InvalidOptions("setup.dealer must be a seat index")
    round_no = obj.get("round")
    if round_no is not None and (not _is_int(round_no) or round_no < 1):
        raise InvalidOptions("setup.round must be a positive integer")
    if expected_round is not None and round_no is not None and round_no != expected_round:
        raise InvalidOptions(f"setup.next_rounds entry has round {round_no}, expected {expected_round}")
    seen = set(listed)
    return RoundSetup(
        hands=hands,
        start=start,
        draw_pile=pile + tuple(c for c in DECK if c not in seen),  # §0.7: unlisted cards at the bottom
        listed_pile=pile,
        dealer=dealer,
        round=round_no,
    )


def _parse_setup(obj: object, players: int) -> Setup:
    first = _parse_round_setup(obj, players, first=True, expected_round=None)
    assert isinstance(obj, dict)
    scores = obj.get("scores")
    if scores is not None and (
        not isinstance(scores, list) or len(scores) != players or not all(_is_int(s) and s >= 0 for s in scores)
    ):
        raise InvalidOptions("setup.scores must hold one non-negative integer per seat")
    nexts = obj.get("next_rounds", [])
    if not isinstance(nexts, list):
        raise InvalidOptions("setup.next_rounds must be a list")
    base = first.round or 1
    later = tuple(
        _parse_round_setup(item, players, first=False, expected_round=base + i + 1) for i, item in enumerate(nexts)
    )
    return Setup(first=first, scores=None if scores is None else tuple(scores), next_rounds=later)


def setup(config: Config, seed: int) -> tuple[State, tuple[Effect, ...]]:
    """Pick the first dealer (§1.3.4 step 1) and deal round 1, or the `setup` deal (§0.7).

    The effects are round 1's ``round_started`` and each seat's private ``hand_dealt``.
    """
    n = config.players
    fixture = config.setup
    if fixture is not None and fixture.first.dealer is not None:
        dealer = fixture.first.dealer
    elif config.first_dealer is not None:
        dealer = config.first_dealer
    else:
        dealer = randbelow(rng(seed, "first_dealer"), n)
    empty = ((),) * n
    scores = fixture.scores if fixture is not None and fixture.scores is not None else (0,) * n
    round_no = (fixture.first.round or 1) if fixture is not None else 1
    blank = State(
        config=config,
        seed=seed,
        round=0,
        dealer=0,
        phase=TURN,
        current=None,
        obligation=None,
        hands=empty,
        draw_pile=(),
        area=(),
        area_by=(),
        area_how=(),
        removed=empty,
        locked=empty,
        aside=empty,
        reaction=None,
        scores=scores,
        active=(True,) * n,
        last_round=None,
    )
    d = Draft(blank)
    _deal(d, round_no, dealer)
    return d.done()


# --- 4. queries -----------------------------------------------------------------------------


def awaiting(state: State) -> frozenset[Seat]:
    """The current player in `turn`; every active seat but the emptied one in `reaction` (§1.7.3)."""
    if state.phase == TURN:
        assert state.current is not None
        return _ONLY[state.current]
    if state.phase == REACTION:
        assert state.reaction is not None
        emptied = state.reaction.emptied
        return frozenset(s for s, on in enumerate(state.active) if on and s != emptied)
    return frozenset()


def clocked(state: State) -> frozenset[Seat]:
    """Seats whose own clocks run: none while a reaction window is open (§0.4)."""
    return frozenset() if state.phase == REACTION else awaiting(state)


def timer(state: State) -> Timer | None:
    """The reaction window's deadline (§0.4); the key names this one window."""
    if state.phase != REACTION:
        return None
    return Timer(f"reaction:{state.round}:{len(state.area)}", state.config.reaction_window_s)


def author_hidden(move: Move) -> bool:
    """A `pass` record shows no seat to others (§1.7.3: nobody learns who answered)."""
    return isinstance(move, Pass)


def _allowed(card: int, top: int, obligation: str | None) -> bool:
    if obligation == FREE:
        return True
    return card > top if top & 1 else card < top


def _has_playable(hand: tuple[int, ...], locked: tuple[int, ...], top: int, obligation: str | None) -> bool:
    """Does the hand hold a card its obligation allows, locked cards excluded (§1.4, §1.7.6)?"""
    if not hand:
        return False
    if not locked:
        if obligation == FREE:
            return True
        return hand[-1] > top if top & 1 else hand[0] < top
    return any(c not in locked and _allowed(c, top, obligation) for c in hand)


def _mirror_moves(state: State, seat: Seat) -> list[Move]:
    top = state.area[-1]
    m = MIRROR[top]
    hand = state.hands[seat]
    locked = state.locked[seat]
    if m is None or m not in hand or m in locked:
        return []
    if not state.config.allow_self_mirror and state.area_by[-1] == seat:
        return []
    out: list[Move] = [Mirror(m, top, "others_draw")]
    out.extend(Mirror(m, top, "discard", c) for c in hand if c != m and c not in locked)
    return out


def legal_moves(state: State, seat: Seat) -> list[Move]:
    """The seat's concrete moves: plays (ascending), draw, pass, then mirrors (§1.8)."""
    if state.phase == GAME_OVER or not 0 <= seat < len(state.active) or not state.active[seat]:
        return []
    out: list[Move] = []
    if state.phase == TURN:
        if seat == state.current:
            top = state.area[-1]
            hand, locked, obligation = state.hands[seat], state.locked[seat], state.obligation
            out = [Play(c) for c in hand if c not in locked and _allowed(c, top, obligation)]
            if not out and obligation != FREE:
                out.append(Draw())
    else:
        reaction = state.reaction
        assert reaction is not None
        if seat == reaction.emptied or seat in reaction.answered:
            return []
        out.append(Pass())
    out.extend(_mirror_moves(state, seat))
    return out


def outcome(state: State) -> Outcome | None:
    """Ranking by ascending total, resigned seats last (§0.6, §0.8); None while playing."""
    if state.phase != GAME_OVER:
        return None
    active = [s for s, on in enumerate(state.active) if on]
    resigned = frozenset(s for s, on in enumerate(state.active) if not on)
    ranking = rank_groups(state.scores, active) + ((resigned,) if resigned else ())
    reason = "resignation" if len(active) == 1 else "target_score"
    extra: dict[str, Any] = {}
    if len(ranking[0]) > 1:  # §1.6: a tie for lowest is a shared win plus a rematch
        extra["rematch"] = "automatic" if state.config.tie_policy == "rematch" else "offered"
    return Outcome(winners=ranking[0], ranking=ranking, scores=state.scores, reason=reason, extra=extra)


def _options_json(config: Config) -> OptionsView:
    """The options as `parse_config` reads them, in catalogue order; `setup` is `dump_options`' business."""
    return {
        "target_score": config.target_score,
        "first_dealer": "random" if config.first_dealer is None else config.first_dealer,
        "allow_self_mirror": config.allow_self_mirror,
        "reaction_draw_stacks": config.reaction_draw_stacks,
        "reaction_window_s": config.reaction_window_s,
        "auto_forced_draw": config.auto_forced_draw,
        "strict": config.strict,
        "tie_policy": config.tie_policy,
    }


def _summary_json(summary: RoundSummary) -> RoundSummaryView:
    return {
        "round": summary.round,
        "reason": summary.reason,
        "went_out": summary.went_out,
        "hands": [None if h is None else list(h) for h in summary.hands],
        "round_points": list(summary.round_points),
        "totals": list(summary.totals),
        "next_dealer": summary.next_dealer,
    }


def view(state: State, viewer: Seat | None, timer_deadline: str | None = None) -> EkkoView:
    """What ``viewer`` may see (§1.8); ``None`` is a spectator. Hidden parts are empty or null."""
    n = len(state.active)
    me = viewer if viewer is not None and 0 <= viewer < n else None
    top = state.area[-1]
    m = MIRROR[top]
    obligation = state.obligation if state.phase == TURN else None
    required = None if obligation is None else ("any" if obligation == FREE else needs(top))
    reaction = state.reaction
    return {
        "game": "ekko",
        "round": state.round,
        "phase": state.phase,
        "you": me,
        "dealer": state.dealer,
        "current": state.current,
        "awaiting": sorted(awaiting(state)),
        "obligation": obligation,
        "required": required,
        "top": {"card": top, "by": state.area_by[-1], "how": state.area_how[-1]},
        "play_area": list(state.area),
        "mirror_of_top": m,
        "mirror_of_top_public_dead": m is not None and m in state.area,
        "draw_pile_count": len(state.draw_pile),
        "hand": [] if me is None else list(state.hands[me]),
        "my_removed": [] if me is None else list(state.removed[me]),
        "my_locked": [] if me is None else list(state.locked[me]),
        "seats": [
            {
                "seat": s,
                "hand_count": len(state.hands[s]),
                "removed_count": len(state.removed[s]),
                "total": state.scores[s],
                "active": state.active[s],
            }
            for s in range(n)
        ],
        "reaction": None
        if reaction is None
        else {
            "emptied": reaction.emptied,
            "card": reaction.card,
            "deadline": timer_deadline,
            "you_answered": None if me is None or me == reaction.emptied else me in reaction.answered,
        },
        "target_score": state.config.target_score,
        "last_round": None if state.last_round is None else _summary_json(state.last_round),
        "options": _options_json(state.config),
    }


# --- 5. transitions -------------------------------------------------------------------------
#
# A transition works on a `Draft` of the input state: it reads ``d.state``, writes with
# ``d.set(...)`` and announces with ``d.emit(...)``; each helper below batches what it changes
# into one ``d.set``. The one exception is the hot path, a plain play or draw that simply hands
# the turn on (most records): `_handed_on` makes that state with a single ``d.set``, where the
# helpers (`_place`, `_begin_turn`, each reading ``d.state`` after the other's writes) would copy
# the 20-field State two or three times.


def _draft(state: State) -> Draft[State]:
    """The working copy of a transition: any transition but a timeout skip resets the idle guard."""
    return Draft(replace(state, idle=0) if state.idle else state)


def _next_active(active: tuple[bool, ...], seat: Seat) -> Seat:
    """The next active seat clockwise after ``seat`` (§0.2, §0.6)."""
    n = len(active)
    s = (seat + 1) % n
    while not active[s]:
        s = (s + 1) % n
    return s


def _insert(items: tuple[int, ...], card: int) -> tuple[int, ...]:
    i = bisect_left(items, card)
    return items[:i] + (card,) + items[i:]


def _remove(items: tuple[int, ...], card: int) -> tuple[int, ...]:
    i = items.index(card)
    return items[:i] + items[i + 1 :]


def _place(d: Draft[State], seat: Seat, card: int, how: How) -> None:
    """Take ``card`` from the seat's hand onto the play area; the seat is now `last_placer`."""
    st = d.state
    d.set(
        hands=put(st.hands, seat, _remove(st.hands[seat], card)),
        area=st.area + (card,),
        area_by=st.area_by + (seat,),
        area_how=st.area_how + (how,),
    )


def _drew(seat: Seat, card: int, cause: str, *, auto: bool = False) -> tuple[Effect, Effect]:
    """What a draw announces: the public `drew` and the private `card_drawn`."""
    data: dict[str, Any] = {"seat": seat, "cause": cause}
    if auto:
        data["auto"] = True  # §1.7.5: recorded by the engine, not sent by the player
    return Effect("drew", data), Effect("card_drawn", {"seat": seat, "card": card, "cause": cause}, _ONLY[seat])


def _draw(d: Draft[State], seat: Seat, cause: str, *, auto: bool = False) -> int | None:
    """The seat draws the top card (public `drew`, private `card_drawn`); None on an empty pile."""
    st = d.state
    pile = st.draw_pile
    if not pile:
        return None
    card = pile[0]
    d.set(draw_pile=pile[1:], hands=put(st.hands, seat, _insert(st.hands[seat], card)))
    for effect in _drew(seat, card, cause, auto=auto):
        d.emit(effect.kind, effect.data, effect.to)
    return card


def _handed_on(
    state: State,
    seat: Seat,
    hands: tuple[tuple[int, ...], ...],
    draw_pile: tuple[int, ...],
    area: tuple[int, ...],
    area_by: tuple[Seat, ...],
    area_how: tuple[How, ...],
) -> State | None:
    """The hot path: ``seat``'s turn ends and the next active seat's begins, in one copy.

    None when the next turn starts with a forced draw (§1.7.5): `_begin_turn` handles that.
    """
    nxt = _next_active(state.active, seat)
    obligation = _obligation_of(area_by, nxt)
    if state.config.auto_forced_draw and obligation != FREE and _stuck(hands[nxt], (), area, obligation):
        return None
    locked = _freed(state.locked)
    d = Draft(state)
    d.set(
        phase=TURN,
        current=nxt,
        obligation=obligation,
        hands=hands,
        draw_pile=draw_pile,
        area=area,
        area_by=area_by,
        area_how=area_how,
        locked=locked,
        reaction=None,
        idle=0,
    )
    return d.state


def _begin_turn(d: Draft[State], seat: Seat) -> None:
    """Start ``seat``'s turn (§1.7.7 "end the turn"), then the public forced-draw cascade (§1.7.5)."""
    auto = d.state.config.auto_forced_draw
    while True:
        st = d.state
        obligation = _obligation_of(st.area_by, seat)
        d.set(current=seat, obligation=obligation, locked=_freed(st.locked))
        if not auto or obligation == FREE or not _publicly_stuck(d.state, seat):
            return
        if _draw(d, seat, "turn", auto=True) is None:
            _end_round(d, PILE_EMPTY, None)
            return
        seat = _next_active(st.active, seat)


def _begin_again(d: Draft[State], seat: Seat) -> None:
    """A multiple of 11 was played and the hand is not empty: play again (§1.5.2, §1.7.5)."""
    d.set(current=seat, obligation=AGAIN)
    if d.state.config.auto_forced_draw and _publicly_stuck(d.state, seat):  # the top is an 11: no mirror exists
        if _draw(d, seat, "turn", auto=True) is None:
            _end_round(d, PILE_EMPTY, None)
            return
        _begin_turn(d, _next_active(d.state.active, seat))


def _obligation_of(area_by: tuple[Seat, ...], seat: Seat) -> Obligation:
    """§1.5.3: a turn is free play exactly when the seat itself placed the top card."""
    return FREE if area_by[-1] == seat else NORMAL


def _freed(locked: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    """§1.7.6: locked cards free up when a turn starts."""
    return ((),) * len(locked) if any(locked) else locked


def _stuck(hand: tuple[int, ...], locked: tuple[int, ...], area: tuple[int, ...], obligation: str | None) -> bool:
    """§1.7.5: (b) everyone can see the seat cannot mirror the top card (checked first: it is the
    cheaper test), and (a) the seat holds no legal card."""
    top = area[-1]
    m = MIRROR[top]
    return (m is None or m in area) and not _has_playable(hand, locked, top, obligation)


def _publicly_stuck(state: State, seat: Seat) -> bool:
    """`_stuck` for the seat whose turn it is, with its locked cards."""
    return _stuck(state.hands[seat], state.locked[seat], state.area, state.obligation)


def _end_round(d: Draft[State], reason: RoundEnd, went_out: Seat | None) -> None:
    """Score the round (§1.6), then end the game or deal the next round."""
    st = d.state
    active = st.active
    n = len(active)
    pts = tuple(points(st.hands[s]) if active[s] else 0 for s in range(n))
    totals = tuple(a + b for a, b in zip(st.scores, pts, strict=True))
    placer = st.area_by[-1]
    next_dealer = placer if active[placer] else _next_active(active, placer)  # §1.3.2: last_placer deals
    summary = RoundSummary(
        round=st.round,
        reason=reason,
        went_out=went_out,
        hands=tuple(h if active[s] else None for s, h in enumerate(st.hands)),
        round_points=pts,
        totals=totals,
        next_dealer=next_dealer,
    )
    d.emit("round_ended", _summary_json(summary))
    d.set(scores=totals, last_round=summary, reaction=None)
    if max(totals) >= st.config.target_score:
        _end_game(d)
    else:
        _deal(d, st.round + 1, next_dealer)


def _end_game(d: Draft[State]) -> None:
    d.set(phase=GAME_OVER, current=None, obligation=None, reaction=None)
    result = outcome(d.state)
    assert result is not None
    data = result.to_json()
    d.emit(
        "game_ended",
        {"totals": data["scores"], "ranking": data["ranking"], "winners": data["winners"], "reason": data["reason"]},
    )


def _round_setup(config: Config, round_no: int) -> RoundSetup | None:
    fixture = config.setup
    if fixture is None:
        return None
    index = round_no - (fixture.first.round or 1)  # §0.7: first round, then next_rounds in order
    if index == 0:
        return fixture.first
    if 0 < index <= len(fixture.next_rounds):
        return fixture.next_rounds[index - 1]
    return None


def _deal(d: Draft[State], round_no: int, dealer: Seat) -> None:
    """Deal a round (§1.3.4 step 2, or the `setup` deal) and start its first turn (§1.3.3)."""
    st = d.state
    active = st.active
    n = len(active)
    order = [(dealer + k) % n for k in range(1, n + 1) if active[(dealer + k) % n]]
    fixed = _round_setup(st.config, round_no)
    if fixed is not None:
        if fixed.dealer is not None and active[fixed.dealer]:
            dealer = fixed.dealer
        hands = tuple(h if active[s] else () for s, h in enumerate(fixed.hands))  # §0.6: none for resigned
        start = fixed.start
        listed = {start, *fixed.listed_pile, *(c for h in hands for c in h)}
        pile = fixed.listed_pile + tuple(c for c in DECK if c not in listed)  # §0.7: unlisted at the bottom
    else:
        deck = shuffled(DECK, rng(st.seed, "deal", round_no))
        size = HAND_SIZE[len(order)]
        k = len(order)
        dealt: list[tuple[int, ...]] = [()] * n
        for j, s in enumerate(order):  # one card at a time, clockwise from the dealer's left
            dealt[s] = tuple(sorted(deck[j : size * k : k]))
        hands = tuple(dealt)
        start = deck[size * k]
        pile = tuple(deck[size * k + 1 :])
    empty: tuple[tuple[int, ...], ...] = ((),) * n
    d.set(
        round=round_no,
        dealer=dealer,
        phase=TURN,
        hands=hands,
        draw_pile=pile,
        area=(start,),
        area_by=(dealer,),  # §1.3.3: as if the dealer had just played it
        area_how=("start",),
        removed=empty,
        locked=empty,
        aside=empty,
        reaction=None,
    )
    d.emit(
        "round_started",
        {
            "round": round_no,
            "dealer": dealer,
            "hand_size": HAND_SIZE[max(len(order), 2)],
            "hand_counts": [len(h) for h in hands],
            "start_card": start,
            "draw_pile_count": len(pile),
        },
    )
    for s in order:
        d.emit("hand_dealt", {"seat": s, "hand": list(hands[s])}, _ONLY[s])
    if start in ELEVENS:  # §1.3.3: the dealer plays again before the left neighbour's turn
        _begin_again(d, dealer)
    else:
        _begin_turn(d, _next_active(active, dealer))


def apply(state: State, seat: Seat, move: Move) -> tuple[State, tuple[Effect, ...]]:
    """Validate and apply one seat's move (§1.7.7); raises NotAwaited, RaceLost or IllegalMove."""
    if state.phase == GAME_OVER or not 0 <= seat < len(state.active) or not state.active[seat]:
        raise NotAwaited(f"seat {seat} has nothing to do in this match")
    if type(move) is Mirror:  # an interrupt: any active seat may send it (§0.3)
        return _apply_mirror(state, seat, move)
    if state.phase == TURN:
        awaited = seat == state.current
    else:
        assert state.reaction is not None
        awaited = seat != state.reaction.emptied
    if not awaited:
        raise NotAwaited(f"seat {seat} is not awaited")
    if type(move) is Play:
        return _apply_play(state, seat, move.card)
    if type(move) is Draw:
        return _apply_draw(state, seat)
    if type(move) is Pass:
        return _apply_pass(state, seat)
    raise InvalidMove(f"not an EKKO move: {move!r}")


def _apply_play(state: State, seat: Seat, card: int) -> tuple[State, tuple[Effect, ...]]:
    """§1.7.7 `play`; a multiple of 11 plays again, a last card may open the reaction window."""
    if state.phase != TURN:
        raise IllegalMove("wrong_phase", "a card can be played only during a turn")
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalMove("card_not_in_hand", f"card {card} is not in your hand", card=card)
    if card in state.locked[seat]:
        raise IllegalMove("card_locked", f"card {card} is a locked penalty card until the next turn starts", card=card)
    top = state.area[-1]
    obligation = state.obligation
    if not _allowed(card, top, obligation):
        if state.config.strict:  # §1.7.6 (a): the printed penalty instead of a refusal
            return _penalty(state, seat, "wrong_card", card)
        direction = needs(top)
        raise IllegalMove(f"must_play_{direction}", f"the next card must be {direction} than {top}", top=top)
    played = Effect("played", {"seat": seat, "card": card, "obligation_before": obligation})
    emptied = len(hand) == 1
    if not emptied and card not in ELEVENS:
        area = state.area + (card,)
        hands = put(state.hands, seat, _remove(hand, card))
        quick = _handed_on(
            state, seat, hands, state.draw_pile, area, state.area_by + (seat,), state.area_how + ("play",)
        )
        if quick is not None:
            return quick, (played,)
    d = _draft(state)
    _place(d, seat, card, "play")
    d.emit(played.kind, played.data)
    if card in ELEVENS:  # §1.5.2
        if not emptied:
            _begin_again(d, seat)
        elif _draw(d, seat, "eleven_last_card") is None:  # a round never ends on an 11 (French notice)
            _end_round(d, PILE_EMPTY, None)
        else:
            _begin_turn(d, _next_active(state.active, seat))
    elif not emptied:
        _begin_turn(d, _next_active(state.active, seat))
    elif MIRROR[card] in state.area:  # §1.7.3: the mirror is publicly gone, no window
        _end_round(d, WENT_OUT, seat)
    else:
        d.set(phase=REACTION, current=None, obligation=None, reaction=Reaction(emptied=seat, card=card))
        d.emit("reaction_opened", {"emptied": seat, "card": card, "deadline": None})
        if not any(on and s != seat for s, on in enumerate(state.active)):  # nobody can answer (§0.6)
            _close_without_mirror(d)
    return d.done()


def _apply_draw(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """§1.7.7 `draw`: only without a legal card; an empty pile ends the round (R2)."""
    if state.phase != TURN:
        raise IllegalMove("wrong_phase", "drawing is possible only during a turn")
    if state.obligation == FREE:
        raise IllegalMove("free_play_must_play", "under free play every card is legal: play one")
    if _has_playable(state.hands[seat], state.locked[seat], state.area[-1], state.obligation):
        raise IllegalMove("has_playable_card", "you hold a legal card and must play it")
    pile = state.draw_pile
    if pile:
        card = pile[0]
        hands = put(state.hands, seat, _insert(state.hands[seat], card))
        quick = _handed_on(state, seat, hands, pile[1:], state.area, state.area_by, state.area_how)
        if quick is not None:
            return quick, _drew(seat, card, "turn")
    d = _draft(state)
    if _draw(d, seat, "turn") is None:
        _end_round(d, PILE_EMPTY, None)
    else:
        _begin_turn(d, _next_active(state.active, seat))
    return d.done()


def _apply_pass(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """§1.7.7 `pass`: final; the last awaited pass ends the round (R1)."""
    if state.phase != REACTION:
        raise IllegalMove("wrong_phase", "pass answers a reaction window, and none is open")
    reaction = state.reaction
    assert reaction is not None
    if seat in reaction.answered:
        raise IllegalMove("already_answered", "you have already answered this window")
    d = _draft(state)
    _record_pass(d, reaction, seat, cause="player")
    return d.done()


def _record_pass(d: Draft[State], reaction: Reaction, seat: Seat, *, cause: str) -> None:
    answered = tuple(sorted((*reaction.answered, seat)))
    d.set(reaction=Reaction(reaction.emptied, reaction.card, answered))
    d.emit("reaction_answer", {})  # §1.7.8: no seat, no content
    d.emit("you_passed", {"seat": seat, "cause": cause}, _ONLY[seat])
    if _all_answered(d.state):
        _close_without_mirror(d)


def _all_answered(state: State) -> bool:
    reaction = state.reaction
    assert reaction is not None
    return all(not on or s == reaction.emptied or s in reaction.answered for s, on in enumerate(state.active))


def _close_without_mirror(d: Draft[State], *, expired: bool = False) -> None:
    """The window closes with no mirror: the emptied seat went out (R1)."""
    reaction = d.state.reaction
    assert reaction is not None
    data: dict[str, Any] = {"result": "no_mirror"}
    if expired:
        data["expired"] = True
    d.emit("reaction_closed", data)
    d.set(phase=TURN)
    _end_round(d, WENT_OUT, reaction.emptied)


def _apply_mirror(state: State, seat: Seat, move: Mirror) -> tuple[State, tuple[Effect, ...]]:
    """§1.7.7 `mirror`, checked in the page's order, then its five normative steps (§1.5.4, §1.5.5)."""
    cfg = state.config
    top = state.area[-1]
    if move.against != top:  # §0.3: the target is gone; never a penalty
        raise RaceLost(f"{move.against} is no longer the top card", reason="race_lost", params={"card": move.against})
    reaction = state.reaction
    if reaction is not None and seat in reaction.answered:
        raise IllegalMove("already_answered", "you have already answered this window")
    card = move.card
    hand = state.hands[seat]
    locked = state.locked[seat]
    m = MIRROR[top]
    if cfg.strict and card != m and card in hand and card not in locked:
        return _penalty(state, seat, "wrong_reflex", card)  # §1.7.6 (b)
    if m is None:
        raise IllegalMove("no_mirror_exists", f"{top} is a multiple of 11 and has no mirror", top=top)
    if not cfg.allow_self_mirror and state.area_by[-1] == seat:
        raise IllegalMove("self_mirror_disabled", "this match does not allow mirroring your own card")
    if card not in hand:
        raise IllegalMove("card_not_in_hand", f"card {card} is not in your hand", card=card)
    if card in locked:
        raise IllegalMove("card_locked", f"card {card} is a locked penalty card until the next turn starts", card=card)
    if card != m:
        raise IllegalMove("not_the_mirror", f"the mirror of {top} is {m}, not {card}", top=top, mirror=m, card=card)
    discard = move.discard
    if move.effect == "discard":
        if discard is None:
            raise IllegalMove("discard_missing", "the discard effect needs a `discard` card")
        if discard == card or discard not in hand or discard in locked:
            raise IllegalMove(
                "discard_not_in_hand", f"card {discard} is not another unlocked card of your hand", card=discard
            )
    elif discard is not None:
        raise IllegalMove("discard_not_allowed", "`discard` goes only with the discard effect")

    d = _draft(state)
    _place(d, seat, card, "mirror")  # step 1
    d.emit("mirrored", {"seat": seat, "card": card, "against": top, "effect": move.effect})
    if reaction is not None:
        d.set(phase=TURN, reaction=None)
        d.emit("reaction_closed", {"result": "mirrored", "seat": seat})
    emptied = reaction.emptied if reaction is not None else None
    emptied_drew = False
    active = state.active
    if discard is not None:  # step 2: face down, out of the round
        st = d.state
        d.set(
            hands=put(st.hands, seat, _remove(st.hands[seat], discard)),
            removed=put(st.removed, seat, _insert(st.removed[seat], discard)),
        )
        d.emit("card_discarded", {"seat": seat, "card": discard}, _ONLY[seat])
    else:
        s = _next_active(active, seat)
        while s != seat:  # clockwise from the mirror player's left; R2 stops it (EK-5)
            if _draw(d, s, "others_draw") is None:
                _end_round(d, PILE_EMPTY, None)
                return d.done()
            emptied_drew = emptied_drew or s == emptied
            s = _next_active(active, s)
    # step 3: the emptied seat takes one card, unless step 2 already gave it one (EK-4)
    owes = cfg.reaction_draw_stacks or not emptied_drew
    if emptied is not None and owes and _draw(d, emptied, "reaction") is None:
        _end_round(d, PILE_EMPTY, None)
        return d.done()
    if not d.state.hands[seat]:  # step 4: the mirror player went out (R1)
        _end_round(d, WENT_OUT, seat)
    else:  # step 5: play continues left of the mirror player
        _begin_turn(d, _next_active(active, seat))
    return d.done()


def _penalty(state: State, seat: Seat, kind: str, card: int) -> tuple[State, tuple[Effect, ...]]:
    """Strict mode (§1.7.6): the card stays in hand, one locked card is drawn, nothing else moves."""
    d = Draft(state)  # not `_draft`: a penalty leaves the idle guard as it was
    d.emit("penalty", {"seat": seat, "kind": kind, "card": card})
    drawn = _draw(d, seat, "penalty")
    if drawn is None:
        _end_round(d, PILE_EMPTY, None)
    else:
        d.set(locked=put(d.state.locked, seat, _insert(d.state.locked[seat], drawn)))
    return d.done()


def timeout(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """The default move of a seat whose clock ran out (§1.7.4): a sanction draw, a skip, or a pass."""
    if state.phase == TURN and seat == state.current:
        d = _draft(state)
        if _draw(d, seat, "timeout") is not None:
            _begin_turn(d, _next_active(state.active, seat))
        elif not _has_playable(state.hands[seat], state.locked[seat], state.area[-1], state.obligation):
            _end_round(d, PILE_EMPTY, None)  # really stuck: R2 as usual
        else:
            d.emit("skipped", {"seat": seat, "cause": "timeout_empty_pile"})
            d.set(idle=state.idle + 1)
            if d.state.idle >= sum(state.active):  # a whole lap of absent seats: our termination guard
                _end_round(d, PILE_EMPTY, None)
            else:
                _begin_turn(d, _next_active(state.active, seat))
        return d.done()
    if state.phase == REACTION and seat in awaiting(state):
        reaction = state.reaction
        assert reaction is not None
        if seat in reaction.answered:
            return state, ()  # its answer stands; only the window deadline is left (§0.4)
        d = _draft(state)
        _record_pass(d, reaction, seat, cause="timeout")
        return d.done()
    raise NotAwaited(f"seat {seat} is not awaited")


def expire(state: State) -> tuple[State, tuple[Effect, ...]]:
    """The reaction window's deadline passed: every unanswered seat passes, the round ends (R1)."""
    reaction = state.reaction
    if state.phase != REACTION or reaction is None:
        raise IllegalMove("wrong_phase", "no reaction window is open")
    d = _draft(state)
    waiting = awaiting(state)
    for s in sorted(waiting - set(reaction.answered)):
        d.emit("you_passed", {"seat": s, "cause": "timeout"}, _ONLY[s])
    d.set(reaction=Reaction(reaction.emptied, reaction.card, tuple(sorted(waiting))))
    _close_without_mirror(d, expired=True)
    return d.done()


def resign(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """§0.6: the seat leaves the rotation, its hand set aside; one seat left wins at once."""
    if state.phase == GAME_OVER or not 0 <= seat < len(state.active) or not state.active[seat]:
        raise NotAwaited(f"seat {seat} cannot resign now")
    d = _draft(state)
    active = put(state.active, seat, False)
    d.set(
        active=active,
        aside=put(state.aside, seat, state.hands[seat]),
        hands=put(state.hands, seat, ()),
        locked=put(state.locked, seat, ()),
    )
    d.emit("resigned", {"seat": seat})
    if sum(active) == 1:
        _end_game(d)
    elif state.phase == TURN:
        if seat == state.current:  # the next active seat takes over, as a fresh turn
            d.emit("skipped", {"seat": seat, "cause": "resigned"})
            _begin_turn(d, _next_active(active, seat))
    else:
        reaction = state.reaction
        assert reaction is not None
        if seat == reaction.emptied:  # the window closes at once, R1
            _close_without_mirror(d)
        else:
            d.set(reaction=Reaction(reaction.emptied, reaction.card, tuple(s for s in reaction.answered if s != seat)))
            if _all_answered(d.state):
                _close_without_mirror(d)
    return d.done()


# --- 6. codecs ------------------------------------------------------------------------------


codec: MoveCodec[Move] = MoveCodec(Play, Draw, Mirror, Pass)  # the move JSON of §1.7.7


def _round_setup_json(r: RoundSetup) -> JSON:
    out: JSON = {"hands": [list(h) for h in r.hands], "start": r.start, "draw_pile": list(r.listed_pile)}
    if r.dealer is not None:
        out["dealer"] = r.dealer
    if r.round is not None:
        out["round"] = r.round
    return out


def dump_options(config: Config) -> JSON:
    """The options that `parse_config` turns back into ``config``."""
    out: JSON = {**_options_json(config)}
    if config.setup is not None:
        fixture = _round_setup_json(config.setup.first)
        if config.setup.scores is not None:
            fixture["scores"] = list(config.setup.scores)
        if config.setup.next_rounds:
            fixture["next_rounds"] = [_round_setup_json(r) for r in config.setup.next_rounds]
        out["setup"] = fixture
    return out


def dump_state(state: State) -> JSON:
    """The full state as JSON (§1.7.2 plus the options, seed and bookkeeping); for export and snapshots."""
    reaction = state.reaction
    return {
        "game": "ekko",
        "players": state.config.players,
        "options": dump_options(state.config),
        "seed": state.seed,
        "round": state.round,
        "dealer": state.dealer,
        "phase": state.phase,
        "current": state.current,
        "obligation": state.obligation,
        "hands": [list(h) for h in state.hands],
        "draw_pile": list(state.draw_pile),
        "play_area": [
            {"card": c, "by": b, "how": h} for c, b, h in zip(state.area, state.area_by, state.area_how, strict=True)
        ],
        "removed": [list(r) for r in state.removed],
        "locked": [list(lk) for lk in state.locked],
        "aside": [list(a) for a in state.aside],
        "last_placer": state.last_placer if state.area else None,
        "reaction": None
        if reaction is None
        else {"emptied": reaction.emptied, "card": reaction.card, "answered": list(reaction.answered)},
        "scores": list(state.scores),
        "active": list(state.active),
        "last_round": None if state.last_round is None else _summary_json(state.last_round),
        "idle_skips": state.idle,
    }


def _summary_from_json(obj: JSON) -> RoundSummary:
    return RoundSummary(
        round=obj["round"],
        reason=obj["reason"],
        went_out=obj["went_out"],
        hands=tuple(None if h is None else tuple(h) for h in obj["hands"]),
        round_points=tuple(obj["round_points"]),
        totals=tuple(obj["totals"]),
        next_dealer=obj["next_dealer"],
    )


def parse_state(obj: JSON) -> State:
    """The inverse of `dump_state`."""
    reaction = obj["reaction"]
    area = obj["play_area"]
    return State(
        config=parse_config(obj["options"], obj["players"]),
        seed=obj["seed"],
        round=obj["round"],
        dealer=obj["dealer"],
        phase=obj["phase"],
        current=obj["current"],
        obligation=obj["obligation"],
        hands=tuple(tuple(h) for h in obj["hands"]),
        draw_pile=tuple(obj["draw_pile"]),
        area=tuple(p["card"] for p in area),
        area_by=tuple(p["by"] for p in area),
        area_how=tuple(p["how"] for p in area),
        removed=tuple(tuple(r) for r in obj["removed"]),
        locked=tuple(tuple(lk) for lk in obj["locked"]),
        aside=tuple(tuple(a) for a in obj["aside"]),
        reaction=None
        if reaction is None
        else Reaction(reaction["emptied"], reaction["card"], tuple(reaction["answered"])),
        scores=tuple(obj["scores"]),
        active=tuple(obj["active"]),
        last_round=None if obj["last_round"] is None else _summary_from_json(obj["last_round"]),
        idle=obj.get("idle_skips", 0),
    )


# --- 7. invariants, bots --------------------------------------------------------------------


def invariant_violations(state: State) -> list[str]:
    """Conservation of the 98 cards (§1.7.2) and the structural rules of the module docstring."""
    out: list[str] = []
    n = state.config.players
    everything = [
        *state.draw_pile,
        *state.area,
        *(c for h in state.hands for c in h),
        *(c for r in state.removed for c in r),
        *(c for a in state.aside for c in a),
    ]
    if sorted(everything) != list(DECK):
        out.append("the 98 cards are not each in exactly one place")
    if not (len(state.hands) == len(state.removed) == len(state.locked) == len(state.aside) == len(state.active) == n):
        out.append("per-seat data does not match the player count")
    if not state.area or not len(state.area) == len(state.area_by) == len(state.area_how):
        out.append("the play area is empty or inconsistent")
    if any(h not in _HOW for h in state.area_how):
        out.append("unknown `how` in the play area")
    for s in range(n):
        hand = state.hands[s]
        if list(hand) != sorted(hand) or list(state.removed[s]) != sorted(state.removed[s]):
            out.append(f"seat {s}: cards are not kept sorted")
        if any(c not in hand for c in state.locked[s]):
            out.append(f"seat {s}: a locked card is not in the hand")
        if not state.active[s] and hand:
            out.append(f"seat {s}: resigned but still holds cards")
        if state.active[s] and state.aside[s]:
            out.append(f"seat {s}: active with cards set aside")
    if sum(state.active) < 1:
        out.append("no active seat")
    if state.phase == TURN:
        if state.current is None or not state.active[state.current] or state.obligation is None:
            out.append("turn without an active current player")
        if state.reaction is not None:
            out.append("a reaction window open during a turn")
    elif state.phase == REACTION:
        r = state.reaction
        if r is None or state.hands[r.emptied] or state.current is not None:
            out.append("reaction window without an empty-handed emptied seat")
        elif not awaiting(state):
            out.append("reaction window with nobody awaited")
    elif state.phase != GAME_OVER:
        out.append(f"unknown phase {state.phase!r}")
    return out


def _hows(cards: int, top: How) -> tuple[How, ...]:
    """How the play area's cards came there, as far as the rules care: only the top's matters."""
    plays: list[How] = ["play"] * (cards - 1)
    return (*plays, top)


def determinize(v: JSON, seat: Seat, gen: random.Random) -> State:
    """A full state consistent with ``seat``'s view, every hidden card sampled from ``gen``."""
    seats = v["seats"]
    n = len(seats)
    opts = dict(v["options"])
    config = parse_config(opts, n)
    hand = tuple(v["hand"])
    my_removed = tuple(v["my_removed"])
    area = tuple(v["play_area"])
    known = set(hand) | set(my_removed) | set(area)
    unknown = shuffled([c for c in DECK if c not in known], gen)
    pos = 0

    def take(k: int) -> tuple[int, ...]:
        nonlocal pos
        out = tuple(sorted(unknown[pos : pos + k]))
        pos += k
        return out

    hands: list[tuple[int, ...]] = []
    removed: list[tuple[int, ...]] = []
    for s, info in enumerate(seats):
        hands.append(hand if s == seat else take(info["hand_count"]))
        removed.append(my_removed if s == seat else take(info["removed_count"]))
    pile = tuple(unknown[pos : pos + v["draw_pile_count"]])
    pos += len(pile)
    aside: list[tuple[int, ...]] = [()] * n
    rest = tuple(sorted(unknown[pos:]))
    if rest:  # cards set aside by resignations: who holds which is never shown
        aside[next(s for s, info in enumerate(seats) if not info["active"])] = rest
    top = v["top"]
    r = v["reaction"]
    reaction = None
    if r is not None:
        reaction = Reaction(r["emptied"], r["card"], (seat,) if r["you_answered"] else ())
    locked: list[tuple[int, ...]] = [()] * n
    locked[seat] = tuple(v["my_locked"])
    return State(
        config=config,
        seed=int(gen.random() * 2**53),
        round=v["round"],
        dealer=v["dealer"],
        phase=v["phase"],
        current=v["current"],
        obligation=v["obligation"],
        hands=tuple(hands),
        draw_pile=pile,
        area=area,
        area_by=(top["by"],) * len(area),  # only the top's placer matters to the rules
        area_how=_hows(len(area), top["how"]),
        removed=tuple(removed),
        locked=tuple(locked),
        aside=tuple(aside),
        reaction=reaction,
        scores=tuple(info["total"] for info in seats),
        active=tuple(info["active"] for info in seats),
        last_round=None if v["last_round"] is None else _summary_from_json(v["last_round"]),
    )


def heuristic(state: State, seat: Seat) -> float:
    """Higher is better for ``seat``: the others' average (total + hand points) minus its own."""
    mine = state.scores[seat] + points(state.hands[seat])
    others = [state.scores[s] + points(state.hands[s]) for s, on in enumerate(state.active) if on and s != seat]
    return (sum(others) / len(others) if others else 0.0) - mine


# --- 8. the record --------------------------------------------------------------------------

RULES: Rules[State, Move, Config] = Rules(
    name="ekko",
    title="EKKO",
    version=1,
    seats=range(2, 9),
    max_moves=MOVE_LIMIT,
    options=OPTIONS,
    moves=codec.specs,
    parse_config=parse_config,
    setup=setup,
    awaiting=awaiting,
    legal_moves=legal_moves,
    view=view,
    outcome=outcome,
    apply=apply,
    timeout=timeout,
    resign=resign,
    parse_move=codec.parse,
    dump_move=codec.dump,
    parse_state=parse_state,
    dump_state=dump_state,
    invariant_violations=invariant_violations,
    determinize=determinize,
    heuristic=heuristic,
    timer=timer,
    expire=expire,
    clocked=clocked,
    author_hidden=author_hidden,
    author_hidden_types=frozenset({"pass"}),
)
