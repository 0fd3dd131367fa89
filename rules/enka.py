"""Enka (Oblak igre d.o.o.), an Uno-like shedding game for 2–8 players: `docs/rules/enka.md`.

Rules summary (section numbers are the rules page's):

* Deck (§2.2): 112 cards, per colour (red, yellow, green, blue) one 0, two each of 1–9, two STOP,
  two BACK, two TAKE 2 and one TAKE 5; plus 4 ``wild`` (CHANGE COLOR) and 4 ``wild-take4``.
  ``take5_mode: "wild"`` swaps the coloured TAKE 5s for 4 colourless ``take5``. Card ids are the
  page's (``red-7``); copies are interchangeable, hands are sorted lists with repeats.
* Round (§2.3): 6 cards each (``hand_size``), dealt clockwise from the dealer's left; the top of
  the pile is turned up (a special card is returned at a random position and the next one turned,
  under ``start_card: "redraw"``; under ``"apply"`` it acts as if the dealer had played it). The
  dealer's left neighbour starts, clockwise. The deal passes left each round.
* Turn (§2.4): play one matching card (same colour, same number, same symbol unless
  ``symbol_match`` is off; wilds always, naming a colour), or draw one card (allowed even with a
  playable card) and then play that card only, or keep it. With ``if_playable: "ask"`` the engine
  always enters ``drawn``, whether the card fits or not, so nothing leaks (§2.7.3).
* Specials (§2.5, resolved at once in the record of the card): STOP skips the next seat; BACK
  reverses (with two active seats it acts as STOP); TAKE 2 / TAKE 4 make the next seat draw 2 / 4
  and skip it; TAKE 5 makes every other seat draw 5 in play order and skips nobody; no stacking.
* Jump-in (§2.5.7): a seat that is not awaited may lay a card identical to the top card, naming
  the top card's ``seq`` in ``against_seq``; play continues from the jumper. Not the placer of the
  top card, not its victims, not the current seat, never on a wild. A stale anchor is
  `RaceLost`. ``seq`` is a match-wide count of cards placed on the discard pile, kept in the state
  as ``place_seq`` (the start card of round 1 is 1); the view shows it as ``top.seq``.
* ONE (§2.5.8): a card-laying move that leaves one card must say ``one: true``, or the engine
  deals ``one_penalty`` card(s) at once.
* Pile (§2.6): an empty draw pile is rebuilt from the discard pile (bar the top card) once per
  round (``reshuffle``); a required draw that still cannot be made ends the round as
  ``exhausted`` (everyone scores their hand), except that the draws of a going-out card simply
  stop. A ``draw`` is refused (``must_play_pile_exhausted``) when the pile cannot supply a card and
  the seat could play.
* Scoring (§2.6): the seat that goes out scores 0, the others their hand (numbers at face value,
  STOP/BACK/TAKE 2/wild 30, TAKE 4 50, TAKE 5 100). The game ends after the round in which a total
  reaches ``target_score`` (or after ``max_rounds``); the lowest total wins, ties share.
* Timeouts (§2.7.4): ``turn`` draws and keeps (or, on an exhausted pile, skips a seat that could
  play and ends the round otherwise); ``drawn`` keeps. Resignation (§0.6) sets the hand aside.

Events (§2.7.8) are public effects; the extra data for the seat concerned travels in a separate
effect addressed to that seat only: ``hand_dealt`` (its hand, beside ``round_started``) and
``cards_received`` (the cards, beside ``drew``). ``resigned`` marks a resignation (§0.6). Round 1
is dealt by `setup`, whose effects (``round_started`` and each seat's ``hand_dealt``) become the
``started`` record's; the view carries everything ``round_started`` says (``returned`` included).

Engine guards that the page does not spell out (docs/rules/enka.md §2.9):

* ``round_move_cap`` ends a round as ``move_cap`` in every ``reshuffle`` mode (it can only trigger
  through timeout skips outside ``"unlimited"``), and a match ends as ``max_rounds`` after
  `ROUND_LIMIT` rounds when ``max_rounds`` is null, so `RULES.max_moves` is a true bound.
* A start card that must be returned stays when no acceptable card is left in the pile (it then
  has no effect; a colourless one leaves the colour open).

Invariants (`invariant_violations`): hands ∪ draw pile ∪ discard pile ∪ set-aside hands of
resigned seats = the deck, as a multiset, after every record; ``awaiting`` is the current seat in
``turn`` and ``drawn`` and empty only at ``game_over``; ``drawn`` is set exactly in ``drawn`` and
names a card in the current hand; resigned seats hold no cards and are never current.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
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
    put,
    rank_groups,
)
from rules.kit import Draft, MoveCodec, arg, parse_options
from rules.rng import randbelow, rng, shuffled

# --- 1. constants ---------------------------------------------------------------------------

COLORS: tuple[str, ...] = ("red", "yellow", "green", "blue")
_COLOR_SET = frozenset(COLORS)
_DIGITS = frozenset(str(n) for n in range(10))
WILDS = frozenset({"wild", "wild-take4", "take5"})  # `take5` exists only under take5_mode "wild"
ROUND_LIMIT = 1000  # engine guard: rounds per match when `max_rounds` is null
MAX_ROUND_MOVE_CAP = 10_000
MAX_TARGET_SCORE = 10_000  # hardening cap (docs/rules/enka.md §2.7.1)
_DIRECTION_NAME = {1: "clockwise", -1: "counterclockwise"}


def _build_deck(take5_mode: str) -> tuple[str, ...]:
    """The deck in canonical order (§2.2); under "wild" the 4 `take5` come last."""
    cards: list[str] = []
    for color in COLORS:
        cards.append(f"{color}-0")
        for n in range(1, 10):
            cards += [f"{color}-{n}"] * 2
        for rank in ("stop", "back", "take2"):
            cards += [f"{color}-{rank}"] * 2
        if take5_mode == "coloured":
            cards.append(f"{color}-take5")
    cards += ["wild"] * 4 + ["wild-take4"] * 4
    if take5_mode == "wild":
        cards += ["take5"] * 4
    return tuple(cards)


DECKS: dict[str, tuple[str, ...]] = {mode: _build_deck(mode) for mode in ("coloured", "wild")}
DECK_SIZE = len(DECKS["coloured"])  # 112 in either mode
_DECK_COUNTS: dict[str, Counter[str]] = {mode: Counter(deck) for mode, deck in DECKS.items()}
_SORTED_DECKS: dict[str, list[str]] = {mode: sorted(deck) for mode, deck in DECKS.items()}
CARD_IDS: frozenset[str] = frozenset(DECKS["coloured"]) | frozenset(DECKS["wild"])
_CARD_CHOICES = tuple(sorted(CARD_IDS))
COLOR_OF: dict[str, str | None] = {c: (None if c in WILDS else c.split("-", 1)[0]) for c in CARD_IDS}
RANK_OF: dict[str, str] = {c: (c if c in WILDS else c.split("-", 1)[1]) for c in CARD_IDS}
# what a card does when placed (§2.7.7 place step 2)
EFFECT_OF: dict[str, str | None] = {
    c: {"stop": "stop", "back": "back", "take2": "take2", "take5": "take5", "wild-take4": "take4"}.get(RANK_OF[c])
    for c in CARD_IDS
}
_TAKE = {"take2": 2, "take4": 4, "take5": 5}


def card_value(card: str) -> int:
    """Scoring value (§2.6).

    >>> [card_value(c) for c in ("red-7", "blue-stop", "wild-take4", "green-take5", "wild")]
    [7, 30, 50, 100, 30]
    """
    rank = RANK_OF[card]
    if rank in _DIGITS:
        return int(rank)
    return {"wild-take4": 50, "take5": 100}.get(rank, 30)


def hand_points(hand: Iterable[str]) -> int:
    """The penalty points of a hand (§2.6)."""
    return sum(card_value(c) for c in hand)


def matches(card: str, top: str, current_color: str | None, symbol_match: bool = True) -> bool:
    """Whether ``card`` may be played on ``top`` (§2.4).

    >>> matches("red-4", "blue-4", "blue"), matches("green-7", "blue-4", "blue")
    (True, False)
    >>> matches("yellow-8", "wild", "green"), matches("blue-stop", "red-stop", "red", symbol_match=False)
    (False, False)
    """
    if card in WILDS or current_color is None:  # None only after an "apply" wild start card
        return True
    if COLOR_OF[card] == current_color:
        return True
    if top in WILDS:  # a wild on top matches by colour only
        return False
    rank = RANK_OF[card]
    return rank == RANK_OF[top] and (symbol_match or rank in _DIGITS)


# --- 2. values ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SetupRound:
    """One fixed deal of the `setup` option (§0.7)."""

    hands: tuple[tuple[str, ...], ...]
    start: str | None = None
    draw_pile: tuple[str, ...] = ()
    dealer: int | None = None
    round: int | None = None


@dataclass(frozen=True, slots=True)
class Config:
    """The parsed match options: one field per entry of `OPTIONS` (§2.7.1), whose defaults they
    take, with the `setup` fixture (§0.7) split into its first round, later rounds and scores."""

    players: int
    target_score: int
    max_rounds: int | None
    first_dealer: int | None  # None: random (§2.3)
    hand_size: int
    start_card: Literal["redraw", "apply"]
    take5_mode: Literal["coloured", "wild"]
    symbol_match: bool
    jump_in: bool
    reshuffle: Literal["once", "unlimited", "none"]
    round_move_cap: int
    one_penalty: int
    strict: bool
    tie_policy: Literal["shared", "rematch"]
    max_players_override: bool
    setup: SetupRound | None
    next_rounds: tuple[SetupRound, ...]
    setup_scores: tuple[int, ...] | None


RoundEnd = Literal["went_out", "exhausted", "move_cap"]


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """The last `round_ended` summary (§2.7.8), shown in every view as `last_round`."""

    round: int
    reason: RoundEnd
    winner: int | None
    hands: tuple[tuple[str, ...] | None, ...]  # None for a resigned seat
    round_points: tuple[int, ...]
    totals: tuple[int, ...]
    next_dealer: int | None

    def to_json(self) -> RoundSummaryView:
        """The summary as the `round_ended` event and the view show it."""
        return {
            "round": self.round,
            "reason": self.reason,
            "winner": self.winner,
            "hands": [None if h is None else list(h) for h in self.hands],
            "round_points": list(self.round_points),
            "totals": list(self.totals),
            "next_dealer": self.next_dealer,
        }

    @staticmethod
    def from_json(data: JSON) -> RoundSummary:
        """The inverse of `to_json`."""
        return RoundSummary(
            round=data["round"],
            reason=data["reason"],
            winner=data["winner"],
            hands=tuple(None if h is None else tuple(h) for h in data["hands"]),
            round_points=tuple(data["round_points"]),
            totals=tuple(data["totals"]),
            next_dealer=data["next_dealer"],
        )


@dataclass(frozen=True, slots=True)
class State:
    """A whole match. The discard pile is ids, bottom first; its top is the last one, whose
    placer is ``top_by`` and whose ``seq`` is ``place_seq`` (the jump-in anchor, §2.7.2)."""

    config: Config
    seed: int
    round: int
    rounds_dealt: int  # rounds dealt in this match (RNG paths, setup.next_rounds)
    dealer: Seat
    # turn, drawn, game_over; round_over only inside a transition, between scoring and the deal
    phase: str
    current: Seat | None
    direction: int  # +1 clockwise, -1 counter-clockwise
    current_color: str | None  # None only after an "apply" wild start card
    hands: tuple[tuple[str, ...], ...]  # sorted
    draw_pile: tuple[str, ...]  # index 0 is the top
    discard: tuple[str, ...]  # last is the top
    top_by: Seat | None
    place_seq: int
    victims_of_top: tuple[Seat, ...]
    drawn: str | None  # the current seat's pending drawn card (already in its hand)
    one_called: tuple[bool, ...]
    reshuffles_used: int
    moves_this_round: int
    scores: tuple[int, ...]
    active: tuple[bool, ...]
    aside: tuple[str, ...]  # hands of resigned seats, until the next deal collects them
    returned: tuple[str, ...]  # special start cards turned up and put back this round (public)
    last_round: RoundSummary | None
    end_reason: str | None


# moves (§2.7.7): the JSON members are the fields (`kit.MoveCodec`)

_COLOR_DOC = "Colour named for a wild card."
_ONE_DOC = "ONE call: true when the move leaves one card (§2.5.8)."


@dataclass(frozen=True, slots=True)
class Play:
    """Lay a matching card from the hand on one's turn."""

    TYPE: ClassVar[str] = "play"
    DESCRIPTION: ClassVar[str] = "Lay a matching card on one's turn (§2.7.7)."
    card: str = arg("Card id (§2.2).", choices=_CARD_CHOICES)
    color: str | None = arg(_COLOR_DOC, default=None, choices=COLORS)
    one: bool | None = arg(_ONE_DOC, default=None)


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card; ``if_playable`` says what then happens (§2.7.3)."""

    TYPE: ClassVar[str] = "draw"
    DESCRIPTION: ClassVar[str] = "Draw one card; if_playable ask (default), keep, or play (needs color) (§2.7.3)."
    if_playable: str = arg("What to do if the card fits.", default="ask", choices=("ask", "keep", "play"))
    color: str | None = arg(_COLOR_DOC + " Only with if_playable play.", default=None, choices=COLORS)
    one: bool | None = arg(_ONE_DOC + " Only with if_playable play.", default=None)

    def __post_init__(self) -> None:
        if self.if_playable != "play" and (self.color is not None or self.one is not None):
            raise InvalidMove("`draw`: `color` and `one` belong only to a draw with if_playable play")


@dataclass(frozen=True, slots=True)
class PlayDrawn:
    """Lay the card just drawn."""

    TYPE: ClassVar[str] = "play_drawn"
    DESCRIPTION: ClassVar[str] = "Lay the card just drawn (phase drawn)."
    color: str | None = arg(_COLOR_DOC, default=None, choices=COLORS)
    one: bool | None = arg(_ONE_DOC, default=None)


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep the card just drawn; the turn passes."""

    TYPE: ClassVar[str] = "keep"
    DESCRIPTION: ClassVar[str] = "Keep the card just drawn; the turn passes."


@dataclass(frozen=True, slots=True)
class JumpIn:
    """Out of turn: lay a card identical to the top card whose seq is ``against_seq``."""

    TYPE: ClassVar[str] = "jump_in"
    DESCRIPTION: ClassVar[str] = "Out of turn: lay a card identical to the top card (§2.5.7)."
    card: str = arg("The top card's id.", choices=_CARD_CHOICES)
    against_seq: int = arg(
        "The anchor: view.top.seq, the match-wide number of the top card among all cards "
        "placed on the discard pile (start cards included). Stale → 409 race_lost.",
        minimum=0,
    )
    one: bool | None = arg(_ONE_DOC, default=None)


Move = Play | Draw | PlayDrawn | Keep | JumpIn


class TopView(TypedDict):
    card: str
    by: int | None
    seq: int  # the jump-in anchor: send it back as `against_seq` (§2.7.2)
    color: str | None


class SeatView(TypedDict):
    seat: int
    hand_count: int
    one: bool
    total: int
    active: bool


class RoundSummaryView(TypedDict):
    """The `round_ended` summary (§2.7.8): every active hand (null for a resigned seat) and the points."""

    round: int
    reason: RoundEnd
    winner: int | None
    hands: list[list[str] | None]
    round_points: list[int]
    totals: list[int]
    next_dealer: int | None


class OptionsView(TypedDict):
    """The match options as the engine reads them, without `setup` (§2.7.1)."""

    target_score: int
    max_rounds: int | None
    first_dealer: int | Literal["random"]
    hand_size: int
    start_card: Literal["redraw", "apply"]
    take5_mode: Literal["coloured", "wild"]
    symbol_match: bool
    jump_in: bool
    reshuffle: Literal["once", "unlimited", "none"]
    round_move_cap: int
    one_penalty: int
    strict: bool
    tie_policy: Literal["shared", "rematch"]
    max_players_override: bool


class EnkaView(TypedDict):
    game: str
    round: int
    phase: str
    you: int | None
    dealer: int
    current: int | None
    awaiting: list[int]
    direction: str
    current_color: str | None
    top: TopView
    discard: list[str]
    returned: list[str]
    draw_pile_count: int
    reshuffles_left: int | None
    hand: list[str]
    drawn: str | None
    seats: list[SeatView]
    target_score: int
    last_round: RoundSummaryView | None
    victims_of_top: list[int]
    moves_this_round: int
    end_reason: str | None
    options: OptionsView


# --- 3. setup -------------------------------------------------------------------------------

OPTIONS: tuple[Option, ...] = (
    Option(
        "target_score",
        "integer",
        500,
        "End of game once a total reaches this (§2.6).",
        minimum=1,
        maximum=MAX_TARGET_SCORE,
    ),
    Option("max_rounds", "integer", None, "End the game after this many rounds (null: none).", 1, ROUND_LIMIT),
    Option("first_dealer", "seat_or_random", "random", "The first dealer: a seat index or random (§2.3)."),
    Option("hand_size", "integer", 6, "Cards dealt to each seat (§2.3).", minimum=3, maximum=10),
    Option(
        "start_card",
        "string",
        "redraw",
        "A special start card is redrawn or applied (§2.3).",
        choices=("redraw", "apply"),
    ),
    Option(
        "take5_mode", "string", "coloured", "TAKE 5 is coloured or a wild card (§2.2).", choices=("coloured", "wild")
    ),
    Option("symbol_match", "boolean", True, "Action cards match the same symbol in another colour (§2.4)."),
    Option("jump_in", "boolean", True, "Out-of-turn jump-in with an identical card (§2.5.7)."),
    Option(
        "reshuffle",
        "string",
        "once",
        "Reshuffles of the discard pile per round (§2.6).",
        choices=("once", "unlimited", "none"),
    ),
    Option(
        "round_move_cap",
        "integer",
        1000,
        "Accepted moves per round before it ends as move_cap (§2.6).",
        1,
        MAX_ROUND_MOVE_CAP,
    ),
    # a penalty of the whole deck already always exhausts the pile: a larger one could change nothing
    Option("one_penalty", "integer", 1, "Cards drawn for a missing ONE call (§2.5.8).", minimum=0, maximum=DECK_SIZE),
    Option("strict", "boolean", False, "A wrong card or a wrong jump-in draws a penalty card (§2.7.6)."),
    Option(
        "tie_policy",
        "string",
        "shared",
        "A tie for first is shared; rematch also asks for a rematch.",
        choices=("shared", "rematch"),
    ),
    Option("max_players_override", "boolean", False, "Staff only: allow 9 or 10 players (§2.3).", restricted=True),
    Option("setup", "object", None, "Test fixture: a fixed deal (§0.7).", restricted=True),
)


def _setup_int(value: Any, name: str, lo: int, hi: int | None = None) -> int:
    if type(value) is not int or value < lo or (hi is not None and value > hi):
        raise InvalidOptions(f"{name} must be an integer in [{lo}, {hi if hi is not None else '∞'}]")
    return value


def _cards(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(c, str) and c in CARD_IDS for c in value):
        raise InvalidOptions(f"setup.{name} must be a list of card ids")
    return tuple(value)


def _parse_setup_round(
    raw: Any, players: int, take5_mode: str, first: bool
) -> tuple[SetupRound, tuple[int, ...] | None]:
    """One `setup` entry (§0.7): cards form a sub-multiset of the deck, `dealer` is a seat."""
    allowed = {"dealer", "hands", "start", "draw_pile", "round"} | ({"scores", "next_rounds"} if first else set())
    if not isinstance(raw, dict) or set(raw) - allowed or "hands" not in raw:
        raise InvalidOptions(f"setup must be an object with hands and only the keys {sorted(allowed)}")
    hands = raw["hands"]
    if not isinstance(hands, list) or len(hands) != players:
        raise InvalidOptions("setup.hands must hold one list per seat")
    parsed_hands = tuple(tuple(sorted(_cards(h, "hands"))) for h in hands)
    start = raw.get("start")
    if start is not None and (not isinstance(start, str) or start not in CARD_IDS):
        raise InvalidOptions("setup.start must be a card id")
    pile = _cards(raw.get("draw_pile", []), "draw_pile")
    listed = Counter(c for h in parsed_hands for c in h) + Counter(pile) + Counter([start] if start else [])
    if listed - _DECK_COUNTS[take5_mode]:
        raise InvalidOptions("setup lists cards that are not in the deck (or too many copies)")
    if start is None and listed.total() == len(DECKS[take5_mode]):
        raise InvalidOptions("setup leaves no card to turn up: give start")
    dealer = raw.get("dealer")
    if dealer is not None:
        _setup_int(dealer, "setup.dealer", 0, players - 1)
    round_no = raw.get("round")
    if round_no is not None:
        _setup_int(round_no, "setup.round", 1)
    scores = None
    if first and raw.get("scores") is not None:
        if not isinstance(raw["scores"], list) or len(raw["scores"]) != players:
            raise InvalidOptions("setup.scores must hold one integer per seat")
        scores = tuple(_setup_int(s, "setup.scores", 0) for s in raw["scores"])
    return SetupRound(parsed_hands, start, pile, dealer, round_no), scores


def parse_config(options: JSON, players: int) -> Config:
    """Validate the options (§2.7.1) and the player count (§2.3); raises `InvalidOptions`."""
    if type(players) is not int:
        raise InvalidOptions("the player count must be an integer")
    values = parse_options(OPTIONS, options, players)
    top = 10 if values["max_players_override"] else 8
    if not 2 <= players <= top:
        raise InvalidOptions(f"Enka takes 2 to {top} players")
    raw_setup = values.pop("setup")
    first: SetupRound | None = None
    scores: tuple[int, ...] | None = None
    later: tuple[SetupRound, ...] = ()
    if raw_setup is not None:
        mode = values["take5_mode"]
        first, scores = _parse_setup_round(raw_setup, players, mode, first=True)
        nxt = raw_setup.get("next_rounds", [])
        if not isinstance(nxt, list):
            raise InvalidOptions("setup.next_rounds must be a list")
        later = tuple(_parse_setup_round(r, players, mode, first=False)[0] for r in nxt)
    if values["first_dealer"] == "random":
        values["first_dealer"] = None
    return Config(players=players, **values, setup=first, next_rounds=later, setup_scores=scores)


def _dump_setup_round(r: SetupRound) -> JSON:
    out: JSON = {"hands": [list(h) for h in r.hands], "draw_pile": list(r.draw_pile)}
    if r.start is not None:
        out["start"] = r.start
    if r.dealer is not None:
        out["dealer"] = r.dealer
    if r.round is not None:
        out["round"] = r.round
    return out


def _options_view(cfg: Config) -> OptionsView:
    """The options as the view shows them, in `OPTIONS` order, without `setup` (it names every hand)."""
    return {
        "target_score": cfg.target_score,
        "max_rounds": cfg.max_rounds,
        "first_dealer": "random" if cfg.first_dealer is None else cfg.first_dealer,
        "hand_size": cfg.hand_size,
        "start_card": cfg.start_card,
        "take5_mode": cfg.take5_mode,
        "symbol_match": cfg.symbol_match,
        "jump_in": cfg.jump_in,
        "reshuffle": cfg.reshuffle,
        "round_move_cap": cfg.round_move_cap,
        "one_penalty": cfg.one_penalty,
        "strict": cfg.strict,
        "tie_policy": cfg.tie_policy,
        "max_players_override": cfg.max_players_override,
    }


def _dump_options(cfg: Config) -> JSON:
    """The options as JSON, in `OPTIONS` order, with the `setup` fixture (states only, never a view)."""
    out: JSON = {**_options_view(cfg)}
    if cfg.setup is not None:
        setup = _dump_setup_round(cfg.setup)
        if cfg.setup_scores is not None:
            setup["scores"] = list(cfg.setup_scores)
        if cfg.next_rounds:
            setup["next_rounds"] = [_dump_setup_round(r) for r in cfg.next_rounds]
        out["setup"] = setup
    return out


def setup(config: Config, seed: int) -> tuple[State, tuple[Effect, ...]]:
    """Pick the first dealer and deal round 1 (§2.3): round 1's ``round_started`` and each seat's
    ``hand_dealt`` are the effects."""
    n = config.players
    dealer = config.first_dealer if config.first_dealer is not None else randbelow(rng(seed, "dealer"), n)
    blank = State(
        config=config,
        seed=seed,
        round=1,
        rounds_dealt=0,
        dealer=dealer,
        phase="round_over",  # the deal below starts round 1
        current=None,
        direction=1,
        current_color=None,
        hands=((),) * n,
        draw_pile=(),
        discard=(),
        top_by=None,
        place_seq=0,
        victims_of_top=(),
        drawn=None,
        one_called=(False,) * n,
        reshuffles_used=0,
        moves_this_round=0,
        scores=config.setup_scores or (0,) * n,
        active=(True,) * n,
        aside=(),
        returned=(),
        last_round=None,
        end_reason=None,
    )
    d = Draft(blank)
    _deal_due(d)
    return d.done()


# --- 4. queries -----------------------------------------------------------------------------


def awaiting(state: State) -> frozenset[Seat]:
    """The current seat in `turn` and `drawn` (§2.7.3); nobody once the game is over."""
    if state.phase == "game_over" or state.current is None:
        return frozenset()
    return frozenset((state.current,))


def _next_seat(state: State, x: Seat, direction: int | None = None) -> Seat:
    """`next(X)` over active seats (§2.4), in the state's direction unless given; X may be inactive."""
    n = state.config.players
    d = state.direction if direction is None else direction
    active = state.active
    s = x
    for _ in range(n):
        s = (s + d) % n
        if active[s]:
            return s
    return x


def _reshuffle_allowed(state: State) -> bool:
    """Whether the `reshuffle` option allows another reshuffle this round (§2.6)."""
    mode = state.config.reshuffle
    return mode == "unlimited" or (mode == "once" and state.reshuffles_used == 0)


def _can_supply(state: State) -> bool:
    """The page's "the pile can supply a card" (§2.6)."""
    return bool(state.draw_pile) or (_reshuffle_allowed(state) and len(state.discard) >= 2)


def _holds_match(state: State, seat: Seat) -> bool:
    """Whether ``seat`` holds a card it could play now."""
    top = state.discard[-1]
    color, symbol_match = state.current_color, state.config.symbol_match
    return any(matches(c, top, color, symbol_match) for c in state.hands[seat])


def _one(hand_size_after: int) -> bool | None:
    """The `one` flag `legal_moves` puts on a card-laying move (§2.8)."""
    return True if hand_size_after == 1 else None


# the draws `legal_moves` lists (§2.8), by the `one` flag of the drawn card if it is played: built
# once, as each `Draw` checks its members when it is made
_DRAWS: dict[bool | None, tuple[Draw, ...]] = {
    one: (Draw("ask"), Draw("keep"), *(Draw("play", c, one) for c in COLORS)) for one in (True, None)
}


def legal_moves(state: State, seat: Seat) -> list[Move]:
    """Concrete moves in the order of §2.8: plays, draws, play_drawn/keep, then a jump-in."""
    if state.phase == "game_over" or not state.active[seat]:
        return []
    cfg = state.config
    hand = state.hands[seat]
    top = state.discard[-1]
    color = state.current_color
    out: list[Move] = []
    if seat == state.current:
        if state.phase == "drawn":
            card = state.drawn
            assert card is not None
            if matches(card, top, color, cfg.symbol_match):
                one = _one(len(hand) - 1)
                if card in WILDS:
                    out += [PlayDrawn(c, one) for c in COLORS]
                else:
                    out.append(PlayDrawn(None, one))
            out.append(Keep())
            return out
        one = _one(len(hand) - 1)
        can_play = False
        prev = None
        for card in hand:
            if card == prev:
                continue
            prev = card
            if matches(card, top, color, cfg.symbol_match):
                can_play = True
                if card in WILDS:
                    out += [Play(card, c, one) for c in COLORS]
                else:
                    out.append(Play(card, None, one))
        if not can_play or _can_supply(state):
            out += _DRAWS[_one(len(hand))]
        return out
    if cfg.jump_in and top not in WILDS and seat != state.top_by and seat not in state.victims_of_top and top in hand:
        out.append(JumpIn(top, state.place_seq, _one(len(hand) - 1)))
    return out


def outcome(state: State) -> Outcome | None:
    """Ascending totals, ties share a rank, resigned seats last (§0.8)."""
    if state.phase != "game_over":
        return None
    n = state.config.players
    groups = rank_groups(state.scores, [s for s in range(n) if state.active[s]])
    resigned = frozenset(s for s in range(n) if not state.active[s])
    ranking = groups + ((resigned,) if resigned else ())
    extra = {"rematch": True} if state.config.tie_policy == "rematch" and len(groups[0]) > 1 else {}
    return Outcome(groups[0], ranking, state.scores, state.end_reason or "target_score", extra)


def view(state: State, viewer: Seat | None, timer_deadline: str | None = None) -> EnkaView:
    """What ``viewer`` may see (§2.8); a spectator (None) sees the public part only."""
    cfg = state.config
    mode = cfg.reshuffle
    own = viewer is not None and 0 <= viewer < cfg.players
    return {
        "game": "enka",
        "round": state.round,
        "phase": state.phase,
        "you": viewer if own else None,
        "dealer": state.dealer,
        "current": state.current,
        "awaiting": sorted(awaiting(state)),
        "direction": _DIRECTION_NAME[state.direction],
        "current_color": state.current_color,
        "top": {"card": state.discard[-1], "by": state.top_by, "seq": state.place_seq, "color": state.current_color},
        "discard": list(state.discard),
        "returned": list(state.returned),
        "draw_pile_count": len(state.draw_pile),
        "reshuffles_left": None if mode == "unlimited" else (1 - state.reshuffles_used if mode == "once" else 0),
        "hand": list(state.hands[viewer]) if own and viewer is not None else [],
        "drawn": state.drawn if own and viewer == state.current and state.phase == "drawn" else None,
        "seats": [
            {
                "seat": s,
                "hand_count": len(state.hands[s]),
                "one": state.one_called[s],
                "total": state.scores[s],
                "active": state.active[s],
            }
            for s in range(cfg.players)
        ],
        "target_score": cfg.target_score,
        "last_round": None if state.last_round is None else state.last_round.to_json(),
        "victims_of_top": list(state.victims_of_top),
        "moves_this_round": state.moves_this_round,
        "end_reason": state.end_reason,
        "options": _options_view(cfg),
    }


# --- 5. transitions -------------------------------------------------------------------------
#
# Every transition works on one `kit.Draft` of the state: helpers read ``d.state`` and write with
# ``d.set``. Writes are collected; reading ``d.state`` after a write folds them into a new copy of
# the 25-field `State`, which is most of what a record costs. So seats and directions are read
# from a state taken before the writes (placing or drawing a card changes neither), and the
# record is counted against the move cap by `_finish`, after the rules' own writes (nothing in
# between reads the count; a deal resets it). A card laid on one's turn whose effect draws
# nothing, a draw, a `keep` and most timeouts thus build one new state; a draw that is then
# played, a TAKE or a ONE call two.


def _start_turn(d: Draft[State], seat: Seat) -> None:
    """A fresh `turn` for ``seat``."""
    d.set(current=seat, phase="turn", drawn=None)


def _take(d: Draft[State], seat: Seat, count: int, cause: str) -> tuple[str, ...]:
    """The cards ``seat`` drew, reshuffling if allowed (fewer than ``count`` when the pile ran out, §2.6)."""
    s = d.state
    pile, discard, used = s.draw_pile, s.discard, s.reshuffles_used
    mode = s.config.reshuffle
    got: tuple[str, ...] = ()
    while len(got) < count:
        if not pile:
            allowed = mode == "unlimited" or (mode == "once" and used == 0)
            if not (allowed and len(discard) >= 2):
                break
            pile = tuple(shuffled(discard[:-1], rng(s.seed, "reshuffle", s.rounds_dealt, used)))
            discard = discard[-1:]
            used += 1
            d.emit("reshuffled", {"draw_pile_count": len(pile)})
        take = count - len(got)
        got += pile[:take]
        pile = pile[take:]
    if not got:  # a reshuffle always yields a card: nothing changed
        return got
    d.set(
        draw_pile=pile,
        discard=discard,
        reshuffles_used=used,
        hands=put(s.hands, seat, tuple(sorted(s.hands[seat] + got))),
        one_called=put(s.one_called, seat, False),
    )
    d.emit("drew", {"seat": seat, "count": len(got), "cause": cause})
    d.emit("cards_received", {"seat": seat, "cards": list(got), "cause": cause}, to=(seat,))
    return got


def _draw(d: Draft[State], seat: Seat, count: int, cause: str) -> bool:
    """Give ``seat`` ``count`` cards (§2.6); False if the pile ran out first."""
    return len(_take(d, seat, count, cause)) == count


def _place(d: Draft[State], x: Seat, card: str, chosen: str | None, one: bool | None, via: str) -> None:
    """§2.7.7 place: lay ``card`` from X's hand, resolve it, then the ONE rule and the next turn.

    Every way out (the next turn, or the end of the round) clears ``drawn``."""
    s = d.state
    hand = s.hands[x]
    i = hand.index(card)
    left = len(hand) - 1
    called = bool(one) and left == 1
    color = chosen if card in WILDS else COLOR_OF[card]
    d.set(
        hands=put(s.hands, x, hand[:i] + hand[i + 1 :]),
        one_called=put(s.one_called, x, False),
        place_seq=s.place_seq + 1,
        discard=s.discard + (card,),
        top_by=x,
        current_color=color,
        victims_of_top=(),
    )
    d.emit("played", {"seat": x, "card": card, "color": color, "via": via, "one": called, "seq": s.place_seq + 1})
    following = _resolve(d, s, x, card, went_out=left == 0)
    if following is None:
        return
    if left == 0:  # §2.5.9: going out ends the round at once, after the card's effect
        _end_round(d, "went_out", x)
        return
    if left == 1:  # §2.5.8
        penalty = s.config.one_penalty
        if called:
            d.set(one_called=put(d.state.one_called, x, True))
        elif penalty and not _draw(d, x, penalty, "one_penalty"):
            _end_round(d, "exhausted", None)
            return
    _start_turn(d, following)


def _resolve(d: Draft[State], seats: State, x: Seat, card: str, went_out: bool) -> Seat | None:
    """The card's effect relative to X (§2.7.7 step 2) and the seat whose turn follows: next(X), or
    the seat after it when next(X) is skipped; None when a failed draw ended the round as
    exhausted. ``seats`` gives the active seats and the direction before the effect (placing the
    card changes neither); ``victims_of_top`` is () on entry."""
    effect = EFFECT_OF[card]
    after = _next_seat(seats, x)
    if effect is None:
        return after
    if effect == "back" and sum(seats.active) > 2:
        direction = -seats.direction
        d.set(direction=direction)
        d.emit("direction_changed", {"direction": _DIRECTION_NAME[direction]})
        return _next_seat(seats, x, direction)
    if effect == "take5":  # §2.5.6: every other seat draws 5 in play order, nobody is skipped
        victims: list[Seat] = []
        v = after
        while v != x and v not in victims:
            victims.append(v)
            v = _next_seat(seats, v)
        d.set(victims_of_top=tuple(victims))
        for v in victims:
            if not _draw(d, v, 5, "take5"):
                if went_out:  # §2.6: the missing cards of a last card are simply not drawn
                    break
                _end_round(d, "exhausted", None)
                return None
        return after
    d.set(victims_of_top=(after,))  # stop, 2-seat back, take2, take4: next(X) is the victim
    if effect in _TAKE and not _draw(d, after, _TAKE[effect], effect) and not went_out:
        _end_round(d, "exhausted", None)
        return None
    d.emit("skipped", {"seat": after, "cause": effect})
    return _next_seat(seats, after)


def _end_round(d: Draft[State], reason: RoundEnd, winner: Seat | None) -> None:
    """Score the round (§2.6); then either end the game or leave the next deal due (``round_over``)."""
    s = d.state
    cfg, n = s.config, s.config.players
    points = tuple(hand_points(s.hands[p]) if s.active[p] and p != winner else 0 for p in range(n))
    scores = tuple(a + b for a, b in zip(s.scores, points, strict=True))
    over = None
    if any(scores[p] >= cfg.target_score for p in range(n) if s.active[p]):
        over = "target_score"
    elif s.round >= (cfg.max_rounds or ROUND_LIMIT) or s.rounds_dealt >= ROUND_LIMIT:
        over = "max_rounds"
    summary = RoundSummary(
        round=s.round,
        reason=reason,
        winner=winner,
        hands=tuple(s.hands[p] if s.active[p] else None for p in range(n)),
        round_points=points,
        totals=scores,
        next_dealer=None if over else _next_seat(s, s.dealer, 1),
    )
    d.set(scores=scores, last_round=summary, drawn=None, phase="round_over")
    d.emit("round_ended", summary.to_json())
    if over is not None:
        _end_game(d, over)


def _end_game(d: Draft[State], reason: str) -> None:
    """Enter `game_over` and announce the ranking (§0.8)."""
    d.set(phase="game_over", current=None, drawn=None, end_reason=reason)
    s = d.state
    n = s.config.players
    ranking = [sorted(g) for g in rank_groups(s.scores, [p for p in range(n) if s.active[p]])]
    resigned = [p for p in range(n) if not s.active[p]]
    if resigned:
        ranking.append(resigned)
    d.emit("game_ended", {"totals": list(s.scores), "ranking": ranking, "winners": ranking[0], "reason": reason})


def _deal_due(d: Draft[State]) -> None:
    """Deal rounds until one is under way or the game is over (an applied start card may end one)."""
    while d.state.phase == "round_over":
        _deal(d)


def _deal(d: Draft[State]) -> None:
    """Deal a round (§2.3): fixed by `setup` when given, else from the RNG."""
    s = d.state
    cfg, n = s.config, s.config.players
    first = s.rounds_dealt == 0
    rounds_dealt = s.rounds_dealt + 1
    round_no, dealer = s.round, s.dealer
    if first:
        fixed = cfg.setup
    else:
        idx = rounds_dealt - 2
        fixed = cfg.next_rounds[idx] if idx < len(cfg.next_rounds) else None
        round_no += 1
        dealer = _next_seat(s, dealer, 1)  # §2.3: the deal passes to the left
    gen = rng(s.seed, "deal", rounds_dealt)
    live = [p for p in range(n) if s.active[p]]
    if fixed is not None:
        if fixed.dealer is not None:
            dealer = fixed.dealer
        if fixed.round is not None:
            round_no = fixed.round
    if not s.active[dealer]:
        dealer = _next_seat(s, dealer, 1)
    hands: list[tuple[str, ...]] = [() for _ in range(n)]
    deck = DECKS[cfg.take5_mode]
    if fixed is None:
        cards = shuffled(deck, gen)
        order = [_next_seat(s, dealer, 1)]
        while len(order) < len(live):
            order.append(_next_seat(s, order[-1], 1))
        k = cfg.hand_size * len(order)
        for j, p in enumerate(order):  # one at a time, clockwise from the dealer's left
            hands[p] = tuple(sorted(cards[j : k : len(order)]))
        pile = cards[k:]
        start = pile.pop(0)
    else:
        listed: Counter[str] = Counter()
        for p in live:
            hands[p] = fixed.hands[p]
            listed.update(fixed.hands[p])
        listed.update(fixed.draw_pile)
        if fixed.start is not None:
            listed[fixed.start] += 1
        rest = Counter(deck) - listed
        pile = list(fixed.draw_pile)
        for c in deck:  # unlisted cards go to the bottom in canonical order
            if rest[c]:
                rest[c] -= 1
                pile.append(c)
        start = fixed.start if fixed.start is not None else pile.pop(0)
    # §2.3 item 4: return a special start card at a random position and turn the next one
    returned: list[str] = []
    redraw = cfg.start_card == "redraw"

    def must_return(c: str) -> bool:
        return RANK_OF[c] not in _DIGITS if redraw else c == "wild-take4"

    while must_return(start) and any(not must_return(c) for c in pile):
        pile.insert(randbelow(gen, len(pile) + 1), start)
        returned.append(start)
        start = pile.pop(0)
    applied = not redraw and EFFECT_OF[start] is not None and not must_return(start)
    d.set(
        round=round_no,
        rounds_dealt=rounds_dealt,
        dealer=dealer,
        hands=tuple(hands),
        draw_pile=tuple(pile),
        discard=(start,),
        aside=(),
        returned=tuple(returned),
        place_seq=s.place_seq + 1,
        direction=1,
        drawn=None,
        reshuffles_used=0,
        moves_this_round=0,
        one_called=(False,) * n,
        victims_of_top=(),
        current_color=COLOR_OF[start],
        top_by=dealer if not redraw else None,  # §2.5.7: under "apply" the start card is the dealer's
    )
    d.emit(
        "round_started",
        {
            "round": round_no,
            "dealer": dealer,
            "start_card": start,
            "returned": returned,
            "current_color": COLOR_OF[start],
            "draw_pile_count": len(pile),
            "seq": s.place_seq + 1,
        },
    )
    for p in live:
        d.emit("hand_dealt", {"seat": p, "hand": list(hands[p])}, to=(p,))
    if not applied:
        _start_turn(d, _next_seat(s, dealer, 1))  # the deal turned the direction clockwise
        return
    following = _resolve(d, d.state, dealer, start, went_out=False)  # "apply": as if the dealer played it
    if following is not None:
        _start_turn(d, following)


def _finish(d: Draft[State], state: State) -> tuple[State, tuple[Effect, ...]]:
    """Count the record (from ``state``, the one it was applied to) against ``round_move_cap`` and
    apply the cap (§2.6), deal what is due, and return the new state and its effects."""
    d.set(moves_this_round=state.moves_this_round + 1)
    s = d.state
    if s.phase in ("turn", "drawn") and s.moves_this_round >= s.config.round_move_cap:
        _end_round(d, "move_cap", None)
    _deal_due(d)
    return d.done()


def _illegal(reason: str, message: str, **params: Any) -> IllegalMove:
    """An `IllegalMove` with the page's reason code; the message names no hidden card, and
    ``params`` only the mover's own card (the one "that card" means), for a client's words."""
    return IllegalMove(reason, message, **params)


def _check_color(card: str, color: str | None, what: str) -> None:
    """`color` is required for a wild and refused otherwise (§2.7.7)."""
    if card in WILDS and color is None:
        raise _illegal("color_required", f"{what} is a wild card: name a colour", card=card)
    if card not in WILDS and color is not None:
        raise _illegal("color_not_allowed", f"{what} is not a wild card: send no colour", card=card)


def _penalty(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """§2.7.6 strict mode: the card stays in the hand and the seat draws one card."""
    d = Draft(state)
    if not _draw(d, seat, 1, "penalty"):
        _end_round(d, "exhausted", None)
    return _finish(d, state)


def apply(state: State, seat: Seat, move: Move) -> tuple[State, tuple[Effect, ...]]:
    """Validate and apply a seat's move (§2.7.7), raising in the page's order."""
    if not state.active[seat]:
        raise NotAwaited("a resigned seat takes no part in the game")
    if isinstance(move, JumpIn):
        return _jump_in(state, seat, move)
    if state.phase == "game_over" or seat != state.current:
        raise NotAwaited("it is not your turn")
    cfg = state.config
    top = state.discard[-1]
    if isinstance(move, Play):
        if state.phase != "turn":
            raise _illegal("wrong_phase", "decide on the drawn card first: play_drawn or keep")
        _check_color(move.card, move.color, "that card")
        if move.card not in state.hands[seat]:
            raise _illegal("card_not_in_hand", "you do not hold that card", card=move.card)
        if not matches(move.card, top, state.current_color, cfg.symbol_match):
            if cfg.strict:
                return _penalty(state, seat)
            raise _illegal(
                "card_does_not_match", "that card matches neither the colour nor the top card", card=move.card
            )
        d = Draft(state)
        _place(d, seat, move.card, move.color, move.one, "turn")
        return _finish(d, state)
    if isinstance(move, Draw):
        if state.phase != "turn":
            raise _illegal("wrong_phase", "you have already drawn: play_drawn or keep")
        if move.if_playable == "play" and move.color is None:
            raise _illegal("color_required", "a draw with if_playable play names a colour in case a wild is drawn")
        if not _can_supply(state) and _holds_match(state, seat):
            raise _illegal("must_play_pile_exhausted", "the pile is exhausted and you can play: play a card")
        d = Draft(state)
        got = _take(d, seat, 1, "turn")
        if not got:
            _end_round(d, "exhausted", None)
        elif move.if_playable == "ask":
            d.set(phase="drawn", drawn=got[0])
        elif move.if_playable == "play" and matches(got[0], top, state.current_color, cfg.symbol_match):
            _place(d, seat, got[0], move.color if got[0] in WILDS else None, move.one, "drawn")
        else:
            d.emit("kept", {"seat": seat})
            _start_turn(d, _next_seat(state, seat))
        return _finish(d, state)
    if isinstance(move, PlayDrawn):
        card = state.drawn
        if state.phase != "drawn" or card is None:
            raise _illegal("wrong_phase", "play_drawn follows a draw with if_playable ask")
        _check_color(card, move.color, "the drawn card")
        if not matches(card, top, state.current_color, cfg.symbol_match):
            raise _illegal("drawn_card_does_not_match", "the drawn card does not match: keep it", card=card)
        d = Draft(state)
        _place(d, seat, card, move.color, move.one, "drawn")
        return _finish(d, state)
    if isinstance(move, Keep):
        if state.phase != "drawn":
            raise _illegal("wrong_phase", "keep follows a draw with if_playable ask")
        d = Draft(state)
        _start_turn(d, _next_seat(state, seat))
        d.emit("kept", {"seat": seat})
        return _finish(d, state)
    raise InvalidMove("not an Enka move")


def _jump_in(state: State, seat: Seat, move: JumpIn) -> tuple[State, tuple[Effect, ...]]:
    """§2.5.7: the out-of-turn jump-in, checked in the page's reason order."""
    cfg = state.config
    if not cfg.jump_in:
        raise _illegal("jump_in_disabled", "jump-ins are off in this match")
    if state.phase not in ("turn", "drawn"):
        raise _illegal("wrong_phase", "there is nothing to jump in on now")
    if move.against_seq != state.place_seq:
        raise RaceLost("another card was placed first")
    top = state.discard[-1]
    if top in WILDS:
        raise _illegal("jump_in_on_wild", "nobody may jump in on a wild card")
    if seat == state.current:
        raise _illegal("use_play", "it is your turn: use play")
    if seat == state.top_by:
        raise _illegal("own_card", "you placed the top card")
    if seat in state.victims_of_top:
        raise _illegal("penalised_by_top", "the top card penalised you")
    if move.card != top:
        if cfg.strict and move.card in state.hands[seat]:
            return _penalty(state, seat)
        raise _illegal("not_identical", "a jump-in needs a card identical to the top card", card=move.card)
    if move.card not in state.hands[seat]:
        raise _illegal("card_not_in_hand", "you do not hold that card", card=move.card)
    d = Draft(state)  # a jump-in during `drawn` cancels the choice (`_place` clears it); the drawer keeps the card
    _place(d, seat, move.card, None, move.one, "jump_in")
    return _finish(d, state)


def timeout(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """The default move of §2.7.4 for the awaited seat whose clock ran out."""
    if seat not in awaiting(state):
        raise NotAwaited("that seat is not awaited")
    d = Draft(state)
    if state.phase == "drawn":
        _start_turn(d, _next_seat(state, seat))
        d.emit("kept", {"seat": seat})
    elif _can_supply(state):
        _draw(d, seat, 1, "timeout")
        d.emit("kept", {"seat": seat})
        _start_turn(d, _next_seat(state, seat))
    elif _holds_match(state, seat):  # an absent player cannot end the round
        _start_turn(d, _next_seat(state, seat))
        d.emit("skipped", {"seat": seat, "cause": "timeout_no_draw"})
    else:
        _end_round(d, "exhausted", None)
    return _finish(d, state)


def resign(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """§0.6: the seat leaves the rotation and its hand is set aside; one seat left wins."""
    if state.phase == "game_over" or not state.active[seat]:
        raise NotAwaited("that seat has already left the game")
    d = Draft(state)
    d.set(
        aside=state.aside + state.hands[seat],
        hands=put(state.hands, seat, ()),
        one_called=put(state.one_called, seat, False),
        active=put(state.active, seat, False),
        victims_of_top=tuple(v for v in state.victims_of_top if v != seat),
    )
    d.emit("resigned", {"seat": seat})
    if sum(d.state.active) == 1:
        _end_game(d, "resignation")
        return d.done()
    if seat == state.dealer:
        d.set(dealer=_next_seat(d.state, seat))
    if seat == state.current:
        d.emit("skipped", {"seat": seat, "cause": "resigned"})
        _start_turn(d, _next_seat(d.state, seat))
    return d.done()


# --- 6. codecs ------------------------------------------------------------------------------

codec: MoveCodec[Move] = MoveCodec(Play, Draw, PlayDrawn, Keep, JumpIn)


def dump_state(state: State) -> JSON:
    """The whole server-side state as JSON (secrets included: never show it to a seat)."""
    return {
        "game": "enka",
        "players": state.config.players,
        "options": _dump_options(state.config),
        "seed": state.seed,
        "round": state.round,
        "rounds_dealt": state.rounds_dealt,
        "dealer": state.dealer,
        "phase": state.phase,
        "current": state.current,
        "direction": state.direction,
        "current_color": state.current_color,
        "hands": [list(h) for h in state.hands],
        "draw_pile": list(state.draw_pile),
        "discard": list(state.discard),
        "top_by": state.top_by,
        "place_seq": state.place_seq,
        "victims_of_top": list(state.victims_of_top),
        "drawn": None if state.drawn is None else {"seat": state.current, "card": state.drawn},
        "one_called": list(state.one_called),
        "reshuffles_used": state.reshuffles_used,
        "moves_this_round": state.moves_this_round,
        "scores": list(state.scores),
        "active": list(state.active),
        "aside": list(state.aside),
        "returned": list(state.returned),
        "last_round": None if state.last_round is None else state.last_round.to_json(),
        "end_reason": state.end_reason,
    }


def parse_state(data: JSON) -> State:
    """The inverse of `dump_state`."""
    drawn = data["drawn"]
    return State(
        config=parse_config(data["options"], data["players"]),
        seed=data["seed"],
        round=data["round"],
        rounds_dealt=data["rounds_dealt"],
        dealer=data["dealer"],
        phase=data["phase"],
        current=data["current"],
        direction=data["direction"],
        current_color=data["current_color"],
        hands=tuple(tuple(h) for h in data["hands"]),
        draw_pile=tuple(data["draw_pile"]),
        discard=tuple(data["discard"]),
        top_by=data["top_by"],
        place_seq=data["place_seq"],
        victims_of_top=tuple(data["victims_of_top"]),
        drawn=None if drawn is None else drawn["card"],
        one_called=tuple(data["one_called"]),
        reshuffles_used=data["reshuffles_used"],
        moves_this_round=data["moves_this_round"],
        scores=tuple(data["scores"]),
        active=tuple(data["active"]),
        aside=tuple(data["aside"]),
        returned=tuple(data["returned"]),
        last_round=None if data["last_round"] is None else RoundSummary.from_json(data["last_round"]),
        end_reason=data["end_reason"],
    )


# --- 7. invariants, bots --------------------------------------------------------------------


def invariant_violations(state: State) -> list[str]:
    """Card conservation (§2.2) and the phase invariants of the module docstring."""
    out: list[str] = []
    cfg = state.config
    every = [*state.draw_pile, *state.discard, *state.aside]
    for hand in state.hands:
        every += hand
    if sorted(every) != _SORTED_DECKS[cfg.take5_mode]:
        out.append("cards are not conserved")
    if not state.discard:
        out.append("the discard pile is empty")
    if any(list(h) != sorted(h) for h in state.hands):
        out.append("a hand is not sorted")
    if any(state.hands[s] for s in range(cfg.players) if not state.active[s]):
        out.append("a resigned seat holds cards")
    if state.phase in ("turn", "drawn"):
        if state.current is None or not state.active[state.current]:
            out.append("the current seat is not an active seat")
        if (state.phase == "drawn") != (state.drawn is not None):
            out.append("drawn is set outside the drawn phase")
        if state.drawn is not None and state.current is not None and state.drawn not in state.hands[state.current]:
            out.append("the drawn card is not in the drawer's hand")
    elif state.phase == "game_over":
        if state.current is not None or state.end_reason is None:
            out.append("a finished game has a current seat or no end reason")
    else:
        out.append(f"unknown phase {state.phase!r}")
    if state.current_color is not None and state.current_color not in _COLOR_SET:
        out.append("bad current colour")
    return out


def determinize(data: JSON, seat: Seat, gen: random.Random) -> State:
    """A full state consistent with ``seat``'s view, the unseen cards dealt at random."""
    seats = data["seats"]
    config = parse_config(data["options"], len(seats))
    own = tuple(data["hand"])
    counts = dict(_DECK_COUNTS[config.take5_mode])
    for card in own:
        counts[card] -= 1
    for card in data["discard"]:
        counts[card] -= 1
    pool = shuffled([card for card, k in counts.items() for _ in range(k)], gen)
    hands: list[tuple[str, ...]] = []
    pos = 0
    for info in seats:
        if info["seat"] == seat:
            hands.append(own)
        else:
            hands.append(tuple(sorted(pool[pos : pos + info["hand_count"]])))
            pos += info["hand_count"]
    pile = tuple(pool[pos : pos + data["draw_pile_count"]])
    aside = tuple(pool[pos + data["draw_pile_count"] :])
    current = data["current"]
    drawn = None
    if data["phase"] == "drawn":
        drawn = data["drawn"] if current == seat else hands[current][randbelow(gen, len(hands[current]))]
    left = data["reshuffles_left"]
    top = data["top"]
    return State(
        config=config,
        seed=randbelow(gen, 2**62),
        round=data["round"],
        rounds_dealt=data["round"],
        dealer=data["dealer"],
        phase=data["phase"],
        current=current,
        direction=1 if data["direction"] == "clockwise" else -1,
        current_color=data["current_color"],
        hands=tuple(hands),
        draw_pile=pile,
        discard=tuple(data["discard"]),
        top_by=top["by"],
        place_seq=top["seq"],
        victims_of_top=tuple(data["victims_of_top"]),
        drawn=drawn,
        one_called=tuple(info["one"] for info in seats),
        reshuffles_used=1 - left if config.reshuffle == "once" else 0,
        moves_this_round=data["moves_this_round"],
        scores=tuple(info["total"] for info in seats),
        active=tuple(info["active"] for info in seats),
        aside=aside,
        returned=tuple(data["returned"]),
        last_round=None if data["last_round"] is None else RoundSummary.from_json(data["last_round"]),
        end_reason=data["end_reason"],
    )


def heuristic(state: State, seat: Seat) -> float:
    """Higher is better for ``seat``: its penalty (total + hand) against the others' average."""
    n = state.config.players

    def burden(s: Seat) -> float:
        hand = state.hands[s]
        return state.scores[s] + hand_points(hand) + 5 * len(hand)

    others = [burden(s) for s in range(n) if s != seat and state.active[s]]
    return (sum(others) / len(others) if others else 0.0) - burden(seat)


# --- 8. the record --------------------------------------------------------------------------


RULES: Rules[State, Move, Config] = Rules(
    name="enka",
    title="Enka",
    version=1,
    seats=range(2, 9),
    # each round ends within `round_move_cap` records (resignations aside), a match within ROUND_LIMIT rounds
    max_moves=ROUND_LIMIT * MAX_ROUND_MOVE_CAP + 10,
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
)
