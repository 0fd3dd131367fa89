"""Everything that changes a match: create, join, leave, add bots, start, moves, resign, deadlines.

Each service is one transaction that locks the match row first (``select_for_update``), so appends
are serialised per match: the record sequence has no gaps, and of two racing requests against one
version exactly one is accepted. Side effects (timers, bot turns, the state cache) run on commit.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from games import bots, replay
from games.engines import RULES
from games.engines.base import Effect, Rules, RulesError
from games.errors import (
    Conflict,
    Forbidden,
    IdempotencyKeyReused,
    InvalidRequest,
    MatchOver,
    NotFound,
    NotSeated,
    StaleVersion,
)
from games.models import IdempotentRequest, Match, Record, Seat

log = logging.getLogger(__name__)

BOT_LEVELS = bots.LEVELS
TAKEOVER_BOT_LEVEL = bots.DEFAULT_LEVEL  # also the level of a bot added without one
TIME_CONTROL_KEYS = {"per_move_s", "bank_s", "increment_s", "on_timeout", "bot_after"}
MAX_RECORDS_PER_SWEEP = 64
TIMER_SLACK_S = 0.2  # fire a little after the deadline: ETAs are not exact
BOT_IDLE_S = 3  # the sweep wakes bots of matches idle this long (a lost bots_play task)

# Set while a bots_play task runs its own loop, so its moves do not queue more bot tasks.
bots_inline: ContextVar[bool] = ContextVar("bots_inline", default=False)


@dataclass(frozen=True)
class MoveAccepted:
    """What ``move_submit`` answers: the new version and the caller's state, or a stored answer."""

    status: int
    body: dict[str, Any]


# --- creation and the lobby ------------------------------------------------------------------


def _match_id() -> str:
    return secrets.token_urlsafe(12)  # 16 URL-safe characters, 96 random bits


def _validate_time_control(tc: Any) -> dict[str, Any] | None:
    if tc is None:
        return None
    if not isinstance(tc, dict):
        raise InvalidRequest("time_control must be an object.", errors={"time_control": ["Must be an object."]})
    unknown = set(tc) - TIME_CONTROL_KEYS
    errors: dict[str, list[str]] = {}
    if unknown:
        errors["time_control"] = [f"Unknown keys: {', '.join(sorted(unknown))}."]

    def _int(name: str, minimum: int) -> None:
        value = tc.get(name)
        if value is not None and (type(value) is not int or value < minimum):
            errors[f"time_control.{name}"] = [f"Must be an integer >= {minimum}."]

    for name, minimum in (("per_move_s", 1), ("bank_s", 1), ("increment_s", 0), ("bot_after", 1)):
        _int(name, minimum)
    if ("per_move_s" in tc) == ("bank_s" in tc):
        errors.setdefault("time_control", []).append("Give exactly one of per_move_s or bank_s.")
    if "increment_s" in tc and "bank_s" not in tc:
        errors.setdefault("time_control", []).append("increment_s goes with bank_s.")
    if tc.get("on_timeout", "default_move") not in ("default_move", "forfeit"):
        errors["time_control.on_timeout"] = ['Must be "default_move" or "forfeit".']
    if errors:
        raise InvalidRequest("time_control is not valid.", errors=errors)
    return {"on_timeout": "default_move", **tc}


def _validate_bots(bots: Any, players: int) -> list[tuple[int, str]]:
    if bots is None:
        return []
    if not isinstance(bots, list):
        raise InvalidRequest("bots must be a list.", errors={"bots": ["Must be a list of {seat, level}."]})
    out: list[tuple[int, str]] = []
    for i, bot in enumerate(bots):
        if not isinstance(bot, dict) or set(bot) - {"seat", "level"}:
            raise InvalidRequest("Each bot is {seat, level}.", errors={f"bots[{i}]": ["Must be {seat, level}."]})
        seat, level = bot.get("seat"), bot.get("level", TAKEOVER_BOT_LEVEL)
        if type(seat) is not int or not 1 <= seat < players:
            raise InvalidRequest(
                f"bots[{i}].seat must be a seat from 1 to {players - 1} (the creator takes seat 0).",
                errors={f"bots[{i}].seat": [f"Must be an integer from 1 to {players - 1}."]},
            )
        if level not in BOT_LEVELS:
            raise InvalidRequest(
                f"bots[{i}].level must be one of {', '.join(BOT_LEVELS)}.",
                errors={f"bots[{i}].level": [f"Must be one of {', '.join(BOT_LEVELS)}."]},
            )
        out.append((seat, level))
    if len({s for s, _ in out}) != len(out):
        raise InvalidRequest("Two bots name the same seat.", errors={"bots": ["Seats must be distinct."]})
    return out


def _append(
    match: Match,
    rtype: str,
    *,
    actor: str,
    seat: int | None = None,
    move: Any = None,
    effects: tuple[Effect, ...] | list[dict[str, Any]] = (),
    data: dict[str, Any] | None = None,
    at: datetime | None = None,
) -> Record:
    """Append the next record. The caller holds the match row lock."""
    match.version += 1
    effects_json = [e.to_json() if isinstance(e, Effect) else e for e in effects]
    return Record.objects.create(
        match=match,
        seq=match.version,
        type=rtype,
        seat=seat,
        actor=actor,
        move=move,
        effects=effects_json,
        data=data or {},
        at=at or timezone.now(),
    )


def setup_allowed(user: User) -> bool:
    return bool(settings.TABULA_ALLOW_SETUP or user.is_staff)


@transaction.atomic
def match_create(
    *,
    user: User,
    game: str,
    players: int,
    options: dict[str, Any] | None = None,
    bots: Any = None,
    time_control: Any = None,
    private: bool = False,
) -> Match:
    """Create a match; the creator takes seat 0, bots take theirs, and a full table starts at once."""
    rules = RULES.get(game)
    if rules is None:
        raise InvalidRequest(f"Unknown game {game!r}; see GET /api/v1/games.", errors={"game": ["Unknown game."]})
    if players not in rules.seats:
        raise InvalidRequest(
            f"{rules.title} takes {rules.seats.start} to {rules.seats.stop - 1} players.",
            errors={"players": [f"Must be from {rules.seats.start} to {rules.seats.stop - 1}."]},
        )
    options = dict(options or {})
    if "setup" in options and not setup_allowed(user):
        raise Forbidden("The setup option is for tests and staff only.")
    seed = secrets.randbits(63)
    try:  # the whole deal, with this match's seed: a `setup` may need the board to be checked
        rules.setup(rules.parse_config(options, players), seed)
    except RulesError as exc:
        raise InvalidRequest(exc.message, errors={"options": [exc.message]}) from exc
    bot_seats = _validate_bots(bots, players)
    tc = _validate_time_control(time_control)
    now = timezone.now()
    match = Match.objects.create(
        id=_match_id(),
        game=game,
        rules_version=rules.version,
        players=players,
        options=options,
        time_control=tc,
        seed=seed,
        seed_commitment=hashlib.sha256(str(seed).encode()).hexdigest(),
        private=private,
        rated="setup" not in options,
        created_by=user,
        created_at=now,
        updated_at=now,
    )
    Seat.objects.bulk_create(
        [
            Seat(match=match, index=i, user=user if i == 0 else None, joined_at=now if i == 0 else None)
            for i in range(players)
        ]
    )
    _append(
        match,
        Record.Type.CREATED,
        actor=Record.Actor.SYSTEM,
        data={"game": game, "players": players, "by": user.username},
    )
    _append(match, Record.Type.SEAT_TAKEN, actor=Record.Actor.PLAYER, seat=0, data={"username": user.username})
    for seat, level in bot_seats:
        Seat.objects.filter(match=match, index=seat).update(bot=level, joined_at=now)
        _append(match, Record.Type.BOT_ADDED, actor=Record.Actor.SYSTEM, seat=seat, data={"level": level})
    _start_if_full(match)
    match.save()
    return match


def _rematch_create(match: Match, seats: list[Seat]) -> Match:
    """A tie under ``tie_policy: "rematch"``: the same seats and options, a fresh seed, started at once."""
    now = timezone.now()
    seed = secrets.randbits(63)
    options = {k: v for k, v in match.options.items() if k != "setup"}
    rematch = Match.objects.create(
        id=_match_id(),
        game=match.game,
        rules_version=match.rules_version,
        players=match.players,
        options=options,
        time_control=match.time_control,
        seed=seed,
        seed_commitment=hashlib.sha256(str(seed).encode()).hexdigest(),
        private=match.private,
        rated=True,
        created_by_id=match.created_by_id,
        created_at=now,
        updated_at=now,
        rematch_of=match,
    )
    Seat.objects.bulk_create(
        [Seat(match=rematch, index=s.index, user_id=s.user_id, bot=s.bot, joined_at=now) for s in seats]
    )
    by = match.created_by.username
    _append(
        rematch,
        Record.Type.CREATED,
        actor=Record.Actor.SYSTEM,
        data={"game": match.game, "players": match.players, "by": by, "rematch_of": match.id},
    )
    for s in seats:
        if s.bot:
            _append(rematch, Record.Type.BOT_ADDED, actor=Record.Actor.SYSTEM, seat=s.index, data={"level": s.bot})
        else:
            _append(
                rematch,
                Record.Type.SEAT_TAKEN,
                actor=Record.Actor.SYSTEM,
                seat=s.index,
                data={"username": s.user.username if s.user_id else None},
            )
    _start_if_full(rematch)
    rematch.save()
    return rematch


def _lock(match_id: str) -> Match:
    try:
        return Match.objects.select_for_update().get(id=match_id)
    except Match.DoesNotExist:
        raise NotFound(f"No match {match_id!r}.") from None


def _seats(match: Match) -> list[Seat]:
    return list(Seat.objects.filter(match=match).order_by("index"))


def _require_open(match: Match, action: str) -> None:
    if match.status != Match.Status.OPEN:
        raise Conflict("match_not_open", f"Cannot {action}: the match is {match.status}, not open.")


@transaction.atomic
def match_join(*, match_id: str, user: User, seat: int | None = None) -> Match:
    """Take a free seat (the first one unless ``seat`` names one); a full table starts the match."""
    match = _lock(match_id)
    _require_open(match, "join")
    seats = _seats(match)
    if any(s.user_id == user.id for s in seats):
        raise Conflict("already_seated", "You already hold a seat in this match.")
    if seat is not None:
        if not 0 <= seat < match.players:
            raise InvalidRequest(f"seat must be from 0 to {match.players - 1}.", errors={"seat": ["Out of range."]})
        target = seats[seat]
        if target.taken:
            raise Conflict("seat_taken", f"Seat {seat} is taken.")
    else:
        target = next((s for s in seats if not s.taken), None)
        if target is None:
            raise Conflict("match_full", "The match has no free seat.")
    target.user, target.joined_at = user, timezone.now()
    target.save(update_fields=["user", "joined_at"])
    _append(
        match, Record.Type.SEAT_TAKEN, actor=Record.Actor.PLAYER, seat=target.index, data={"username": user.username}
    )
    _start_if_full(match)
    match.updated_at = timezone.now()
    match.save()
    return match


@transaction.atomic
def match_leave(*, match_id: str, user: User) -> Match:
    """Give a seat back before the start; the match is aborted when no human is left."""
    match = _lock(match_id)
    seats = _seats(match)
    mine = next((s for s in seats if s.user_id == user.id), None)
    if mine is None:
        raise NotSeated("You hold no seat in this match.")
    if match.status != Match.Status.OPEN:
        raise Conflict("match_started", "The match has started: resign instead of leaving.")
    mine.user, mine.joined_at = None, None
    mine.save(update_fields=["user", "joined_at"])
    _append(match, Record.Type.SEAT_LEFT, actor=Record.Actor.PLAYER, seat=mine.index, data={"username": user.username})
    if not any(s.user_id for s in seats if s.index != mine.index):
        _append(match, Record.Type.ABORTED, actor=Record.Actor.SYSTEM, data={"reason": "no_players"})
        match.status = Match.Status.ABORTED
        match.finished_at = timezone.now()
    match.updated_at = timezone.now()
    match.save()
    return match


@transaction.atomic
def bot_add(*, match_id: str, user: User, seat: int | None, level: str) -> Match:
    """Seat a bot in an open match (the creator only); a full table starts the match."""
    match = _lock(match_id)
    if match.created_by_id != user.id:
        raise Forbidden("Only the match's creator may add bots.")
    _require_open(match, "add a bot")
    if level not in BOT_LEVELS:
        raise InvalidRequest(f"level must be one of {', '.join(BOT_LEVELS)}.", errors={"level": ["Unknown level."]})
    seats = _seats(match)
    if seat is None:
        target = next((s for s in seats if not s.taken), None)
        if target is None:
            raise Conflict("match_full", "The match has no free seat.")
    elif not 0 <= seat < match.players:
        raise InvalidRequest(f"seat must be from 0 to {match.players - 1}.", errors={"seat": ["Out of range."]})
    else:
        target = seats[seat]
        if target.taken:
            raise Conflict("seat_taken", f"Seat {seat} is taken.")
    target.bot, target.joined_at = level, timezone.now()
    target.save(update_fields=["bot", "joined_at"])
    _append(match, Record.Type.BOT_ADDED, actor=Record.Actor.SYSTEM, seat=target.index, data={"level": level})
    _start_if_full(match)
    match.updated_at = timezone.now()
    match.save()
    return match


def _start_if_full(match: Match) -> None:
    seats = _seats(match)
    if any(not s.taken for s in seats):
        return
    rules = replay.rules_for(match)
    now = timezone.now()
    state, effects = rules.setup(rules.parse_config(match.options, match.players), match.seed)
    record = _append(
        match, Record.Type.STARTED, actor=Record.Actor.SYSTEM, effects=effects, data={"players": match.players}, at=now
    )
    match.status, match.started_at = Match.Status.ACTIVE, now
    if match.time_control and "bank_s" in match.time_control:
        Seat.objects.filter(match=match).update(bank_ms=match.time_control["bank_s"] * 1000)
        for seat in seats:
            seat.bank_ms = match.time_control["bank_s"] * 1000
    _advance(match, rules, state, effects, seats=seats, author=None, now=now, record=record)


# --- play ---------------------------------------------------------------------------------------


def _seat_of(seats: list[Seat], user: User) -> Seat:
    seat = next((s for s in seats if s.user_id == user.id), None)
    if seat is None:
        raise NotSeated("You hold no seat in this match.")
    return seat


def move_submit(
    *,
    match_id: str,
    move: Any,
    expected_version: int,
    user: User | None = None,
    seat_index: int | None = None,
    actor: str = Record.Actor.PLAYER,
    idempotency_key: str | None = None,
    fingerprint: str = "",
) -> MoveAccepted:
    """Apply one move by the caller's seat (or ``seat_index`` for a bot) and answer the new state.

    Checks, in the order rules/README.md pins: not_seated, version_conflict, match_over,
    invalid_move, then the engine's not_awaited / race_lost / illegal_move.
    """
    with transaction.atomic():
        match = _lock(match_id)
        seats = _seats(match)
        seat = _seat_of(seats, user) if user is not None else seats[seat_index]
        if idempotency_key and user is not None:
            stored = IdempotentRequest.objects.filter(user=user, key=idempotency_key).first()
            if stored is not None:
                if stored.fingerprint != fingerprint:
                    raise IdempotencyKeyReused("This Idempotency-Key was used for another request.")
                return MoveAccepted(stored.status, stored.body)
        if match.version != expected_version:
            raise StaleVersion(match.version)
        if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
            raise MatchOver(f"The match is {match.status}.")
        if match.status == Match.Status.OPEN:
            raise Conflict("match_not_started", "The match has not started yet: moves come once every seat is filled.")
        rules = replay.rules_for(match)
        state = replay.match_state(match)
        parsed = rules.parse_move(move)  # InvalidMove → 400
        new_state, effects = rules.apply(state, seat.index, parsed)  # NotAwaited / RaceLost / IllegalMove
        now = timezone.now()
        record = _append(
            match, Record.Type.MOVE, actor=actor, seat=seat.index, move=rules.dump_move(parsed), effects=effects, at=now
        )
        if actor == Record.Actor.PLAYER and seat.consecutive_timeouts:
            seat.consecutive_timeouts = 0
            seat.save(update_fields=["consecutive_timeouts"])
        _advance(match, rules, new_state, effects, seats=seats, author=seat.index, now=now, record=record)
        from games.selectors import state_payload

        body = {"version": match.version, "state": state_payload(match, rules, new_state, seat.index, seats)}
        if idempotency_key and user is not None:
            try:
                with transaction.atomic():
                    IdempotentRequest.objects.create(
                        user=user, key=idempotency_key, fingerprint=fingerprint, status=201, body=body
                    )
            except IntegrityError:  # a concurrent first use of the key; ours still stands
                log.info("idempotency key raced for match %s", match.id)
        return MoveAccepted(201, body)


@transaction.atomic
def match_resign(*, match_id: str, user: User) -> Match:
    """Resign the caller's seat; the rules page says what that does to the game."""
    match = _lock(match_id)
    seats = _seats(match)
    seat = _seat_of(seats, user)
    if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
        raise MatchOver(f"The match is {match.status}.")
    if match.status == Match.Status.OPEN:
        raise Conflict("match_not_started", "The match has not started: leave it instead.")
    if seat.resigned:
        raise Conflict("already_resigned", "You have already resigned.")
    _resign(match, seats, seat, actor=Record.Actor.PLAYER)
    return match


def _resign(match: Match, seats: list[Seat], seat: Seat, *, actor: str) -> None:
    rules = replay.rules_for(match)
    state = replay.match_state(match)
    new_state, effects = rules.resign(state, seat.index)
    now = timezone.now()
    seat.resigned, seat.deadline, seat.clock_started_at = True, None, None
    seat.save(update_fields=["resigned", "deadline", "clock_started_at"])
    record = _append(match, Record.Type.RESIGNED, actor=actor, seat=seat.index, effects=effects, at=now)
    _advance(match, rules, new_state, effects, seats=seats, author=seat.index, now=now, record=record)


# --- after every engine record ----------------------------------------------------------------


def _advance(
    match: Match,
    rules: Rules[Any, Any, Any],
    state: Any,
    effects: tuple[Effect, ...],
    *,
    seats: list[Seat],
    author: int | None,
    now: datetime,
    record: Record | None = None,
) -> None:
    """Derive status, result, awaiting, clocks and the game timer from the new state; save the match.

    ``seats`` are the match's seats, read under the match lock; their clocks are updated in place.
    """
    outcome = rules.outcome(state)
    match.awaiting = sorted(rules.awaiting(state))
    match.updated_at = now
    if outcome is not None:
        match.status, match.finished_at, match.result = Match.Status.FINISHED, now, outcome.to_json()
        match.timer_key, match.timer_deadline = "", None
        if any(s.deadline for s in seats):
            Seat.objects.filter(match=match).update(deadline=None, clock_started_at=None)
    else:
        _timer_update(match, rules, state, now, record)
        _clocks_update(match, rules, state, seats, author=author, now=now)
    match.save()
    match_id, version = match.id, match.version
    transaction.on_commit(lambda: replay.remember(match_id, version, state))
    if outcome is not None:
        from accounts.services import ratings_update

        ratings_update(match)
        if outcome.extra.get("rematch") in ("automatic", True) and match.options.get("tie_policy") == "rematch":
            _rematch_create(match, seats)
        return
    due = min([d for d in (match.timer_deadline, *(s.deadline for s in seats)) if d is not None], default=None)
    wake_bots = _bots_have_work(rules, state, match, seats)
    if due is not None or wake_bots:
        transaction.on_commit(lambda: _wake(match_id, version, due, wake_bots))


def _bots_have_work(rules: Rules[Any, Any, Any], state: Any, match: Match, seats: list[Seat]) -> bool:
    """A bot is awaited, or holds an interrupt it might take."""
    awaiting = set(match.awaiting)
    return any(s.bot and not s.resigned and (s.index in awaiting or rules.legal_moves(state, s.index)) for s in seats)


def _timer_update(match: Match, rules: Rules[Any, Any, Any], state: Any, now: datetime, record: Record | None) -> None:
    timer = rules.timer(state)
    if timer is None:
        match.timer_key, match.timer_deadline = "", None
        return
    if timer.key == match.timer_key:
        return
    match.timer_key, match.timer_deadline = timer.key, now + timedelta(seconds=timer.seconds)
    if record is not None:  # effects announcing the timer carry its absolute deadline
        stamped = False
        for effect in record.effects:
            if effect["data"].get("deadline", 0) is None:
                effect["data"]["deadline"] = match.timer_deadline.isoformat()
                stamped = True
        if stamped:
            Record.objects.filter(pk=record.pk).update(effects=record.effects)


def _clocks_update(
    match: Match, rules: Rules[Any, Any, Any], state: Any, seats: list[Seat], *, author: int | None, now: datetime
) -> None:
    """Stop the clocks of seats no longer awaited (or that just moved), start those newly awaited."""
    tc = match.time_control
    if not tc:
        return
    clocked = rules.clocked_seats(state)
    for seat in seats:
        running = seat.deadline is not None
        should = seat.index in clocked and not seat.resigned
        changed = False
        if running and (not should or seat.index == author):
            if "bank_s" in tc and seat.clock_started_at is not None:
                spent = int((now - seat.clock_started_at).total_seconds() * 1000)
                seat.bank_ms = max(0, (seat.bank_ms or 0) - spent) + tc.get("increment_s", 0) * 1000
            seat.deadline = seat.clock_started_at = None
            changed = True
        if should and seat.deadline is None:
            budget_ms = tc["per_move_s"] * 1000 if "per_move_s" in tc else (seat.bank_ms or 0)
            seat.clock_started_at, seat.deadline = now, now + timedelta(milliseconds=budget_ms)
            changed = True
        if changed:
            seat.save(update_fields=["deadline", "clock_started_at", "bank_ms"])


def next_deadline(match: Match) -> datetime | None:
    deadlines = [d for d in Seat.objects.filter(match=match, deadline__isnull=False).values_list("deadline", flat=True)]
    if match.timer_deadline is not None:
        deadlines.append(match.timer_deadline)
    return min(deadlines, default=None)


def schedule(match_id: str) -> None:
    """Queue what the match waits for now (its next deadline, its bots), reading it afresh."""
    match = Match.objects.filter(id=match_id, status=Match.Status.ACTIVE).first()
    if match is not None:
        _wake(match.id, match.version, next_deadline(match), bool(bot_seats_to_play(match)))


def _wake(match_id: str, version: int, due: datetime | None, bots: bool) -> None:
    """After a commit: queue the deadline timer if it is due soon, and the bots if one is awaited.

    A broker failure is logged, never raised: the beat sweep finds every due deadline and bot turn.
    """
    from games import tasks

    try:
        if due is not None and _timers_run_later(tasks):
            wait = (due - timezone.now()).total_seconds()
            if wait <= settings.TABULA_TIMER_HORIZON_S:
                tasks.deadline_fire.apply_async((match_id, version), countdown=max(0.0, wait) + TIMER_SLACK_S)
        if bots and not bots_inline.get():
            tasks.bots_play.delay(match_id, version)
    except Exception:  # the broker is down: the sweep will pick this match up
        log.exception("could not queue timers or bots for match %s", match_id)


def _timers_run_later(tasks: Any) -> bool:
    """False when tasks run inline (tests): a countdown cannot be honoured, so only the sweep acts."""
    return not tasks.deadline_fire.app.conf.task_always_eager


def rearm_if_early(*, match_id: str, version: int) -> None:
    """Queue the timer again when the match is still at ``version`` and its deadline is ahead."""
    from games import tasks

    if not _timers_run_later(tasks):
        return
    match = Match.objects.filter(id=match_id, version=version, status=Match.Status.ACTIVE).first()
    if match is None:
        return
    due = next_deadline(match)
    if due is not None and due > timezone.now():
        wait = (due - timezone.now()).total_seconds()
        if wait <= settings.TABULA_TIMER_HORIZON_S:
            tasks.deadline_fire.apply_async((match.id, match.version), countdown=wait + TIMER_SLACK_S)


def bot_seats_to_play(match: Match) -> list[int]:
    awaiting = set(match.awaiting)
    return [
        s
        for s in Seat.objects.filter(match=match, resigned=False).exclude(bot="").values_list("index", flat=True)
        if s in awaiting
    ]


# --- deadlines ----------------------------------------------------------------------------------


def deadlines_process(*, match_id: str, expected_version: int | None = None) -> int:
    """Apply every deadline of the match that is due now; returns how many records it appended.

    With ``expected_version`` (a timer task), a match that moved on is left alone: the move that
    moved it scheduled its own timer. The sweep passes None and acts on whatever is due.
    """
    appended = 0
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(id=match_id).first()
        if match is None or match.status != Match.Status.ACTIVE:
            return 0
        if expected_version is not None and match.version != expected_version:
            return 0
        rules = replay.rules_for(match)
        while appended < MAX_RECORDS_PER_SWEEP and match.status == Match.Status.ACTIVE:
            now = timezone.now()
            seats = _seats(match)
            if match.timer_deadline is not None and match.timer_deadline <= now:
                assert rules.expire is not None
                state, effects = rules.expire(replay.match_state(match))
                record = _append(match, Record.Type.EXPIRED, actor=Record.Actor.TIMEOUT, effects=effects, at=now)
                _advance(match, rules, state, effects, seats=seats, author=None, now=now, record=record)
                appended += 1
                continue
            due = [s for s in seats if s.deadline is not None and s.deadline <= now and not s.resigned]
            if not due:
                break
            _seat_timeout(match, rules, seats, min(due, key=lambda s: (s.deadline, s.index)), now)
            appended += 1
    return appended


def _seat_timeout(match: Match, rules: Rules[Any, Any, Any], seats: list[Seat], seat: Seat, now: datetime) -> None:
    """The seat's clock ran out: its default move (or a forfeit), and a bot after ``bot_after`` in a row."""
    tc = match.time_control or {}
    seat.consecutive_timeouts += 1
    seat.save(update_fields=["consecutive_timeouts"])
    if tc.get("on_timeout") == "forfeit":
        _resign(match, seats, seat, actor=Record.Actor.TIMEOUT)
        return
    state, effects = rules.timeout(replay.match_state(match), seat.index)
    record = _append(match, Record.Type.TIMEOUT, actor=Record.Actor.TIMEOUT, seat=seat.index, effects=effects, at=now)
    bot_after = tc.get("bot_after")
    if bot_after and seat.consecutive_timeouts >= bot_after and not seat.bot and rules.outcome(state) is None:
        seat.bot = TAKEOVER_BOT_LEVEL
        seat.save(update_fields=["bot"])
        _append(
            match,
            Record.Type.BOT_TOOK_OVER,
            actor=Record.Actor.SYSTEM,
            seat=seat.index,
            data={"level": TAKEOVER_BOT_LEVEL, "after_timeouts": seat.consecutive_timeouts},
        )
    _advance(match, rules, state, effects, seats=seats, author=seat.index, now=now, record=record)


def due_match_ids(now: datetime | None = None, limit: int = 500) -> list[str]:
    """Active matches with a deadline that has passed, or a bot that is awaited (the sweep's work)."""
    now = now or timezone.now()
    timers = Match.objects.filter(status=Match.Status.ACTIVE, timer_deadline__lte=now).values_list("id", flat=True)
    clocks = (
        Seat.objects.filter(match__status=Match.Status.ACTIVE, deadline__lte=now, resigned=False)
        .values_list("match_id", flat=True)
        .distinct()
    )
    return sorted(set(timers[:limit]) | set(clocks[:limit]))


def bot_match_ids(now: datetime | None = None) -> list[str]:
    """Active matches idle for a few seconds in which a bot is awaited (a lost bots_play task)."""
    idle = (now or timezone.now()) - timedelta(seconds=BOT_IDLE_S)
    candidates = (
        Match.objects.filter(status=Match.Status.ACTIVE, updated_at__lte=idle, seats__resigned=False)
        .exclude(seats__bot="")
        .distinct()
    )
    return [m.id for m in candidates[:500] if bot_seats_to_play(m)]
