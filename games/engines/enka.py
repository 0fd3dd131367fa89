"""Enka (Oblak igre d.o.o.), an Uno-like shedding game for 2–8 players: `spec/rules/enka.md`.

Rules summary (section numbers are the page's):

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
is dealt by `initial_state`, which has no effects: its ``round_started`` is not in the record
stream, and the view carries everything it would say (``returned`` included).

Engine guards that the page does not spell out (documented in the report):

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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from games.engines.base import (
    JSON,
    Effect,
    IllegalMove,
    InvalidMove,
    InvalidOptions,
    MoveField,
    MoveSpec,
    NotAwaited,
    Option,
    Outcome,
    RaceLost,
    Rules,
    Seat,
    rank_groups,
)
from games.engines.rng import randbelow, rng, shuffled

# --- cards (§2.2) ---------------------------------------------------------------------------

COLORS: tuple[str, ...] = ("red", "yellow", "green", "blue")
_COLOR_SET = frozenset(COLORS)
_DIGITS = frozenset(str(n) for n in range(10))
WILDS = frozenset({"wild", "wild-take4", "take5"})  # `take5` exists only under take5_mode "wild"
ROUND_LIMIT = 1000  # engine guard: rounds per match when `max_rounds` is null
MAX_ROUND_MOVE_CAP = 10_000


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
_DECK_COUNTS: dict[str, Counter[str]] = {mode: Counter(deck) for mode, deck in DECKS.items()}
_SORTED_DECKS: dict[str, list[str]] = {mode: sorted(deck) for mode, deck in DECKS.items()}
CARD_IDS: frozenset[str] = frozenset(DECKS["coloured"]) | frozenset(DECKS["wild"])
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


# --- config (§2.7.1, §0.7) ------------------------------------------------------------------


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
    """Parsed match options."""

    players: int
    target_score: int = 500
    max_rounds: int | None = None
    first_dealer: int | None = None  # None: random (§2.3)
    hand_size: int = 6
    start_card: str = "redraw"
    take5_mode: str = "coloured"
    symbol_match: bool = True
    jump_in: bool = True
    reshuffle: str = "once"
    round_move_cap: int = 1000
    one_penalty: int = 1
    strict: bool = False
    tie_policy: str = "shared"
    max_players_override: bool = False
    setup: SetupRound | None = None
    next_rounds: tuple[SetupRound, ...] = ()
    setup_scores: tuple[int, ...] | None = None


_CHOICES = {
    "start_card": ("redraw", "apply"),
    "take5_mode": ("coloured", "wild"),
    "reshuffle": ("once", "unlimited", "none"),
    "tie_policy": ("shared", "rematch"),
}
_BOOLS = ("symbol_match", "jump_in", "strict", "max_players_override")

OPTIONS: tuple[Option, ...] = (
    Option("target_score", "integer", 500, "End of game once a total reaches this (§2.6).", minimum=1),
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
    Option("one_penalty", "integer", 1, "Cards drawn for a missing ONE call (§2.5.8).", minimum=0),
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
_OPTION_NAMES = frozenset(o.name for o in OPTIONS)


def _int(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    if type(value) is not int or (lo is not None and value < lo) or (hi is not None and value > hi):
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
        _int(dealer, "setup.dealer", 0, players - 1)
    round_no = raw.get("round")
    if round_no is not None:
        _int(round_no, "setup.round", 1)
    scores = None
    if first and raw.get("scores") is not None:
        if not isinstance(raw["scores"], list) or len(raw["scores"]) != players:
            raise InvalidOptions("setup.scores must hold one integer per seat")
        scores = tuple(_int(s, "setup.scores", 0) for s in raw["scores"])
    return SetupRound(parsed_hands, start, pile, dealer, round_no), scores


def parse_config(options: JSON, players: int) -> Config:
    """Validate the options (§2.7.1) and the player count (§2.3); raises `InvalidOptions`."""
    if not isinstance(options, dict):
        raise InvalidOptions("options must be an object")
    unknown = set(options) - _OPTION_NAMES
    if unknown:
        raise InvalidOptions(f"unknown option(s): {', '.join(sorted(unknown))}")
    kw: dict[str, Any] = {}
    for name in _BOOLS:
        if name in options:
            if type(options[name]) is not bool:
                raise InvalidOptions(f"{name} must be a boolean")
            kw[name] = options[name]
    for name, choices in _CHOICES.items():
        if name in options:
            if options[name] not in choices:
                raise InvalidOptions(f"{name} must be one of {', '.join(choices)}")
            kw[name] = options[name]
    if "target_score" in options:
        kw["target_score"] = _int(options["target_score"], "target_score", 1)
    if options.get("max_rounds") is not None:
        kw["max_rounds"] = _int(options["max_rounds"], "max_rounds", 1, ROUND_LIMIT)
    if "hand_size" in options:
        kw["hand_size"] = _int(options["hand_size"], "hand_size", 3, 10)
    if "round_move_cap" in options:
        kw["round_move_cap"] = _int(options["round_move_cap"], "round_move_cap", 1, MAX_ROUND_MOVE_CAP)
    if "one_penalty" in options:
        kw["one_penalty"] = _int(options["one_penalty"], "one_penalty", 0)
    top = 10 if kw.get("max_players_override") else 8
    if type(players) is not int or not 2 <= players <= top:
        raise InvalidOptions(f"Enka takes 2 to {top} players")
    first_dealer = options.get("first_dealer", "random")
    if first_dealer != "random":
        kw["first_dealer"] = _int(first_dealer, "first_dealer", 0, players - 1)
    raw_setup = options.get("setup")
    if raw_setup is not None:
        mode = kw.get("take5_mode", "coloured")
        kw["setup"], kw["setup_scores"] = _parse_setup_round(raw_setup, players, mode, first=True)
        nxt = raw_setup.get("next_rounds", [])
        if not isinstance(nxt, list):
            raise InvalidOptions("setup.next_rounds must be a list")
        kw["next_rounds"] = tuple(_parse_setup_round(r, players, mode, first=False)[0] for r in nxt)
    return Config(players=players, **kw)


def _dump_setup_round(r: SetupRound) -> JSON:
    out: JSON = {"hands": [list(h) for h in r.hands], "draw_pile": list(r.draw_pile)}
    if r.start is not None:
        out["start"] = r.start
    if r.dealer is not None:
        out["dealer"] = r.dealer
    if r.round is not None:
        out["round"] = r.round
    return out


def _dump_options(cfg: Config, *, public: bool) -> JSON:
    """The options as JSON; ``public`` leaves out `setup` (it names every hand)."""
    out: JSON = {
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
    if not public and cfg.setup is not None:
        setup = _dump_setup_round(cfg.setup)
        if cfg.setup_scores is not None:
            setup["scores"] = list(cfg.setup_scores)
        if cfg.next_rounds:
            setup["next_rounds"] = [_dump_setup_round(r) for r in cfg.next_rounds]
        out["setup"] = setup
    return out


# --- state (§2.7.2) -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """The last `round_ended` summary (§2.7.8), shown in every view as `last_round`."""

    round: int
    reason: str  # went_out, exhausted, move_cap
    winner: int | None
    hands: tuple[tuple[str, ...] | None, ...]  # None for a resigned seat
    round_points: tuple[int, ...]
    totals: tuple[int, ...]
    next_dealer: int | None

    def to_json(self) -> JSON:
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
    phase: str  # turn, drawn, game_over (round_over is transient inside a record)
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


# --- moves (§2.7.7) -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Play:
    """Lay a matching card from the hand on one's turn."""

    card: str
    color: str | None = None
    one: bool | None = None


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card; ``if_playable`` says what then happens (§2.7.3)."""

    if_playable: str = "ask"
    color: str | None = None
    one: bool | None = None


@dataclass(frozen=True, slots=True)
class PlayDrawn:
    """Lay the card just drawn."""

    color: str | None = None
    one: bool | None = None


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep the card just drawn; the turn passes."""


@dataclass(frozen=True, slots=True)
class JumpIn:
    """Out of turn: lay a card identical to the top card whose seq is ``against_seq``."""

    card: str
    against_seq: int
    one: bool | None = None


Move = Play | Draw | PlayDrawn | Keep | JumpIn

_MOVE_FIELDS: dict[str, frozenset[str]] = {
    "play": frozenset({"card", "color", "one"}),
    "draw": frozenset({"if_playable", "color", "one"}),
    "play_drawn": frozenset({"color", "one"}),
    "keep": frozenset(),
    "jump_in": frozenset({"card", "against_seq", "one"}),
}


def parse_move(data: JSON) -> Move:
    """JSON → move; anything that is not a move of Enka raises `InvalidMove` (400)."""
    if not isinstance(data, dict):
        raise InvalidMove("a move is a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _MOVE_FIELDS:
        raise InvalidMove(f"unknown move type {kind!r}")
    extra = set(data) - _MOVE_FIELDS[kind] - {"type"}
    if extra:
        raise InvalidMove(f"unknown field(s) for {kind}: {', '.join(sorted(extra))}")
    color = data.get("color")
    if color is not None and (not isinstance(color, str) or color not in _COLOR_SET):
        raise InvalidMove("color must be one of red, yellow, green, blue")
    one = data.get("one")
    if one is not None and type(one) is not bool:
        raise InvalidMove("one must be a boolean")
    if kind in ("play", "jump_in"):
        card = data.get("card")
        if not isinstance(card, str) or card not in CARD_IDS:
            raise InvalidMove("card must be a card id of the deck table (§2.2)")
        if kind == "play":
            return Play(card, color, one)
        seq = data.get("against_seq")
        if type(seq) is not int or seq < 0:
            raise InvalidMove("against_seq must be the top card's seq (a non-negative integer)")
        return JumpIn(card, seq, one)
    if kind == "draw":
        mode = data.get("if_playable", "ask")
        if mode not in ("ask", "keep", "play"):
            raise InvalidMove("if_playable must be ask, keep or play")
        if mode != "play" and (color is not None or one is not None):
            raise InvalidMove("color and one belong only to a draw with if_playable play")
        return Draw(mode, color, one)
    if kind == "play_drawn":
        return PlayDrawn(color, one)
    return Keep()


def dump_move(move: Move) -> JSON:
    """Move → canonical JSON (§2.7.7)."""
    out: JSON
    if isinstance(move, Play):
        out = {"type": "play", "card": move.card}
    elif isinstance(move, Draw):
        out = {"type": "draw", "if_playable": move.if_playable}
    elif isinstance(move, PlayDrawn):
        out = {"type": "play_drawn"}
    elif isinstance(move, JumpIn):
        out = {"type": "jump_in", "card": move.card, "against_seq": move.against_seq}
    else:
        return {"type": "keep"}
    color = getattr(move, "color", None)
    if color is not None:
        out["color"] = color
    if move.one is not None:
        out["one"] = move.one
    return out


_CARD_CHOICES = tuple(sorted(CARD_IDS))
_COLOR_FIELD = MoveField("color", "string", "Colour named for a wild card.", required=False, choices=COLORS)
_ONE_FIELD = MoveField("one", "boolean", "ONE call: true when the move leaves one card (§2.5.8).", required=False)
MOVES: tuple[MoveSpec, ...] = (
    MoveSpec(
        "play",
        "Lay a matching card on one's turn (§2.7.7).",
        (MoveField("card", "string", "Card id (§2.2).", choices=_CARD_CHOICES), _COLOR_FIELD, _ONE_FIELD),
    ),
    MoveSpec(
        "draw",
        "Draw one card; if_playable ask (default), keep, or play (needs color) (§2.7.3).",
        (
            MoveField("if_playable", "string", "What to do if the card fits.", False, ("ask", "keep", "play")),
            _COLOR_FIELD,
            _ONE_FIELD,
        ),
    ),
    MoveSpec("play_drawn", "Lay the card just drawn (phase drawn).", (_COLOR_FIELD, _ONE_FIELD)),
    MoveSpec("keep", "Keep the card just drawn; the turn passes."),
    MoveSpec(
        "jump_in",
        "Out of turn: lay a card identical to the top card (§2.5.7).",
        (
            MoveField("card", "string", "The top card's id.", choices=_CARD_CHOICES),
            MoveField(
                "against_seq",
                "integer",
                "The anchor: view.top.seq, the match-wide number of the top card among all cards "
                "placed on the discard pile (start cards included). Stale → 409 race_lost.",
                minimum=0,
            ),
            _ONE_FIELD,
        ),
    ),
)


# --- transitions ----------------------------------------------------------------------------


class _Work:
    """A mutable scratch copy of a `State` for one transition; `freeze` makes the new state."""

    __slots__ = (
        "active",
        "aside",
        "cfg",
        "current",
        "current_color",
        "dealer",
        "direction",
        "discard",
        "drawn",
        "effects",
        "end_reason",
        "hands",
        "last_round",
        "moves_this_round",
        "n",
        "need_deal",
        "one_called",
        "phase",
        "pile",
        "place_seq",
        "reshuffles_used",
        "returned",
        "round",
        "rounds_dealt",
        "scores",
        "seed",
        "top_by",
        "victims",
    )

    def __init__(self, s: State) -> None:
        self.cfg = s.config
        self.n = s.config.players
        self.seed = s.seed
        self.round = s.round
        self.rounds_dealt = s.rounds_dealt
        self.dealer = s.dealer
        self.phase = s.phase
        self.current = s.current
        self.direction = s.direction
        self.current_color = s.current_color
        self.hands = list(s.hands)
        self.pile = s.draw_pile
        self.discard = s.discard
        self.top_by = s.top_by
        self.place_seq = s.place_seq
        self.victims = s.victims_of_top
        self.drawn = s.drawn
        self.one_called = list(s.one_called)
        self.reshuffles_used = s.reshuffles_used
        self.moves_this_round = s.moves_this_round
        self.scores = s.scores
        self.active = s.active
        self.aside = s.aside
        self.returned = s.returned
        self.last_round = s.last_round
        self.end_reason = s.end_reason
        self.effects: list[Effect] = []
        self.need_deal = False

    def freeze(self) -> State:
        """The new immutable state."""
        return State(
            config=self.cfg,
            seed=self.seed,
            round=self.round,
            rounds_dealt=self.rounds_dealt,
            dealer=self.dealer,
            phase=self.phase,
            current=self.current,
            direction=self.direction,
            current_color=self.current_color,
            hands=tuple(self.hands),
            draw_pile=self.pile,
            discard=self.discard,
            top_by=self.top_by,
            place_seq=self.place_seq,
            victims_of_top=self.victims,
            drawn=self.drawn,
            one_called=tuple(self.one_called),
            reshuffles_used=self.reshuffles_used,
            moves_this_round=self.moves_this_round,
            scores=self.scores,
            active=self.active,
            aside=self.aside,
            returned=self.returned,
            last_round=self.last_round,
            end_reason=self.end_reason,
        )

    def emit(self, kind: str, data: Mapping[str, Any], to: Seat | None = None) -> None:
        """Record an effect: public, or for ``to`` only."""
        self.effects.append(Effect(kind, data, None if to is None else frozenset((to,))))

    # -- seats

    def next_seat(self, x: Seat, direction: int | None = None) -> Seat:
        """`next(X)` over active seats (§2.4); X itself may be inactive."""
        d = self.direction if direction is None else direction
        s = x
        for _ in range(self.n):
            s = (s + d) % self.n
            if self.active[s]:
                return s
        return x

    def start_turn(self, seat: Seat) -> None:
        """A fresh `turn` for ``seat``."""
        self.current = seat
        self.phase = "turn"
        self.drawn = None

    # -- the pile (§2.6)

    def reshuffle_allowed(self) -> bool:
        """Whether the `reshuffle` option allows another reshuffle this round (§2.6)."""
        mode = self.cfg.reshuffle
        return mode == "unlimited" or (mode == "once" and self.reshuffles_used == 0)

    def can_supply(self) -> bool:
        """The page's "the pile can supply a card" (§2.6)."""
        return bool(self.pile) or (self.reshuffle_allowed() and len(self.discard) >= 2)

    def draw(self, seat: Seat, count: int, cause: str) -> bool:
        """Give ``seat`` up to ``count`` cards, reshuffling if allowed; False if the pile ran out."""
        return len(self.take(seat, count, cause)) == count

    def take(self, seat: Seat, count: int, cause: str) -> tuple[str, ...]:
        """The cards ``seat`` drew (fewer than ``count`` when the pile ran out, §2.6)."""
        got: tuple[str, ...] = ()
        while len(got) < count:
            if not self.pile:
                if not (self.reshuffle_allowed() and len(self.discard) >= 2):
                    break
                rest = shuffled(self.discard[:-1], rng(self.seed, "reshuffle", self.rounds_dealt, self.reshuffles_used))
                self.pile = tuple(rest)
                self.discard = self.discard[-1:]
                self.reshuffles_used += 1
                self.emit("reshuffled", {"draw_pile_count": len(self.pile)})
            take = count - len(got)
            got += self.pile[:take]
            self.pile = self.pile[take:]
        if got:
            self.hands[seat] = tuple(sorted(self.hands[seat] + got))
            self.one_called[seat] = False
            self.emit("drew", {"seat": seat, "count": len(got), "cause": cause})
            self.emit("cards_received", {"seat": seat, "cards": list(got), "cause": cause}, to=seat)
        return got

    def holds_match(self, seat: Seat) -> bool:
        """Whether ``seat`` holds a card it could play now."""
        top = self.discard[-1]
        return any(matches(c, top, self.current_color, self.cfg.symbol_match) for c in self.hands[seat])

    # -- placing a card (§2.7.7 place)

    def place(self, x: Seat, card: str, chosen: str | None, one: bool | None, via: str) -> None:
        hand = self.hands[x]
        i = hand.index(card)
        self.hands[x] = hand[:i] + hand[i + 1 :]
        self.one_called[x] = False
        left = len(self.hands[x])
        called = bool(one) and left == 1
        self.place_seq += 1
        self.discard += (card,)
        self.top_by = x
        self.current_color = chosen if card in WILDS else COLOR_OF[card]
        self.emit(
            "played",
            {"seat": x, "card": card, "color": self.current_color, "via": via, "one": called, "seq": self.place_seq},
        )
        skip = self.resolve(x, card, went_out=left == 0)
        if skip is None:
            return
        if left == 0:  # §2.5.9: going out ends the round at once, after the card's effect
            self.end_round("went_out", x)
            return
        if left == 1:  # §2.5.8
            if called:
                self.one_called[x] = True
            elif self.cfg.one_penalty and not self.draw(x, self.cfg.one_penalty, "one_penalty"):
                self.end_round("exhausted", None)
                return
        nxt = self.next_seat(x)
        self.start_turn(self.next_seat(nxt) if skip else nxt)

    def resolve(self, x: Seat, card: str, went_out: bool) -> bool | None:
        """The card's effect relative to X (§2.7.7 step 2): whether next(X) is skipped, or None
        when a failed draw ended the round as exhausted."""
        effect = EFFECT_OF[card]
        self.victims = ()
        if effect is None:
            return False
        if effect == "back" and sum(self.active) > 2:
            self.direction = -self.direction
            self.emit("direction_changed", {"direction": _DIRECTION_NAME[self.direction]})
            return False
        if effect == "take5":  # §2.5.6: every other seat draws 5 in play order, nobody is skipped
            victims: list[Seat] = []
            v = self.next_seat(x)
            while v != x and v not in victims:
                victims.append(v)
                v = self.next_seat(v)
            self.victims = tuple(victims)
            for v in victims:
                if not self.draw(v, 5, "take5"):
                    if went_out:  # §2.6: the missing cards of a last card are simply not drawn
                        break
                    self.end_round("exhausted", None)
                    return None
            return False
        victim = self.next_seat(x)  # stop, 2-seat back, take2, take4
        self.victims = (victim,)
        if effect in _TAKE and not self.draw(victim, _TAKE[effect], effect) and not went_out:
            self.end_round("exhausted", None)
            return None
        self.emit("skipped", {"seat": victim, "cause": effect})
        return True

    # -- rounds (§2.3, §2.6)

    def end_round(self, reason: str, winner: Seat | None) -> None:
        """Score the round; then either end the game or ask for the next deal."""
        points = tuple(hand_points(self.hands[s]) if self.active[s] and s != winner else 0 for s in range(self.n))
        self.scores = tuple(a + b for a, b in zip(self.scores, points, strict=True))
        cfg = self.cfg
        live = [s for s in range(self.n) if self.active[s]]
        over = None
        if any(self.scores[s] >= cfg.target_score for s in live):
            over = "target_score"
        elif self.round >= (cfg.max_rounds or ROUND_LIMIT) or self.rounds_dealt >= ROUND_LIMIT:
            over = "max_rounds"
        next_dealer = None if over else self.next_seat(self.dealer, 1)
        self.last_round = RoundSummary(
            round=self.round,
            reason=reason,
            winner=winner,
            hands=tuple(self.hands[s] if self.active[s] else None for s in range(self.n)),
            round_points=points,
            totals=self.scores,
            next_dealer=next_dealer,
        )
        self.emit("round_ended", self.last_round.to_json())
        self.drawn = None
        if over is not None:
            self.end_game(over)
        else:
            self.need_deal = True

    def end_game(self, reason: str) -> None:
        """Enter `game_over` and announce the ranking (§0.8)."""
        self.phase = "game_over"
        self.current = None
        self.drawn = None
        self.end_reason = reason
        live = [s for s in range(self.n) if self.active[s]]
        ranking = [sorted(g) for g in rank_groups(self.scores, live)]
        resigned = [s for s in range(self.n) if not self.active[s]]
        if resigned:
            ranking.append(resigned)
        self.emit(
            "game_ended", {"totals": list(self.scores), "ranking": ranking, "winners": ranking[0], "reason": reason}
        )

    def settle(self) -> None:
        """Deal rounds until one is under way or the game is over (a start card may end one)."""
        while self.need_deal:
            self.need_deal = False
            self.deal()

    def deal(self) -> None:
        """Deal a round (§2.3): fixed by `setup` when given, else from the RNG."""
        cfg = self.cfg
        first = self.rounds_dealt == 0
        self.rounds_dealt += 1
        if first:
            fixed = cfg.setup
        else:
            idx = self.rounds_dealt - 2
            fixed = cfg.next_rounds[idx] if idx < len(cfg.next_rounds) else None
            self.round += 1
            self.dealer = self.next_seat(self.dealer, 1)  # §2.3: the deal passes to the left
        gen = rng(self.seed, "deal", self.rounds_dealt)
        live = [s for s in range(self.n) if self.active[s]]
        if fixed is not None:
            if fixed.dealer is not None:
                self.dealer = fixed.dealer
            if fixed.round is not None:
                self.round = fixed.round
        if not self.active[self.dealer]:
            self.dealer = self.next_seat(self.dealer, 1)
        hands: list[tuple[str, ...]] = [() for _ in range(self.n)]
        deck = DECKS[cfg.take5_mode]
        if fixed is None:
            cards = shuffled(deck, gen)
            order = [self.next_seat(self.dealer, 1)]
            while len(order) < len(live):
                order.append(self.next_seat(order[-1], 1))
            k = cfg.hand_size * len(order)
            for j, s in enumerate(order):  # one at a time, clockwise from the dealer's left
                hands[s] = tuple(sorted(cards[j : k : len(order)]))
            pile = cards[k:]
            start = pile.pop(0)
        else:
            listed: Counter[str] = Counter()
            for s in live:
                hands[s] = fixed.hands[s]
                listed.update(fixed.hands[s])
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
        self.hands = hands
        self.pile = tuple(pile)
        self.discard = (start,)
        self.aside = ()
        self.returned = tuple(returned)
        self.place_seq += 1
        self.direction = 1
        self.drawn = None
        self.reshuffles_used = 0
        self.moves_this_round = 0
        self.one_called = [False] * self.n
        self.victims = ()
        self.current_color = COLOR_OF[start]
        applied = not redraw and EFFECT_OF[start] is not None and not must_return(start)
        self.top_by = self.dealer if not redraw else None  # §2.5.7: under "apply" the start card is the dealer's
        self.emit(
            "round_started",
            {
                "round": self.round,
                "dealer": self.dealer,
                "start_card": start,
                "returned": returned,
                "current_color": self.current_color,
                "draw_pile_count": len(self.pile),
                "seq": self.place_seq,
            },
        )
        for s in live:
            self.emit("hand_dealt", {"seat": s, "hand": list(hands[s])}, to=s)
        if not applied:
            self.start_turn(self.next_seat(self.dealer))
            return
        skip = self.resolve(self.dealer, start, went_out=False)  # "apply": as if the dealer played it
        if skip is not None:
            nxt = self.next_seat(self.dealer)
            self.start_turn(self.next_seat(nxt) if skip else nxt)


_DIRECTION_NAME = {1: "clockwise", -1: "counterclockwise"}


def initial_state(config: Config, seed: int) -> State:
    """Pick the first dealer and deal round 1 (§2.3)."""
    return start(config, seed)[0]


def start(config: Config, seed: int) -> tuple[State, tuple[Effect, ...]]:
    """`initial_state` with its effects: round 1's ``round_started`` and each seat's ``hand_dealt``."""
    n = config.players
    dealer = config.first_dealer if config.first_dealer is not None else randbelow(rng(seed, "dealer"), n)
    blank = State(
        config=config,
        seed=seed,
        round=1,
        rounds_dealt=0,
        dealer=dealer,
        phase="turn",
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
    w = _Work(blank)
    w.need_deal = True
    w.settle()
    return w.freeze(), tuple(w.effects)


def awaiting(state: State) -> frozenset[Seat]:
    """The current seat in `turn` and `drawn` (§2.7.3); nobody once the game is over."""
    if state.phase == "game_over" or state.current is None:
        return frozenset()
    return frozenset((state.current,))


def _illegal(reason: str, message: str) -> IllegalMove:
    """An `IllegalMove` with the page's reason code; the message names no hidden card."""
    return IllegalMove(reason, message)


def _check_color(card: str, color: str | None, what: str) -> None:
    """`color` is required for a wild and refused otherwise (§2.7.7)."""
    if card in WILDS and color is None:
        raise _illegal("color_required", f"{what} is a wild card: name a colour")
    if card not in WILDS and color is not None:
        raise _illegal("color_not_allowed", f"{what} is not a wild card: send no colour")


def _finish(w: _Work, rounds_before: int) -> tuple[State, tuple[Effect, ...]]:
    """Deal what must be dealt and apply the move cap (§2.6) before freezing."""
    same_round = w.rounds_dealt == rounds_before and w.phase != "game_over" and not w.need_deal
    if same_round and w.moves_this_round >= w.cfg.round_move_cap:
        w.end_round("move_cap", None)
    w.settle()
    return w.freeze(), tuple(w.effects)


def _penalty(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """§2.7.6 strict mode: the card stays in the hand and the seat draws one card."""
    w = _Work(state)
    w.moves_this_round += 1
    if not w.draw(seat, 1, "penalty"):
        w.end_round("exhausted", None)
    return _finish(w, state.rounds_dealt)


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
    hand = state.hands[seat]
    w: _Work
    if isinstance(move, Play):
        if state.phase != "turn":
            raise _illegal("wrong_phase", "decide on the drawn card first: play_drawn or keep")
        _check_color(move.card, move.color, "that card")
        if move.card not in hand:
            raise _illegal("card_not_in_hand", "you do not hold that card")
        if not matches(move.card, top, state.current_color, cfg.symbol_match):
            if cfg.strict:
                return _penalty(state, seat)
            raise _illegal("card_does_not_match", "that card matches neither the colour nor the top card")
        w = _Work(state)
        w.moves_this_round += 1
        w.place(seat, move.card, move.color, move.one, "turn")
        return _finish(w, state.rounds_dealt)
    if isinstance(move, Draw):
        if state.phase != "turn":
            raise _illegal("wrong_phase", "you have already drawn: play_drawn or keep")
        if move.if_playable == "play" and move.color is None:
            raise _illegal("color_required", "a draw with if_playable play names a colour in case a wild is drawn")
        w = _Work(state)
        if not w.can_supply() and w.holds_match(seat):
            raise _illegal("must_play_pile_exhausted", "the pile is exhausted and you can play: play a card")
        w.moves_this_round += 1
        got = w.take(seat, 1, "turn")
        if not got:
            w.end_round("exhausted", None)
            return _finish(w, state.rounds_dealt)
        card = got[0]
        if move.if_playable == "ask":
            w.phase = "drawn"
            w.drawn = card
        elif move.if_playable == "play" and matches(card, top, state.current_color, cfg.symbol_match):
            w.place(seat, card, move.color if card in WILDS else None, move.one, "drawn")
        else:
            w.emit("kept", {"seat": seat})
            w.start_turn(w.next_seat(seat))
        return _finish(w, state.rounds_dealt)
    if isinstance(move, PlayDrawn):
        if state.phase != "drawn" or state.drawn is None:
            raise _illegal("wrong_phase", "play_drawn follows a draw with if_playable ask")
        _check_color(state.drawn, move.color, "the drawn card")
        if not matches(state.drawn, top, state.current_color, cfg.symbol_match):
            raise _illegal("drawn_card_does_not_match", "the drawn card does not match: keep it")
        w = _Work(state)
        w.moves_this_round += 1
        card, w.drawn = state.drawn, None
        w.place(seat, card, move.color, move.one, "drawn")
        return _finish(w, state.rounds_dealt)
    if isinstance(move, Keep):
        if state.phase != "drawn":
            raise _illegal("wrong_phase", "keep follows a draw with if_playable ask")
        w = _Work(state)
        w.moves_this_round += 1
        w.emit("kept", {"seat": seat})
        w.start_turn(w.next_seat(seat))
        return _finish(w, state.rounds_dealt)
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
        raise _illegal("not_identical", "a jump-in needs a card identical to the top card")
    if move.card not in state.hands[seat]:
        raise _illegal("card_not_in_hand", "you do not hold that card")
    w = _Work(state)
    w.moves_this_round += 1
    w.drawn = None  # a jump-in during `drawn` cancels the choice; the drawer keeps the card
    w.place(seat, move.card, None, move.one, "jump_in")
    return _finish(w, state.rounds_dealt)


def timeout(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """The default move of §2.7.4 for the awaited seat whose clock ran out."""
    if seat not in awaiting(state):
        raise NotAwaited("that seat is not awaited")
    w = _Work(state)
    w.moves_this_round += 1
    if state.phase == "drawn":
        w.emit("kept", {"seat": seat})
        w.start_turn(w.next_seat(seat))
    elif w.can_supply():
        w.draw(seat, 1, "timeout")
        w.emit("kept", {"seat": seat})
        w.start_turn(w.next_seat(seat))
    elif w.holds_match(seat):  # an absent player cannot end the round
        w.emit("skipped", {"seat": seat, "cause": "timeout_no_draw"})
        w.start_turn(w.next_seat(seat))
    else:
        w.end_round("exhausted", None)
    return _finish(w, state.rounds_dealt)


def resign(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """§0.6: the seat leaves the rotation and its hand is set aside; one seat left wins."""
    if state.phase == "game_over" or not state.active[seat]:
        raise NotAwaited("that seat has already left the game")
    w = _Work(state)
    w.aside = w.aside + w.hands[seat]
    w.hands[seat] = ()
    w.one_called[seat] = False
    w.active = tuple(a and s != seat for s, a in enumerate(w.active))
    w.victims = tuple(v for v in w.victims if v != seat)
    w.emit("resigned", {"seat": seat})
    if sum(w.active) == 1:
        w.end_game("resignation")
        return w.freeze(), tuple(w.effects)
    if seat == state.dealer:
        w.dealer = w.next_seat(seat)
    if seat == state.current:
        w.emit("skipped", {"seat": seat, "cause": "resigned"})
        w.start_turn(w.next_seat(seat))
    return w.freeze(), tuple(w.effects)


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


# --- queries --------------------------------------------------------------------------------


def _pile_can_supply(state: State) -> bool:
    """`_Work.can_supply` without building a scratch copy (for `legal_moves`)."""
    mode = state.config.reshuffle
    allowed = mode == "unlimited" or (mode == "once" and state.reshuffles_used == 0)
    return bool(state.draw_pile) or (allowed and len(state.discard) >= 2)


def _one(hand_size_after: int) -> bool | None:
    """The `one` flag `legal_moves` puts on a card-laying move (§2.8)."""
    return True if hand_size_after == 1 else None


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
        if not can_play or _pile_can_supply(state):
            one_after_draw = _one(len(hand))
            out += [Draw("ask"), Draw("keep")] + [Draw("play", c, one_after_draw) for c in COLORS]
        return out
    if cfg.jump_in and top not in WILDS and seat != state.top_by and seat not in state.victims_of_top and top in hand:
        out.append(JumpIn(top, state.place_seq, _one(len(hand) - 1)))
    return out


class SeatView(TypedDict):
    seat: int
    hand_count: int
    one: bool
    total: int
    active: bool


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
    top: JSON
    discard: list[str]
    returned: list[str]
    draw_pile_count: int
    reshuffles_left: int | None
    hand: list[str]
    drawn: str | None
    seats: list[SeatView]
    target_score: int
    last_round: JSON | None
    victims_of_top: list[int]
    moves_this_round: int
    end_reason: str | None
    options: JSON


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
        # `seq` is the jump-in anchor: send it back as `against_seq` (§2.7.2)
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
        "options": _dump_options(cfg, public=True),
    }


# --- codecs, invariants, bots ---------------------------------------------------------------


def dump_state(state: State) -> JSON:
    """The whole server-side state as JSON (secrets included: never show it to a seat)."""
    return {
        "game": "enka",
        "players": state.config.players,
        "options": _dump_options(state.config, public=False),
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


RULES: Rules[State, Move, Config] = Rules(
    name="enka",
    title="Enka",
    version=1,
    seats=range(2, 9),
    # each round ends within `round_move_cap` records (resignations aside), a match within ROUND_LIMIT rounds
    max_moves=ROUND_LIMIT * MAX_ROUND_MOVE_CAP + 10,
    options=OPTIONS,
    moves=MOVES,
    parse_config=parse_config,
    setup=start,
    awaiting=awaiting,
    legal_moves=legal_moves,
    view=view,
    outcome=outcome,
    apply=apply,
    timeout=timeout,
    resign=resign,
    parse_move=parse_move,
    dump_move=dump_move,
    parse_state=parse_state,
    dump_state=dump_state,
    invariant_violations=invariant_violations,
    determinize=determinize,
    heuristic=heuristic,
)
