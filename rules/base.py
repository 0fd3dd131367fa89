"""The contract every rules engine implements. Pure: no Django, no I/O, no clock, no global RNG.

An engine is a module of top-level pure functions bundled into one `Rules`
record at the bottom of the module. Everything that moves a game on is an
input (`Started`, `Moved`, `TimedOut`, `Resigned`, `Expired`), applied by the
one function `step`; `fallback` says what moves a game on when no awaited
seat can move. The platform (``games.services``) rebuilds a match's state by
folding its records through `step`, asks who is awaited, and shows each seat
its `view`. Engines know seats (0-based ints), never users, and never the
time: a deadline that belongs to the game (EKKO's reaction window) is
announced as a `Timer` and the platform sends `Expired` when it runs out.
``docs/engines.md`` is the guide.

Errors carry a stable machine ``code`` that the API maps to an HTTP status
(``api/exceptions.py``): `InvalidMove` 400, `InvalidOptions` 400,
`NotAwaited` 422, `IllegalMove` 422 (with the page's ``reason``),
`RaceLost` 409. A message never names another seat's hidden cards.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar

Seat = int
JSON = dict[str, Any]
S = TypeVar("S")  # the engine's State
M = TypeVar("M")  # the engine's Move
C = TypeVar("C")  # the engine's Config


# --- errors ---------------------------------------------------------------------------------


class RulesError(Exception):
    """A refusal by the engine. ``code`` is an API contract: never rename one."""

    code = "rules_error"
    #: The game whose engine refused, set by the platform on the way out (its catalogue has the words).
    game: str | None = None

    def __init__(self, message: str, *, reason: str | None = None, params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        #: What a client needs to say ``reason`` in its own words (issue 33): the game's catalogue
        #: (``GET games/{game}/i18n/{lang}``) has ``reason.<reason>`` with these as ``{placeholders}``.
        #: Only what the message itself shows the mover: never anything hidden from that seat.
        self.params = params or {}


class InvalidOptions(RulesError, ValueError):
    """The match options (or the `setup` fixture) are not valid for this game (→ 400)."""

    code = "invalid_options"


class InvalidMove(RulesError, ValueError):
    """The payload is not a move of this game at all (→ 400 ``invalid_move``)."""

    code = "invalid_move"


class NotAwaited(RulesError):
    """The seat is not awaited and the move is not an interrupt it may make (→ 422)."""

    code = "not_awaited"


class RaceLost(RulesError):
    """An interrupt whose anchor no longer names the card on top (→ 409 ``race_lost``)."""

    code = "race_lost"


class IllegalMove(RulesError):
    """Well-formed, but not legal here and now (→ 422). ``reason`` is the page's code."""

    code = "illegal_move"

    def __init__(self, reason: str, message: str, **params: Any) -> None:
        super().__init__(message, reason=reason, params=params)


# --- values ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Effect:
    """Something that happened during a transition. ``to=None`` means everyone, spectators included.

    An effect that announces a game timer (EKKO's ``reaction_opened``) carries
    ``"deadline": None`` in its data; the platform writes the absolute time in
    before the record is stored.
    """

    kind: str
    data: Mapping[str, Any]
    to: frozenset[Seat] | None = None

    def visible_to(self, seat: Seat | None) -> bool:
        return self.to is None or (seat is not None and seat in self.to)

    def to_json(self) -> JSON:
        return {
            "kind": self.kind,
            "data": dict(self.data),
            "to": None if self.to is None else sorted(self.to),
        }


@dataclass(frozen=True, slots=True)
class Outcome:
    """The final result (``result`` in docs/api.md)."""

    winners: frozenset[Seat]
    ranking: tuple[frozenset[Seat], ...]  # best first; tied seats share a group
    scores: tuple[int, ...]  # indexed by seat; each page says whether higher is better
    reason: str  # one of the rules page's result reasons
    extra: Mapping[str, Any] = field(default_factory=dict)  # a page's added members (Ecos)

    @property
    def rematch(self) -> bool:
        """The page asks for a rematch at once (EKKO's tie under ``tie_policy: "rematch"``)."""
        return self.extra.get("rematch") in ("automatic", True)

    def to_json(self) -> JSON:
        return {
            "winners": sorted(self.winners),
            "ranking": [sorted(group) for group in self.ranking],
            "scores": list(self.scores),
            "reason": self.reason,
            **self.extra,
        }


@dataclass(frozen=True, slots=True)
class Timer:
    """A deadline that belongs to the game, not to a seat's clock (EKKO's reaction window).

    ``key`` names this timer's instance: while `Rules.timer` keeps returning
    the same key the deadline stands; a new key starts a new countdown.
    """

    key: str
    seconds: int


OptionType = Literal["integer", "boolean", "string", "seat_or_random", "object"]


@dataclass(frozen=True, slots=True)
class Option:
    """One match option, as the catalogue (``GET games``) describes it."""

    name: str
    type: OptionType
    default: Any
    description: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[Any, ...] | None = None
    restricted: bool = False  # `setup`: test settings or staff only, and the match is unrated
    shape: Any = None  # an `object` option's Python type (``list[int]``), for the OpenAPI document

    def to_json(self) -> JSON:
        out: JSON = {"name": self.name, "type": self.type, "default": self.default, "description": self.description}
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.restricted:
            out["restricted"] = True
        return out


FieldType = Literal["integer", "string", "boolean", "integer_list", "string_list", "object", "object_list"]


@dataclass(frozen=True, slots=True)
class MoveField:
    """One member of a move object, for the OpenAPI document (the engine validates for real)."""

    name: str
    type: FieldType
    description: str = ""
    required: bool = True
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False  # null is a value (Ekö's ``emperor_swap`` ``with``)
    shape: Any = None  # an object's (or each object item's) TypedDict, for the OpenAPI document


@dataclass(frozen=True, slots=True)
class MoveSpec:
    """One move type: ``{"type": <type>, <fields>…}``."""

    type: str
    description: str
    fields: tuple[MoveField, ...] = ()


# --- the record of pure functions -----------------------------------------------------------


def _no_timer(state: Any) -> Timer | None:
    return None


def _author_public(move: Any) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Rules(Generic[S, M, C]):
    """A game, as a record of pure functions. See the module docstring for the contract."""

    name: str  # the game id: "ekko"
    title: str  # "EKKO"
    version: int  # bump when any existing log would replay differently
    seats: range  # allowed player counts, e.g. range(2, 9)
    max_moves: int  # hard bound on records per match; the contract test enforces termination
    options: tuple[Option, ...] = field(repr=False)
    moves: tuple[MoveSpec, ...] = field(repr=False)
    # setup
    parse_config: Callable[[JSON, int], C] = field(repr=False)  # (options, players) → config; InvalidOptions
    setup: Callable[[C, int], tuple[S, tuple[Effect, ...]]] = field(repr=False)  # (config, seed) → deal + effects
    # queries
    awaiting: Callable[[S], frozenset[Seat]] = field(repr=False)  # empty iff the game is over
    legal_moves: Callable[[S, Seat], Sequence[M]] = field(repr=False)  # concrete, deterministic order
    view: Callable[[S, Seat | None, str | None], Mapping[str, Any]] = field(repr=False)  # (state, viewer, deadline ISO)
    outcome: Callable[[S], Outcome | None] = field(repr=False)  # None while playing
    # transitions (each returns the new state and what happened; the input state is never mutated)
    apply: Callable[[S, Seat, M], tuple[S, tuple[Effect, ...]]] = field(repr=False)
    timeout: Callable[[S, Seat], tuple[S, tuple[Effect, ...]]] = field(repr=False)  # default move on a clock
    resign: Callable[[S, Seat], tuple[S, tuple[Effect, ...]]] = field(repr=False)
    # codecs
    parse_move: Callable[[JSON], M] = field(repr=False)  # raises InvalidMove
    dump_move: Callable[[M], JSON] = field(repr=False)
    parse_state: Callable[[JSON], S] = field(repr=False)
    dump_state: Callable[[S], JSON] = field(repr=False)
    invariant_violations: Callable[[S], list[str]] = field(repr=False)  # [] when healthy
    # bots: they see only `view` and rebuild a full state by sampling what it hides
    determinize: Callable[[JSON, Seat, random.Random], S] = field(repr=False)
    heuristic: Callable[[S, Seat], float] = field(repr=False)  # one-ply evaluation for `greedy`
    # optional hooks
    timer: Callable[[S], Timer | None] = field(default=_no_timer, repr=False)
    expire: Callable[[S], tuple[S, tuple[Effect, ...]]] | None = field(default=None, repr=False)
    clocked: Callable[[S], frozenset[Seat]] | None = field(default=None, repr=False)  # default: awaiting
    author_hidden: Callable[[M], bool] = field(default=_author_public, repr=False)  # EKKO `pass`
    # The only move types `author_hidden` can be true of (None: any); a log's reader parses no other
    author_hidden_types: frozenset[str] | None = field(default=None, repr=False)

    def hides_author_of(self, move: JSON) -> bool:
        """`author_hidden` of a recorded move: parsed only for a game that hides an author, and only
        when its type is one that can hide it (`author_hidden_types`): a log's reader asks of every
        other seat's move, and parsing each was a tenth of ``GET events`` (issue 31)."""
        if self.author_hidden is _author_public:
            return False
        if self.author_hidden_types is not None and move.get("type") not in self.author_hidden_types:
            return False
        return self.author_hidden(self.parse_move(move))

    def option(self, name: str) -> Option:
        return next(o for o in self.options if o.name == name)

    def clocked_seats(self, state: S) -> frozenset[Seat]:
        """The awaited seats whose clocks run now (EKKO's window pauses them)."""
        return self.clocked(state) if self.clocked is not None else self.awaiting(state)


# --- inputs: everything that moves a game on, and the one function that applies them ---------


@dataclass(frozen=True, slots=True)
class Started:
    """The table is full: deal (the `started` record)."""

    config: Any
    seed: int
    record: ClassVar[str] = "started"


@dataclass(frozen=True, slots=True)
class Moved:
    """A seat's move (the `move` record); ``move`` is the engine's parsed move value."""

    seat: Seat
    move: Any
    record: ClassVar[str] = "move"


@dataclass(frozen=True, slots=True)
class TimedOut:
    """A seat's clock ran out: the page's default move (the `timeout` record)."""

    seat: Seat
    record: ClassVar[str] = "timeout"


@dataclass(frozen=True, slots=True)
class Resigned:
    """A seat resigned, or forfeited on time (the `resigned` record)."""

    seat: Seat
    record: ClassVar[str] = "resigned"


@dataclass(frozen=True, slots=True)
class Expired:
    """The game's own timer ran out (the `expired` record; EKKO's reaction window)."""

    record: ClassVar[str] = "expired"


Input = Started | Moved | TimedOut | Resigned | Expired
INPUT_RECORDS = frozenset(cls.record for cls in (Started, Moved, TimedOut, Resigned, Expired))


def step(rules: Rules[S, M, C], state: S | None, given: Input) -> tuple[S, tuple[Effect, ...]]:
    """Apply one input: the only place that maps an input to an engine function.

    ``state`` is None before `Started`. Raises the engine's `RulesError`s for a refused move.
    """
    if isinstance(given, Started):
        return rules.setup(given.config, given.seed)
    assert state is not None, "a game input before the start"
    if isinstance(given, Moved):
        return rules.apply(state, given.seat, given.move)
    if isinstance(given, TimedOut):
        return rules.timeout(state, given.seat)
    if isinstance(given, Resigned):
        return rules.resign(state, given.seat)
    if rules.expire is None:
        raise ValueError(f"{rules.name} has no game timer to expire")
    return rules.expire(state)


def fallback(rules: Rules[S, M, C], state: S) -> Input | None:
    """What moves the game on when no awaited seat can move: None while one can.

    The game timer expires if there is one (the answered seats of EKKO's window wait for it),
    otherwise the lowest awaited seat times out (its page's default move). None once the game
    is over. Bots' playouts, the benchmarks and the contract test all use this.
    """
    awaiting = rules.awaiting(state)
    if not awaiting or any(rules.legal_moves(state, seat) for seat in awaiting):
        return None
    if rules.expire is not None and rules.timer(state) is not None:
        return Expired()
    return TimedOut(min(awaiting))


def put(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """A copy of ``items`` with ``items[index] = value``.

    >>> put((1, 2, 3), 1, 9)
    (1, 9, 3)
    """
    return items[:index] + (value,) + items[index + 1 :]


def rank_groups(keys: Sequence[Any], seats: Sequence[Seat]) -> tuple[frozenset[Seat], ...]:
    """Group ``seats`` by equal ``keys[seat]``, in ascending key order (ties share a group).

    >>> rank_groups([3, 1, 3], [0, 1, 2])
    (frozenset({1}), frozenset({0, 2}))
    """
    groups: dict[Any, set[Seat]] = {}
    for seat in seats:
        groups.setdefault(keys[seat], set()).add(seat)
    return tuple(frozenset(groups[k]) for k in sorted(groups))


# --- what an input revealed: the leak oracle behind undo and takeback ---------------------------

UndoBlock = Literal["revealed", "random"]
UNDO_SAMPLES = 8  # worlds sampled per seat: a reveal shows in one of them with near certainty


def _seen(rules: Rules[Any, Any, Any], state: Any, seat: Seat) -> str:
    return json.dumps(rules.view(state, seat, None), sort_keys=True, default=list)


def undo_blocker(
    rules: Rules[S, M, C], before: S, given: Input, after: S, players: int, seed: int = 0
) -> UndoBlock | None:
    """Whether taking ``given`` back (``before`` → ``after``) would leave a seat knowing what the
    game hid from it: None when it is safe, else why not.

    Computed for every engine alike from what each seat sees, by sampling for each seat the full
    states consistent with its view before (``determinize``):

    - ``random``: the same input gives the author another view in a world it held possible (a
      draw, a shuffle: chance or a hidden pile it could not predict);
    - ``revealed``: the author holds something another seat cannot see (a hand) and that seat saw
      the input happen: what the author chose to do, and could do, tells it about what it holds.
      (A world where the input is impossible, or gives the seat another view, is the same finding.)
      This is deliberately conservative: sampling can prove that something was shown, never that
      nothing was, so in the card games most inputs are refused.
    - None: a perfect-information step (Ekö's open board) gives every seat the same view in every
      world: safe.
    """
    gen = random.Random(seed)
    author = getattr(given, "seat", None)
    author_view = _seen(rules, before, author) if author is not None else None
    for seat in range(players):
        seen_after = _seen(rules, after, seat)
        seen_before = _seen(rules, before, seat)
        view_before = json.loads(seen_before)
        for _ in range(UNDO_SAMPLES):
            world = rules.determinize(view_before, seat, gen)
            hidden = seat != author and author is not None and _seen(rules, world, author) != author_view
            if hidden and seen_after != seen_before:
                return "revealed"  # the author holds what this seat cannot see, and it saw the input
            try:
                world_after, _ = step(rules, world, given)
            except RulesError:
                return "revealed"  # the input was impossible in a world this seat held possible
            if _seen(rules, world_after, seat) != seen_after:
                return "random" if seat == author else "revealed"
    return None
