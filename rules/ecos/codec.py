"""Ecos codecs (moves and states as JSON), the per-seat view (docs/rules/ecos.md §B10, §B11) and `determinize`."""

from __future__ import annotations

import json
import random
from functools import lru_cache

from rules.base import JSON, Outcome, Seat
from rules.ecos.board import Tile, hex_key
from rules.ecos.cards import CARD_IDS, CARDS, SPECIES_IDS
from rules.ecos.engine import _drafting, _keep, awaiting, outcome
from rules.ecos.model import (
    GAME,
    MOVE_CLASSES,
    TOKENS,
    Answer,
    Config,
    EcosResult,
    EcosView,
    InPlay,
    Move,
    Prompt,
    PromptView,
    RespondStatusView,
    SeatState,
    SeatView,
    State,
    Task,
    TaskView,
    TileView,
    back_of,
)
from rules.kit import MoveCodec
from rules.rng import shuffled

# --- 1. constants -----------------------------------------------------------------------------

_BY_BACK = {back: tuple(c for c in CARD_IDS if CARDS[c].back == back) for back in ("blue", "brown")}
_BLUE = frozenset(_BY_BACK["blue"])


# --- 4. queries: the view (§B10, §B11) ----------------------------------------------------------------------


def _prompt_view(state: State, me: Seat | None, waiting: list[int]) -> PromptView | None:
    """The open prompt as ``me`` may see it (§B10 prompt fields)."""
    phase = state.phase
    if phase == "respond":
        return {
            "type": "respond",
            "seats": waiting,
            "tokens": list(state.current_draw),
            "replaced": list(state.replaced),
        }
    if phase == "draft":
        out: PromptView = {
            "type": "draft_pick",
            "seats": waiting,
            "keep": _keep(state),
            "back": state.draft_color,
            "replaced": list(state.replaced),
            "pack": None,
        }
        if me is not None and me in _drafting(state):
            out["pack"] = list(state.packs[me])
        return out
    if phase == "choose_active":
        return {
            "type": "choose_active",
            "seats": waiting,
            "choose": None if me is None else state.choose[me],
            "replaced": list(state.replaced),
        }
    p = state.prompt
    if p is None:
        return None
    out = {"type": p.type, "seats": [p.seat]}
    if p.type == "eco_confirm":
        out["card"], out["slot"] = p.card, p.slot
        out["move_cube_from"] = {"card": p.src_card, "slot": p.src_slot} if p.src_card else None
    elif p.type == "effect_choice":
        step = CARDS[p.card].effects[p.step]
        out["card"], out["step"], out["op"] = p.card, p.step, step.op
        out["remaining"], out["can_stop"] = p.remaining, step.optional
    elif p.type == "gain_card_keep":
        out["revealed_backs"] = [back_of(c) for c in p.revealed]
        out["revealed"] = list(p.revealed) if me == p.seat else None
    return out


def _result_view(result: Outcome) -> EcosResult:
    return {
        "winners": sorted(result.winners),
        "ranking": [sorted(group) for group in result.ranking],
        "scores": list(result.scores),
        "reason": result.reason,
        "tiebreak_draws": result.extra["tiebreak_draws"],
    }


def view(state: State, viewer: Seat | None, timer_deadline: str | None = None) -> EcosView:
    """The state as ``viewer`` may see it (§B11); None is a spectator. Ecos has no game timer."""
    n = state.players
    me = viewer if viewer is not None and 0 <= viewer < n else None
    phase = state.phase
    waiting = sorted(awaiting(state))
    seats: list[SeatView] = []
    for s, st in enumerate(state.seats):
        seats.append(
            {
                "seat": s,
                "score": st.score,
                "energy_available": st.energy,
                "dial": st.dial,
                "status": "resigned" if st.resigned else "active",
                "tableau": [{"card": ip.card, "uses_left": ip.uses_left, "cubes": list(ip.cubes)} for ip in st.tableau],
                "hand_counts": {"blue": (blue := len(_BLUE.intersection(st.hand))), "brown": len(st.hand) - blue},
                "pack_size": len(state.packs[s]) if phase == "draft" else None,
            }
        )
    respond_status: RespondStatusView | None = None
    if phase == "respond":
        respond_status = {
            "answered": [s for s in range(n) if s not in waiting and len(state.auto[s]) < len(state.current_draw)],
            "awaiting": waiting,
            "auto_rotated": [s for s in range(n) if state.auto[s]],
            "auto_tokens": [list(a) for a in state.auto],
        }
    result = outcome(state)
    out: EcosView = {
        "game": GAME,
        "phase": phase,
        "round": state.round,
        "draw": state.draw,
        "target_score": state.config.target_score,
        "you": me,
        "harbinger": state.harbinger,
        "cursor": state.cursor if phase == "resolve" else None,
        "prompt": _prompt_view(state, me, waiting),
        "awaiting": waiting,
        "current_draw": list(state.current_draw),
        "drawn_this_round": list(state.drawn_this_round),
        "bag": {"remaining": dict(zip(TOKENS, state.bag, strict=True)), "size": sum(state.bag)},
        "map": {hex_key(h): _tile_json(t) for h, t in state.tiles},
        "supply": {
            "land": state.land,
            "water": state.water,
            "mountains": state.mountains,
            "forests": state.forests,
            "energy": state.energy,
            "animals": dict(zip(SPECIES_IDS, state.animal_supply, strict=True)),
        },
        "decks": {"blue": len(state.blue), "brown": len(state.brown)},
        "faceup": list(state.faceup),
        "discard": list(state.discard),
        "hand": list(state.seats[me].hand) if me is not None else [],
        "my_answers": [a.to_json() for a in state.answers[me]] if me is not None and phase == "respond" else None,
        "my_picks": list(state.picks[me]) if me is not None and phase in ("draft", "choose_active") else None,
        "seats": seats,
        "respond_status": respond_status,
        "answers": [[a.to_json() for a in sa] for sa in state.answers] if phase == "resolve" else None,
        "resolution": {
            "queue": [_task_json(t) for t in state.queue],
            "eco_seats": list(state.eco_seats),
            "binds": {k: [hex_key(h) for h in v] for k, v in state.binds},
            "removed": list(state.removed),
        }
        if phase == "resolve"
        else None,
        "draft": {"back": state.draft_color, "left": state.draft_left, "choose": list(state.choose)}
        if phase in ("draft", "choose_active")
        else None,
        "tiebreak": state.tiebreak,
        "tiebreak_draws": state.tiebreak_draws,
        "draws_total": state.draws_total,
        "rebuilds": state.rebuilds,
        "options": {
            "cards": state.config.cards,
            "preset_seats": list(state.config.preset_seats),
            "start_map": state.config.start_map,
        },
        "result": None if result is None else _result_view(result),
    }
    return out


# --- 6. codecs: moves (from the move dataclasses of model.py) ---------------------------------

codec: MoveCodec[Move] = MoveCodec(*MOVE_CLASSES)


# --- 6. codecs: states ---------------------------------------------------------------------------------


def _tile_json(t: Tile) -> TileView:
    """A tile as the view shows it (§B2.2)."""
    return {"terrain": t.terrain, "mountain": t.mountain, "forests": t.forests, "animal": t.animal}


def _inplay_json(ip: InPlay) -> JSON:
    """A card in play as the view shows it (§B2.5)."""
    return {"card": ip.card, "uses_left": ip.uses_left, "cubes": list(ip.cubes)}


_STEP_FIELDS = (("card", ""), ("slot", -1), ("src_card", ""), ("src_slot", -1), ("step", -1), ("remaining", 0))


def _step_fields(obj: Task | Prompt) -> JSON:
    """The card/slot/step fields shared by tasks and prompts, default values left out."""
    return {name: getattr(obj, name) for name, default in _STEP_FIELDS if getattr(obj, name) != default}


def _task_json(t: Task) -> TaskView:
    """A resolution task as JSON (default fields left out)."""
    out: TaskView = {"kind": t.kind}
    if t.card:
        out["card"] = t.card
    if t.slot != -1:
        out["slot"] = t.slot
    if t.src_card:
        out["src_card"] = t.src_card
    if t.src_slot != -1:
        out["src_slot"] = t.src_slot
    if t.step != -1:
        out["step"] = t.step
    if t.remaining:
        out["remaining"] = t.remaining
    return out


def _prompt_json(p: Prompt | None) -> JSON | None:
    """A resolution prompt as JSON (default fields left out)."""
    if p is None:
        return None
    out: JSON = {"type": p.type, "seat": p.seat, **_step_fields(p)}
    if p.revealed:
        out["revealed"] = list(p.revealed)
    return out


def _config_json(c: Config) -> JSON:
    """The config as JSON (the options and the player count)."""
    return {
        "players": c.players,
        "target_score": c.target_score,
        "cards": c.cards,
        "preset_seats": list(c.preset_seats),
        "start_map": c.start_map,
        "setup": None if c.setup is None else json.loads(c.setup),
    }


def dump_state(state: State) -> JSON:
    """The whole state as JSON (fixtures, snapshots, debugging)."""
    return {
        "config": _config_json(state.config),
        "seed": state.seed,
        "phase": state.phase,
        "seats": [
            {
                "tableau": [_inplay_json(ip) for ip in st.tableau],
                "hand": list(st.hand),
                "energy": st.energy,
                "dial": st.dial,
                "score": st.score,
                "resigned": st.resigned,
            }
            for st in state.seats
        ],
        "map": {hex_key(h): _tile_json(t) for h, t in state.tiles},
        "supply": {
            "land": state.land,
            "water": state.water,
            "mountains": state.mountains,
            "forests": state.forests,
            "energy": state.energy,
            "animals": dict(zip(SPECIES_IDS, state.animal_supply, strict=True)),
        },
        "bag": dict(zip(TOKENS, state.bag, strict=True)),
        "forced": list(state.forced),
        "harbinger": state.harbinger,
        "round": state.round,
        "draw": state.draw,
        "draws_total": state.draws_total,
        "tiebreak": state.tiebreak,
        "tiebreak_draws": state.tiebreak_draws,
        "current_draw": list(state.current_draw),
        "drawn_this_round": list(state.drawn_this_round),
        "decks": {"blue": list(state.blue), "brown": list(state.brown)},
        "faceup": list(state.faceup),
        "discard": list(state.discard),
        "rebuilds": state.rebuilds,
        "answers": [[a.to_json() for a in seat_answers] for seat_answers in state.answers],
        "auto": [list(a) for a in state.auto],
        "replaced": list(state.replaced),
        "cursor": state.cursor,
        "queue": [_task_json(t) for t in state.queue],
        "eco_seats": list(state.eco_seats),
        "binds": {k: [hex_key(h) for h in v] for k, v in state.binds},
        "removed": list(state.removed),
        "prompt": _prompt_json(state.prompt),
        "draft": {
            "color": state.draft_color,
            "left": state.draft_left,
            "packs": [list(p) for p in state.packs],
            "picks": [list(p) for p in state.picks],
            "choose": list(state.choose),
        },
        "winners": list(state.winners),
        "reason": state.reason,
    }


def _answer_from(a: JSON) -> Answer:
    """An answer from its JSON form, trusted (states only)."""
    src = a.get("move_cube_from") or {}
    return Answer(a["token"], a["type"], a.get("card", ""), a.get("slot", -1), src.get("card", ""), src.get("slot", -1))


@lru_cache(maxsize=1024)
def _hex(key: str) -> tuple[int, int]:
    """``"q,r"`` → ``(q, r)``, trusted (states only)."""
    q, r = key.split(",")
    return (int(q), int(r))


@lru_cache(maxsize=4096)
def _tile(terrain: str, mountain: bool, forests: int, animal: str | None) -> Tile:
    """Tiles are values: equal tiles may share one object."""
    return Tile(terrain, mountain, forests, animal)


@lru_cache(maxsize=8192)
def _inplay(card: str, uses_left: int, cubes: tuple[bool, ...]) -> InPlay:
    """Cards in play are values: equal ones may share one object."""
    return InPlay(card, uses_left, cubes)


def parse_state(raw: JSON) -> State:
    """`dump_state` output → State."""
    c = raw["config"]
    config = Config(
        c["players"],
        c["target_score"],
        c["cards"],
        tuple(c["preset_seats"]),
        c["start_map"],
        None if c["setup"] is None else json.dumps(c["setup"], sort_keys=True, separators=(",", ":")),
    )
    supply = raw["supply"]
    prompt = raw["prompt"]
    draft = raw["draft"]
    return State(
        config=config,
        seed=raw["seed"],
        phase=raw["phase"],
        seats=tuple(
            SeatState(
                tableau=tuple(_inplay(ip["card"], ip["uses_left"], tuple(ip["cubes"])) for ip in s["tableau"]),
                hand=tuple(s["hand"]),
                energy=s["energy"],
                dial=s["dial"],
                score=s["score"],
                resigned=s["resigned"],
            )
            for s in raw["seats"]
        ),
        tiles=tuple(
            sorted(
                (
                    (_hex(k), _tile(t["terrain"], t["mountain"], t["forests"], t["animal"]))
                    for k, t in raw["map"].items()
                ),
                key=lambda kv: (kv[0][1], kv[0][0]),
            )
        ),
        land=supply["land"],
        water=supply["water"],
        mountains=supply["mountains"],
        forests=supply["forests"],
        energy=supply["energy"],
        animal_supply=tuple(supply["animals"][s] for s in SPECIES_IDS),
        bag=tuple(raw["bag"][t] for t in TOKENS),
        forced=tuple(raw["forced"]),
        harbinger=raw["harbinger"],
        round=raw["round"],
        draw=raw["draw"],
        draws_total=raw["draws_total"],
        tiebreak=raw["tiebreak"],
        tiebreak_draws=raw["tiebreak_draws"],
        current_draw=tuple(raw["current_draw"]),
        drawn_this_round=tuple(raw["drawn_this_round"]),
        blue=tuple(raw["decks"]["blue"]),
        brown=tuple(raw["decks"]["brown"]),
        faceup=tuple(raw["faceup"]),
        discard=tuple(raw["discard"]),
        rebuilds=raw["rebuilds"],
        answers=tuple(tuple(_answer_from(a) for a in seat_answers) for seat_answers in raw["answers"]),
        auto=tuple(tuple(a) for a in raw["auto"]),
        replaced=tuple(raw["replaced"]),
        cursor=raw["cursor"],
        queue=tuple(Task(**t) for t in raw["queue"]),
        eco_seats=tuple(raw["eco_seats"]),
        binds=tuple((k, tuple(_hex(h) for h in v)) for k, v in raw["binds"].items()),
        removed=tuple(raw["removed"]),
        prompt=None if prompt is None else Prompt(**{**prompt, "revealed": tuple(prompt.get("revealed", ()))}),
        draft_color=draft["color"],
        draft_left=draft["left"],
        packs=tuple(tuple(p) for p in draft["packs"]),
        picks=tuple(tuple(p) for p in draft["picks"]),
        choose=tuple(draft["choose"]),
        winners=tuple(raw["winners"]),
        reason=raw["reason"],
    )


# --- 7. bots: determinize ---------------------------------------------------------------------


def determinize(v: JSON, seat: Seat, gen: random.Random) -> State:
    """A full state consistent with ``v`` (seat's view): hidden cards, packs and answers sampled from ``gen``."""
    n = len(v["seats"])
    phase = v["phase"]
    prompt_v = v["prompt"]
    known: set[str] = set(v["hand"]) | set(v["faceup"]) | set(v["discard"])
    for sv in v["seats"]:
        known.update(ip["card"] for ip in sv["tableau"])
    if phase == "draft" and prompt_v["pack"] is not None:
        known.update(prompt_v["pack"])
    if prompt_v is not None and prompt_v["type"] == "gain_card_keep" and prompt_v["revealed"] is not None:
        known.update(prompt_v["revealed"])
    pools = {back: shuffled([c for c in _BY_BACK[back] if c not in known], gen) for back in ("blue", "brown")}

    def take(back: str, k: int) -> list[str]:
        """The next ``k`` sampled unknown cards of a back."""
        out, pools[back] = pools[back][:k], pools[back][k:]
        return out

    hands: list[list[str]] = []
    for s, sv in enumerate(v["seats"]):
        if s == seat:
            hands.append(list(v["hand"]))
        else:
            hands.append(sorted(take("blue", sv["hand_counts"]["blue"]) + take("brown", sv["hand_counts"]["brown"])))
    packs: list[list[str]] = [[] for _ in range(n)]
    if phase == "draft":
        back = v["draft"]["back"]
        for s, sv in enumerate(v["seats"]):
            packs[s] = list(prompt_v["pack"] or []) if s == seat else sorted(take(back, sv["pack_size"]))
    prompt: JSON | None = None
    if phase == "resolve" and prompt_v is not None:
        p_seat = prompt_v["seats"][0]
        prompt = {"type": prompt_v["type"], "seat": p_seat}
        if prompt_v["type"] == "eco_confirm":
            prompt.update(card=prompt_v["card"], slot=prompt_v["slot"])
            if prompt_v["move_cube_from"] is not None:
                prompt.update(src_card=prompt_v["move_cube_from"]["card"], src_slot=prompt_v["move_cube_from"]["slot"])
        elif prompt_v["type"] == "effect_choice":
            prompt.update(card=prompt_v["card"], step=prompt_v["step"], remaining=prompt_v["remaining"])
        elif prompt_v["type"] == "gain_card_keep":
            revealed = prompt_v["revealed"]
            if revealed is None:
                revealed = [take(b, 1)[0] for b in prompt_v["revealed_backs"]]
            prompt["revealed"] = list(revealed)
    waiting = set(v["awaiting"])
    picks: list[list[str]] = [[] for _ in range(n)]
    choose = v["draft"]["choose"] if v["draft"] is not None else [0] * n
    if phase in ("draft", "choose_active"):
        keep = 2 if n == 2 else 1
        for s, sv in enumerate(v["seats"]):
            if s == seat:
                picks[s] = list(v["my_picks"])
                continue
            need = (keep if sv["pack_size"] else 0) if phase == "draft" else choose[s]
            if s not in waiting and need:
                picks[s] = sorted(packs[s] if phase == "draft" else hands[s])[:need]
    answers: list[list[JSON]] = [[] for _ in range(n)]
    auto: list[list[int]] = [[] for _ in range(n)]
    if phase == "respond":
        status = v["respond_status"]
        tokens = len(v["current_draw"])
        for s in range(n):
            auto[s] = list(status["auto_tokens"][s])
            if s == seat:
                answers[s] = list(v["my_answers"])
                continue
            answers[s] = [{"token": t, "type": "rotate"} for t in auto[s]]
            if s not in waiting:
                answers[s] += [{"token": t, "type": "rotate"} for t in range(tokens) if t not in auto[s]]
    elif phase == "resolve":
        answers = [list(a) for a in v["answers"]]
    res = v["resolution"] or {"queue": [], "eco_seats": [], "binds": {}, "removed": []}
    raw: JSON = {
        "config": {
            "players": n,
            "target_score": v["target_score"],
            "cards": v["options"]["cards"],
            "preset_seats": v["options"]["preset_seats"],
            "start_map": v["options"]["start_map"],
            "setup": None,
        },
        "seed": int(gen.random() * 2**53),
        "phase": phase,
        "seats": [
            {
                "tableau": sv["tableau"],
                "hand": hands[s],
                "energy": sv["energy_available"],
                "dial": sv["dial"],
                "score": sv["score"],
                "resigned": sv["status"] == "resigned",
            }
            for s, sv in enumerate(v["seats"])
        ],
        "map": v["map"],
        "supply": v["supply"],
        "bag": v["bag"]["remaining"],
        "forced": [],
        "harbinger": v["harbinger"],
        "round": v["round"],
        "draw": v["draw"],
        "draws_total": v["draws_total"],
        "tiebreak": v["tiebreak"],
        "tiebreak_draws": v["tiebreak_draws"],
        "current_draw": v["current_draw"],
        "drawn_this_round": v["drawn_this_round"],
        "decks": {"blue": take("blue", v["decks"]["blue"]), "brown": take("brown", v["decks"]["brown"])},
        "faceup": v["faceup"],
        "discard": v["discard"],
        "rebuilds": v["rebuilds"],
        "answers": answers,
        "auto": auto,
        "replaced": prompt_v["replaced"] if phase in ("respond", "draft", "choose_active") else [0] * n,
        "cursor": v["cursor"],
        "queue": res["queue"],
        "eco_seats": res["eco_seats"],
        "binds": res["binds"],
        "removed": res["removed"],
        "prompt": prompt,
        "draft": {
            "color": v["draft"]["back"] if v["draft"] is not None else "",
            "left": v["draft"]["left"] if v["draft"] is not None else 0,
            "packs": packs,
            "picks": picks,
            "choose": choose,
        },
        "winners": [] if v["result"] is None else list(v["result"]["winners"]),
        "reason": "" if v["result"] is None else v["result"]["reason"],
    }
    assert not pools["blue"] and not pools["brown"], "the view's card counts do not add up"
    return parse_state(raw)
