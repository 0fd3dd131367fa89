"""Everything that changes a match: create, join, leave, add bots, start, moves, resign, deadlines.

Each service is one transaction that locks the match row first (``select_for_update``), so appends
are serialised per match: the record sequence has no gaps, and of two racing requests against one
version exactly one is accepted. Every game input (the start, a move, a timeout, a resignation, the
game timer) goes through one function, `_play`: replay, `step`, clocks, one INSERT, advance. What
follows a commit (timers, bot turns, the state cache) is queued by `games.scheduling` on commit.
Services answer domain values; the API renders them.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from structlog.contextvars import bind_contextvars

from accounts.models import User
from core import metrics, sql
from core.errors import ApplicationError, Conflict, Forbidden, InvalidRequest, NotFound
from games import clocks, notices, ratings, replay, scheduling, selectors
from games import sql as games_sql
from games.errors import MatchOver, NotSeated, QuotaExceeded, StaleVersion
from games.models import Invitation, Match, Record, Seat
from notify import fanout, inbox
from rules import RULES, bots
from rules.base import (
    Expired,
    Input,
    Moved,
    Outcome,
    Resigned,
    Rules,
    RulesError,
    Started,
    TimedOut,
    Timer,
    step,
)

BOT_LEVELS = bots.LEVELS
TAKEOVER_BOT_LEVEL = bots.DEFAULT_LEVEL  # also the level of a bot added without one
MAX_RECORDS_PER_SWEEP = 64
# What an input changes on the match row (`_play`, `_advance`); the rest is written at creation.
PROGRESS = (
    "version",
    "status",
    "awaiting",
    "result",
    "updated_at",
    "started_at",
    "finished_at",
    "timer_key",
    "timer_deadline",
)


# --- creation and the lobby ------------------------------------------------------------------


def _match_id() -> str:
    return secrets.token_urlsafe(12)  # 16 URL-safe characters, 96 random bits


def _validate_bots(bots: Any, players: int, creator_seat: int = 0) -> list[tuple[int, str]]:
    if bots is None:
        return []
    if not isinstance(bots, list):
        raise InvalidRequest("bots must be a list.", errors={"bots": ["Must be a list of {seat, level}."]})
    out: list[tuple[int, str]] = []
    for i, bot in enumerate(bots):
        if not isinstance(bot, dict) or set(bot) - {"seat", "level"}:
            raise InvalidRequest("Each bot is {seat, level}.", errors={f"bots[{i}]": ["Must be {seat, level}."]})
        seat, level = bot.get("seat"), bot.get("level", TAKEOVER_BOT_LEVEL)
        if type(seat) is not int or not 0 <= seat < players or seat == creator_seat:
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
    effects: list[dict[str, Any]] | None = None,
    data: dict[str, Any] | None = None,
    at: datetime | None = None,
    defer: bool = False,
) -> Record:
    """Insert the next record, complete: records are never updated. The caller holds the match row lock.

    ``defer``: the record is written with the match's next `_save_progress` (one round trip for
    both), or before any later record of the match, whichever comes first."""
    _flush(match)
    match.version += 1
    fanout.record_on_commit(match.id, match.version)
    record = Record(
        match=match,
        seq=match.version,
        type=rtype,
        seat=seat,
        actor=actor,
        move=move,
        effects=effects or [],
        data=data or {},
        at=at or timezone.now(),
    )
    if defer:
        match._unwritten = record  # type: ignore[attr-defined]
        return record
    return sql.insert(record)  # Record.objects.create, precompiled: every record is written here


def _flush(match: Match) -> None:
    """Write the record `_append` deferred, if any."""
    record = match.__dict__.pop("_unwritten", None)
    if record is not None:
        sql.insert(record)


def _save_progress(match: Match) -> None:
    """Save what an input changed on the match row (`PROGRESS`), with its deferred record if any."""
    record = match.__dict__.pop("_unwritten", None)
    if record is None:
        sql.update(match, PROGRESS)
    else:
        sql.insert_and_update(record, match, PROGRESS)


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
    invite: list[str] | None = None,
    creator_seat: int = 0,
    reserved: dict[int, User] | None = None,
    rematch_of: Match | None = None,
) -> Match:
    """Create a match; the creator takes seat 0 (``creator_seat``), bots take theirs, invitees get the
    next free seats reserved for them (``reserved``: given seats, for a rematch), and a full table
    starts at once."""
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
    _check_option_bounds(options)
    seed = secrets.randbits(63)
    try:  # the whole deal, with this match's seed: a `setup` may need the board to be checked
        step(rules, None, Started(rules.parse_config(options, players), seed))
    except RulesError as exc:
        raise InvalidRequest(exc.message, errors={"options": [exc.message]}) from exc
    bot_seats = _validate_bots(bots, players, creator_seat)
    invited = _invitees(user, invite or [], reserved or {}, players, creator_seat, bot_seats)
    if invited:  # `invited` now, then the start's entries: every inbox this may touch, locked in order
        inbox.lock_inboxes([user.pk, *(u.pk for u in invited.values())])
    tc = clocks.validate(time_control)
    _check_quotas(user, with_bots=bool(bot_seats), stays_open=len(bot_seats) < players - 1)
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
        invite_code=secrets.token_urlsafe(16),
        rematch_of=rematch_of,
    )
    Seat.objects.bulk_create(
        [
            Seat(
                match=match,
                index=i,
                user=user if i == creator_seat else None,
                joined_at=now if i == creator_seat else None,
            )
            for i in range(players)
        ]
    )
    created = {"game": game, "players": players, "by": user.username}
    if rematch_of is not None:
        created["rematch_of"] = rematch_of.id
    _append(match, Record.Type.CREATED, actor=Record.Actor.SYSTEM, data=created)
    _append(
        match, Record.Type.SEAT_TAKEN, actor=Record.Actor.PLAYER, seat=creator_seat, data={"username": user.username}
    )
    for seat_index, invitee in invited.items():
        _invite(match, invitee, by=user, seat=seat_index)
    for seat, level in bot_seats:
        Seat.objects.filter(match=match, index=seat).update(bot=level, joined_at=now)
        _append(match, Record.Type.BOT_ADDED, actor=Record.Actor.SYSTEM, seat=seat, data={"level": level})
    _start_if_full(match)
    match.save()
    return match


def _invitees(
    user: User,
    names: list[str],
    reserved: dict[int, User],
    players: int,
    creator_seat: int,
    bot_seats: list[tuple[int, str]],
) -> dict[int, User]:
    """The seats reserved for invitees: ``reserved`` as given, then each named user in the next free seat."""
    from accounts import usernames

    out = dict(reserved)
    taken = {creator_seat, *(i for i, _ in bot_seats), *out}
    free = [i for i in range(players) if i not in taken]
    seen = {user.pk, *(u.pk for u in out.values())}
    for name in names:
        invitee = User.objects.filter(username_key=usernames.key(name), is_active=True).first()
        if invitee is None:
            raise InvalidRequest(f"No user {name!r} to invite.", errors={"invite": [f"No user {name!r}."]})
        if invitee.pk in seen:
            continue
        if not free:
            raise InvalidRequest(
                "More invitees than free seats.", errors={"invite": ["More invitees than free seats."]}
            )
        out[free.pop(0)] = invitee
        seen.add(invitee.pk)
    return out


def _notify_invited(invitation: Invitation) -> None:
    """The invitee's ``invited`` notification, written in the invitation's transaction."""
    payload = {
        "match": invitation.match_id,
        "game": invitation.match.game,
        "by": invitation.invited_by.username,
        "seat": invitation.seat,
    }
    inbox.notify(invitation.user, "invited", payload, invitation.match)


def _invite(match: Match, invitee: User, *, by: User, seat: int | None) -> Invitation:
    invitation, _ = Invitation.objects.update_or_create(
        match=match,
        user=invitee,
        defaults={"invited_by": by, "seat": seat, "status": Invitation.Status.PENDING, "created_at": timezone.now()},
    )
    _notify_invited(invitation)
    return invitation


def _reserved_seats(match: Match, *, besides: User | None = None) -> dict[int, int]:
    """seat -> invitee id, for pending invitations of an open match."""
    rows = Invitation.objects.filter(match=match, status=Invitation.Status.PENDING, seat__isnull=False)
    if besides is not None:
        rows = rows.exclude(user=besides)
    return {seat: uid for seat, uid in rows.values_list("seat", "user_id") if seat is not None}


@transaction.atomic
def invitation_create(*, match_id: str, by: User, username: str) -> Invitation:
    """A seated player invites ``username`` to an open match: a free seat is reserved for them."""
    from accounts import usernames

    match, seats = _locked(match_id)
    _seat_of(seats, by)
    _require_open(match, "invite")
    invitee = User.objects.filter(username_key=usernames.key(username), is_active=True).first()
    if invitee is None:
        raise InvalidRequest(f"No user {username!r} to invite.", errors={"username": [f"No user {username!r}."]})
    if any(s.user_id == invitee.pk for s in seats):
        raise Conflict("already_seated", f"{invitee.username} already holds a seat in this match.")
    reserved = _reserved_seats(match, besides=invitee)
    free = next((s.index for s in seats if not s.taken and s.index not in reserved), None)
    if free is None:
        raise Conflict("match_full", "The match has no free seat to reserve.")
    return _invite(match, invitee, by=by, seat=free)


@transaction.atomic
def invitation_decline(*, match_id: str, user: User) -> Invitation:
    """Decline a pending invitation: its seat is free again."""
    invitation = Invitation.objects.select_for_update().filter(match_id=match_id, user=user).first()
    if invitation is None or invitation.status != Invitation.Status.PENDING:
        raise NotFound(f"No pending invitation to match {match_id!r}.")
    invitation.status, invitation.seat = Invitation.Status.DECLINED, None
    invitation.save(update_fields=["status", "seat"])
    return invitation


@transaction.atomic
def match_rematch(*, match_id: str, user: User) -> Match:
    """After the end: the same game, options and time control, every seat moved one place on; the
    caller sits down, bots keep their level, the other people are invited to their new seats."""
    match, seats = _locked(match_id)
    mine = _seat_of(seats, user)
    if match.status != Match.Status.FINISHED:
        raise Conflict("match_live", "A rematch follows a finished match.")
    if Match.objects.filter(rematch_of=match).exists():
        raise Conflict("rematch_exists", "This match already has a rematch.")
    n = match.players
    moved = {(s.index + 1) % n: s for s in seats}
    reserved = {i: s.user for i, s in moved.items() if s.user is not None and s.user_id != user.pk and not s.bot}
    bots_ = [{"seat": i, "level": s.bot} for i, s in moved.items() if s.bot]
    options = {k: v for k, v in match.options.items() if k != "setup"}
    return match_create(
        user=user,
        game=match.game,
        players=n,
        options=options,
        bots=bots_,
        time_control=match.time_control,
        private=match.private,
        creator_seat=(mine.index + 1) % n,
        reserved={i: u for i, u in reserved.items() if u.is_active},
        rematch_of=match,
    )


def account_delete(user: User) -> None:
    """``DELETE me``: leave open matches, resign live ones, drop invitations, then anonymise the
    account (finished matches keep their records; the seat shows a deleted player)."""
    for match_id, status in (
        Seat.objects.filter(user=user, match__status__in=(Match.Status.OPEN, Match.Status.ACTIVE))
        .values_list("match_id", "match__status")
        .order_by("match_id")
    ):
        try:
            if status == Match.Status.OPEN:
                match_leave(match_id=match_id, user=user)
            else:
                match_resign(match_id=match_id, user=user)
        except ApplicationError:
            pass  # already resigned, or ended meanwhile
    Invitation.objects.filter(user=user).delete()
    from accounts.services import user_anonymise

    user_anonymise(user)


def _check_option_bounds(options: dict[str, Any]) -> None:
    """Every integer option within ``TABULA_MAX_OPTION_INT`` (the engines bound most; this bounds the rest)."""
    bound = settings.TABULA_MAX_OPTION_INT
    for name, value in options.items():
        if type(value) is int and not -bound <= value <= bound:
            raise InvalidRequest(
                f"options.{name} is out of range.", errors={f"options.{name}": [f"Must be from {-bound} to {bound}."]}
            )


def _check_quotas(user: User, *, with_bots: bool, stays_open: bool = False) -> None:
    """At most ``TABULA_MAX_OPEN_MATCHES`` open matches per creator, and ``TABULA_MAX_BOT_MATCHES``
    live matches with bots; the creator's row is locked so that racing creations count each other."""
    # NO KEY UPDATE: racing creations wait for each other, but another transaction's foreign-key
    # check on this user (a notification, a seat) does not, so the two cannot deadlock.
    User.objects.select_for_update(no_key=True).filter(pk=user.pk).values_list("pk", flat=True).first()
    mine = Match.objects.filter(created_by=user)
    cap = settings.TABULA_MAX_OPEN_MATCHES
    if stays_open and mine.filter(status=Match.Status.OPEN).count() >= cap:
        raise QuotaExceeded(f"You have {cap} open matches: start, leave or finish one first.", limit=cap)
    if with_bots:
        cap = settings.TABULA_MAX_BOT_MATCHES
        bot_seat = Seat.objects.filter(match=OuterRef("pk")).exclude(bot="")
        live = mine.filter(status__in=(Match.Status.OPEN, Match.Status.ACTIVE)).filter(Exists(bot_seat))
        if live.count() >= cap:
            raise QuotaExceeded(f"You have {cap} live matches with bots: finish or resign one first.", limit=cap)


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
                data={"username": s.user.username if s.user is not None else None},
            )
    _start_if_full(rematch)
    rematch.save()
    return rematch


def _lock(match_id: str) -> Match:
    """The match row, locked (`games.sql.lock`): every write takes it."""
    return games_sql.lock(match_id)


def _locked(match_id: str, *, replaying: bool = False) -> tuple[Match, list[Seat]]:
    """`_lock` and `_seats` in one round trip (`games.sql.locked`). ``replaying``: the caller folds
    the match's state next, so the records after this process's cached state come too
    (`replay.Tail`); the others (an invitation, a rematch of a finished match) would only read a
    log they never use."""
    tail = replay.tail_of(match_id) if replaying else replay.NO_TAIL
    match, seats, records = games_sql.locked(match_id, tail.sql, tail.params)
    tail.attach(match, records)
    return match, seats


def _seats(match: Match) -> list[Seat]:
    return games_sql.seats(match)


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
    reserved = _reserved_seats(match, besides=user)
    invitation = Invitation.objects.filter(match=match, user=user, status=Invitation.Status.PENDING).first()
    if seat is None and invitation is not None and invitation.seat is not None:
        seat = invitation.seat
    if seat is not None:
        if not 0 <= seat < match.players:
            raise InvalidRequest(f"seat must be from 0 to {match.players - 1}.", errors={"seat": ["Out of range."]})
        target: Seat | None = seats[seat]
        if target is not None and target.taken:
            raise Conflict("seat_taken", f"Seat {seat} is taken.")
        if seat in reserved:
            raise Conflict("seat_reserved", f"Seat {seat} is reserved for an invited player.")
    else:
        target = next((s for s in seats if not s.taken and s.index not in reserved), None)
        if target is None:
            raise Conflict("match_full", "The match has no free seat.")
    assert target is not None
    if invitation is not None:
        invitation.status = Invitation.Status.ACCEPTED
        invitation.save(update_fields=["status"])
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
    match, seats = _locked(match_id)
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
    if not Seat.objects.filter(match=match).exclude(bot="").exists():
        _check_quotas(user, with_bots=True)
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
    """Deal once every seat is filled (the `started` record), and start the clocks."""
    seats = _seats(match)
    if any(not s.taken for s in seats):
        return
    rules = replay.rules_for(match)
    now = timezone.now()
    match.status, match.started_at = Match.Status.ACTIVE, now
    bank_ms = clocks.initial_bank_ms(match.time_control)
    if bank_ms is not None:
        Seat.objects.filter(match=match).update(bank_ms=bank_ms)
        for seat in seats:
            seat.bank_ms = bank_ms
    config = rules.parse_config(match.options, match.players)
    _play(
        match, seats, Started(config, match.seed), actor=Record.Actor.SYSTEM, data={"players": match.players}, now=now
    )


# --- the one path every game input takes --------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """What an input did: the match (saved, at its new version), the state after it, the seats, and who acted."""

    match: Match
    rules: Rules[Any, Any, Any]
    state: Any
    seats: list[Seat]
    seat: int | None


def _play(
    match: Match,
    seats: list[Seat],
    given: Input,
    *,
    actor: str,
    data: dict[str, Any] | None = None,
    wake_bots: bool = True,
    now: datetime | None = None,
    state: Any = None,
) -> Played:
    """Apply one input to a locked match and record it: replay, step, clocks, one INSERT, advance.

    Every engine record is written here and nowhere else. The record is inserted once, complete:
    effects that announce a new game timer carry its absolute deadline. Lifecycle changes the
    input implies (a resignation, a timeout count, a bot taking a seat over) are made here too.
    ``wake_bots=False`` when the caller is the bot loop itself, which plays on without a new task.
    ``state``, when given, is the match's state at its version (a caller applying many inputs).
    """
    rules = replay.rules_for(match)
    before = list(match.awaiting)
    if state is None and not isinstance(given, Started):
        state = replay.match_state(match)
    new_state, effects = step(rules, state, given)  # RulesError: nothing was written
    now = now or timezone.now()
    author = getattr(given, "seat", None)
    outcome = rules.outcome(new_state)
    effects_json = [e.to_json() for e in effects]
    if outcome is None:
        _timer_set(match, rules.timer(new_state), effects_json, now)
    seat = seats[author] if author is not None else None
    # A player's own move ends a run of timeouts, but only a move others see was made by the seat:
    # resetting the (public) count on a hidden one (EKKO's reaction `pass`) would tell who passed.
    if (
        isinstance(given, Moved)
        and actor == Record.Actor.PLAYER
        and seat is not None
        and seat.consecutive_timeouts
        and not rules.author_hidden(given.move)
    ):
        seat.consecutive_timeouts = 0
        seat.save(update_fields=["consecutive_timeouts"])
    if isinstance(given, Resigned) and seat is not None:
        seat.resigned, seat.deadline, seat.clock_started_at = True, None, None
        seat.save(update_fields=["resigned", "deadline", "clock_started_at"])
    move = rules.dump_move(given.move) if isinstance(given, Moved) else None
    record = _append(
        match, given.record, actor=actor, seat=author, move=move, effects=effects_json, data=data, at=now, defer=True
    )
    bind_contextvars(match_id=match.id, game=match.game, version=match.version)  # for every log line after
    if isinstance(given, TimedOut) and seat is not None and outcome is None:
        _maybe_take_over(match, seat)
    _advance(match, rules, new_state, outcome, seats=seats, author=author, now=now, wake_bots=wake_bots)
    timed_out = isinstance(given, TimedOut) or (isinstance(given, Resigned) and actor == Record.Actor.TIMEOUT)
    notices.on_played(
        match,
        rules,
        record,
        before=before,
        seats=seats,
        started=isinstance(given, Started),
        finished=outcome is not None,
        timed_out=author if timed_out else None,
        now=now,
    )
    return Played(match, rules, new_state, seats, author)


def _timer_set(match: Match, timer: Timer | None, effects: list[dict[str, Any]], now: datetime) -> None:
    """Keep, start or clear the game timer; a new one stamps its deadline into the effects announcing it."""
    if timer is None:
        match.timer_key, match.timer_deadline = "", None
        return
    if timer.key == match.timer_key:
        return
    match.timer_key, match.timer_deadline = timer.key, now + timedelta(seconds=timer.seconds)
    for effect in effects:
        if effect["data"].get("deadline", 0) is None:
            effect["data"]["deadline"] = match.timer_deadline.isoformat()


def _maybe_take_over(match: Match, seat: Seat) -> None:
    """A bot takes the seat after ``bot_after`` timeouts in a row (the `bot_took_over` record)."""
    bot_after = (match.time_control or {}).get("bot_after")
    if not bot_after or seat.consecutive_timeouts < bot_after or seat.bot:
        return
    seat.bot = TAKEOVER_BOT_LEVEL
    seat.save(update_fields=["bot"])
    record = _append(
        match,
        Record.Type.BOT_TOOK_OVER,
        actor=Record.Actor.SYSTEM,
        seat=seat.index,
        data={"level": TAKEOVER_BOT_LEVEL, "after_timeouts": seat.consecutive_timeouts},
    )
    notices.on_took_over(match, seat, record)


def _advance(
    match: Match,
    rules: Rules[Any, Any, Any],
    state: Any,
    outcome: Outcome | None,
    *,
    seats: list[Seat],
    author: int | None,
    now: datetime,
    wake_bots: bool,
) -> None:
    """Derive status, result, awaiting and clocks from the new state; save; queue what follows on commit."""
    match.awaiting = sorted(rules.awaiting(state))
    match.updated_at = now
    if outcome is not None:
        match.status, match.finished_at, match.result = Match.Status.FINISHED, now, outcome.to_json()
        match.timer_key, match.timer_deadline = "", None
        if any(s.deadline for s in seats):
            Seat.objects.filter(match=match).update(deadline=None, clock_started_at=None)
    else:
        for seat in clocks.update(match.time_control, rules.clocked_seats(state), seats, author=author, now=now):
            assert isinstance(seat, Seat)
            sql.update(seat, ["deadline", "clock_started_at", "bank_ms"])
    _save_progress(match)  # and the record `_play` deferred
    match_id, version = match.id, match.version
    transaction.on_commit(lambda: replay.remember(match_id, version, state))
    if outcome is not None:
        if ratings.ratings_update(match):
            scheduling.leaderboard_on_commit(match.game)
        if outcome.rematch:
            _rematch_create(match, seats)
        return
    due = min([d for d in (match.timer_deadline, *(s.deadline for s in seats)) if d is not None], default=None)
    bots_busy = wake_bots and _bots_have_work(rules, state, match, seats)
    scheduling.wake_on_commit(match_id, version, due, bots_busy)


def _bots_have_work(rules: Rules[Any, Any, Any], state: Any, match: Match, seats: list[Seat]) -> bool:
    """A bot is awaited, or holds an interrupt it might take."""
    awaiting = set(match.awaiting)
    return any(s.bot and not s.resigned and (s.index in awaiting or rules.legal_moves(state, s.index)) for s in seats)


# --- play ---------------------------------------------------------------------------------------


def _seat_of(seats: list[Seat], user: User) -> Seat:
    seat = next((s for s in seats if s.user_id == user.id), None)
    if seat is None:
        raise NotSeated("You hold no seat in this match.")
    return seat


def _require_live(match: Match, *, not_started: str) -> None:
    if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
        raise MatchOver(f"The match is {match.status}.")
    if match.status == Match.Status.OPEN:
        raise Conflict("match_not_started", not_started)


@dataclass
class Turn:
    """A match locked for one move by one seat (`move_turn`): `play` applies the move."""

    match: Match
    seats: list[Seat]
    seat: Seat
    actor: str
    wake_bots: bool
    started: float  # perf_counter() before the lock: the move's time, for the metrics

    def play(self, move: Any, expected_version: int) -> Played:
        """Check the version and the status, parse the move and apply it (`_play`)."""
        match = self.match
        if match.version != expected_version:
            raise StaleVersion(match.version)
        _require_live(match, not_started="The match has not started yet: moves come once every seat is filled.")
        parsed = replay.rules_for(match).parse_move(move)  # InvalidMove → 400
        played = _play(match, self.seats, Moved(self.seat.index, parsed), actor=self.actor, wake_bots=self.wake_bots)
        game, actor, seconds = match.game, self.actor, time.perf_counter() - self.started
        transaction.on_commit(lambda: metrics.move_accepted(game, actor, seconds))
        return played


@contextmanager
def move_turn(
    *,
    match_id: str,
    user: User | None = None,
    seat_index: int | None = None,
    actor: str = Record.Actor.PLAYER,
    wake_bots: bool = True,
) -> Iterator[Turn]:
    """One transaction holding the match's lock for a move by the caller's seat (or ``seat_index``
    for a bot): the block gets the `Turn` once the seat is known and plays it with `Turn.play`.

    Checks, in the order rules/README.md pins: not_found (a private match the caller may not see),
    not_seated here; then in the block whatever the caller checks under the lock (the API's
    ``Idempotency-Key`` replay: racing retries of one request are serialised by the lock), then
    `Turn.play`: version_conflict, match_over, invalid_move, the engine's not_awaited / race_lost /
    illegal_move. A refusal raised anywhere in the block rolls the transaction back and is counted.
    """
    started, game = time.perf_counter(), metrics.UNKNOWN_GAME
    try:
        with transaction.atomic():
            match, seats = _locked(match_id, replaying=True)
            if user is not None and not selectors.match_visible_to(match, user):
                raise NotFound(f"No match {match_id!r}.")  # a private match is not there for outsiders
            game = match.game
            seat = _seat_of(seats, user) if user is not None else seats[seat_index or 0]
            yield Turn(match, seats, seat, actor, wake_bots, started)
    except (ApplicationError, RulesError) as exc:
        metrics.move_refused(game, exc.code)
        raise


def move_submit(
    *,
    match_id: str,
    move: Any,
    expected_version: int,
    user: User | None = None,
    seat_index: int | None = None,
    actor: str = Record.Actor.PLAYER,
    wake_bots: bool = True,
) -> Played:
    """Apply one move by the caller's seat (or ``seat_index`` for a bot); the match and state after
    it. `move_turn` and `Turn.play` in one."""
    with move_turn(match_id=match_id, user=user, seat_index=seat_index, actor=actor, wake_bots=wake_bots) as turn:
        return turn.play(move, expected_version)


def inputs_play(*, match_id: str, inputs: Iterable[tuple[Input, str]]) -> Played | None:
    """Apply many ``(input, actor)`` in one transaction through the same path as each single one.

    For tools that build long matches (the benchmarks); the match must be active. Returns what
    the last input did (None for no input).
    """
    played = None
    with transaction.atomic():
        match, seats = _locked(match_id, replaying=True)
        _require_live(match, not_started="The match has not started.")
        state = replay.match_state(match)
        for given, actor in inputs:
            played = _play(match, seats, given, actor=actor, state=state)
            state = played.state
    return played


@transaction.atomic
def match_resign(*, match_id: str, user: User) -> Match:
    """Resign the caller's seat; the rules page says what that does to the game."""
    match, seats = _locked(match_id, replaying=True)
    seat = _seat_of(seats, user)
    _require_live(match, not_started="The match has not started: leave it instead.")
    if seat.resigned:
        raise Conflict("already_resigned", "You have already resigned.")
    return _play(match, seats, Resigned(seat.index), actor=Record.Actor.PLAYER).match


# --- deadlines ----------------------------------------------------------------------------------


def deadlines_process(*, match_id: str, expected_version: int | None = None) -> int:
    """Apply every deadline of the match that is due now; returns how many inputs it applied.

    With ``expected_version`` (a timer task), a match that moved on is left alone: the move that
    moved it scheduled its own timer. The sweep passes None and acts on whatever is due.
    """
    applied = 0
    with transaction.atomic():
        match = Match.objects.select_for_update(no_key=True).filter(id=match_id).first()  # as `_lock`
        if match is None or match.status != Match.Status.ACTIVE:
            return 0
        if expected_version is not None and match.version != expected_version:
            return 0
        source = "sweep" if expected_version is None else "task"
        fired: list[tuple[str, float]] = []
        while applied < MAX_RECORDS_PER_SWEEP and match.status == Match.Status.ACTIVE:
            now = timezone.now()
            seats = _seats(match)
            if match.timer_deadline is not None and match.timer_deadline <= now:
                fired.append(("game_timer", (now - match.timer_deadline).total_seconds()))
                _play(match, seats, Expired(), actor=Record.Actor.TIMEOUT)
            else:
                due = [s for s in seats if s.deadline is not None and s.deadline <= now and not s.resigned]
                if not due:
                    break
                seat = min(due, key=lambda s: (s.deadline, s.index))
                assert seat.deadline is not None
                fired.append(("seat_clock", (now - seat.deadline).total_seconds()))
                _seat_timeout(match, seats, seat)
            applied += 1
        if fired:
            transaction.on_commit(lambda: _timers_fired(fired, source))
    return applied


def _timers_fired(fired: list[tuple[str, float]], source: str) -> None:
    for kind, lateness in fired:
        metrics.timer_fired(kind, source, lateness)


def _seat_timeout(match: Match, seats: list[Seat], seat: Seat) -> None:
    """The seat's clock ran out: its default move, or a forfeit (``on_timeout``)."""
    seat.consecutive_timeouts += 1
    seat.save(update_fields=["consecutive_timeouts"])
    forfeit = (match.time_control or {}).get("on_timeout") == "forfeit"
    given: Input = Resigned(seat.index) if forfeit else TimedOut(seat.index)
    _play(match, seats, given, actor=Record.Actor.TIMEOUT)


# --- operators --------------------------------------------------------------------------------


@transaction.atomic
def match_abort(*, match_id: str, reason: str, by: User | None = None) -> Match:
    """End a live match with no result and no rating: one `aborted` record, under the lock.

    By staff from the admin (``by``), or by an operator (`manage.py abort_match`).
    """
    match = _lock(match_id)
    if not match.is_live:
        raise MatchOver(f"The match is {match.status}.")
    now = timezone.now()
    who = by.username if by is not None else "operator"
    _append(match, Record.Type.ABORTED, actor=Record.Actor.SYSTEM, data={"reason": reason, "by": who}, at=now)
    match.status, match.finished_at, match.updated_at = Match.Status.ABORTED, now, now
    match.timer_key, match.timer_deadline, match.awaiting = "", None, []
    Seat.objects.filter(match=match).update(deadline=None, clock_started_at=None)
    match.save()
    return match
