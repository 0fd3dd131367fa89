"""Ecos setup, queries and transitions (docs/rules/ecos.md §B3–§B10). Pure; the only randomness is `rules.rng`.

RNG uses (§0.2, §B3): ``rng(seed, "harbinger")``, ``rng(seed, "presets")``,
``rng(seed, "deck", back)``, ``rng(seed, "draft", back)`` (the reshuffle after a
draft), ``rng(seed, "draw", draws_total, i)`` (the i-th token of a draw) and
``rng(seed, "rebuild", rebuilds, back)`` (a deck rebuilt from the discards).

A transition works on a `kit.Draft` of the frozen `State` (``d.state`` to read, ``d.set`` to
write, ``d.emit`` to announce).
"""

from __future__ import annotations

import json
import operator
from collections.abc import Sequence
from typing import Any

from rules.base import JSON, Effect, IllegalMove, InvalidOptions, NotAwaited, Option, Outcome, Seat, put
from rules.ecos.board import SPECIES, Hex, Tile, canon, hex_key, parse_hex, tile_ok
from rules.ecos.cards import CARD_IDS, CARDS, PLACEMENT_OPS, PRESETS, SPECIES_IDS, Step
from rules.ecos.effects import apply_choice, default_choice, options, score_value
from rules.ecos.model import (
    ACTIVE_COUNT,
    BAG_COUNTS,
    DECK_SOURCES,
    ENERGY_TOTAL,
    FORESTS,
    HAND_SIZE,
    LAND_TILES,
    MOUNTAINS,
    PACK_SIZE,
    PLAYERS,
    PROMPT_MOVE,
    REPLACE_LIMIT,
    ROUND_LIMIT,
    START_ENERGY,
    START_MAPS,
    TIEBREAK_LIMIT,
    TOKENS,
    TWO_PLAYER_DEAL,
    WATER_TILES,
    Answer,
    Choice,
    ChooseActive,
    Config,
    DialGainCard,
    DialReward,
    DraftPick,
    Eco,
    EffectMove,
    GainCard,
    GainCardKeep,
    InPlay,
    Move,
    Prompt,
    Respond,
    SeatState,
    State,
    Task,
    back_of,
)
from rules.kit import Draft, parse_options
from rules.rng import pick, randbelow, rng, sample, shuffled

# --- 1. constants (the rest: model.py) ------------------------------------------------------

_ALL_CARDS = sorted(CARD_IDS)
_BLUE = frozenset(c for c in CARD_IDS if CARDS[c].back == "blue")

# --- the working copy: `kit.Draft` (which folds pending changes into one positional copy) -------

_SEAT_FIELDS = tuple(SeatState.__dataclass_fields__)
_SEAT_VALUES = operator.attrgetter(*_SEAT_FIELDS)
_SEAT_INDEX = {name: i for i, name in enumerate(_SEAT_FIELDS)}


def _seat_with(st: SeatState, **changes: Any) -> SeatState:
    """`dataclasses.replace` for `SeatState`."""
    values = list(_SEAT_VALUES(st))
    for name, value in changes.items():
        values[_SEAT_INDEX[name]] = value
    return SeatState(*values)


def _set_seat(d: Draft[State], s: Seat, **changes: Any) -> None:
    """Replace some fields of one seat."""
    seats = d.state.seats
    d.set(seats=put(seats, s, _seat_with(seats[s], **changes)))


def _deck(state: State, back: str) -> tuple[str, ...]:
    """The deck of a back, top first."""
    return state.blue if back == "blue" else state.brown


def _set_deck(d: Draft[State], back: str, cards: tuple[str, ...]) -> None:
    """Replace the deck of a back."""
    if back == "blue":
        d.set(blue=cards)
    else:
        d.set(brown=cards)


def _cubes(ip: InPlay, cubes: tuple[bool, ...]) -> InPlay:
    """The same card in play with other cubes."""
    return InPlay(ip.card, ip.uses_left, cubes)


def _active_seats(s: State) -> list[Seat]:
    """Seats that have not resigned."""
    return [i for i, st in enumerate(s.seats) if not st.resigned]


def _sorted_hand(cards: Sequence[str]) -> tuple[str, ...]:
    """A hand is kept sorted by card id."""
    return tuple(sorted(cards))


def _fresh(card: str) -> InPlay:
    """A card entering a tableau (§B5): uses_left = leaves, empty slots."""
    c = CARDS[card]
    return InPlay(card, c.leaves, (False,) * len(c.slots))


# --- 3. setup -------------------------------------------------------------------------------

OPTIONS = (
    Option("target_score", "integer", 80, "End-of-game threshold (80; the short game: 60)", minimum=1, maximum=10_000),
    Option("cards", "string", "preset", "How starting hands are made", choices=("preset", "draft")),
    Option(
        "preset_seats",
        "object",
        [],
        "With cards: draft, the seats that get a preset hand: a JSON list of distinct seat indices"
        " (declared `object`: the catalogue has no list type)",
        shape=list[int],
    ),
    Option("start_map", "string", "standard", "The starting tiles", choices=tuple(START_MAPS)),
    Option(
        "setup", "object", None, "Test fixture replacing the random setup (docs/rules/ecos.md §B3.3)", restricted=True
    ),
)


def parse_config(options: JSON, players: int) -> Config:
    """Options of §B3.3 → `Config`; raises `InvalidOptions`."""
    if players not in PLAYERS:
        raise InvalidOptions(f"Ecos takes 2–6 players, not {players}")
    o = parse_options(OPTIONS, options, players)
    raw_seats = o["preset_seats"]
    if not isinstance(raw_seats, list) or any(isinstance(x, bool) or not isinstance(x, int) for x in raw_seats):
        raise InvalidOptions("option 'preset_seats' must be a list of seats")
    if len(set(raw_seats)) != len(raw_seats) or any(not 0 <= x < players for x in raw_seats):
        raise InvalidOptions("option 'preset_seats' lists a seat twice or a seat that does not exist")
    if raw_seats and o["cards"] != "draft":
        raise InvalidOptions("option 'preset_seats' goes with cards: 'draft' (§B3 item 5)")
    setup = None if o["setup"] is None else json.dumps(o["setup"], sort_keys=True, separators=(",", ":"))
    config = Config(players, o["target_score"], o["cards"], tuple(sorted(raw_seats)), o["start_map"], setup)
    if setup is not None:
        _setup_state(config, 0)  # refuses a setup that breaks the rules (§B3.3)
    return config


def _base_state(
    config: Config, seed: int, seats: tuple[SeatState, ...], tiles: dict[Hex, Tile], harbinger: int
) -> Draft[State]:
    """A working copy of a state with full bag and the supplies that follow from ``seats`` and ``tiles``."""
    n = config.players
    on_map_land = sum(1 for t in tiles.values() if t.terrain != "water")
    animals = [0] * len(SPECIES_IDS)
    for t in tiles.values():
        if t.animal is not None:
            animals[SPECIES_IDS.index(t.animal)] += 1
    held = sum(st.energy + sum(sum(ip.cubes) for ip in st.tableau) for st in seats)
    state = State(
        config=config,
        seed=seed,
        phase="respond",
        seats=seats,
        tiles=tuple(sorted(tiles.items(), key=lambda kv: canon(kv[0]))),
        land=LAND_TILES - on_map_land,
        water=WATER_TILES - (len(tiles) - on_map_land),
        mountains=MOUNTAINS - sum(t.mountain for t in tiles.values()),
        forests=FORESTS - sum(t.forests for t in tiles.values()),
        energy=ENERGY_TOTAL - held,
        animal_supply=tuple(SPECIES[s].count - animals[i] for i, s in enumerate(SPECIES_IDS)),
        bag=BAG_COUNTS,
        forced=(),
        harbinger=harbinger,
        round=1,
        draw=0,
        draws_total=0,
        tiebreak=False,
        tiebreak_draws=0,
        current_draw=(),
        drawn_this_round=(),
        blue=(),
        brown=(),
        faceup=(),
        discard=(),
        rebuilds=0,
        answers=((),) * n,
        auto=((),) * n,
        replaced=(0,) * n,
        cursor=None,
        queue=(),
        eco_seats=(),
        binds=(),
        removed=(),
        prompt=None,
        draft_color="",
        draft_left=0,
        packs=((),) * n,
        picks=((),) * n,
        choose=(0,) * n,
        winners=(),
        reason="",
    )
    return Draft(state)


def setup(config: Config, seed: int) -> tuple[State, tuple[Effect, ...]]:
    """§B3: the map, seats, Harbinger, bag and cards, up to the first prompt; and what the setup
    told each seat (its hand, its pack, the first draw)."""
    d = _setup_state(config, seed) if config.setup is not None else _opening(config, seed)
    return d.done()


def _announce(d: Draft[State]) -> None:
    """The public start of the match, and each seat's dealt hand, to that seat only."""
    config = d.state.config
    d.emit("game_started", {"harbinger": d.state.harbinger, "cards": config.cards, "start_map": config.start_map})
    for s, st in enumerate(d.state.seats):
        if st.hand:
            d.emit("hand_dealt", {"seat": s, "cards": list(st.hand)}, to=(s,))


def _opening(config: Config, seed: int) -> Draft[State]:
    """The random setup of §B3 (presets, decks, 2-player deals, draft or first draw)."""
    n = config.players
    tiles = {h: Tile(terrain) for h, terrain in START_MAPS[config.start_map]}
    harbinger = randbelow(rng(seed, "harbinger"), n)
    d = _base_state(config, seed, tuple(SeatState() for _ in range(n)), tiles, harbinger)
    preset_seats = list(range(n)) if config.cards == "preset" else list(config.preset_seats)
    presets = sample(PRESETS, len(preset_seats), rng(seed, "presets"))
    used: set[str] = set()
    for s, preset in zip(preset_seats, presets, strict=True):
        mine = [c for c in CARD_IDS if CARDS[c].preset == preset]
        used.update(mine)
        tableau = tuple(_fresh(c) for c in mine if CARDS[c].active)
        _set_seat(d, s, tableau=tableau, hand=_sorted_hand([c for c in mine if not CARDS[c].active]))
    for back in ("blue", "brown"):
        rest = [c for c in CARD_IDS if c not in used and CARDS[c].back == back]
        _set_deck(d, back, tuple(shuffled(rest, rng(seed, "deck", back))))
    drafting = [s for s in range(n) if s not in preset_seats]
    if n == 2:
        # §B3.1: preset seats draw 4 brown then 2 blue; drafting seats are dealt 2 blue and 4 brown.
        for s in preset_seats:
            _deal(d, s, "brown", TWO_PLAYER_DEAL["brown"])
            _deal(d, s, "blue", TWO_PLAYER_DEAL["blue"])
        for s in drafting:
            _deal(d, s, "blue", TWO_PLAYER_DEAL["blue"])
            _deal(d, s, "brown", TWO_PLAYER_DEAL["brown"])
    _announce(d)
    if drafting:
        _open_draft(d, "blue")
    elif n == 2:
        _open_choose(d)
    else:
        _draw(d)
    _run(d)
    return d


def _deal(d: Draft[State], s: Seat, back: str, k: int) -> None:
    """Move the top ``k`` cards of a deck into a hand."""
    deck = _deck(d.state, back)
    _set_deck(d, back, deck[k:])
    _set_seat(d, s, hand=_sorted_hand(d.state.seats[s].hand + deck[:k]))


def _drafting(s: State) -> list[Seat]:
    """Seats that draft (§B3 item 5, `preset_seats`)."""
    config = s.config
    if config.cards != "draft":
        return []
    return [s for s in range(config.players) if s not in config.preset_seats]


def _keep(s: State) -> int:
    """Cards per draft pick: 2 in a 2-player game (§B3.1), else 1."""
    return 2 if s.config.players == 2 else 1


def _open_draft(d: Draft[State], back: str) -> None:
    """§B3.2: deal a pack of 5 blue (or 9 brown) to each drafting seat, in seat order."""
    n = d.state.players
    d.set(phase="draft", draft_color=back, draft_left=(HAND_SIZE[back] // 2) if n == 2 else HAND_SIZE[back])
    packs = list(d.state.packs)
    for s in _drafting(d.state):
        deck = _deck(d.state, back)
        packs[s] = _sorted_hand(deck[: PACK_SIZE[back]])
        _set_deck(d, back, deck[PACK_SIZE[back] :])
        d.emit("pack_received", {"seat": s, "cards": list(packs[s])}, to=(s,))
    d.set(packs=tuple(packs), picks=((),) * n, replaced=(0,) * n)


def _open_choose(d: Draft[State]) -> None:
    """§B3.1/§B3.2 item 3: each concerned seat chooses its starting active cards."""
    n = d.state.players
    drafting = _drafting(d.state)
    two = n == 2
    choose = []
    for s in range(n):
        if s in drafting:
            choose.append(5 if two else ACTIVE_COUNT)
        else:
            choose.append(2 if two else 0)
    d.set(phase="choose_active", draft_color="", draft_left=0, choose=tuple(choose), picks=((),) * n, replaced=(0,) * n)
    if not any(choose):
        _draw(d)


# --- the `setup` fixture (§B3.3) ------------------------------------------------------------


def _bad(message: str) -> InvalidOptions:
    """An InvalidOptions naming the fixture field at fault."""
    return InvalidOptions(f"setup: {message}")


def _fixture_obj(value: Any, where: str, allowed: set[str]) -> dict[str, Any]:
    """A fixture object with only known fields."""
    if not isinstance(value, dict):
        raise _bad(f"{where} must be an object")
    for key in value:
        if key not in allowed:
            raise _bad(f"{where}: unknown field {key!r}")
    return value


def _fixture_int(value: Any, where: str, lo: int, hi: int | None = None) -> int:
    """A fixture integer in range."""
    if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
        raise _bad(f"{where} must be an integer in {lo}..{hi if hi is not None else '∞'}")
    return int(value)


def _fixture_cards(value: Any, where: str) -> list[str]:
    """A fixture list of card ids."""
    if not isinstance(value, list) or any(c not in CARDS for c in value):
        raise _bad(f"{where} must be a list of card ids")
    return list(value)


def _setup_state(config: Config, seed: int) -> Draft[State]:
    """Build the position of a `setup` fixture; raises `InvalidOptions` when it breaks the rules."""
    assert config.setup is not None
    raw = _fixture_obj(
        json.loads(config.setup),
        "setup",
        {"seats", "map", "harbinger", "round", "draws", "decks", "faceup", "discard"},
    )
    n = config.players
    raw_seats = raw.get("seats")
    if not isinstance(raw_seats, list) or len(raw_seats) != n:
        raise _bad(f"seats must list one entry per seat ({n})")
    placed: list[str] = []
    seats = []
    for s, rs in enumerate(raw_seats):
        rs = _fixture_obj(rs, f"seats[{s}]", {"tableau", "hand", "energy_available", "dial", "score"})
        tableau = []
        if not isinstance(rs.get("tableau", []), list):
            raise _bad(f"seats[{s}].tableau must be a list")
        for i, entry in enumerate(rs.get("tableau", [])):
            at = f"seats[{s}].tableau[{i}]"
            entry = _fixture_obj(entry, at, {"card", "uses_left", "cubes"})
            card = entry.get("card")
            if card not in CARDS:
                raise _bad(f"{at}.card is not a card id")
            c = CARDS[card]
            uses = _fixture_int(entry.get("uses_left", c.leaves), f"{at}.uses_left", 1, c.leaves)
            cubes = entry.get("cubes", [False] * len(c.slots))
            if not isinstance(cubes, list) or len(cubes) != len(c.slots) or any(not isinstance(x, bool) for x in cubes):
                raise _bad(f"{at}.cubes must be {len(c.slots)} booleans")
            if all(cubes):
                raise _bad(f"{at}: a card in play cannot have every slot filled")
            tableau.append(InPlay(card, uses, tuple(cubes)))
            placed.append(card)
        hand = _fixture_cards(rs.get("hand", []), f"seats[{s}].hand")
        placed.extend(hand)
        seats.append(
            SeatState(
                tableau=tuple(tableau),
                hand=_sorted_hand(hand),
                energy=_fixture_int(rs.get("energy_available", START_ENERGY), f"seats[{s}].energy_available", 0),
                dial=_fixture_int(rs.get("dial", 0), f"seats[{s}].dial", 0, 2),
                score=_fixture_int(rs.get("score", 0), f"seats[{s}].score", 0),
            )
        )
    if "map" in raw:
        rmap = _fixture_obj(raw["map"], "map", set(raw["map"]) if isinstance(raw["map"], dict) else set())
        tiles = {}
        for key, rt in rmap.items():
            try:
                h = parse_hex(key)
            except ValueError as err:
                raise _bad(f"map: {err}") from None
            rt = _fixture_obj(rt, f"map[{key}]", {"terrain", "mountain", "forests", "animal"})
            terrain = rt.get("terrain")
            if terrain not in ("water", "desert", "grassland"):
                raise _bad(f"map[{key}].terrain must be water, desert or grassland")
            mountain = rt.get("mountain", False)
            animal = rt.get("animal")
            if not isinstance(mountain, bool) or (animal is not None and animal not in SPECIES):
                raise _bad(f"map[{key}]: bad mountain or animal")
            tiles[h] = Tile(terrain, mountain, _fixture_int(rt.get("forests", 0), f"map[{key}].forests", 0), animal)
        if not tiles:
            raise _bad("map must hold at least one tile")
    else:
        tiles = {h: Tile(terrain) for h, terrain in START_MAPS[config.start_map]}
    for h in tiles:
        if not tile_ok(tiles, h):
            raise _bad(f"map[{hex_key(h)}]: a token breaks a capacity or a habitat (§B2.2)")
    harbinger = _fixture_int(raw.get("harbinger", 0), "harbinger", 0, n - 1)
    d = _base_state(config, seed, tuple(seats), tiles, harbinger)
    d.set(round=_fixture_int(raw.get("round", 1), "round", 1))
    draws = raw.get("draws", [])
    if not isinstance(draws, list) or any(t not in TOKENS for t in draws):
        raise _bad("draws must be a list of element tokens")
    d.set(forced=tuple(draws))
    decks = _fixture_obj(raw.get("decks", {}), "decks", {"blue", "brown"})
    for back in ("blue", "brown"):
        top = _fixture_cards(decks.get(back, []), f"decks.{back}")
        if any(CARDS[c].back != back for c in top):
            raise _bad(f"decks.{back} holds a card of the other back")
        placed.extend(top)
        _set_deck(d, back, tuple(top))
    d.set(
        faceup=tuple(_fixture_cards(raw.get("faceup", []), "faceup")),
        discard=tuple(_fixture_cards(raw.get("discard", []), "discard")),
    )
    placed.extend(d.state.faceup + d.state.discard)
    if len(set(placed)) != len(placed):
        dup = sorted({c for c in placed if placed.count(c) > 1})
        raise _bad(f"cards in two places: {dup}")
    for back in ("blue", "brown"):
        rest = tuple(c for c in CARD_IDS if c not in set(placed) and CARDS[c].back == back)
        _set_deck(d, back, _deck(d.state, back) + rest)
    st = d.state
    supplies = (st.land, st.water, st.mountains, st.forests, st.energy, *st.animal_supply)
    if any(x < 0 for x in supplies):
        raise _bad("more tiles, tokens or cubes than the game has (§B2)")
    _announce(d)
    _draw(d)
    _run(d)
    return d


# --- 4. queries -----------------------------------------------------------------------------


def _owed(s: State, seat: Seat) -> tuple[int, ...]:
    """The drawn tokens ``seat`` must answer itself (the others were rotated automatically)."""
    auto = s.auto[seat]
    return tuple(i for i in range(len(s.current_draw)) if i not in auto)


def _answered(s: State, seat: Seat) -> set[int]:
    """Tokens the seat has answered itself in the open `respond`."""
    auto = s.auto[seat]
    return {a.token for a in s.answers[seat] if a.token not in auto}


def _respond_complete(s: State, seat: Seat) -> bool:
    """Has the seat an answer for every drawn token?"""
    return len(s.answers[seat]) >= len(s.current_draw)


def _picks_needed(s: State, seat: Seat) -> int:
    """Cards the seat must pick in the open draft or choose prompt."""
    if s.phase == "draft":
        return _keep(s) if seat in _drafting(s) else 0
    return s.choose[seat]


def awaiting(state: State) -> frozenset[Seat]:
    """Seats that owe an answer to the open prompt (§B10); empty iff the game is over."""
    phase = state.phase
    if phase == "respond":
        return frozenset(
            s for s in range(state.players) if not state.seats[s].resigned and not _respond_complete(state, s)
        )
    if phase in ("draft", "choose_active"):
        return frozenset(
            s
            for s in range(state.players)
            if not state.seats[s].resigned and len(state.picks[s]) < _picks_needed(state, s)
        )
    if phase == "resolve" and state.prompt is not None:
        return frozenset({state.prompt.seat})
    return frozenset()


def _can_place(st: SeatState, token: str) -> bool:
    """§B4.1: is there an empty matching slot and a cube to put on it?"""
    if st.energy == 0 and not any(any(ip.cubes) for ip in st.tableau):
        return False
    for ip in st.tableau:
        slots = CARDS[ip.card].slots
        for i, filled in enumerate(ip.cubes):
            if not filled and (token == "wild" or slots[i] == token):
                return True
    return False


class _Scratch:
    """§B4.1: a seat's cubes and available count, as its earlier answers of this draw left them."""

    __slots__ = ("cubes", "done", "energy", "order")

    def __init__(self, st: SeatState) -> None:
        self.cubes = {ip.card: list(ip.cubes) for ip in st.tableau}
        self.order = [ip.card for ip in st.tableau]
        self.energy = st.energy
        self.done: set[str] = set()

    def check(self, a: Answer, token: str) -> str | None:
        """The first reason ``a`` is illegal here, or None; a legal placement is applied."""
        if a.kind == "rotate":
            return None
        row = self.cubes.get(a.card)
        if row is None:
            return "not_in_tableau"
        if row[a.slot]:
            return "slot_filled"
        if token != "wild" and CARDS[a.card].slots[a.slot] != token:
            return "element_mismatch"
        if self.energy == 0 and not a.src_card:
            return "no_energy"
        if self.energy > 0 and a.src_card:
            return "move_not_allowed"
        if a.src_card:
            src = self.cubes.get(a.src_card)
            if src is None or a.src_card in self.done or not src[a.src_slot]:
                return "bad_move_source"
            src[a.src_slot] = False
        else:
            self.energy -= 1
        row[a.slot] = True
        if all(row):
            self.done.add(a.card)
        return None


def _scratch_after(state: State, seat: Seat) -> _Scratch:
    """The seat's scratch copy after its answers so far."""
    sc = _Scratch(state.seats[seat])
    for a in state.answers[seat]:
        sc.check(a, state.current_draw[a.token])
    return sc


def _respond_moves(state: State, seat: Seat) -> list[Respond]:
    """One-entry `respond` moves for each token the seat still owes (§B4.1, docs/rules/README.md *legal_moves*)."""
    sc = _scratch_after(state, seat)
    done = _answered(state, seat)
    out: list[Respond] = []
    sources = [(c, i) for c in sc.order if c not in sc.done for i, f in enumerate(sc.cubes[c]) if f]
    for t in _owed(state, seat):
        if t in done:
            continue
        token = state.current_draw[t]
        for card in sc.order:
            row, slots = sc.cubes[card], CARDS[card].slots
            for i, filled in enumerate(row):
                if filled or (token != "wild" and slots[i] != token):
                    continue
                if sc.energy > 0:
                    out.append(Respond((Answer(t, "place", card, i),)))
                else:
                    out.extend(
                        Respond((Answer(t, "place", card, i, sc_card, sc_slot),)) for sc_card, sc_slot in sources
                    )
        out.append(Respond((Answer(t, "rotate"),)))
    return out


def _gain_sources(s: State) -> tuple[list[tuple[str, ...]], list[str]]:
    """§B7: the deck sources that would reveal a card, and the face-up cards."""
    avail = {
        b: len(s.blue if b == "blue" else s.brown) + sum(1 for c in s.discard if back_of(c) == b)
        for b in ("blue", "brown")
    }
    decks = [src for src in DECK_SOURCES if any(avail[b] > 0 for b in src)]
    return decks, sorted(s.faceup)


def _step_of(prompt: Prompt) -> Step:
    """The effect step an `effect_choice` prompt is about."""
    return CARDS[prompt.card].effects[prompt.step]


def legal_moves(state: State, seat: Seat) -> list[Move]:
    """Concrete moves for the seat's open prompt, one pick per move (§B10, docs/rules/README.md *legal_moves*)."""
    if seat not in awaiting(state):
        return []
    phase = state.phase
    if phase == "respond":
        return list(_respond_moves(state, seat))
    if phase == "draft":
        return [DraftPick((c,)) for c in state.packs[seat] if c not in state.picks[seat]]
    if phase == "choose_active":
        return [ChooseActive((c,)) for c in state.seats[seat].hand if c not in state.picks[seat]]
    prompt = state.prompt
    assert prompt is not None
    st = state.seats[seat]
    if prompt.type == "eco_confirm":
        return [Eco(True), Eco(False)]
    if prompt.type == "effect_choice":
        step = _step_of(prompt)
        moves: list[Move] = [EffectMove(choice=c) for c in options(state, step)]
        if step.optional:
            moves.append(EffectMove(stop=True))
        return moves
    if prompt.type == "dial_gain_card":
        return [DialGainCard(True), DialGainCard(False)]
    if prompt.type == "dial_reward":
        moves = [DialReward("energy")] if state.energy > 0 else []
        return moves + [DialReward("play_card", c) for c in st.hand]
    if prompt.type == "gain_card_source":
        decks, faceup = _gain_sources(state)
        gains: list[Move] = [GainCard("deck", src) for src in decks]
        return gains + [GainCard("faceup", card=c) for c in faceup]
    return [GainCardKeep(c) for c in prompt.revealed]


def outcome(state: State) -> Outcome | None:
    """§B9: ranking by score, resigned seats last; None while playing."""
    if state.phase != "finished":
        return None
    scores = tuple(st.score for st in state.seats)
    active = _active_seats(state)
    groups: dict[int, set[Seat]] = {}
    for s in active:
        groups.setdefault(scores[s], set()).add(s)
    ranking = [frozenset(groups[k]) for k in sorted(groups, reverse=True)]
    if state.reason == "resignation":
        ranking = [frozenset(state.winners)]
    resigned = frozenset(s for s in range(state.players) if state.seats[s].resigned)
    if resigned:
        ranking.append(resigned)
    return Outcome(
        winners=ranking[0],
        ranking=tuple(ranking),
        scores=scores,
        reason=state.reason,
        extra={"tiebreak_draws": state.tiebreak_draws},
    )


# --- 5. transitions -------------------------------------------------------------------------


def _move_type(move: Move) -> str:
    """The `type` of a move."""
    return move.TYPE


def _open_prompt_type(state: State) -> str:
    """The phase or prompt whose move type the engine expects now."""
    if state.phase in ("draft", "choose_active", "respond"):
        return state.phase
    return state.prompt.type if state.prompt is not None else ""


def apply(state: State, seat: Seat, move: Move) -> tuple[State, tuple[Effect, ...]]:
    """Validate and apply ``seat``'s move (§0.3: not_awaited, then the prompt's reasons in order)."""
    if state.phase == "finished" or not 0 <= seat < state.players or state.seats[seat].resigned:
        raise NotAwaited(f"seat {seat} owes no answer")
    prompt_type = _open_prompt_type(state)
    if seat not in awaiting(state) and not _may_replace(state, seat, move):
        raise NotAwaited(f"seat {seat} owes no answer")
    if PROMPT_MOVE.get(prompt_type) != _move_type(move):
        raise IllegalMove(
            "wrong_phase",
            f"the open prompt is {prompt_type}, not {_move_type(move)}",
            prompt=prompt_type,
            move=_move_type(move),
        )
    match move:
        case Respond():
            return _apply_respond(state, seat, move)
        case DraftPick() | ChooseActive():
            return _apply_picks(state, seat, move)
    d = Draft(state)
    _answer_prompt(d, seat, move, check=True)
    _run(d)
    return d.done()


def _may_replace(state: State, seat: Seat, move: Move) -> bool:
    """§0.3: a seat that has answered a simultaneous prompt may still send a replacement of its type."""
    phase = state.phase
    if phase not in ("draft", "choose_active", "respond") or PROMPT_MOVE[phase] != _move_type(move):
        return False
    return bool(_owed(state, seat)) if phase == "respond" else _picks_needed(state, seat) > 0


def _apply_respond(state: State, seat: Seat, move: Respond) -> tuple[State, tuple[Effect, ...]]:
    """§B4.1: check the entries in sequence on a scratch copy, then record them (hidden)."""
    owed = _owed(state, seat)
    done = _answered(state, seat)
    complete = done == set(owed)
    tokens = [a.token for a in move.answers]
    whole = sorted(tokens) == sorted(owed)
    if complete and (len(tokens) < len(owed) or state.replaced[seat] >= REPLACE_LIMIT):
        raise IllegalMove("already_answered", "every token is answered; a replacement is a whole answer")
    partial = not complete and len(tokens) == 1 and tokens[0] in owed and tokens[0] not in done
    if not whole and not partial:
        raise IllegalMove("wrong_answer_count", "one entry per drawn token you owe, each token once")
    keep = tuple(a for a in state.answers[seat] if a.token in state.auto[seat])
    base = keep if whole else state.answers[seat]
    sc = _Scratch(state.seats[seat])
    for a in base:
        sc.check(a, state.current_draw[a.token])
    for a in move.answers:
        reason = sc.check(a, state.current_draw[a.token])
        if reason is not None:
            raise IllegalMove(reason, f"answer for token {a.token} is not legal: {reason}", token=a.token)
    new_answers = base + move.answers
    replaced = state.replaced
    if complete:
        replaced = put(replaced, seat, replaced[seat] + 1)
    d = Draft(state)
    d.set(answers=put(state.answers, seat, new_answers), replaced=replaced)
    now_complete = len(new_answers) >= len(state.current_draw)
    d.emit("respond_answered", {"seat": seat, "complete": now_complete, "replacement": complete})
    d.emit("respond_answer", {"seat": seat, "answers": [a.to_json() for a in move.answers]}, to=(seat,))
    if not awaiting(d.state):
        _run(d)
    return d.done()


def _apply_picks(state: State, seat: Seat, move: DraftPick | ChooseActive) -> tuple[State, tuple[Effect, ...]]:
    """§B3.2: a whole choice, or one card per move; hidden until the prompt closes."""
    need = _picks_needed(state, seat)
    have = state.picks[seat]
    cards = move.cards
    if len(have) >= need and (len(cards) < need or state.replaced[seat] >= REPLACE_LIMIT):
        raise IllegalMove("already_answered", "your choice is complete; a replacement is a whole choice")
    whole = len(cards) == need
    if len(set(cards)) != len(cards) or not (whole or (len(cards) == 1 and cards[0] not in have and len(have) < need)):
        raise IllegalMove("wrong_card_count", f"pick {need} card(s), or one card per move", count=need)
    pool = state.packs[seat] if state.phase == "draft" else state.seats[seat].hand
    if any(c not in pool for c in cards):
        reason = "not_in_pack" if state.phase == "draft" else "not_in_hand"
        raise IllegalMove(reason, "that card is not yours to pick")
    picks = tuple(cards) if whole else have + tuple(cards)
    replaced = state.replaced
    if len(have) >= need:
        replaced = put(replaced, seat, replaced[seat] + 1)
    d = Draft(state)
    d.set(picks=put(state.picks, seat, picks), replaced=replaced)
    kind = "draft_picked" if state.phase == "draft" else "active_picked"
    d.emit(kind, {"seat": seat, "complete": len(picks) >= need})
    d.emit(kind.replace("picked", "pick"), {"seat": seat, "cards": list(picks)}, to=(seat,))
    if not awaiting(d.state):
        _run(d)
    return d.done()


def timeout(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """§B10 defaults: rotate, lowest ids, resolve, first option / stop, decline, energy, brown+brown."""
    if seat not in awaiting(state):
        raise NotAwaited(f"seat {seat} owes no answer")
    d = Draft(state)
    _default_answer(d, seat)
    _run(d)
    return d.done()


def resign(state: State, seat: Seat) -> tuple[State, tuple[Effect, ...]]:
    """§B9: the seat stays in the game, never awaited, its decisions defaulted; last seat standing wins."""
    if state.phase == "finished" or not 0 <= seat < state.players or state.seats[seat].resigned:
        raise NotAwaited(f"seat {seat} cannot resign now")
    d = Draft(state)
    _set_seat(d, seat, resigned=True)
    d.emit("seat_resigned", {"seat": seat})
    active = _active_seats(d.state)
    if len(active) == 1:
        _finish(d, "resignation", tuple(active))
        return d.done()
    if d.state.phase == "respond":
        _default_answer(d, seat)
    _run(d)
    return d.done()


def _default_answer(d: Draft[State], seat: Seat) -> None:
    """Give ``seat``'s open prompt its default answer (§B3.2, §B10)."""
    if d.state.phase == "respond":
        owed = [t for t in _owed(d.state, seat) if t not in _answered(d.state, seat)]
        if owed:
            rotates = tuple(Answer(t, "rotate") for t in owed)
            d.set(answers=put(d.state.answers, seat, d.state.answers[seat] + rotates))
            d.emit("respond_answered", {"seat": seat, "complete": True, "replacement": False})
            d.emit("respond_answer", {"seat": seat, "answers": [a.to_json() for a in rotates]}, to=(seat,))
        return
    if d.state.phase in ("draft", "choose_active"):
        need = _picks_needed(d.state, seat)
        have = d.state.picks[seat]
        if len(have) < need:
            pool = d.state.packs[seat] if d.state.phase == "draft" else d.state.seats[seat].hand
            fill = tuple(c for c in sorted(pool) if c not in have)[: need - len(have)]
            d.set(picks=put(d.state.picks, seat, have + fill))
            kind = "draft_picked" if d.state.phase == "draft" else "active_picked"
            d.emit(kind, {"seat": seat, "complete": True})
            d.emit(kind.replace("picked", "pick"), {"seat": seat, "cards": list(have + fill)}, to=(seat,))
        return
    if d.state.prompt is not None and d.state.prompt.seat == seat:
        _answer_prompt(d, seat, _default_move(d, d.state.prompt), check=False)


def _default_move(d: Draft[State], prompt: Prompt) -> Move:
    """The default answer to a resolution prompt (§B5, §B6, §B7, §B8.1)."""
    kind = prompt.type
    if kind == "eco_confirm":
        return Eco(True)
    if kind == "effect_choice":
        choice = default_choice(d.state, _step_of(prompt))
        return EffectMove(choice=choice) if choice is not None else EffectMove(stop=True)
    if kind == "dial_gain_card":
        return DialGainCard(False)
    if kind == "dial_reward":
        if d.state.energy > 0:
            return DialReward("energy")
        return DialReward("play_card", d.state.seats[prompt.seat].hand[0])
    if kind == "gain_card_source":
        decks, faceup = _gain_sources(d.state)
        return GainCard("deck", decks[0]) if decks else GainCard("faceup", card=faceup[0])
    return GainCardKeep(prompt.revealed[0])


def _answer_prompt(d: Draft[State], seat: Seat, move: Move, *, check: bool) -> None:
    """Apply an answer to the open resolution prompt; ``check`` validates it first (its reasons, in order)."""
    prompt = d.state.prompt
    assert prompt is not None and prompt.seat == seat
    match move:
        case Eco():
            d.set(prompt=None)
            if move.resolve:
                d.set(queue=(Task("complete", prompt.card), *d.state.queue))
            else:
                _retract(d, seat, prompt)
        case EffectMove():
            step = _step_of(prompt)
            if check and move.stop and not step.optional:
                raise IllegalMove("cannot_stop", "this step is not optional")
            if check and not move.stop and move.choice not in options(d.state, step):
                raise IllegalMove("not_an_option", "that choice is not one of the options")
            d.set(prompt=None)
            if move.stop:
                d.emit("step_stopped", {"seat": seat, "card": prompt.card, "step": prompt.step})
            else:
                assert move.choice is not None
                _apply_effect_choice(d, seat, prompt.card, prompt.step, move.choice, prompt.remaining)
        case DialGainCard():
            d.set(prompt=None)
            if move.accept:
                _set_seat(d, seat, dial=0)
                d.emit("dial_reset", {"seat": seat, "reason": "gain_card"})
                d.set(queue=(Task("gain"), *d.state.queue))
            else:
                d.emit("dial_gain_declined", {"seat": seat})
        case DialReward():
            st = d.state.seats[seat]
            if check and move.reward == "play_card" and move.card not in st.hand:
                raise IllegalMove("not_in_hand", "that card is not in your hand")
            if check and move.reward == "energy" and d.state.energy <= 0:
                raise IllegalMove("supply_empty", "the energy supply is empty")
            d.set(prompt=None)
            if move.reward == "energy":
                d.set(energy=d.state.energy - 1)
                _set_seat(d, seat, energy=st.energy + 1, dial=0)
                d.emit("dial_reward", {"seat": seat, "reward": "energy"})
            else:
                assert move.card is not None
                hand = tuple(c for c in st.hand if c != move.card)
                _set_seat(d, seat, hand=hand, tableau=(*st.tableau, _fresh(move.card)), dial=0)
                d.emit("dial_reward", {"seat": seat, "reward": "play_card", "card": move.card})
        case GainCard():
            decks, faceup = _gain_sources(d.state)
            if check and move.source == "faceup" and move.card not in faceup:
                raise IllegalMove("not_faceup", "that card is not face up")
            if check and move.source == "deck" and move.from_ not in decks:
                raise IllegalMove("empty_deck", "that source would reveal no card")
            d.set(prompt=None)
            if move.source == "faceup":
                assert move.card is not None
                d.set(faceup=tuple(c for c in d.state.faceup if c != move.card))
                st = d.state.seats[seat]
                _set_seat(d, seat, hand=_sorted_hand((*st.hand, move.card)))
                d.emit("card_taken", {"seat": seat, "card": move.card})
            else:
                assert move.from_ is not None
                _reveal(d, seat, move.from_)
        case GainCardKeep():
            if check and move.card not in prompt.revealed:
                raise IllegalMove("not_revealed", "that card was not revealed to you")
            d.set(prompt=None)
            _keep_card(d, seat, move.card, prompt.revealed)
        case _:
            raise AssertionError(move)


def _retract(d: Draft[State], seat: Seat, prompt: Prompt) -> None:
    """§B6 item 1, `resolve: false`: the cube goes back to the available cubes and the dial turns."""
    st = d.state.seats[seat]
    tableau = tuple(
        _cubes(ip, put(ip.cubes, prompt.slot, False)) if ip.card == prompt.card else ip for ip in st.tableau
    )
    _set_seat(d, seat, tableau=tableau, energy=st.energy + 1)
    d.emit("eco_retracted", {"seat": seat, "card": prompt.card, "slot": prompt.slot})
    d.set(queue=(Task("rotate"), *d.state.queue))


def _reveal(d: Draft[State], seat: Seat, decks: tuple[str, ...]) -> None:
    """§B7: reveal the named top cards to the seat only, rebuilding an empty deck from its discards."""
    revealed: list[str] = []
    for back in decks:
        if not _deck(d.state, back):
            _rebuild(d, back)
        deck = _deck(d.state, back)
        if deck:
            revealed.append(deck[0])
            _set_deck(d, back, deck[1:])
    d.emit("cards_revealed", {"seat": seat, "backs": [back_of(c) for c in revealed]})
    d.emit("cards_revealed", {"seat": seat, "cards": revealed}, to=(seat,))
    if len(revealed) == 1:
        _keep_card(d, seat, revealed[0], tuple(revealed))
    else:
        d.set(prompt=Prompt("gain_card_keep", seat, revealed=tuple(revealed)))


def _rebuild(d: Draft[State], back: str) -> None:
    """§B7 [D]: an empty deck is rebuilt from every discarded card of its back (shuffled)."""
    cards = [c for c in d.state.discard if back_of(c) == back]
    if not cards:
        return
    d.set(discard=tuple(c for c in d.state.discard if back_of(c) != back))
    _set_deck(d, back, tuple(shuffled(sorted(cards), rng(d.state.seed, "rebuild", d.state.rebuilds, back))))
    d.set(rebuilds=d.state.rebuilds + 1)
    d.emit("deck_rebuilt", {"back": back, "size": len(cards)})


def _keep_card(d: Draft[State], seat: Seat, card: str, revealed: tuple[str, ...]) -> None:
    """The kept card goes to the hand, the other revealed one face up (§B7)."""
    st = d.state.seats[seat]
    _set_seat(d, seat, hand=_sorted_hand((*st.hand, card)))
    d.emit("card_kept", {"seat": seat, "back": back_of(card)})
    d.emit("card_kept", {"seat": seat, "card": card}, to=(seat,))
    for other in revealed:
        if other != card:
            d.set(faceup=(*d.state.faceup, other))
            d.emit("faceup_added", {"card": other})


def _apply_effect_choice(d: Draft[State], seat: Seat, card: str, step_i: int, choice: Choice, remaining: int) -> None:
    """Apply one choice of a step; the step continues while iterations remain."""
    step = CARDS[card].effects[step_i]
    changes, kind, data = apply_choice(d.state, step, choice)
    d.set(**changes)
    d.emit(kind, {"seat": seat, "card": card, **data})
    if remaining > 1:
        d.set(queue=(Task("step", card, step=step_i, remaining=remaining - 1), *d.state.queue))


# --- the driver: draws, respond, resolution, end of round -----------------------------------


def _run(d: Draft[State]) -> None:
    """Advance until a seat must answer or the game is over (§B4, §B4.2)."""
    while True:
        phase = d.state.phase
        if phase == "finished":
            return
        if d.state.prompt is not None:
            if d.state.seats[d.state.prompt.seat].resigned:
                _answer_prompt(d, d.state.prompt.seat, _default_move(d, d.state.prompt), check=False)
                continue
            return
        if phase == "respond":
            if any(not d.state.seats[s].resigned and not _respond_complete(d.state, s) for s in range(d.state.players)):
                return
            _close_respond(d)
        elif phase == "resolve":
            if d.state.queue:
                task = d.state.queue[0]
                d.set(queue=d.state.queue[1:])
                _do_task(d, task)
                continue
            assert d.state.cursor is not None
            nxt = (d.state.cursor + 1) % d.state.players
            if nxt == d.state.harbinger:
                _end_draw(d)
            else:
                _start_seat(d, nxt)
        else:  # draft or choose_active
            for s in range(d.state.players):
                if d.state.seats[s].resigned:
                    _default_answer(d, s)
            if any(len(d.state.picks[s]) < _picks_needed(d.state, s) for s in range(d.state.players)):
                return
            if phase == "draft":
                _close_draft_round(d)
            else:
                _close_choose(d)


def _close_draft_round(d: Draft[State]) -> None:
    """§B3.2: picks go to the hands; the packs pass (blue left, brown right) or go back to the deck."""
    drafting = _drafting(d.state)
    seats, packs = list(d.state.seats), list(d.state.packs)
    for s in drafting:
        seats[s] = _seat_with(seats[s], hand=_sorted_hand(seats[s].hand + d.state.picks[s]))
        packs[s] = tuple(c for c in packs[s] if c not in d.state.picks[s])
    n = d.state.players
    d.set(seats=tuple(seats), picks=((),) * n, replaced=(0,) * n, draft_left=d.state.draft_left - 1)
    back = d.state.draft_color
    if d.state.draft_left > 0:
        step = 1 if back == "blue" else -1
        passed = list(packs)
        for i, s in enumerate(drafting):
            passed[drafting[(i + step) % len(drafting)]] = packs[s]
        d.set(packs=tuple(passed))
        d.emit("draft_passed", {"back": back, "direction": "left" if step == 1 else "right"})
        for s in drafting:
            d.emit("pack_received", {"seat": s, "cards": list(d.state.packs[s])}, to=(s,))
        return
    leftovers = [c for s in drafting for c in packs[s]]
    d.set(packs=((),) * n)
    _set_deck(d, back, tuple(shuffled(sorted([*_deck(d.state, back), *leftovers]), rng(d.state.seed, "draft", back))))
    d.emit("draft_ended", {"back": back})
    if back == "blue":
        _open_draft(d, "brown")
    else:
        _open_choose(d)


def _close_choose(d: Draft[State]) -> None:
    """§B3.2 item 3: the chosen cards enter the tableaux (public); the game goes to its first draw."""
    for s in range(d.state.players):
        chosen = d.state.picks[s]
        if not chosen:
            continue
        st = d.state.seats[s]
        _set_seat(
            d,
            s,
            tableau=st.tableau + tuple(_fresh(c) for c in sorted(chosen)),
            hand=tuple(c for c in st.hand if c not in chosen),
        )
        d.emit("active_chosen", {"seat": s, "cards": sorted(chosen)})
    d.set(picks=((),) * d.state.players, choose=(0,) * d.state.players)
    _draw(d)


def _draw(d: Draft[State]) -> None:
    """§B4 step 1: the server draws 1 token (2 with two players) and opens `respond`."""
    st = d.state
    tokens: list[str] = []
    bag = list(st.bag)
    forced = st.forced
    for i in range(2 if st.players == 2 else 1):
        token = None
        if forced:
            head = forced[0]
            if bag[TOKENS.index(head)] > 0:
                token, forced = head, forced[1:]
            else:
                forced = ()  # §B3.3: the rest of the list is dropped
        if token is None:
            pool = [t for t, k in zip(TOKENS, bag, strict=True) for _ in range(k)]
            token = pick(pool, rng(st.seed, "draw", st.draws_total, i))
        bag[TOKENS.index(token)] -= 1
        tokens.append(token)
    current = tuple(tokens)
    d.set(
        forced=forced,
        bag=tuple(bag),
        current_draw=current,
        drawn_this_round=st.drawn_this_round + current,
        draw=st.draw + 1,
        draws_total=st.draws_total + 1,
    )
    d.emit(
        "token_drawn",
        {"tokens": tokens, "round": st.round, "draw": st.draw + 1, "harbinger": st.harbinger, "tiebreak": st.tiebreak},
    )
    _open_respond(d)


def _open_respond(d: Draft[State]) -> None:
    """§B4 step 2: seats without a legal placement for a token answer `rotate` at once (public)."""
    answers, auto = [], []
    for s, st in enumerate(d.state.seats):
        rotated = tuple(i for i, t in enumerate(d.state.current_draw) if st.resigned or not _can_place(st, t))
        auto.append(rotated)
        answers.append(tuple(Answer(i, "rotate") for i in rotated))
        if rotated:
            d.emit("auto_rotated", {"seat": s, "tokens": list(rotated)})
    d.set(phase="respond", answers=tuple(answers), auto=tuple(auto), replaced=(0,) * d.state.players)


def _close_respond(d: Draft[State]) -> None:
    """§B4 step 3: every answer becomes public; resolution starts with the Harbinger."""
    d.emit("respond_closed", {"answers": [[a.to_json() for a in seat_answers] for seat_answers in d.state.answers]})
    n = d.state.players
    d.set(phase="resolve", eco_seats=(), auto=((),) * n, replaced=(0,) * n)
    _start_seat(d, d.state.harbinger)


def _start_seat(d: Draft[State], seat: Seat) -> None:
    """Move the cursor to ``seat`` and queue its answers in order (§B4.2)."""
    queue = tuple(
        Task("rotate") if a.kind == "rotate" else Task("place", a.card, a.slot, a.src_card, a.src_slot)
        for a in d.state.answers[seat]
    )
    d.set(cursor=seat, queue=queue)


def _do_task(d: Draft[State], task: Task) -> None:
    """One unit of the cursor seat's resolution (§B4.2, §B5, §B6, §B8)."""
    seat = d.state.cursor
    assert seat is not None
    kind = task.kind
    if kind == "rotate":
        _rotate(d, seat)
    elif kind == "place":
        _place(d, seat, task)
    elif kind == "complete":
        _complete(d, seat, task.card)
    elif kind == "step":
        _run_step(d, seat, task)
    elif kind == "gain":
        decks, faceup = _gain_sources(d.state)
        if decks or faceup:
            d.set(prompt=Prompt("gain_card_source", seat))
        else:
            d.emit("gain_nothing", {"seat": seat})
    else:  # finish
        _finish_card(d, seat, task.card)


def _rotate(d: Draft[State], seat: Seat) -> None:
    """§B5: turn the dial; at 2 offer a card, at 3 grant a reward (or reset when none is possible)."""
    st = d.state.seats[seat]
    dial = st.dial + 1
    _set_seat(d, seat, dial=dial)
    d.emit("dial_rotated", {"seat": seat, "dial": dial})
    if dial == 2:
        d.set(prompt=Prompt("dial_gain_card", seat))
    elif dial >= 3:
        if st.hand or d.state.energy > 0:
            d.set(prompt=Prompt("dial_reward", seat))
        else:
            _set_seat(d, seat, dial=0)
            d.emit("dial_reward_none", {"seat": seat})


def _place(d: Draft[State], seat: Seat, task: Task) -> None:
    """§B4.2 place: the cube goes on the slot (a moved cube leaves its slot first); a full card is an ECO."""
    st = d.state.seats[seat]
    energy = st.energy
    tableau = list(st.tableau)
    index = {ip.card: i for i, ip in enumerate(tableau)}
    moved = False
    if task.src_card and task.src_card in index:
        j = index[task.src_card]
        if tableau[j].cubes[task.src_slot]:
            tableau[j] = _cubes(tableau[j], put(tableau[j].cubes, task.src_slot, False))
            moved = True
    if not moved:
        energy -= 1  # a source emptied by an earlier ECO of this seat: its cube is available now
    i = index[task.card]
    ip = _cubes(tableau[i], put(tableau[i].cubes, task.slot, True))
    tableau[i] = ip
    _set_seat(d, seat, tableau=tuple(tableau), energy=energy)
    src = {"card": task.src_card, "slot": task.src_slot} if moved else None
    d.emit("cube_placed", {"seat": seat, "card": task.card, "slot": task.slot, "from": src})
    if not ip.complete:
        return
    if any(s != seat for s in d.state.eco_seats):  # §B6 item 1: an earlier seat resolved an ECO in this draw
        d.set(
            prompt=Prompt(
                "eco_confirm",
                seat,
                task.card,
                task.slot,
                task.src_card if moved else "",
                task.src_slot if moved else -1,
            )
        )
    else:
        d.set(queue=(Task("complete", task.card), *d.state.queue))


def _complete(d: Draft[State], seat: Seat, card: str) -> None:
    """§B6 items 2–3: the cubes come back, then the effects run top to bottom."""
    st = d.state.seats[seat]
    tableau = list(st.tableau)
    i = next(k for k, ip in enumerate(tableau) if ip.card == card)
    back = sum(tableau[i].cubes)
    tableau[i] = _cubes(tableau[i], (False,) * len(tableau[i].cubes))
    _set_seat(d, seat, tableau=tuple(tableau), energy=st.energy + back)
    eco_seats = d.state.eco_seats if seat in d.state.eco_seats else (*d.state.eco_seats, seat)
    d.emit("eco", {"seat": seat, "card": card, "cubes_returned": back})
    steps = CARDS[card].effects
    queue = (
        *(Task("step", card, step=k, remaining=s.count) for k, s in enumerate(steps)),
        Task("finish", card),
        *d.state.queue,
    )
    d.set(eco_seats=eco_seats, binds=(), removed=(), queue=queue)


def _run_step(d: Draft[State], seat: Seat, task: Task) -> None:
    """§B8.1: one step, or one iteration of a placement-type step."""
    step = CARDS[task.card].effects[task.step]
    op = step.op
    if op == "score":
        vp = score_value(d.state, step)
        st = d.state.seats[seat]
        _set_seat(d, seat, score=st.score + vp)
        d.emit("scored", {"seat": seat, "card": task.card, "vp": vp, "score": st.score + vp})
    elif op == "gain_energy":
        k = min(step.count, d.state.energy)
        d.set(energy=d.state.energy - k)
        _set_seat(d, seat, energy=d.state.seats[seat].energy + k)
        d.emit("energy_gained", {"seat": seat, "card": task.card, "count": k})
    elif op == "gain_card":
        d.set(queue=(*(Task("gain") for _ in range(step.count)), *d.state.queue))
    else:
        assert op in PLACEMENT_OPS
        opts = options(d.state, step)
        if not opts:
            d.emit("step_no_target", {"seat": seat, "card": task.card, "step": task.step, "op": op})
        elif len(opts) == 1 and not step.optional:
            _apply_effect_choice(d, seat, task.card, task.step, opts[0], task.remaining)
        else:
            d.set(prompt=Prompt("effect_choice", seat, task.card, step=task.step, remaining=task.remaining))


def _finish_card(d: Draft[State], seat: Seat, card: str) -> None:
    """§B6 item 4: one use fewer; the last use sends the card to the public discard pile."""
    st = d.state.seats[seat]
    d.set(binds=(), removed=())
    ip = next(ip for ip in st.tableau if ip.card == card)
    if ip.uses_left <= 1:
        _set_seat(d, seat, tableau=tuple(x for x in st.tableau if x.card != card))
        d.set(discard=(*d.state.discard, card))
        d.emit("card_discarded", {"seat": seat, "card": card})
    else:
        tableau = tuple(InPlay(x.card, x.uses_left - 1, x.cubes) if x.card == card else x for x in st.tableau)
        _set_seat(d, seat, tableau=tableau)
        d.emit("card_used", {"seat": seat, "card": card, "uses_left": ip.uses_left - 1})


def _top(d: Draft[State]) -> list[Seat]:
    """The active seats with the highest score."""
    active = _active_seats(d.state)
    best = max(d.state.seats[s].score for s in active)
    return [s for s in active if d.state.seats[s].score == best]


def _end_draw(d: Draft[State]) -> None:
    """After a resolution: next draw, end of round (§B4.3), or the end check and tiebreak (§B9)."""
    n = d.state.players
    d.set(cursor=None, queue=(), eco_seats=(), answers=((),) * n, auto=((),) * n, replaced=(0,) * n)
    if d.state.tiebreak:
        top = _top(d)
        if len(top) == 1 or d.state.tiebreak_draws >= TIEBREAK_LIMIT:
            _finish(d, "target_score", tuple(top))
        else:
            _start_tiebreak(d, top)
        return
    if "wild" not in d.state.current_draw:
        _draw(d)
        return
    d.emit("round_ended", {"round": d.state.round})
    active = _active_seats(d.state)
    if any(d.state.seats[s].score >= d.state.config.target_score for s in active):
        top = _top(d)
        if len(top) == 1:
            _finish(d, "target_score", tuple(top))
        else:
            _start_tiebreak(d, top)
        return
    if d.state.round >= ROUND_LIMIT:
        _finish(d, "round_limit", tuple(_top(d)))
        return
    d.set(bag=BAG_COUNTS, drawn_this_round=(), harbinger=(d.state.harbinger + 1) % n, round=d.state.round + 1, draw=0)
    d.emit("round_started", {"round": d.state.round, "harbinger": d.state.harbinger})
    _draw(d)


def _start_tiebreak(d: Draft[State], tied: list[Seat]) -> None:
    """§B9 tiebreak: the next seat becomes Harbinger, the bag is refilled, one more draw."""
    d.set(
        harbinger=(d.state.harbinger + 1) % d.state.players,
        bag=BAG_COUNTS,
        drawn_this_round=(),
        tiebreak=True,
        tiebreak_draws=d.state.tiebreak_draws + 1,
        draw=0,
    )
    st = d.state
    d.emit("tiebreak_started", {"tied": tied, "harbinger": st.harbinger, "tiebreak_draws": st.tiebreak_draws})
    _draw(d)


def _finish(d: Draft[State], reason: str, winners: tuple[Seat, ...]) -> None:
    """End the match; cards out of play (packs, revealed) go back to their decks."""
    n = d.state.players
    if any(d.state.packs):  # a draft cut short by resignations: the packs go back under their deck
        back, packs = d.state.draft_color, d.state.packs
        _set_deck(d, back, _deck(d.state, back) + tuple(sorted(c for p in packs for c in p)))
        d.set(packs=((),) * n)
    if d.state.prompt is not None:  # cards revealed to a seat that resigned out of the game go back on top
        for card in reversed(d.state.prompt.revealed):
            _set_deck(d, back_of(card), (card, *_deck(d.state, back_of(card))))
    d.set(
        phase="finished",
        prompt=None,
        cursor=None,
        queue=(),
        answers=((),) * n,
        auto=((),) * n,
        picks=((),) * n,
        winners=tuple(sorted(winners)),
        reason=reason,
    )
    d.emit(
        "game_over",
        {
            "winners": list(d.state.winners),
            "reason": reason,
            "scores": [st.score for st in d.state.seats],
            "tiebreak_draws": d.state.tiebreak_draws,
        },
    )


# --- 7. invariants --------------------------------------------------------------------------


def invariant_violations(state: State) -> list[str]:
    """Conservation of cards, tokens, cubes, tiles and pieces; legal map; sane seats (§B2)."""
    out: list[str] = []
    places: list[str] = [*state.blue, *state.brown, *state.faceup, *state.discard]
    for st in state.seats:
        places += [ip.card for ip in st.tableau]
        places += st.hand
    for pack in state.packs:
        places += pack
    if state.prompt is not None:
        places += state.prompt.revealed
    places.sort()
    if places != _ALL_CARDS:
        out.append("cards: not every card is in exactly one place")
    if not _BLUE.issuperset(state.blue) or _BLUE.intersection(state.brown):
        out.append("decks: a card sits in the deck of the other back")
    drawn = state.drawn_this_round
    if any(b + drawn.count(t) != k for t, b, k in zip(TOKENS, state.bag, BAG_COUNTS, strict=True)):
        out.append("tokens: bag + drawn this round != the 40 tokens")
    cubes = state.energy + sum(st.energy + sum(sum(ip.cubes) for ip in st.tableau) for st in state.seats)
    if cubes != ENERGY_TOTAL or state.energy < 0 or any(st.energy < 0 for st in state.seats):
        out.append(f"energy: {cubes} cubes instead of {ENERGY_TOTAL}")
    board = dict(state.tiles)
    tiles = board.values()
    land = sum(1 for t in tiles if t.terrain != "water")
    if state.land + land != LAND_TILES or state.water + len(board) - land != WATER_TILES:
        out.append("tiles: stacks + map != 45 land / 30 water")
    if state.mountains + sum(t.mountain for t in tiles) != MOUNTAINS:
        out.append("mountains not conserved")
    if state.forests + sum(t.forests for t in tiles) != FORESTS:
        out.append("forests not conserved")
    on_map = dict.fromkeys(SPECIES_IDS, 0)
    for t in tiles:
        if t.animal is not None:
            on_map[t.animal] += 1
    if any(k + on_map[sp] != SPECIES[sp].count for sp, k in zip(SPECIES_IDS, state.animal_supply, strict=True)):
        out.append("animals not conserved")
    bad = [hex_key(h) for h in board if not tile_ok(board, h)]
    if bad:
        out.append(f"map: tokens break a capacity or habitat at {bad}")
    for s, st in enumerate(state.seats):
        if not 0 <= st.dial <= 3 or st.score < 0:
            out.append(f"seat {s}: dial or score out of range")
        for ip in st.tableau:
            card = CARDS[ip.card]
            if len(ip.cubes) != len(card.slots) or not 1 <= ip.uses_left <= card.leaves:
                out.append(f"seat {s}: {ip.card} has a bad shape")
        if list(st.hand) != sorted(st.hand):
            out.append(f"seat {s}: hand not sorted")
    if (state.phase == "finished") != (not awaiting(state)):
        out.append("awaiting is empty but the game is not over (or the reverse)")
    return out


_ALL_CARDS = sorted(CARD_IDS)
_BLUE = frozenset(c for c in CARD_IDS if CARDS[c].back == "blue")


def heuristic(state: State, seat: Seat) -> float:
    """Score lead, plus a little for cubes already on cards and cubes in hand."""
    st = state.seats[seat]
    best_other = max((o.score for i, o in enumerate(state.seats) if i != seat), default=0)
    placed = sum(sum(ip.cubes) / len(ip.cubes) for ip in st.tableau)
    return st.score - best_other + 0.5 * placed + 0.1 * st.energy + 0.2 * len(st.hand)
