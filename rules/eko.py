"""Ekö — stacks of discs, hidden Emperors and buildings on a desert of hex tiles (2–4 players).

Rules summary (the rules as implemented: docs/rules/eko.md; every § below is a section of that page):
- Board (§A3): 7/10/13 large 7-hex tiles on fixed macro positions; `standard` layout (tile Tk on position k,
  rotation 0) or `random` (seeded permutation and rotations, redrawn until the sand is connected (V1) and every
  construction space touches sand (V2), up to 100 tries, then `standard`). Sand = 16 × players.
- Setup (§A4): 16 discs per seat (one Emperor) shuffled onto every sand space, colours drawn afterwards, a random
  first seat, then a blind simultaneous `emperor_swap` (answers hidden until every seat has answered).
- Turn (§A5): one action (`move`: simple / regroup / attack / kamikaze, or `construct`), then `post_action`
  (`forced_march`: box 3 plain reserve discs for a second action, once per turn; or `end_actions`), then a
  mandatory `reinforce` of 1–3 reserve discs onto one own stack not next to an enemy building, Emperor first.
  Prompts that cannot be answered are skipped by the server (`no_legal_action`, no march, no reinforcement).
- Checks after every action (§A6.4): VP victory (≥ 12 VP and a building on a capital, before any exchange),
  the Emperor exchange, elimination, last standing / mutual wipe-out. The turn cap ends the game at the end of
  turn `max_turns` (most VP, then most discs on board, else a draw).
- Resignation (§A5.5): 2 players → the opponent wins; 3–4 → the seat becomes inert, and the last seat standing
  that is neither resigned nor eliminated wins.
- Perfect information (§A9) except the other seats' `emperor_swap` answers until the prompt closes.

Invariants (see `invariant_violations`): for every seat,
``16 = discs_on_board + reserve.discs + boxed + (1 if its Emperor is imprisoned)``; each Emperor is in exactly
one place (one own stack, its own reserve, or another seat's prison); stacks hold 1–4 discs and stand only on
sand; buildings stand only where their terrain allows and never exceed 5/3/1 per seat.

Choices where the rules leave room (each marked [D]/[I] at its line; docs/rules/eko.md lists them too):
- the turn cap is applied when turn `max_turns` is over (after its reinforcement), not mid-turn;
- a timeout default never sacrifices the Emperor, and falls back to the Emperor's simple moves, then any build;
- a seat that empties its own board (construction or kamikaze) is eliminated and its turn ends at once;
- the wipe-out winner is chosen among the seats that were still playing; exchanges skip resigned seats;
- `max_turns` is capped at 1000 so that `max_moves` bounds every match; `setup` on a `random` layout is checked
  against the seed's board in `setup` (the board is unknown to `parse_config`);
- the view adds `first` (the seat that will open, public during the swap) and `result`.

Internally a space is an index into the board's canonical order (sort by r, then q, §0.4); moves keep the
``"q,r"`` strings the API uses, so that every listed move can be sent back unchanged.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, ClassVar, Literal, Required, TypedDict, get_args

from rules.base import (
    JSON,
    Effect,
    IllegalMove,
    InvalidMove,
    InvalidOptions,
    NotAwaited,
    Option,
    Outcome,
    Rules,
    Seat,
    put,
    rank_groups,
)
from rules.kit import Draft, MoveCodec, arg, parse_options
from rules.rng import randbelow, rng, sample, shuffled

# --- 1. constants ----------------------------------------------------------------------------

GAME = "eko"
SEATS = range(2, 5)  # §A1: 2–4 players
COLORS = ("sky", "ink", "violet", "grey")  # §A2, in the disc-list order of §A4.2
DISCS_PER_SEAT = 16  # §A2: 1 Emperor + 15 plain discs
STACK_MAX = 4  # §A5.1: stacks of at most 4
REINFORCE_MAX = 3  # §A5.4
FORCED_MARCH_COST = 3  # §A5.3
WIN_VP = 12  # §A6.4.1
PRISONER_VP = 3  # §A2
MAX_TURNS_DEFAULT = 400  # §A4.1
MAX_TURNS_LIMIT = 1000  # [D] upper bound of the option, so that `max_moves` is a real bound

# §0.4: neighbour order d0…d5 (E, NE, NW, W, SW, SE).
DIRS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

SAND, CHASM, REG, GORGE, CAPITAL, MOUNTAIN = "sand", "chasm", "reg", "gorge", "capital", "mountain"
S = SAND
# §A3.1: [centre, d0, d1, d2, d3, d4, d5].
TILES: dict[str, tuple[str, ...]] = {
    "T01": (CAPITAL, S, S, S, S, S, S),
    "T02": (S, MOUNTAIN, S, S, REG, S, S),
    "T03": (S, S, GORGE, S, S, CHASM, S),
    "T04": (S, REG, S, GORGE, S, CHASM, S),
    "T05": (S, S, MOUNTAIN, S, REG, S, REG),
    "T06": (S, GORGE, S, REG, S, CHASM, S),
    "T07": (S, S, GORGE, S, CHASM, S, REG),
    "T08": (CAPITAL, S, S, S, S, S, S),
    "T09": (S, MOUNTAIN, S, S, CHASM, S, S),
    "T10": (S, S, GORGE, S, S, REG, S),
    "T11": (CAPITAL, S, S, S, S, S, S),
    "T12": (S, S, S, MOUNTAIN, S, S, REG),
    "T13": (S, GORGE, S, S, CHASM, S, S),
}
TILE_COUNT = {2: 7, 3: 10, 4: 13}  # §A3.1 "used from"
# §A3.2 macro positions.
_POS2 = ((0, 0), (1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
_POS3 = (*_POS2, (1, 1), (-2, 1), (1, -2))
_POS4 = (*_POS3, (-1, 2), (2, -1), (-1, -1))
POSITIONS = {2: _POS2, 3: _POS3, 4: _POS4}
LAYOUT_TRIES = 100  # §A3.3

BuildingKind = Literal["camp", "tower", "castle"]
BUILDINGS: tuple[BuildingKind, ...] = get_args(BuildingKind)
VALUE = {"camp": 1, "tower": 2, "castle": 3}  # §A2: VP, and the construction cost (§A5.2.3)
SUPPLY = {"camp": 5, "tower": 3, "castle": 1}  # §A2
# §A2.1: which buildings each construction space allows.
ALLOWED: dict[str, tuple[BuildingKind, ...]] = {
    REG: ("camp",),
    GORGE: ("camp", "tower"),
    CAPITAL: ("camp", "tower"),
    MOUNTAIN: ("camp", "tower", "castle"),
}
CONSTRUCTION = frozenset(ALLOWED)

Phase = Literal["emperor_swap", "action", "action2", "post_action", "reinforcement", "finished"]
SetupPhase = Literal["emperor_swap", "action", "action2", "post_action", "reinforcement"]  # §A4.1 `setup.phase`
SETUP_PHASES: tuple[SetupPhase, ...] = get_args(SetupPhase)
Status = Literal["active", "eliminated", "resigned"]
Expect = Literal["simple", "regroup", "attack", "kamikaze"]
EXPECTS: tuple[Expect, ...] = get_args(Expect)
Reason = Literal["vp_with_palace", "last_standing", "resignation", "turn_cap", "wipeout"]  # §A7

# --- 2. values -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Placement:
    """One large tile on the board: its name, macro position (i, j) and rotation k (§A3.2)."""

    tile: str
    i: int
    j: int
    rot: int


@dataclass(frozen=True, slots=True)
class Board:
    """The static board: spaces in canonical order with their types and neighbours."""

    players: int
    layout: str
    tiles: tuple[Placement, ...]
    keys: tuple[str, ...] = field(compare=False, repr=False)
    types: tuple[str, ...] = field(compare=False, repr=False)
    index: dict[str, int] = field(compare=False, repr=False)
    nbrs: tuple[tuple[int, ...], ...] = field(compare=False, repr=False)
    sand_nbrs: tuple[tuple[int, ...], ...] = field(compare=False, repr=False)
    sand: tuple[int, ...] = field(compare=False, repr=False)
    construction: tuple[int, ...] = field(compare=False, repr=False)
    is_sand: tuple[bool, ...] = field(compare=False, repr=False)

    def __hash__(self) -> int:
        return hash((self.players, self.layout, self.tiles))


@dataclass(frozen=True, slots=True)
class Stack:
    """A stack of one seat's discs; ``emperor`` when its owner's Emperor is among them."""

    owner: int
    height: int
    emperor: bool = False


@dataclass(frozen=True, slots=True)
class Building:
    """A camp, tower or castle of one seat."""

    owner: int
    kind: str


@dataclass(frozen=True, slots=True)
class SeatState:
    """Per-seat public data; supplies and VP are derived from the board."""

    color: str
    status: Status = "active"
    reserve: int = 0  # counts the Emperor when it is in the reserve (§A2)
    reserve_emperor: bool = False
    boxed: int = 0
    prisoners: tuple[int, ...] = ()  # owners of the Emperors this seat holds, sorted


@dataclass(frozen=True, slots=True)
class SwapAnswer:
    """A seat's answer to `emperor_swap`: the space of the plain disc to swap with, or None (keep)."""

    target: int | None


@dataclass(frozen=True, slots=True)
class Result:
    """How the game ended."""

    reason: Reason
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class State:
    """A whole Ekö position. ``stacks``/``buildings`` are indexed by board space."""

    board: Board
    max_turns: int
    stacks: tuple[Stack | None, ...]
    buildings: tuple[Building | None, ...]
    seats: tuple[SeatState, ...]
    phase: Phase
    active: int
    first: int
    turn: int
    actions_taken: int = 0
    forced_march_used: bool = False
    swap: tuple[SwapAnswer | None, ...] = ()
    result: Result | None = None


@dataclass(frozen=True, slots=True)
class Setup:
    """The `setup` test fixture of §A4.1, parsed (keys still unchecked against a random board)."""

    stacks: tuple[tuple[str, Stack], ...]
    buildings: tuple[tuple[str, Building], ...]
    reserve: tuple[tuple[int, bool], ...]
    prisoners: tuple[tuple[int, ...], ...]
    colors: tuple[str, ...]
    active: int
    phase: SetupPhase
    turn: int


@dataclass(frozen=True, slots=True)
class Config:
    """Match options (§A4.1)."""

    players: int
    layout: Literal["random", "standard"]
    max_turns: int
    setup: Setup | None


def key_of(q: int, r: int) -> str:
    """The JSON key of a space (§0.4).

    >>> key_of(-2, 3)
    '-2,3'
    """
    return f"{q},{r}"


_KEY_RE = re.compile(r"^-?\d{1,3},-?\d{1,3}$")
_KEY_FIELD = "a space key 'q,r'"


def _space(value: Any) -> str:
    """A move's space member, normalised (``"0,01"`` → ``"0,1"``); raises `InvalidMove`."""
    if not isinstance(value, str) or not _KEY_RE.match(value):
        raise InvalidMove(f"{value!r} is not a 'q,r' space key")
    q, r = value.split(",")
    return key_of(int(q), int(r))


def _count(value: Any) -> int:
    """`reinforce`'s ``count``: any integer parses; the range is a rule (`count_out_of_range`, §A5.4)."""
    if type(value) is not int:
        raise InvalidMove("`reinforce`: `count` must be an integer")
    return value


@dataclass(frozen=True, slots=True)
class EmperorSwap:
    """`{"type": "emperor_swap", "with": "q,r" | null}` (§A4.6)."""

    TYPE: ClassVar[str] = "emperor_swap"
    DESCRIPTION: ClassVar[str] = "Blind Emperor swap with one of your plain discs, or keep (with: null)"
    with_: str | None = arg(_KEY_FIELD + " or null", parse=_space)


@dataclass(frozen=True, slots=True)
class MoveStack:
    """`{"type": "move", "from", "to", "expect"?}` (§A5.1)."""

    TYPE: ClassVar[str] = "move"
    DESCRIPTION: ClassVar[str] = "Move a whole stack: simple move, regroup, attack or kamikaze"
    from_: str = arg(_KEY_FIELD, parse=_space)
    to: str = arg(_KEY_FIELD, parse=_space)
    expect: Expect | None = arg("what the server must compute", default=None)  # noqa: RUF009 (a field spec)


@dataclass(frozen=True, slots=True)
class Construct:
    """`{"type": "construct", "space", "building", "from_stack", "sacrifice_emperor"?}` (§A5.2)."""

    TYPE: ClassVar[str] = "construct"
    DESCRIPTION: ClassVar[str] = "Build, upgrade or replace a building, paid from one adjacent own stack"
    space: str = arg(_KEY_FIELD, parse=_space)
    building: BuildingKind = arg("camp, tower or castle")  # noqa: RUF009 (kit.arg is a dataclasses.field)
    from_stack: str = arg(_KEY_FIELD + ": the adjacent own stack that pays", parse=_space)
    sacrifice_emperor: bool = arg("pay with the Emperor", default=False)


@dataclass(frozen=True, slots=True)
class ForcedMarch:
    """`{"type": "forced_march"}` (§A5.3)."""

    TYPE: ClassVar[str] = "forced_march"
    DESCRIPTION: ClassVar[str] = "Box 3 plain reserve discs for a second action"


@dataclass(frozen=True, slots=True)
class EndActions:
    """`{"type": "end_actions"}` (§A5.3)."""

    TYPE: ClassVar[str] = "end_actions"
    DESCRIPTION: ClassVar[str] = "Go on to reinforcement"


@dataclass(frozen=True, slots=True)
class Reinforce:
    """`{"type": "reinforce", "stack", "count", "include_emperor"?}` (§A5.4)."""

    TYPE: ClassVar[str] = "reinforce"
    DESCRIPTION: ClassVar[str] = "Put 1–3 reserve discs onto one own stack, the Emperor first"
    stack: str = arg(_KEY_FIELD, parse=_space)
    # The bounds document the rule; `_count` leaves the check to `apply` (422 `count_out_of_range`).
    count: int = arg(
        "discs to add: at most 3, the reserve, and 4 minus the stack's height",
        minimum=1,
        maximum=REINFORCE_MAX,
        parse=_count,
    )
    include_emperor: bool = arg("the Emperor is among them (required when it is in the reserve)", default=False)


Move = EmperorSwap | MoveStack | Construct | ForcedMarch | EndActions | Reinforce


class StackView(TypedDict):
    owner: int
    height: int
    emperor: bool


class BuildingView(TypedDict):
    owner: int
    kind: str


class SpaceView(TypedDict, total=False):
    """Sand has ``stack``, a construction space ``building`` (each null when empty), a chasm neither."""

    type: Required[str]
    stack: StackView | None
    building: BuildingView | None


class TileView(TypedDict):
    tile: str
    pos: list[int]
    rot: int


class BoardView(TypedDict):
    layout: str
    tiles: list[TileView]
    spaces: dict[str, SpaceView]


class ReserveView(TypedDict):
    discs: int
    emperor: bool


class SeatView(TypedDict):
    seat: int
    color: str
    status: str
    reserve: ReserveView
    boxed: int
    supply: dict[str, int]
    prisoners: list[int]
    discs_on_board: int
    vp: int
    has_palace: bool


class PromptView(TypedDict):
    type: str
    seats: list[int]


class TurnStateView(TypedDict):
    actions_taken: int
    forced_march_used: bool


AnswerView = TypedDict("AnswerView", {"with": str | None})


class SwapView(TypedDict):
    answered: list[int]
    mine: AnswerView | None  # the viewer's own answer only (§A9)


class ResultView(TypedDict):
    reason: str
    winners: list[int]


class EkoView(TypedDict):
    game: str
    turn: int
    phase: str
    active: int | None
    first: int
    prompt: PromptView | None
    turn_state: TurnStateView
    board: BoardView
    seats: list[SeatView]
    emperor_swap: SwapView | None
    max_turns: int
    result: ResultView | None


# --- 3. setup --------------------------------------------------------------------------------


def _cells(placements: tuple[Placement, ...]) -> dict[tuple[int, int], str]:
    """Space types of placed tiles (§A3.2)."""
    cells: dict[tuple[int, int], str] = {}
    for p in placements:
        cq, cr = 2 * p.i - p.j, p.i + 3 * p.j
        content = TILES[p.tile]
        cells[(cq, cr)] = content[0]
        for x in range(6):
            dq, dr = DIRS[(x + p.rot) % 6]
            cells[(cq + dq, cr + dr)] = content[1 + x]
    return cells


@lru_cache(maxsize=256)
def make_board(players: int, layout: str, tiles: tuple[Placement, ...]) -> Board:
    """Build the `Board` of some placed tiles (cached: boards are immutable and few)."""
    cells = _cells(tiles)
    coords = sorted(cells, key=lambda c: (c[1], c[0]))  # §0.4 canonical order
    keys = tuple(key_of(q, r) for q, r in coords)
    index = {k: i for i, k in enumerate(keys)}
    pos = {c: i for i, c in enumerate(coords)}
    types = tuple(cells[c] for c in coords)
    nbrs = tuple(tuple(pos[(q + dq, r + dr)] for dq, dr in DIRS if (q + dq, r + dr) in pos) for q, r in coords)
    is_sand = tuple(t == SAND for t in types)
    return Board(
        players=players,
        layout=layout,
        tiles=tiles,
        keys=keys,
        types=types,
        index=index,
        nbrs=nbrs,
        sand_nbrs=tuple(tuple(n for n in ns if is_sand[n]) for ns in nbrs),
        sand=tuple(i for i, t in enumerate(types) if t == SAND),
        construction=tuple(i for i, t in enumerate(types) if t in CONSTRUCTION),
        is_sand=is_sand,
    )


def standard_tiles(players: int) -> tuple[Placement, ...]:
    """§A3.3 `standard`: tile Tk on position k, rotation 0."""
    return tuple(Placement(f"T{k + 1:02d}", i, j, 0) for k, (i, j) in enumerate(POSITIONS[players]))


def board_valid(board: Board) -> bool:
    """V1 (sand connected) and V2 (every construction space touches sand) of §A3.3."""
    if not board.sand:
        return False
    seen = {board.sand[0]}
    todo = [board.sand[0]]
    while todo:
        for n in board.sand_nbrs[todo.pop()]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    if len(seen) != len(board.sand):
        return False
    return all(board.sand_nbrs[c] for c in board.construction)


def build_board(players: int, layout: str, seed: int) -> Board:
    """The board of a match (§A3.3); a random layout draws from `rng(seed, "layout", try)`."""
    if layout == "random":
        names = [f"T{k + 1:02d}" for k in range(TILE_COUNT[players])]
        for attempt in range(LAYOUT_TRIES):
            gen = rng(seed, "layout", attempt)
            perm = sample(names, len(names), gen)
            tiles = tuple(
                Placement(name, i, j, randbelow(gen, 6)) for name, (i, j) in zip(perm, POSITIONS[players], strict=True)
            )
            board = make_board(players, "random", tiles)
            if board_valid(board):
                return board
        return make_board(players, "random", standard_tiles(players))  # §A3.3 fallback
    return make_board(players, "standard", standard_tiles(players))


def _parse_key_text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not _KEY_RE.match(value):
        raise InvalidOptions(f"{what}: {value!r} is not a 'q,r' key")
    q, r = value.split(",")
    return key_of(int(q), int(r))


def _int(value: Any, what: str, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
        raise InvalidOptions(f"{what} must be an integer in [{lo}, {hi if hi is not None else '∞'}]")
    return int(value)


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidOptions(f"{what} must be a boolean")
    return value


def _obj(value: Any, what: str, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidOptions(f"{what} must be an object")
    unknown = set(value) - allowed
    if unknown:
        raise InvalidOptions(f"{what}: unknown member(s) {sorted(unknown)}")
    return value


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidOptions(f"{what} must be an object keyed by space")
    return value


def _parse_setup(raw: Any, players: int) -> Setup:
    """Parse the `setup` object of §A4.1 (shape and per-seat counts; board checks come later)."""
    top = _obj(raw, "setup", {"stacks", "buildings", "reserve", "prisoners", "colors", "active", "phase", "turn"})
    seat_hi = players - 1
    stacks = []
    for key, st in sorted(_mapping(top.get("stacks", {}), "setup.stacks").items()):
        st = _obj(st, f"setup.stacks[{key}]", {"owner", "height", "emperor"})
        stacks.append(
            (
                _parse_key_text(key, "setup.stacks"),
                Stack(
                    _int(st.get("owner"), "stack owner", 0, seat_hi),
                    _int(st.get("height"), "stack height", 1, STACK_MAX),
                    _bool(st.get("emperor", False), "stack emperor"),
                ),
            )
        )
    buildings = []
    for key, b in sorted(_mapping(top.get("buildings", {}), "setup.buildings").items()):
        b = _obj(b, f"setup.buildings[{key}]", {"owner", "kind"})
        if b.get("kind") not in BUILDINGS:
            raise InvalidOptions(f"setup.buildings[{key}]: unknown kind {b.get('kind')!r}")
        buildings.append(
            (_parse_key_text(key, "setup.buildings"), Building(_int(b.get("owner"), "owner", 0, seat_hi), b["kind"]))
        )
    reserve_raw = top.get("reserve", [{"discs": 0, "emperor": False}] * players)
    if not isinstance(reserve_raw, list) or len(reserve_raw) != players:
        raise InvalidOptions("setup.reserve must list one reserve per seat")
    reserve = []
    for k, res in enumerate(reserve_raw):
        res = _obj(res, f"setup.reserve[{k}]", {"discs", "emperor"})
        discs = _int(res.get("discs", 0), "reserve discs", 0, DISCS_PER_SEAT)
        emp = _bool(res.get("emperor", False), "reserve emperor")
        if emp and discs < 1:
            raise InvalidOptions("a reserve holding the Emperor counts it in `discs`")
        reserve.append((discs, emp))
    prisoners_raw = top.get("prisoners", [[] for _ in range(players)])
    if not isinstance(prisoners_raw, list) or len(prisoners_raw) != players:
        raise InvalidOptions("setup.prisoners must list one prison per seat")
    prisoners = []
    for k, pr in enumerate(prisoners_raw):
        if not isinstance(pr, list):
            raise InvalidOptions("a prison is a list of seats")
        got = tuple(sorted(_int(x, "prisoner", 0, seat_hi) for x in pr))
        if k in got or len(set(got)) != len(got):
            raise InvalidOptions(f"seat {k} cannot hold its own Emperor or one Emperor twice")
        prisoners.append(got)
    colors = top.get("colors", list(COLORS[:players]))
    if (
        not isinstance(colors, list)
        or len(colors) != players
        or len(set(colors)) != players
        or any(c not in COLORS for c in colors)
    ):
        raise InvalidOptions(f"setup.colors must be {players} distinct colours of {COLORS}")
    phase = next((p for p in SETUP_PHASES if p == top.get("phase", "action")), None)
    if phase is None:
        raise InvalidOptions(f"setup.phase must be one of {SETUP_PHASES}")
    return Setup(
        stacks=tuple(stacks),
        buildings=tuple(buildings),
        reserve=tuple(reserve),
        prisoners=tuple(prisoners),
        colors=tuple(colors),
        active=_int(top.get("active", 0), "setup.active", 0, seat_hi),
        phase=phase,
        turn=_int(top.get("turn", 1), "setup.turn", 1),
    )


def _setup_state(config: Config, board: Board) -> State:
    """The explicit position of a `setup` on `board`, checked against the rules (§A4.1)."""
    fixture = config.setup
    assert fixture is not None
    n = config.players
    stacks: list[Stack | None] = [None] * len(board.keys)
    for key, st in fixture.stacks:
        idx = board.index.get(key)
        if idx is None or not board.is_sand[idx]:
            raise InvalidOptions(f"setup: a stack on {key}, which is not a sand space of this board")
        stacks[idx] = st
    buildings: list[Building | None] = [None] * len(board.keys)
    for key, b in fixture.buildings:
        idx = board.index.get(key)
        if idx is None or b.kind not in ALLOWED.get(board.types[idx], ()):
            raise InvalidOptions(f"setup: a {b.kind} on {key}, which does not allow it")
        buildings[idx] = b
    for seat in range(n):
        for kind in BUILDINGS:
            if sum(1 for b in buildings if b is not None and b.owner == seat and b.kind == kind) > SUPPLY[kind]:
                raise InvalidOptions(f"setup: seat {seat} has more than {SUPPLY[kind]} {kind}s")
    seats = []
    for seat in range(n):
        on_board = sum(st.height for st in stacks if st is not None and st.owner == seat)
        on_board_emp = sum(1 for st in stacks if st is not None and st.owner == seat and st.emperor)
        discs, res_emp = fixture.reserve[seat]
        jailed = sum(1 for pr in fixture.prisoners if seat in pr)
        if on_board_emp + int(res_emp) + jailed != 1:
            raise InvalidOptions(f"setup: seat {seat}'s Emperor must be in exactly one place")
        used = on_board + discs + jailed
        if used > DISCS_PER_SEAT:
            raise InvalidOptions(f"setup: seat {seat} has more than {DISCS_PER_SEAT} discs")
        status: Status = "active" if on_board else "eliminated"
        seats.append(
            SeatState(
                color=fixture.colors[seat],
                status=status,
                reserve=discs,
                reserve_emperor=res_emp,
                boxed=DISCS_PER_SEAT - used,
                prisoners=fixture.prisoners[seat],
            )
        )
    alive = [s for s in range(n) if seats[s].status == "active"]
    if len(alive) < 2:
        raise InvalidOptions("setup: at least two seats need discs on the board")
    if seats[fixture.active].status != "active":
        raise InvalidOptions("setup: the active seat has no disc on the board")
    phase = fixture.phase
    if phase == "emperor_swap" and any(
        not any(st is not None and st.owner == s and st.emperor for st in stacks) for s in range(n)
    ):
        raise InvalidOptions("setup: an emperor_swap needs every Emperor on the board")
    state = State(
        board=board,
        max_turns=config.max_turns,
        stacks=tuple(stacks),
        buildings=tuple(buildings),
        seats=tuple(seats),
        phase=phase,
        active=fixture.active,
        first=fixture.active,
        turn=fixture.turn,
        actions_taken=0 if phase in ("action", "emperor_swap") else 1,
        forced_march_used=phase == "action2",
        swap=(None,) * n if phase == "emperor_swap" else (),
    )
    if phase == "emperor_swap":
        return state
    d = Draft(state)
    _advance(d, phase)  # a prompt that cannot be answered is skipped at once (the deal reports nothing)
    return d.state


OPTIONS = (
    Option("layout", "string", "random", "Board layout (§A3.3)", choices=("random", "standard")),
    Option("max_turns", "integer", MAX_TURNS_DEFAULT, "Turn cap (§A6.4)", minimum=1, maximum=MAX_TURNS_LIMIT),
    Option("setup", "object", None, "Explicit test position (§A4.1)", restricted=True),
)


def parse_config(options: JSON, players: int) -> Config:
    """Match options → `Config` (§A4.1); raises `InvalidOptions`."""
    if players not in SEATS:
        raise InvalidOptions("Ekö is for 2 to 4 players")
    values = parse_options(OPTIONS, options, players)
    raw = values["setup"]
    fixture = None if raw is None else _parse_setup(raw, players)
    config = Config(players=players, layout=values["layout"], max_turns=values["max_turns"], setup=fixture)
    if fixture is not None and config.layout == "standard":
        _setup_state(config, build_board(players, "standard", 0))  # refuse a bad setup at creation
    return config


def setup(config: Config, seed: int) -> tuple[State, tuple[Effect, ...]]:
    """§A4: board, discs, colours, first seat, then the Emperor swap (or the `setup` position).

    The deal tells nobody anything: the `started` record has no effects.
    """
    n = config.players
    board = build_board(n, config.layout, seed)
    if config.setup is not None:
        return _setup_state(config, board), ()
    discs = []
    for color in COLORS[:n]:  # §A4.2: per colour, the Emperor then 15 plain discs
        discs.append((color, True))
        discs.extend([(color, False)] * (DISCS_PER_SEAT - 1))
    discs = shuffled(discs, rng(seed, "discs"))
    colors = shuffled(COLORS[:n], rng(seed, "colours"))  # §A4.3
    seat_of = {c: s for s, c in enumerate(colors)}
    first = randbelow(rng(seed, "first"), n)  # §A4.4
    stacks: list[Stack | None] = [None] * len(board.keys)
    for idx, (color, emp) in zip(board.sand, discs, strict=True):
        stacks[idx] = Stack(seat_of[color], 1, emp)
    state = State(
        board=board,
        max_turns=config.max_turns,
        stacks=tuple(stacks),
        buildings=(None,) * len(board.keys),
        seats=tuple(SeatState(color=c) for c in colors),
        phase="emperor_swap",
        active=first,
        first=first,
        turn=1,
        swap=(None,) * n,
    )
    return state, ()


# --- 4. queries ------------------------------------------------------------------------------


def awaiting(state: State) -> frozenset[Seat]:
    """Seats that owe an answer: unanswered swap seats, or the active seat; empty once finished."""
    if state.phase == "finished":
        return frozenset()
    if state.phase == "emperor_swap":
        return frozenset(s for s, a in enumerate(state.swap) if a is None and state.seats[s].status != "resigned")
    return frozenset((state.active,))


@dataclass(frozen=True, slots=True)
class Tally:
    """Per-seat totals read off the board in one pass: discs, building VP, palace, supply left."""

    discs: tuple[int, ...]
    building_vp: tuple[int, ...]
    palace: tuple[bool, ...]
    supply: tuple[dict[str, int], ...]

    def vp(self, state: State, seat: int) -> int:
        """§A6.4.1: building values on the board + 3 per prisoner."""
        return self.building_vp[seat] + PRISONER_VP * len(state.seats[seat].prisoners)


def tally(state: State) -> Tally:
    """Count everything per seat in one pass over the stacks and the construction spaces."""
    n = len(state.seats)
    discs = [0] * n
    for st in state.stacks:
        if st is not None:
            discs[st.owner] += st.height
    building_vp = [0] * n
    palace = [False] * n
    left = [dict(SUPPLY) for _ in range(n)]
    types, buildings = state.board.types, state.buildings
    for i in state.board.construction:
        b = buildings[i]
        if b is not None:
            building_vp[b.owner] += VALUE[b.kind]
            left[b.owner][b.kind] -= 1
            if types[i] == CAPITAL:
                palace[b.owner] = True  # §A2 *Names*: a building on a capital is a palace
    return Tally(tuple(discs), tuple(building_vp), tuple(palace), tuple(left))


def vp(state: State, seat: int) -> int:
    """§A6.4.1: building values on the board + 3 per prisoner."""
    return tally(state).vp(state, seat)


def supply(state: State, seat: int) -> dict[str, int]:
    """Buildings left to place: 5/3/1 minus those on the board (§A4.1)."""
    left = dict(SUPPLY)
    buildings = state.buildings
    for i in state.board.construction:
        b = buildings[i]
        if b is not None and b.owner == seat:
            left[b.kind] -= 1
    return left


def _empty_regions(state: State) -> tuple[list[int], list[list[int]]]:
    """Connected regions of empty sand: region id per space (-1 if none) and their cells."""
    board, stacks = state.board, state.stacks
    comp = [-1] * len(stacks)
    comps: list[list[int]] = []
    for s in board.sand:
        if stacks[s] is None and comp[s] < 0:
            cid = len(comps)
            comp[s] = cid
            cells = [s]
            todo = [s]
            while todo:
                for y in board.sand_nbrs[todo.pop()]:
                    if comp[y] < 0 and stacks[y] is None:
                        comp[y] = cid
                        cells.append(y)
                        todo.append(y)
            comps.append(cells)
    return comp, comps


def _reaches(state: State, origin: int, goals: set[int]) -> bool:
    """Whether a path of empty sand from ``origin`` (`R` of §A5.1) touches ``goals``; stops at the first hit."""
    sand_nbrs, stacks = state.board.sand_nbrs, state.stacks
    todo = [n for n in sand_nbrs[origin] if stacks[n] is None]
    seen = set(todo)
    while todo:
        x = todo.pop()
        if x in goals:
            return True
        for y in sand_nbrs[x]:
            if y not in seen and stacks[y] is None:
                seen.add(y)
                todo.append(y)
    return False


def _classify(mover: Stack, target: Stack) -> Expect | None:
    """What moving ``mover`` onto ``target`` would be (§A5.1), or None when it is not allowed."""
    if target.owner == mover.owner:
        return "regroup" if mover.height + target.height <= STACK_MAX else None
    if mover.height > target.height or (mover.emperor and mover.height >= target.height):
        return "attack"
    if mover.height == 1 and target.height == STACK_MAX:
        return "kamikaze"
    return None


def _move_options(state: State, seat: int) -> list[tuple[int, int, Expect]]:
    """Every legal `move` of ``seat`` as (from, to, kind), in (from, to) canonical order."""
    board, stacks = state.board, state.stacks
    comp, comps = _empty_regions(state)
    borders: dict[int, set[int]] = {}
    out: list[tuple[int, int, Expect]] = []
    for f in board.sand:
        mover = stacks[f]
        if mover is None or mover.owner != seat:
            continue
        dests: dict[int, Expect] = {}
        targets = {n for n in board.sand_nbrs[f] if stacks[n] is not None}
        for cid in {comp[n] for n in board.sand_nbrs[f] if comp[n] >= 0}:
            for x in comps[cid]:
                dests[x] = "simple"
            border = borders.get(cid)
            if border is None:
                border = {y for x in comps[cid] for y in board.sand_nbrs[x] if stacks[y] is not None}
                borders[cid] = border
            targets |= border
        targets.discard(f)
        for t in targets:
            target = stacks[t]
            assert target is not None
            kind = _classify(mover, target)
            if kind is not None:
                dests[t] = kind
        out.extend((f, t, dests[t]) for t in sorted(dests))
    return out


def _construct_options(state: State, seat: int) -> list[Construct]:
    """Every legal `construct` of ``seat``, ordered by space, building value, paying stack, sacrifice."""
    board, stacks, buildings = state.board, state.stacks, state.buildings
    keys = board.keys
    left = supply(state, seat)
    out: list[Construct] = []
    for c in board.construction:
        payers = [(n, st) for n in board.sand_nbrs[c] if (st := stacks[n]) is not None and st.owner == seat]
        if not payers:
            continue
        payers.sort()
        existing = buildings[c]
        for kind in ALLOWED[board.types[c]]:
            if left[kind] == 0:
                continue
            cost = VALUE[kind]
            if existing is not None:
                if existing.owner == seat:
                    if VALUE[existing.kind] >= VALUE[kind]:
                        continue
                elif VALUE[existing.kind] > VALUE[kind]:
                    continue
                else:
                    cost += 1  # §A5.2.3: +1 to replace an enemy building
            for n, st in payers:
                if st.height - st.emperor >= cost:
                    out.append(Construct(keys[c], kind, keys[n], False))
                if st.emperor and st.height >= cost:
                    out.append(Construct(keys[c], kind, keys[n], True))
    return out


def _has_action(state: State, seat: int) -> bool:
    """Whether ``seat`` has at least one legal `move` or `construct` (cheaper than listing them)."""
    board, stacks, buildings = state.board, state.stacks, state.buildings
    left: dict[str, int] | None = None
    for f in board.sand:
        mover = stacks[f]
        if mover is None or mover.owner != seat:
            continue
        for n in board.sand_nbrs[f]:
            target = stacks[n]
            if target is None or _classify(mover, target) is not None:
                return True  # an empty neighbour is a simple move; with none, R is empty
        for c in board.nbrs[f]:
            kinds = ALLOWED.get(board.types[c])
            if kinds is None:
                continue
            if left is None:
                left = supply(state, seat)
            existing = buildings[c]
            for kind in kinds:
                cost = VALUE[kind]
                if left[kind] == 0:
                    continue
                if existing is not None:
                    if existing.owner == seat:
                        if VALUE[existing.kind] >= cost:
                            continue
                    elif VALUE[existing.kind] > cost:
                        continue
                    else:
                        cost += 1
                if mover.height >= cost:  # plain discs, or the Emperor as one of them
                    return True
    return False


def _eligible(state: State, seat: int) -> list[int]:
    """Stacks that may take reinforcements (§A5.4), in canonical order."""
    board, stacks, buildings = state.board, state.stacks, state.buildings
    out = []
    for s in board.sand:
        st = stacks[s]
        if st is None or st.owner != seat or st.height >= STACK_MAX:
            continue
        if any((b := buildings[n]) is not None and b.owner != seat for n in board.nbrs[s]):
            continue
        out.append(s)
    return out


def _plain_reserve(seat: SeatState) -> int:
    return seat.reserve - seat.reserve_emperor


def legal_moves(state: State, seat: Seat) -> list[Move]:
    """Every legal move of ``seat``'s open prompt, in the order of §A8; [] when it owes nothing."""
    if seat not in awaiting(state):
        return []
    phase = state.phase
    keys = state.board.keys
    if phase == "emperor_swap":
        out: list[Move] = [
            EmperorSwap(keys[s])
            for s in state.board.sand
            if (st := state.stacks[s]) is not None and st.owner == seat and not st.emperor
        ]
        out.append(EmperorSwap(None))
        return out
    if phase in ("action", "action2"):
        moves: list[Move] = [MoveStack(keys[f], keys[t], kind) for f, t, kind in _move_options(state, seat)]
        moves.extend(_construct_options(state, seat))
        return moves
    me = state.seats[seat]
    if phase == "post_action":
        if not state.forced_march_used and _plain_reserve(me) >= FORCED_MARCH_COST:
            return [ForcedMarch(), EndActions()]
        return [EndActions()]
    if phase == "reinforcement":
        out = []
        for s in _eligible(state, seat):
            st = state.stacks[s]
            assert st is not None
            top = min(REINFORCE_MAX, me.reserve, STACK_MAX - st.height)
            out.extend(Reinforce(keys[s], c, me.reserve_emperor) for c in range(1, top + 1))
        return out
    return []


def default_move(state: State, seat: Seat) -> Move:
    """The timeout default of §A8 for an awaited seat."""
    phase = state.phase
    if phase == "emperor_swap":
        return EmperorSwap(None)
    if phase == "post_action":
        return EndActions()
    if phase == "reinforcement":
        s = _eligible(state, seat)[0]
        return Reinforce(state.board.keys[s], 1, state.seats[seat].reserve_emperor)
    keys, stacks = state.board.keys, state.stacks
    options = _move_options(state, seat)

    simple = []
    for f, t, k in options:
        st = stacks[f]
        assert st is not None
        if k == "simple" and not st.emperor:  # group 1: the smallest plain stack first
            simple.append((st.height, f, t))
    if simple:
        _, f, t = min(simple)
        return MoveStack(keys[f], keys[t], "simple")
    for f, t, k in options:
        if k == "regroup":
            return MoveStack(keys[f], keys[t], k)
    constructs = _construct_options(state, seat)
    # Group 3. [D] A default never sacrifices the Emperor: that is "by explicit choice" (§A11.5).
    camps = sorted(
        (state.board.index[c.from_stack], state.board.index[c.space], c)
        for c in constructs
        if c.building == "camp" and not c.sacrifice_emperor
    )
    if camps:
        return camps[0][2]
    for kind in ("attack", "kamikaze"):
        for f, t, k in options:
            if k == kind:
                return MoveStack(keys[f], keys[t], k)
    # [D] Outside the five groups of §A8: a simple move of the Emperor's stack, then any other construct.
    if options:
        f, t, k = options[0]
        return MoveStack(keys[f], keys[t], k)
    return constructs[0]


def outcome(state: State) -> Outcome | None:
    """The result once finished (§A7), else None."""
    if state.result is None:
        return None
    n = len(state.seats)
    t = tally(state)
    scores = tuple(t.vp(state, s) for s in range(n))
    winners = frozenset(state.result.winners)
    neg = [-x for x in scores]
    rest = [s for s in range(n) if s not in winners]
    ranking = [winners]
    ranking += rank_groups(neg, [s for s in rest if state.seats[s].status == "active"])
    ranking += rank_groups(neg, [s for s in rest if state.seats[s].status == "eliminated"])
    resigned = frozenset(s for s in rest if state.seats[s].status == "resigned")
    if resigned:
        ranking.append(resigned)
    return Outcome(winners=winners, ranking=tuple(ranking), scores=scores, reason=state.result.reason)


def _stack_json(st: Stack | None) -> StackView | None:
    return None if st is None else {"owner": st.owner, "height": st.height, "emperor": st.emperor}


def view(state: State, viewer: Seat | None, timer_deadline: str | None = None) -> EkoView:
    """What a seat or spectator sees (§A8/§A9): everything but the others' swap answers."""
    board = state.board
    spaces: dict[str, SpaceView] = {}
    for i, key in enumerate(board.keys):
        kind = board.types[i]
        if kind == SAND:
            spaces[key] = {"type": kind, "stack": _stack_json(state.stacks[i])}
        elif kind == CHASM:
            spaces[key] = {"type": kind}
        else:
            b = state.buildings[i]
            spaces[key] = {"type": kind, "building": None if b is None else {"owner": b.owner, "kind": b.kind}}
    seats: list[SeatView] = []
    t = tally(state)
    for s, me in enumerate(state.seats):
        seats.append(
            {
                "seat": s,
                "color": me.color,
                "status": me.status,
                "reserve": {"discs": me.reserve, "emperor": me.reserve_emperor},
                "boxed": me.boxed,
                "supply": t.supply[s],
                "prisoners": list(me.prisoners),
                "discs_on_board": t.discs[s],
                "vp": t.vp(state, s),
                "has_palace": t.palace[s],
            }
        )
    swap: SwapView | None = None
    if state.phase == "emperor_swap":
        mine: AnswerView | None = None
        if viewer is not None and 0 <= viewer < len(state.swap) and (ans := state.swap[viewer]) is not None:
            mine = {"with": None if ans.target is None else board.keys[ans.target]}
        swap = {"answered": [s for s, a in enumerate(state.swap) if a is not None], "mine": mine}
    finished = state.phase == "finished"
    out: EkoView = {
        "game": GAME,
        "turn": state.turn,
        "phase": state.phase,
        "active": None if finished or state.phase == "emperor_swap" else state.active,
        "first": state.first,
        "prompt": None if finished else {"type": state.phase, "seats": sorted(awaiting(state))},
        "turn_state": {"actions_taken": state.actions_taken, "forced_march_used": state.forced_march_used},
        "board": {
            "layout": board.layout,
            "tiles": [{"tile": p.tile, "pos": [p.i, p.j], "rot": p.rot} for p in board.tiles],
            "spaces": spaces,
        },
        "seats": seats,
        "emperor_swap": swap,
        "max_turns": state.max_turns,
        "result": None
        if state.result is None
        else {"reason": state.result.reason, "winners": list(state.result.winners)},
    }
    return out


# --- 5. transitions --------------------------------------------------------------------------
# Every transition works on one `Draft` of the state: it reads `d.state`, writes with `d.set(...)`,
# announces with `d.emit(...)`; the public functions return `d.done()`. A refused move raises
# before anything is written.

Step = Literal["action", "action2", "post_action", "reinforcement", "end_turn"]


def apply(state: State, seat: Seat, move: Move) -> tuple[State, tuple[Effect, ...]]:
    """Validate and play ``move`` for ``seat`` (§A4.6, §A5)."""
    phase = state.phase
    if phase == "finished" or not 0 <= seat < len(state.seats) or state.seats[seat].status == "resigned":
        raise NotAwaited(f"seat {seat} is not awaited")
    # §0.3: a seat that has answered the swap may replace its answer until the prompt closes.
    if seat not in awaiting(state) and not (phase == "emperor_swap" and isinstance(move, EmperorSwap)):
        raise NotAwaited(f"seat {seat} is not awaited")
    d = Draft(state)
    match move:
        case EmperorSwap():
            if phase != "emperor_swap":
                raise IllegalMove("wrong_phase", f"no emperor_swap during {phase}", move="emperor_swap", phase=phase)
            _apply_swap(d, seat, move)
        case MoveStack():
            if phase not in ("action", "action2"):
                raise IllegalMove("wrong_phase", f"no move during {phase}", move="move", phase=phase)
            _apply_move(d, seat, move)
        case Construct():
            if phase not in ("action", "action2"):
                raise IllegalMove("wrong_phase", f"no construct during {phase}", move="construct", phase=phase)
            _apply_construct(d, seat, move)
        case ForcedMarch():
            _apply_forced_march(d, seat)
        case EndActions():
            if phase != "post_action":
                raise IllegalMove("wrong_phase", f"no end_actions during {phase}", move="end_actions", phase=phase)
            d.emit("actions_ended", {"seat": seat})
            _advance(d, "reinforcement")
        case Reinforce():
            _apply_reinforce(d, seat, move)
        case _:
            raise InvalidMove(f"not an Ekö move: {move!r}")
    return d.done()


def _apply_swap(d: Draft[State], seat: int, move: EmperorSwap) -> None:
    """§A4.6: record a blind answer; when the last seat answers, apply every swap at once."""
    state = d.state
    target = None
    if move.with_ is not None:
        idx = state.board.index.get(move.with_)
        st = None if idx is None else state.stacks[idx]
        if idx is None or st is None or st.owner != seat:
            raise IllegalMove("not_own_disc", f"{move.with_} holds none of your discs", space=move.with_)
        if st.emperor:
            raise IllegalMove("is_emperor", f"{move.with_} holds your Emperor", space=move.with_)
        target = idx
    d.set(swap=put(state.swap, seat, SwapAnswer(target)))
    # The answer stays private (§A9): the public effect names only the seat.
    d.emit("emperor_swap_answered", {"seat": seat, "replaced": state.swap[seat] is not None})
    d.emit("emperor_swap_chosen", {"seat": seat, "with": move.with_}, to=(seat,))
    _maybe_close_swap(d)


def _maybe_close_swap(d: Draft[State]) -> None:
    """Close the swap once every non-resigned seat has answered, then start the first turn."""
    state = d.state
    if awaiting(state):
        return
    stacks = list(state.stacks)
    answers = []
    for s, ans in enumerate(state.swap):
        if state.seats[s].status == "resigned" or ans is None:
            continue  # §A5.5: a resigned seat keeps its layout
        answers.append({"seat": s, "with": None if ans.target is None else state.board.keys[ans.target]})
        if ans.target is None:
            continue
        old = next(i for i, st in enumerate(stacks) if st is not None and st.owner == s and st.emperor)
        old_st, new_st = stacks[old], stacks[ans.target]
        assert old_st is not None and new_st is not None
        stacks[old] = Stack(old_st.owner, old_st.height, False)
        stacks[ans.target] = Stack(new_st.owner, new_st.height, True)
    d.emit("emperor_swap_closed", {"answers": answers})
    first = state.first if state.seats[state.first].status == "active" else _next_seat(state, state.first)
    d.set(stacks=tuple(stacks), swap=(), phase="action", actions_taken=0, active=first)
    d.emit("turn_started", {"seat": first, "turn": state.turn})
    _advance(d, "action")


def _apply_move(d: Draft[State], seat: int, move: MoveStack) -> None:
    """§A5.1: simple move, regroup, attack or kamikaze, then the post-action checks."""
    state = d.state
    board, stacks = state.board, state.stacks
    f = board.index.get(move.from_)
    mover = None if f is None else stacks[f]
    if f is None or mover is None or mover.owner != seat:
        raise IllegalMove("not_own_stack", f"{move.from_} holds no stack of yours", space=move.from_)
    t = board.index.get(move.to)
    if t is None or not board.is_sand[t]:
        raise IllegalMove("not_sand", f"{move.to} is not a sand space", space=move.to)
    if t == f:
        raise IllegalMove("unreachable", "a stack cannot move onto itself", space=move.to)
    target = stacks[t]
    kind: Expect
    if target is None:
        if not _reaches(state, f, {t}):
            raise IllegalMove("unreachable", f"no path of empty sand leads to {move.to}", space=move.to)
        kind = "simple"
    else:
        if t not in board.sand_nbrs[f] and not _reaches(state, f, set(board.sand_nbrs[t])):
            raise IllegalMove("unreachable", f"{move.to} is not next to a space the stack can reach", space=move.to)
        if target.owner == seat:
            if mover.height + target.height > STACK_MAX:
                raise IllegalMove("regroup_over_4", "a regrouped stack would exceed 4 discs", count=STACK_MAX)
            if move.expect in ("attack", "kamikaze"):
                raise IllegalMove("own_stack", "own stacks can never be attacked")
            kind = "regroup"
        else:
            found = _classify(mover, target)
            if found is None:
                raise IllegalMove(
                    "too_weak",
                    f"the stack on {move.from_} is too weak to attack {move.to}",
                    from_space=move.from_,
                    to_space=move.to,
                )
            kind = found
    if move.expect is not None and move.expect != kind:
        raise IllegalMove(
            "expect_mismatch", f"this move is a {kind}, not a {move.expect}", kind=kind, expect=move.expect
        )
    new_stacks = list(stacks)
    seats = state.seats
    data: dict[str, Any] = {"seat": seat, "from": move.from_, "to": move.to, "expect": kind}
    captured = False
    new_stacks[f] = None
    if kind == "simple":
        new_stacks[t] = mover
        d.emit("stack_moved", data)
    elif kind == "regroup":
        assert target is not None
        new_stacks[t] = Stack(seat, mover.height + target.height, mover.emperor or target.emperor)
        d.emit("stacks_regrouped", {**data, "height": mover.height + target.height})
    elif kind == "attack":
        assert target is not None
        loser = target.owner
        plain = target.height - target.emperor
        seats = put(seats, loser, replace(seats[loser], reserve=seats[loser].reserve + plain))
        if target.emperor:  # §A5.1: the defender's Emperor goes to the attacker's prison
            me = seats[seat]
            seats = put(seats, seat, replace(me, prisoners=tuple(sorted((*me.prisoners, loser)))))
            captured = True
        new_stacks[t] = mover
        d.emit(
            "stack_attacked",
            {**data, "defender": loser, "discs_to_reserve": plain, "emperor_captured": target.emperor},
        )
    else:  # kamikaze: both stacks leave; nobody is captured (§A5.1)
        assert target is not None
        loser = target.owner
        them = seats[loser]
        seats = put(
            seats,
            loser,
            replace(them, reserve=them.reserve + target.height, reserve_emperor=them.reserve_emperor or target.emperor),
        )
        me = seats[seat]
        seats = put(
            seats, seat, replace(me, reserve=me.reserve + 1, reserve_emperor=me.reserve_emperor or mover.emperor)
        )
        new_stacks[t] = None
        d.emit("kamikaze_struck", {**data, "defender": loser})
    d.set(stacks=tuple(new_stacks), seats=seats, actions_taken=state.actions_taken + 1)
    _after_action(d, captured)


def _apply_construct(d: Draft[State], seat: int, move: Construct) -> None:
    """§A5.2: build, upgrade or replace, paid from one adjacent own stack."""
    state = d.state
    board = state.board
    c = board.index.get(move.space)
    if c is None or board.types[c] not in CONSTRUCTION:
        raise IllegalMove("not_construction_space", f"{move.space} is not a construction space", space=move.space)
    if move.building not in ALLOWED[board.types[c]]:
        raise IllegalMove(
            "terrain_forbids",
            f"a {board.types[c]} does not allow a {move.building}",
            terrain=board.types[c],
            building=move.building,
        )
    existing = state.buildings[c]
    cost = VALUE[move.building]
    if existing is not None:
        if existing.owner == seat:
            if VALUE[existing.kind] >= cost:
                raise IllegalMove(
                    "not_an_upgrade", f"your {existing.kind} there is worth as much or more", building=existing.kind
                )
        elif VALUE[existing.kind] > cost:
            raise IllegalMove(
                "enemy_building_too_valuable", f"the {existing.kind} there is worth more", building=existing.kind
            )
        else:
            cost += 1
    s = board.index.get(move.from_stack)
    payer = None if s is None else state.stacks[s]
    if s is None or payer is None or payer.owner != seat or s not in board.sand_nbrs[c]:
        raise IllegalMove(
            "not_adjacent",
            f"{move.from_stack} is not a stack of yours next to {move.space}",
            stack=move.from_stack,
            space=move.space,
        )
    if payer.height < cost:
        raise IllegalMove("stack_too_small", f"the stack cannot pay {cost} discs", count=cost)
    if supply(state, seat)[move.building] == 0:
        raise IllegalMove("no_piece_left", f"no {move.building} left in your supply", building=move.building)
    if move.sacrifice_emperor and not payer.emperor:
        raise IllegalMove("emperor_flag_mismatch", "sacrifice_emperor needs your Emperor in the paying stack")
    if not move.sacrifice_emperor and payer.height - payer.emperor < cost:
        raise IllegalMove("emperor_flag_mismatch", "the plain discs cannot pay: the Emperor must be sacrificed")
    left = payer.height - cost
    me = state.seats[seat]
    d.emit(
        "building_built",
        {
            "seat": seat,
            "space": move.space,
            "building": move.building,
            "from_stack": move.from_stack,
            "cost": cost,
            "sacrifice_emperor": move.sacrifice_emperor,
            "replaced": None if existing is None else {"owner": existing.owner, "kind": existing.kind},
        },
    )
    d.set(
        stacks=put(
            state.stacks, s, None if left == 0 else Stack(seat, left, payer.emperor and not move.sacrifice_emperor)
        ),
        seats=put(
            state.seats,
            seat,
            replace(me, reserve=me.reserve + cost, reserve_emperor=me.reserve_emperor or move.sacrifice_emperor),
        ),
        buildings=put(state.buildings, c, Building(seat, move.building)),
        actions_taken=state.actions_taken + 1,
    )
    _after_action(d, False)


def _apply_forced_march(d: Draft[State], seat: int) -> None:
    """§A5.3: box 3 plain reserve discs and open `action2`."""
    state = d.state
    if state.phase != "post_action":
        raise IllegalMove(
            "wrong_phase", f"no forced_march during {state.phase}", move="forced_march", phase=state.phase
        )
    if state.forced_march_used:
        raise IllegalMove("forced_march_used", "forced march was already used this turn")
    me = state.seats[seat]
    if _plain_reserve(me) < FORCED_MARCH_COST:
        raise IllegalMove("reserve_too_small", "the reserve holds fewer than 3 plain discs", count=FORCED_MARCH_COST)
    me = replace(me, reserve=me.reserve - FORCED_MARCH_COST, boxed=me.boxed + FORCED_MARCH_COST)
    d.set(seats=put(state.seats, seat, me), forced_march_used=True)
    d.emit("forced_march", {"seat": seat, "boxed": FORCED_MARCH_COST})
    _advance(d, "action2")


def _apply_reinforce(d: Draft[State], seat: int, move: Reinforce) -> None:
    """§A5.4: up to 3 reserve discs onto one eligible own stack, the Emperor first."""
    state = d.state
    if state.phase != "reinforcement":
        raise IllegalMove("wrong_phase", f"no reinforce during {state.phase}", move="reinforce", phase=state.phase)
    board = state.board
    s = board.index.get(move.stack)
    st = None if s is None else state.stacks[s]
    if s is None or st is None or st.owner != seat:
        raise IllegalMove("no_such_stack", f"{move.stack} holds no stack of yours", space=move.stack)
    if any((b := state.buildings[n]) is not None and b.owner != seat for n in board.nbrs[s]):
        raise IllegalMove("adjacent_enemy_building", f"{move.stack} is next to an enemy building", space=move.stack)
    me = state.seats[seat]
    top = min(REINFORCE_MAX, me.reserve, STACK_MAX - st.height)
    if not 1 <= move.count <= top:
        raise IllegalMove("count_out_of_range", f"count must be 1..{top}", count=top)
    if move.include_emperor != me.reserve_emperor:
        raise IllegalMove(
            "emperor_must_come_first",
            "the Emperor in reserve comes first" if me.reserve_emperor else "your Emperor is not in the reserve",
        )
    d.set(
        stacks=put(state.stacks, s, Stack(seat, st.height + move.count, st.emperor or move.include_emperor)),
        seats=put(state.seats, seat, replace(me, reserve=me.reserve - move.count, reserve_emperor=False)),
    )
    d.emit(
        "reinforced",
        {"seat": seat, "stack": move.stack, "count": move.count, "include_emperor": move.include_emperor},
    )
    _advance(d, "end_turn")


def _exchanged(seat_state: SeatState, captive: Seat) -> SeatState:
    """§A6.2: the seat hands back its prisoner ``captive`` and gets its own Emperor back in reserve."""
    return replace(
        seat_state,
        prisoners=tuple(x for x in seat_state.prisoners if x != captive),
        reserve=seat_state.reserve + 1,
        reserve_emperor=True,
    )


def _after_action(d: Draft[State], captured: bool) -> None:
    """§A6.4: VP victory, exchange, elimination and last standing, then the rest of the turn."""
    state = d.state
    n = len(state.seats)
    seat = state.active
    # 1. VP victory, the active seat first, before any exchange.
    t = tally(state)
    for s in [seat, *[x for x in range(n) if x != seat]]:
        if state.seats[s].status != "resigned" and t.vp(state, s) >= WIN_VP and t.palace[s]:
            _finish(d, "vp_with_palace", (s,))
            return
    # 2. Emperor exchange (§A6.2), between seats that have not resigned (§A5.5: their prisons stay put).
    seats = state.seats
    if captured:
        for a in range(n):
            for b in range(a + 1, n):
                sa, sb = seats[a], seats[b]
                if "resigned" in (sa.status, sb.status) or b not in sa.prisoners or a not in sb.prisoners:
                    continue
                seats = put(seats, a, _exchanged(sa, b))
                seats = put(seats, b, _exchanged(seats[b], a))
                d.emit("emperors_exchanged", {"seats": [a, b]})
    # 3. Elimination (§A6.3).
    contenders = [s for s in range(n) if seats[s].status == "active"]
    on_board = t.discs  # exchanges move no disc on the board
    for s in contenders:
        if on_board[s] == 0:
            seats = put(seats, s, replace(seats[s], status="eliminated"))
            d.emit("seat_eliminated", {"seat": s})
    if seats is not state.seats:
        d.set(seats=seats)
    # 4. Last standing, or a mutual wipe-out.
    alive = [s for s in range(n) if seats[s].status != "resigned" and on_board[s] > 0]
    if len(alive) == 1:
        _finish(d, "last_standing", (alive[0],))
    elif not alive:  # [D] most VP among the seats that were still playing wins; equal VP share
        points = {s: vp(d.state, s) for s in contenders}
        best = max(points.values())
        _finish(d, "wipeout", tuple(s for s in contenders if points[s] == best))
    elif seats[seat].status != "active":
        _advance(d, "end_turn")  # [D] a seat that eliminated itself ends its turn
    else:
        _advance(d, "post_action" if state.phase == "action" else "reinforcement")


def _next_seat(state: State, after: int) -> int:
    """The next seat after ``after`` that is still playing (clockwise)."""
    n = len(state.seats)
    for k in range(1, n + 1):
        s = (after + k) % n
        if state.seats[s].status == "active":
            return s
    raise AssertionError("no seat left to play")


def _advance(d: Draft[State], step: Step) -> None:
    """Open the next prompt from ``step``, skipping every prompt that cannot be answered (§A5)."""
    state = d.state
    active, turn = state.active, state.turn
    taken, marched = state.actions_taken, state.forced_march_used
    while True:
        if step == "end_turn":
            if turn + 1 > state.max_turns:  # §A6.4.5 [I]: the cap ends the game once turn `max_turns` is over
                _finish_turn_cap(d)
                return
            turn += 1
            active = _next_seat(state, active)
            taken, marched = 0, False
            d.emit("turn_started", {"seat": active, "turn": turn})
            step = "action"
        if step == "action" or step == "action2":
            if _has_action(state, active):
                break
            d.emit("no_legal_action", {"seat": active, "phase": step})
            step = "post_action" if step == "action" else "reinforcement"
            continue
        me = state.seats[active]
        if step == "post_action":
            if not marched and _plain_reserve(me) >= FORCED_MARCH_COST:
                break
            step = "reinforcement"
            continue
        if me.reserve > 0 and _eligible(state, active):  # step == "reinforcement"
            break
        step = "end_turn"
    d.set(phase=step, active=active, turn=turn, actions_taken=taken, forced_march_used=marched)


def _finish(d: Draft[State], reason: Reason, winners: tuple[int, ...]) -> None:
    d.set(phase="finished", result=Result(reason, tuple(sorted(winners))), swap=())
    state = d.state
    t = tally(state)
    d.emit(
        "game_ended",
        {"reason": reason, "winners": sorted(winners), "scores": [t.vp(state, s) for s in range(len(state.seats))]},
    )


def _finish_turn_cap(d: Draft[State]) -> None:
    """§A6.4.5: most VP, then most discs on board; otherwise a draw."""
    state = d.state
    playing = [s for s in range(len(state.seats)) if state.seats[s].status == "active"]
    t = tally(state)
    keys = {s: (t.vp(state, s), t.discs[s]) for s in playing}
    best = max(keys.values())
    _finish(d, "turn_cap", tuple(s for s in playing if keys[s] == best))


def timeout(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """The default move of §A8 for an awaited seat whose clock ran out."""
    if seat not in awaiting(state):
        raise NotAwaited(f"seat {seat} is not awaited")
    return apply(state, seat, default_move(state, seat))


def resign(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """§A5.5: 2 players → the opponent wins; 3–4 → the seat becomes inert and its turn ends."""
    if state.phase == "finished" or not 0 <= seat < len(state.seats) or state.seats[seat].status == "resigned":
        raise NotAwaited(f"seat {seat} cannot resign now")
    d = Draft(state)
    d.emit("seat_resigned", {"seat": seat})
    d.set(seats=put(state.seats, seat, replace(state.seats[seat], status="resigned")))
    playing = [s for s in range(len(state.seats)) if d.state.seats[s].status == "active"]
    if len(playing) == 1:
        _finish(d, "resignation", (playing[0],))
    elif state.phase == "emperor_swap":
        _maybe_close_swap(d)
    elif state.seats[seat].status == "active" and state.active == seat:
        _advance(d, "end_turn")
    return d.done()


# --- 6. codecs -------------------------------------------------------------------------------

codec: MoveCodec[Move] = MoveCodec(EmperorSwap, MoveStack, Construct, ForcedMarch, EndActions, Reinforce)


def dump_state(state: State) -> JSON:
    """State → JSON (fixtures, snapshots, debugging)."""
    board = state.board
    return {
        "players": board.players,
        "layout": board.layout,
        "tiles": [[p.tile, p.i, p.j, p.rot] for p in board.tiles],
        "max_turns": state.max_turns,
        "stacks": {board.keys[i]: [st.owner, st.height, st.emperor] for i, st in enumerate(state.stacks) if st},
        "buildings": {board.keys[i]: [b.owner, b.kind] for i, b in enumerate(state.buildings) if b},
        "seats": [
            {
                "color": s.color,
                "status": s.status,
                "reserve": s.reserve,
                "reserve_emperor": s.reserve_emperor,
                "boxed": s.boxed,
                "prisoners": list(s.prisoners),
            }
            for s in state.seats
        ],
        "phase": state.phase,
        "active": state.active,
        "first": state.first,
        "turn": state.turn,
        "actions_taken": state.actions_taken,
        "forced_march_used": state.forced_march_used,
        "swap": [
            None if a is None else {"with": None if a.target is None else board.keys[a.target]} for a in state.swap
        ],
        "result": None
        if state.result is None
        else {"reason": state.result.reason, "winners": list(state.result.winners)},
    }


def parse_state(raw: JSON) -> State:
    """JSON → state (the inverse of `dump_state`)."""
    players = raw["players"]
    board = make_board(players, raw["layout"], tuple(Placement(t, i, j, k) for t, i, j, k in raw["tiles"]))
    stacks: list[Stack | None] = [None] * len(board.keys)
    for key, (owner, height, emp) in raw["stacks"].items():
        stacks[board.index[key]] = Stack(owner, height, emp)
    buildings: list[Building | None] = [None] * len(board.keys)
    for key, (owner, kind) in raw["buildings"].items():
        buildings[board.index[key]] = Building(owner, kind)
    seats = tuple(
        SeatState(s["color"], s["status"], s["reserve"], s["reserve_emperor"], s["boxed"], tuple(s["prisoners"]))
        for s in raw["seats"]
    )
    swap = tuple(
        None if a is None else SwapAnswer(None if a["with"] is None else board.index[a["with"]]) for a in raw["swap"]
    )
    result = raw.get("result")
    return State(
        board=board,
        max_turns=raw["max_turns"],
        stacks=tuple(stacks),
        buildings=tuple(buildings),
        seats=seats,
        phase=raw["phase"],
        active=raw["active"],
        first=raw["first"],
        turn=raw["turn"],
        actions_taken=raw["actions_taken"],
        forced_march_used=raw["forced_march_used"],
        swap=swap,
        result=None if result is None else Result(result["reason"], tuple(result["winners"])),
    )


# --- 7. invariants, bots ---------------------------------------------------------------------


def invariant_violations(state: State) -> list[str]:
    """[] when healthy: disc conservation (§A6.1), one place per Emperor, stack and building rules."""
    out: list[str] = []
    board = state.board
    n = len(state.seats)
    t = tally(state)
    for i, st in enumerate(state.stacks):
        if st is None:
            continue
        if not board.is_sand[i]:
            out.append(f"stack on non-sand space {board.keys[i]}")
        if not 1 <= st.height <= STACK_MAX:
            out.append(f"stack of height {st.height} on {board.keys[i]}")
    for i, b in enumerate(state.buildings):
        if b is not None and b.kind not in ALLOWED.get(board.types[i], ()):
            out.append(f"{b.kind} on {board.types[i]} {board.keys[i]}")
    for s, me in enumerate(state.seats):
        on_board = t.discs[s]
        jailed = sum(1 for other in state.seats if s in other.prisoners)
        if on_board + me.reserve + me.boxed + jailed != DISCS_PER_SEAT:
            out.append(f"seat {s}: {on_board} + {me.reserve} + {me.boxed} + {jailed} != {DISCS_PER_SEAT}")
        emperors = sum(1 for st in state.stacks if st is not None and st.owner == s and st.emperor)
        if emperors + me.reserve_emperor + jailed != 1:
            out.append(f"seat {s}: its Emperor is in {emperors + me.reserve_emperor + jailed} places")
        if me.reserve_emperor and me.reserve < 1:
            out.append(f"seat {s}: reserve Emperor not counted in reserve")
        if s in me.prisoners or min(me.reserve, me.boxed) < 0:
            out.append(f"seat {s}: bad prison or negative count")
        if any(v < 0 for v in t.supply[s].values()):
            out.append(f"seat {s}: more buildings than its supply")
        if me.status == "eliminated" and on_board:
            out.append(f"seat {s}: eliminated with discs on the board")
    if (state.phase == "finished") != (state.result is not None):
        out.append("result and phase disagree")
    if state.phase == "emperor_swap" and len(state.swap) != n:
        out.append("swap answers missing")
    if state.phase not in ("finished", "emperor_swap") and state.seats[state.active].status != "active":
        out.append("the active seat is not playing")
    return out


def determinize(view_json: JSON, seat: Seat, gen: random.Random) -> State:
    """A full state consistent with ``seat``'s view: only the others' swap answers are sampled."""
    b = view_json["board"]
    players = len(view_json["seats"])
    tiles = tuple(Placement(t["tile"], t["pos"][0], t["pos"][1], t["rot"]) for t in b["tiles"])
    board = make_board(players, b["layout"], tiles)
    stacks: list[Stack | None] = [None] * len(board.keys)
    buildings: list[Building | None] = [None] * len(board.keys)
    for key, sp in b["spaces"].items():
        idx = board.index[key]
        if sp.get("stack") is not None:
            st = sp["stack"]
            stacks[idx] = Stack(st["owner"], st["height"], st["emperor"])
        if sp.get("building") is not None:
            bd = sp["building"]
            buildings[idx] = Building(bd["owner"], bd["kind"])
    seats = tuple(
        SeatState(
            s["color"], s["status"], s["reserve"]["discs"], s["reserve"]["emperor"], s["boxed"], tuple(s["prisoners"])
        )
        for s in view_json["seats"]
    )
    swap: tuple[SwapAnswer | None, ...] = ()
    sw = view_json.get("emperor_swap")
    if sw is not None:
        answers: list[SwapAnswer | None] = [None] * players
        for s in sw["answered"]:
            if s == seat and sw.get("mine") is not None:
                w = sw["mine"]["with"]
                answers[s] = SwapAnswer(None if w is None else board.index[w])
                continue
            options: list[int | None] = [
                i for i in board.sand if (st := stacks[i]) is not None and st.owner == s and not st.emperor
            ]
            options.append(None)
            answers[s] = SwapAnswer(options[randbelow(gen, len(options))])
        swap = tuple(answers)
    result = view_json.get("result")
    ts = view_json["turn_state"]
    active = view_json["active"]
    return State(
        board=board,
        max_turns=view_json["max_turns"],
        stacks=tuple(stacks),
        buildings=tuple(buildings),
        seats=seats,
        phase=view_json["phase"],
        active=view_json["first"] if active is None else active,
        first=view_json["first"],
        turn=view_json["turn"],
        actions_taken=ts["actions_taken"],
        forced_march_used=ts["forced_march_used"],
        swap=swap,
        result=None if result is None else Result(result["reason"], tuple(result["winners"])),
    )


def heuristic(state: State, seat: Seat) -> float:
    """VP race plus material, higher is better for ``seat`` (the `greedy` bot's one-ply score)."""
    if state.result is not None:
        return 1000.0 if seat in state.result.winners else -1000.0

    t = tally(state)

    def score(s: int) -> float:
        palace = 3.0 if t.palace[s] else 0.0
        return 4.0 * t.vp(state, s) + palace + 0.5 * (t.discs[s] + state.seats[s].reserve)

    others = [score(s) for s in range(len(state.seats)) if s != seat and state.seats[s].status == "active"]
    return score(seat) - (max(others) if others else 0.0)


# --- 8. the record ---------------------------------------------------------------------------

RULES: Rules[State, Move, Config] = Rules(
    name=GAME,
    title="Ekö",
    version=1,
    seats=SEATS,
    # 4 records per turn (action, post_action, action2, reinforcement) + the swap answers and resignations.
    max_moves=4 * MAX_TURNS_LIMIT + 16,
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
