"""Ecos constants, state values and moves (ecos.md §B2, §B3.3, §B4.1, §B10). Frozen dataclasses with tuples."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from games.engines.ecos.board import Hex, Tile
from games.engines.ecos.cards import CARDS, ELEMENTS
from games.engines.ecos.effects import Choice

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
    target_score: int = DEFAULT_TARGET
    cards: str = "preset"
    preset_seats: tuple[int, ...] = ()
    start_map: str = "standard"
    setup: str | None = None  # the `setup` fixture as canonical JSON text


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


@dataclass(frozen=True, slots=True)
class Answer:
    """One entry of a `respond` answer (§B4.1): a placement or a rotation for drawn token ``token``."""

    token: int
    kind: Literal["place", "rotate"]
    card: str = ""
    slot: int = -1
    src_card: str = ""  # move_cube_from
    src_slot: int = -1


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


@dataclass(frozen=True, slots=True)
class Respond:
    """`respond`: one entry per drawn token (or one entry per move in a 2-player game)."""

    answers: tuple[Answer, ...]
    type: Literal["respond"] = "respond"


@dataclass(frozen=True, slots=True)
class DraftPick:
    """`draft_pick`: the card(s) kept from the pack."""

    cards: tuple[str, ...]
    type: Literal["draft_pick"] = "draft_pick"


@dataclass(frozen=True, slots=True)
class ChooseActive:
    """`choose_active`: the hand cards that start in the tableau."""

    cards: tuple[str, ...]
    type: Literal["choose_active"] = "choose_active"


@dataclass(frozen=True, slots=True)
class Eco:
    """`eco`: answer to `eco_confirm` (resolve, or retract and rotate)."""

    resolve: bool
    type: Literal["eco"] = "eco"


@dataclass(frozen=True, slots=True)
class EffectMove:
    """`effect`: one option of `effect_choice`, or stop an optional step."""

    choice: Choice | None = None
    stop: bool = False
    type: Literal["effect"] = "effect"


@dataclass(frozen=True, slots=True)
class DialGainCard:
    """`dial_gain_card`: reset the dial to gain a card, or not."""

    accept: bool
    type: Literal["dial_gain_card"] = "dial_gain_card"


@dataclass(frozen=True, slots=True)
class DialReward:
    """`dial_reward`: play a hand card or take one cube."""

    reward: Literal["play_card", "energy"]
    card: str | None = None
    type: Literal["dial_reward"] = "dial_reward"


@dataclass(frozen=True, slots=True)
class GainCard:
    """`gain_card`: two deck cards by back (``decks``), or one face-up ``card``."""

    source: Literal["deck", "faceup"]
    decks: tuple[str, ...] = ()
    card: str | None = None
    type: Literal["gain_card"] = "gain_card"


@dataclass(frozen=True, slots=True)
class GainCardKeep:
    """`gain_card_keep`: which revealed card to keep."""

    card: str
    type: Literal["gain_card_keep"] = "gain_card_keep"


Move = Respond | DraftPick | ChooseActive | Eco | EffectMove | DialGainCard | DialReward | GainCard | GainCardKeep

DECK_SOURCES: tuple[tuple[str, ...], ...] = (
    ("brown", "brown"),
    ("blue", "brown"),
    ("blue", "blue"),
)  # §B7; default first
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
