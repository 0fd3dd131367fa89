"""Ecos constants and values: state, config, moves and the view (docs/rules/ecos.md §B2, §B3.3, §B4.1, §B10, §B11).

Frozen dataclasses with tuples. The move dataclasses carry their JSON shape (``TYPE``, ``DESCRIPTION``,
`kit.arg`): `codec.py` builds the move codec from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NotRequired, Required, TypedDict

from rules.base import JSON, InvalidMove
from rules.ecos.board import SPECIES, Hex, Tile, hex_key, parse_hex
from rules.ecos.cards import CARD_IDS, CARDS, ELEMENTS
from rules.kit import arg

# --- 1. constants ---------------------------------------------------------------------------

GAME = "ecos"
PLAYERS = range(2, 7)  # 2–6 players (§B1)
TOKENS = (*ELEMENTS, "wild")  # §B2.1, in the bag's count order
BAG_COUNTS = (7, 7, 6, 6, 5, 4, 3, 2)  # §B2.1: 40 tokens, 2 of them wild
ENERGY_TOTAL = 66  # §B2.4
START_ENERGY = 7  # §B2.4
LAND_TILES, WATER_TILES = 45, 30  # §B2.2 [D]
MOUNTAINS, FORESTS = 15, 25  # §B2.2
DEFAULT_TARGET = 80  # §B3.3 (the short game: 60)
START_MAPS: dict[str, tuple[tuple[Hex, str], ...]] = {  # §B3 item 1
    "standard": (((0, 0), "grassland"), ((1, 0), "desert"), ((1, -1), "water"), ((0, 1), "water")),
    "line": (((-1, 0), "water"), ((0, 0), "grassland"), ((1, 0), "desert"), ((2, 0), "water")),
}
HAND_SIZE = {"blue": 4, "brown": 8}  # §B3.2: per seat after the draft (3–6 players)
PACK_SIZE = {"blue": 5, "brown": 9}  # §B3.2 (and §B3.1 [I] for two players)
TWO_PLAYER_DEAL = {"blue": 2, "brown": 4}  # §B3.1: extra cards a 2-player seat gets straight away
DECK_SOURCES: tuple[tuple[str, ...], ...] = (
    ("brown", "brown"),
    ("blue", "brown"),
    ("blue", "blue"),
)  # §B7; default first
ACTIVE_COUNT = 3  # §B3.2 item 3 (5 in a 2-player game, §B3.1)
# Limits the page does not state, so that every match ends and `max_moves` is a real bound [D]:
ROUND_LIMIT = 50  # the game also ends after the round-ending wild of round 50 (reason "round_limit")
TIEBREAK_LIMIT = 20  # after 20 tiebreak draws the tied seats share the win
REPLACE_LIMIT = 3  # replacements of a complete answer per seat and simultaneous prompt (then `already_answered`)

Phase = Literal["draft", "choose_active", "respond", "resolve", "finished"]


# --- 2. values ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Config:
    """The match options (§B3.3) and the player count."""

    players: int
    target_score: int
    cards: Literal["preset", "draft"]
    preset_seats: tuple[int, ...]
    start_map: str
    setup: str | None  # the `setup` fixture as canonical JSON text


@dataclass(frozen=True, slots=True)
class InPlay:
    """A card in a tableau (§B2.5): uses left and which slots hold a cube."""

    card: str
    uses_left: int
    cubes: tuple[bool, ...]

    @property
    def complete(self) -> bool:
        return all(self.cubes)


@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat: tableau, hand (sorted ids), available cubes, dial, score, resignation."""

    tableau: tuple[InPlay, ...] = ()
    hand: tuple[str, ...] = ()
    energy: int = START_ENERGY
    dial: int = 0
    score: int = 0
    resigned: bool = False


# --- JSON shapes of move parts (§B4.1, §B8.1) --------------------------------------------------------


class CubeAt(TypedDict):
    """A cube's place: a slot of a card in a tableau."""

    card: str
    slot: int


class AnswerJSON(TypedDict, total=False):
    """One `respond` answer: place a cube on ``card``'s ``slot`` (optionally moved from
    ``move_cube_from``), or rotate the dial, for drawn token ``token`` (§B4.1)."""

    token: Required[int]
    type: Required[Literal["place", "rotate"]]
    card: str
    slot: int
    move_cube_from: CubeAt


class HexChoice(TypedDict):
    """An `effect` choice: a hex (§B8.1)."""

    hex: str


class AnimalChoice(TypedDict):
    """An `effect` choice: a tile and the species on it (§B8.1)."""

    tile: str
    species: str


class TileChoice(TypedDict):
    """An `effect` choice: a tile (§B8.1)."""

    tile: str


MoveChoice = TypedDict("MoveChoice", {"from": str, "to": str})
MoveChoice.__doc__ = "An `effect` choice: a move from one hex to another (§B8.1)."

#: An `effect` move's ``choice``, one of four shapes (the one with a species before the bare tile).
ChoiceJSON = HexChoice | AnimalChoice | TileChoice | MoveChoice


@dataclass(frozen=True, slots=True)
class Answer:
    """One entry of a `respond` answer (§B4.1): a placement or a rotation for drawn token ``token``."""

    token: int
    kind: Literal["place", "rotate"]
    card: str = ""
    slot: int = -1
    src_card: str = ""  # move_cube_from
    src_slot: int = -1

    def to_json(self) -> AnswerJSON:
        """The answer as JSON (§B4.1)."""
        if self.kind == "rotate":
            return {"token": self.token, "type": "rotate"}
        out: AnswerJSON = {"token": self.token, "type": "place", "card": self.card, "slot": self.slot}
        if self.src_card:
            out["move_cube_from"] = {"card": self.src_card, "slot": self.src_slot}
        return out


@dataclass(frozen=True, slots=True)
class Task:
    """One pending unit of the sequential resolution of the seat at the cursor (§B4.2, §B6, §B8)."""

    kind: Literal["rotate", "place", "complete", "step", "gain", "finish"]
    card: str = ""
    slot: int = -1
    src_card: str = ""
    src_slot: int = -1
    step: int = -1
    remaining: int = 0


@dataclass(frozen=True, slots=True)
class Prompt:
    """An open single-seat prompt of the resolution (§B10)."""

    type: Literal["eco_confirm", "effect_choice", "dial_gain_card", "dial_reward", "gain_card_source", "gain_card_keep"]
    seat: int
    card: str = ""  # eco_confirm, effect_choice
    slot: int = -1  # eco_confirm: the slot just filled
    src_card: str = ""  # eco_confirm: where that cube came from
    src_slot: int = -1
    step: int = -1  # effect_choice
    remaining: int = 0  # effect_choice: iterations left, this one included
    revealed: tuple[str, ...] = ()  # gain_card_keep (private to `seat`)


@dataclass(frozen=True, slots=True)
class State:
    """The whole match. Per-seat data are tuples indexed by seat; the map is sorted canonically."""

    config: Config
    seed: int
    phase: Phase
    seats: tuple[SeatState, ...]
    tiles: tuple[tuple[Hex, Tile], ...]
    land: int
    water: int
    mountains: int
    forests: int
    energy: int  # the general supply of cubes
    animal_supply: tuple[int, ...]  # by species, alphabetical
    bag: tuple[int, ...]  # counts by TOKENS
    forced: tuple[str, ...]  # `setup.draws` still to come (never shown)
    harbinger: int
    round: int
    draw: int  # draws in this round (or tiebreak)
    draws_total: int  # every draw of the match: the RNG path of the next one
    tiebreak: bool  # the current draw is a tiebreak draw (§B9)
    tiebreak_draws: int
    current_draw: tuple[str, ...]
    drawn_this_round: tuple[str, ...]
    blue: tuple[str, ...]  # deck, top first
    brown: tuple[str, ...]
    faceup: tuple[str, ...]
    discard: tuple[str, ...]
    rebuilds: int  # deck rebuilds so far: the RNG path of the next one
    answers: tuple[tuple[Answer, ...], ...]  # per seat, in resolution order (auto-rotations first)
    auto: tuple[tuple[int, ...], ...]  # per seat: tokens answered `rotate` automatically
    replaced: tuple[int, ...]  # per seat: replacements of a complete answer in the open prompt
    cursor: int | None
    queue: tuple[Task, ...]
    eco_seats: tuple[int, ...]  # seats that resolved an ECO in this draw (§B6 item 1)
    binds: tuple[tuple[str, tuple[Hex, ...]], ...]  # §B8.1 `bind`, for the card resolving now
    removed: tuple[str, ...]  # §B8.4 `removed`, for the card resolving now
    prompt: Prompt | None
    draft_color: str  # "blue" | "brown" during the draft
    draft_left: int  # pick rounds left in this colour
    packs: tuple[tuple[str, ...], ...]
    picks: tuple[tuple[str, ...], ...]  # draft_pick / choose_active picks of the open prompt (hidden)
    choose: tuple[int, ...]  # choose_active: how many cards each seat picks (0 = not concerned)
    winners: tuple[int, ...]
    reason: str

    @property
    def players(self) -> int:
        return self.config.players


STATE_FIELDS = tuple(State.__dataclass_fields__)


# --- moves (§B3.2, §B4.1, §B5, §B6, §B7, §B8.1) --------------------------------------------
# Each JSON member that a type cannot check is parsed by a hook below (raising `InvalidMove`);
# the rules that tie two members together are checked in ``__post_init__``.


def _bad(message: str) -> InvalidMove:
    return InvalidMove(f"not an Ecos move: {message}")


def _keys(raw: JSON, allowed: set[str], required: set[str]) -> None:
    extra = set(raw) - allowed
    missing = required - set(raw)
    if extra:
        raise _bad(f"unknown field(s) {sorted(extra)}")
    if missing:
        raise _bad(f"missing field(s) {sorted(missing)}")


def _card(value: Any) -> str:
    if not isinstance(value, str) or value not in CARDS:
        raise _bad(f"unknown card {value!r}")
    return value


def _slot(card: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(CARDS[card].slots):
        raise _bad(f"card {card} has no slot {value!r}")
    return int(value)


def _parse_answer(raw: Any) -> Answer:
    """One entry of a `respond` move (§B4.1)."""
    if not isinstance(raw, dict):
        raise _bad("an answer is an object")
    kind = raw.get("type")
    token = raw.get("token")
    if isinstance(token, bool) or not isinstance(token, int) or not 0 <= token <= 1:
        raise _bad("answer token must be 0 or 1")
    if kind == "rotate":
        _keys(raw, {"token", "type"}, {"token", "type"})
        return Answer(token, "rotate")
    if kind != "place":
        raise _bad("answer type must be 'place' or 'rotate'")
    _keys(raw, {"token", "type", "card", "slot", "move_cube_from"}, {"token", "type", "card", "slot"})
    card = _card(raw["card"])
    slot = _slot(card, raw["slot"])
    if "move_cube_from" not in raw:
        return Answer(token, "place", card, slot)
    src = raw["move_cube_from"]
    if not isinstance(src, dict):
        raise _bad("move_cube_from must be an object")
    _keys(src, {"card", "slot"}, {"card", "slot"})
    src_card = _card(src["card"])
    return Answer(token, "place", card, slot, src_card, _slot(src_card, src["slot"]))


def _answers(raw: Any) -> tuple[Answer, ...]:
    if not isinstance(raw, list) or not 1 <= len(raw) <= 2:
        raise _bad("answers must be a list of 1 or 2 entries")
    return tuple(_parse_answer(a) for a in raw)


def _dump_answers(answers: tuple[Answer, ...]) -> list[AnswerJSON]:
    return [a.to_json() for a in answers]


def _cards(raw: Any) -> tuple[str, ...]:
    """The ``cards`` list of a pick move."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= 5:
        raise _bad("cards must be a list of 1 to 5 card ids")
    return tuple(_card(c) for c in raw)


def _choice(raw: Any) -> Choice:
    try:
        return choice_from_json(raw)
    except ValueError as err:
        raise _bad(str(err)) from None


def _dump_choice(choice: Choice) -> ChoiceJSON:
    return choice.to_json()


def _deck_source(raw: Any) -> tuple[str, ...]:
    if not isinstance(raw, list) or tuple(raw) not in DECK_SOURCES:
        raise _bad('from must be ["blue","blue"], ["brown","brown"] or ["blue","brown"]')
    return tuple(raw)


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer to `effect_choice` (§B8.1 table): a hex, a tile, a tile and species, or a from/to pair."""

    shape: str  # hex | tile | animal | move
    at: Hex
    to: Hex | None = None
    species: str | None = None

    def to_json(self) -> ChoiceJSON:
        if self.shape == "hex":
            return {"hex": hex_key(self.at)}
        if self.shape == "tile":
            return {"tile": hex_key(self.at)}
        if self.shape == "animal":
            assert self.species is not None
            return {"tile": hex_key(self.at), "species": self.species}
        assert self.to is not None
        return {"from": hex_key(self.at), "to": hex_key(self.to)}


def choice_from_json(raw: Any) -> Choice:
    """Parse a `choice` object; raises ValueError when it has none of the §B8.1 shapes."""
    if not isinstance(raw, dict):
        raise ValueError("choice must be an object")
    keys = set(raw)
    if keys == {"hex"}:
        return Choice("hex", parse_hex(raw["hex"]))
    if keys == {"tile"}:
        return Choice("tile", parse_hex(raw["tile"]))
    if keys == {"tile", "species"}:
        if not isinstance(raw["species"], str) or raw["species"] not in SPECIES:
            raise ValueError(f"unknown species {raw['species']!r}")
        return Choice("animal", parse_hex(raw["tile"]), species=raw["species"])
    if keys == {"from", "to"}:
        return Choice("move", parse_hex(raw["from"]), parse_hex(raw["to"]))
    raise ValueError(f"choice has none of the shapes hex / tile / tile+species / from+to: {sorted(keys)}")


_CARD = tuple(CARD_IDS)


@dataclass(frozen=True, slots=True)
class Respond:
    """`respond`: one entry per drawn token (or one entry per move in a 2-player game)."""

    TYPE: ClassVar[str] = "respond"
    DESCRIPTION: ClassVar[str] = "Answer the drawn token(s): place a cube or rotate the dial (§B4.1)"
    answers: tuple[Answer, ...] = arg(
        "1 or 2 {token: 0|1, type: place|rotate, card, slot, move_cube_from?: {card, slot}} objects",
        parse=_answers,
        dump=_dump_answers,
        type="object_list",
        shape=AnswerJSON,
    )


@dataclass(frozen=True, slots=True)
class DraftPick:
    """`draft_pick`: the card(s) kept from the pack."""

    TYPE: ClassVar[str] = "draft_pick"
    DESCRIPTION: ClassVar[str] = "Keep card(s) from your draft pack (§B3.2)"
    cards: tuple[str, ...] = arg("1 to 5 card ids", parse=_cards, choices=_CARD)


@dataclass(frozen=True, slots=True)
class ChooseActive:
    """`choose_active`: the hand cards that start in the tableau."""

    TYPE: ClassVar[str] = "choose_active"
    DESCRIPTION: ClassVar[str] = "Choose starting active cards from your hand (§B3.2)"
    cards: tuple[str, ...] = arg("1 to 5 card ids", parse=_cards, choices=_CARD)


@dataclass(frozen=True, slots=True)
class Eco:
    """`eco`: answer to `eco_confirm` (resolve, or retract and rotate)."""

    TYPE: ClassVar[str] = "eco"
    DESCRIPTION: ClassVar[str] = "Resolve a completed card, or retract the cube and rotate (§B6)"
    resolve: bool = arg("true: resolve the ECO; false: retract the cube and rotate the dial")


@dataclass(frozen=True, slots=True)
class EffectMove:
    """`effect`: one option of `effect_choice`, or stop an optional step (exactly one of the two)."""

    TYPE: ClassVar[str] = "effect"
    DESCRIPTION: ClassVar[str] = "Choose an option of an effect step, or stop an optional one (§B8.1)"
    choice: Choice | None = arg(  # noqa: RUF009 (kit.arg is a dataclasses.field)
        "{hex} | {tile} | {tile, species} | {from, to}",
        default=None,
        nullable=False,
        parse=_choice,
        dump=_dump_choice,
        type="object",
        shape=ChoiceJSON,
    )
    stop: Literal[True] | None = arg("true: stop an optional step", default=None, nullable=False)

    def __post_init__(self) -> None:
        if (self.choice is None) == (self.stop is None):
            raise _bad("an effect move gives either a choice or stop: true")


@dataclass(frozen=True, slots=True)
class DialGainCard:
    """`dial_gain_card`: reset the dial to gain a card, or not."""

    TYPE: ClassVar[str] = "dial_gain_card"
    DESCRIPTION: ClassVar[str] = "Reset the dial at 2 to gain a card, or not (§B5)"
    accept: bool = arg("true: reset the dial and gain a card")


@dataclass(frozen=True, slots=True)
class DialReward:
    """`dial_reward`: play a hand card or take one cube."""

    TYPE: ClassVar[str] = "dial_reward"
    DESCRIPTION: ClassVar[str] = "The dial's 3rd-position reward (§B5)"
    reward: Literal["play_card", "energy"] = arg("play a hand card, or take one cube from the supply")
    card: str | None = arg(
        "with play_card (only): the hand card", default=None, nullable=False, parse=_card, choices=_CARD
    )

    def __post_init__(self) -> None:
        if (self.reward == "play_card") != (self.card is not None):
            raise _bad("play_card names a card; energy names none")


@dataclass(frozen=True, slots=True)
class GainCard:
    """`gain_card`: two deck cards by back (``from``), or one face-up ``card``."""

    TYPE: ClassVar[str] = "gain_card"
    DESCRIPTION: ClassVar[str] = "Gain a card: two deck cards by back, or one face-up card (§B7)"
    source: Literal["deck", "faceup"] = arg("deck: reveal two top cards by back; faceup: take a face-up card")
    from_: tuple[str, ...] | None = arg(
        'with deck (only): ["brown","brown"], ["blue","brown"] or ["blue","blue"]',
        default=None,
        nullable=False,
        parse=_deck_source,
        choices=("blue", "brown"),
        type="string_list",
    )
    card: str | None = arg(
        "with faceup (only): the face-up card", default=None, nullable=False, parse=_card, choices=_CARD
    )

    def __post_init__(self) -> None:
        if (self.from_ is not None) != (self.source == "deck") or (self.card is not None) != (self.source == "faceup"):
            raise _bad("deck names two backs in from; faceup names a card")


@dataclass(frozen=True, slots=True)
class GainCardKeep:
    """`gain_card_keep`: which revealed card to keep."""

    TYPE: ClassVar[str] = "gain_card_keep"
    DESCRIPTION: ClassVar[str] = "Keep one of the revealed cards (§B7)"
    card: str = arg("one of the revealed cards", parse=_card, choices=_CARD)


Move = Respond | DraftPick | ChooseActive | Eco | EffectMove | DialGainCard | DialReward | GainCard | GainCardKeep
MOVE_CLASSES = (Respond, DraftPick, ChooseActive, Eco, EffectMove, DialGainCard, DialReward, GainCard, GainCardKeep)

PROMPT_MOVE = {
    "draft": "draft_pick",
    "choose_active": "choose_active",
    "respond": "respond",
    "eco_confirm": "eco",
    "effect_choice": "effect",
    "dial_gain_card": "dial_gain_card",
    "dial_reward": "dial_reward",
    "gain_card_source": "gain_card",
    "gain_card_keep": "gain_card_keep",
}


def back_of(card: str) -> str:
    """The back colour of a card id."""
    return CARDS[card].back


# --- the view (§B10, §B11) ------------------------------------------------------------------


class InPlayView(TypedDict):
    """A card in a tableau: its uses left and which of its slots hold a cube (§B2.5)."""

    card: str
    uses_left: int
    cubes: list[bool]


class BacksView(TypedDict):
    """Cards counted by the colour of their back."""

    blue: int
    brown: int


class SeatView(TypedDict):
    """Public data of one seat."""

    seat: int
    score: int
    energy_available: int
    dial: int
    status: Literal["active", "resigned"]
    tableau: list[InPlayView]
    hand_counts: BacksView
    pack_size: int | None


class PromptView(TypedDict, total=False):
    """The open prompt (§B10): ``type`` and the ``seats`` it waits for, with the members of its type."""

    type: Required[
        Literal[
            "respond",
            "draft_pick",
            "choose_active",
            "eco_confirm",
            "effect_choice",
            "dial_gain_card",
            "dial_reward",
            "gain_card_source",
            "gain_card_keep",
        ]
    ]
    seats: Required[list[int]]
    tokens: list[str]  # respond: the drawn tokens
    replaced: list[int]  # respond, draft_pick, choose_active: per seat, replacements of a complete answer
    keep: int  # draft_pick: cards per pick
    back: str  # draft_pick: the colour being drafted
    pack: list[str] | None  # draft_pick: the viewer's own pack; null for anyone else
    choose: int | None  # choose_active: how many cards the viewer picks; null for a spectator
    card: str  # eco_confirm, effect_choice
    slot: int  # eco_confirm: the slot just filled
    move_cube_from: CubeAt | None  # eco_confirm
    step: int  # effect_choice: the effect step
    op: str  # effect_choice: the step's operation
    remaining: int  # effect_choice
    can_stop: bool  # effect_choice: the step is optional
    revealed_backs: list[str]  # gain_card_keep
    revealed: list[str] | None  # gain_card_keep: the cards, to the seat choosing only


class BagView(TypedDict):
    """The bag: tokens left by element (and ``wild``), and their sum."""

    remaining: dict[str, int]
    size: int


class TileView(TypedDict):
    """A tile of the map (§B2.2)."""

    terrain: str
    mountain: bool
    forests: int
    animal: str | None


class SupplyView(TypedDict):
    """The general supply (§B2.2–§B2.4); ``animals`` by species."""

    land: int
    water: int
    mountains: int
    forests: int
    energy: int
    animals: dict[str, int]


class RespondStatusView(TypedDict):
    """Who has answered the drawn tokens, who is awaited, and whose answers were automatic rotations."""

    answered: list[int]
    awaiting: list[int]
    auto_rotated: list[int]
    auto_tokens: list[list[int]]


class TaskView(TypedDict, total=False):
    """A pending unit of the resolution (§B4.2); members at their defaults are left out."""

    kind: Required[Literal["rotate", "place", "complete", "step", "gain", "finish"]]
    card: str
    slot: int
    src_card: str
    src_slot: int
    step: int
    remaining: int


class ResolutionView(TypedDict):
    """The resolution in progress: its queue, the seats that resolved an ECO in this draw, and the
    resolving card's ``bind`` hexes and ``removed`` pieces (§B8.1, §B8.4)."""

    queue: list[TaskView]
    eco_seats: list[int]
    binds: dict[str, list[str]]
    removed: list[str]


class DraftView(TypedDict):
    """The draft: the colour, pick rounds left, and per seat how many cards it picks at choose_active."""

    back: str
    left: int
    choose: list[int]


class OptionsView(TypedDict):
    """The match options the view repeats (`target_score` is a member of the view itself)."""

    cards: Literal["preset", "draft"]
    preset_seats: list[int]
    start_map: str


class EcosResult(TypedDict):
    """Ecos's result: the platform's members and the draws played to break a tie (§B9)."""

    winners: list[int]
    ranking: list[list[int]]
    scores: list[int]
    reason: str
    tiebreak_draws: NotRequired[int]  # absent from a result by agreement (a draw, a concession)


class EcosView(TypedDict):
    """What one seat (or a spectator) sees (§B10 view JSON, §B11)."""

    game: str
    phase: str
    round: int
    draw: int
    target_score: int
    you: int | None
    harbinger: int
    cursor: int | None
    prompt: PromptView | None
    awaiting: list[int]
    current_draw: list[str]
    drawn_this_round: list[str]
    bag: BagView
    map: dict[str, TileView]
    supply: SupplyView
    decks: BacksView
    faceup: list[str]
    discard: list[str]
    hand: list[str]
    my_answers: list[AnswerJSON] | None
    my_picks: list[str] | None
    seats: list[SeatView]
    respond_status: RespondStatusView | None
    answers: list[list[AnswerJSON]] | None
    resolution: ResolutionView | None
    draft: DraftView | None
    tiebreak: bool
    tiebreak_draws: int
    draws_total: int
    rebuilds: int
    options: OptionsView
    result: EcosResult | None
