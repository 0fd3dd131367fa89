"""Away: a user's absence freezes the clocks of their seats, exactly and replayably (docs/api.md, *Away*).

An absence (`Absence`) runs from its start until ``until``, or until the user ends it (``DELETE
me/away``) or makes a move anywhere. While it runs, each of the user's seats in an active match
whose ``time_control.away`` is ``allowed`` is *paused*: a ``paused`` record (actor ``system``,
``data: {seat, reason: "away", remaining_ms}``) clears its deadline and keeps what was left on the
clock (``Seat.paused_ms``; null when the clock was not running). When the absence ends a
``resumed`` record (``{seat, reason, remaining_ms, deadline}``) restarts a clock the state runs,
with ``deadline = resumed.at + remaining`` (or a fresh budget when it was not running). The
records say every deadline, so the log alone reproduces them (`deadline_after`).

When one absence has held a match for its ``away_cap_s`` the match's own policy applies again:
the seat is resumed (``reason: "cap"``), or, when the owner chose a ``caretaker`` level, a bot of
that level plays it (``bot_took_over`` with ``caretaker: true``) until the owner is back
(``seat_returned``).

The balance: a new account starts with ``TABULA_AWAY["start_s"]`` and accrues
``accrue_per_s`` of a second per second up to ``cap_s``. An absence reserves nothing: it is
charged once, when it ends, for the time from its first frozen clock (not once per match).

Each match is paused, resumed or capped in a transaction of its own (one match lock at a time,
so two users' absences cannot deadlock), and `sweep` (beat, with the deadlines) does whatever a
lost task or a crash left undone: nothing depends on an on-commit task alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import User
from core.errors import ApplicationError, Conflict, InvalidRequest
from games import clocks, notices, replay, scheduling, sql
from games.models import Absence, AwayBalance, Match, Record, Seat
from games.services import writes
from rules import bots

#: What ``preferences.caretaker`` may say: no caretaker, or a bot level.
CARETAKERS = ("off", *bots.LEVELS)
AUTO_AWAY_MAX = timedelta(days=1)  # an automatic absence lasts at most a day at a time
LOW_CLOCK_FRACTION = 0.1  # no manual absence while a running clock has less than this left


class AwayTooLong(ApplicationError):
    code, status, title = "away_too_long", 422, gettext_noop("Away too long")


def _not_now(detail: str, **extra: Any) -> Conflict:
    return Conflict("away_not_now", detail, **extra)


def _config() -> dict[str, Any]:
    return dict(settings.TABULA_AWAY)


# --- the balance ----------------------------------------------------------------------------------


def _balance_row(user: User, now: datetime) -> AwayBalance:
    row, _ = AwayBalance.objects.get_or_create(user=user, defaults={"seconds": _config()["start_s"], "at": now})
    return row


def _locked_balance(user: User, now: datetime) -> AwayBalance:
    """The user's balance row, locked: every writer of an absence takes this lock first, so they queue.

    The row is made first if missing: a racing maker's INSERT waits for this one's transaction, then
    reads the row without a lock, and would go on to touch the absence unlocked (a deadlock a racing
    PUT, DELETE and sweep found); hence the lock is always taken after, by a locking read."""
    _balance_row(user, now)
    return AwayBalance.objects.select_for_update().get(user=user)


def _accrued(row: AwayBalance, now: datetime) -> int:
    """The balance at ``now``: what was stored plus what accrued since, up to the cap."""
    config = _config()
    grown = max(0.0, (now - row.at).total_seconds()) * config["accrue_per_s"]
    return int(min(config["cap_s"], row.seconds + grown))


def _open(user: User) -> Absence | None:
    return Absence.objects.filter(user=user, ended_at__isnull=True).first()


@dataclass(frozen=True)
class Status:
    """``GET me/away``."""

    active: bool
    until: datetime | None
    balance_s: int
    auto: bool


def away_status(user: User, now: datetime | None = None) -> Status:
    now = now or timezone.now()
    absence = _open(user)
    balance = _accrued(_balance_row(user, now), now)
    if absence is not None and absence.first_frozen_at is not None:
        balance = max(0, balance - int((now - max(absence.started_at, absence.first_frozen_at)).total_seconds()))
    return Status(absence is not None, absence.until if absence else None, balance, bool(absence and absence.auto))


# --- starting and ending an absence ---------------------------------------------------------------


def _check_until(until: Any, now: datetime) -> datetime:
    if not isinstance(until, datetime):
        raise InvalidRequest(
            _("until must be a date and time."), errors={"until": [_("Must be an ISO 8601 date-time.")]}
        )
    if until <= now:
        raise InvalidRequest(_("until is in the past."), errors={"until": [_("Must be in the future.")]})
    if until > now + timedelta(days=365):
        raise InvalidRequest(_("until is more than a year away."), errors={"until": [_("At most a year from now.")]})
    if (until - now).total_seconds() < _config()["min_s"]:
        minimum = _config()["min_s"]
        raise InvalidRequest(
            _("An absence lasts at least %(seconds)s s.") % {"seconds": minimum},
            errors={"until": [_("At least %(seconds)s s from now.") % {"seconds": minimum}]},
        )
    return until


def _low_clock(user: User, now: datetime) -> Seat | None:
    """A running clock of the user's below `LOW_CLOCK_FRACTION` of its period: away now would be a free extension."""
    for seat in Seat.objects.filter(
        user=user, deadline__isnull=False, match__status=Match.Status.ACTIVE
    ).select_related("match"):
        tc = seat.match.time_control
        if tc and clocks.away_allowed(tc) and seat.deadline is not None:
            left_ms = (seat.deadline - now).total_seconds() * 1000
            if left_ms < LOW_CLOCK_FRACTION * clocks.period_ms(tc):
                return seat
    return None


def away_start(*, user: User, until: Any, now: datetime | None = None) -> Status:
    """``PUT me/away``: start an absence now (or move the open one's end), then pause the seats."""
    now = now or timezone.now()
    until = _check_until(until, now)
    with transaction.atomic():
        row = _locked_balance(user, now)
        balance = _accrued(row, now)
        if (until - now).total_seconds() > balance:
            raise AwayTooLong(
                _("Your balance allows an absence until %(until)s at most.")
                % {"until": (now + timedelta(seconds=balance)).isoformat()},
                balance_s=balance,
                max_until=(now + timedelta(seconds=balance)).isoformat(),
            )
        absence = _open(user)
        if absence is not None:
            absence.until = until
            absence.save(update_fields=["until"])
        else:
            interval = _config()["interval_s"]
            if row.last_manual_start is not None and (now - row.last_manual_start).total_seconds() < interval:
                raise _not_now(
                    _("One absence per %(seconds)s s: try again after %(after)s.")
                    % {"seconds": interval, "after": (row.last_manual_start + timedelta(seconds=interval)).isoformat()},
                    reason="too_soon",
                )
            low = _low_clock(user, now)
            if low is not None:
                raise _not_now(
                    _("Your clock in match %(match)s is nearly out: move there first.") % {"match": low.match_id},
                    reason="clock_low",
                    match=low.match_id,
                )
            try:
                with transaction.atomic():
                    Absence.objects.create(user=user, started_at=now, until=until)
            except IntegrityError:  # a racing PUT opened one first: this one moves its end
                Absence.objects.filter(user=user, ended_at__isnull=True).update(until=until)
            row.last_manual_start = now
            row.save(update_fields=["last_manual_start"])
            notices.on_away(user, "away_started", {"until": until.isoformat(), "auto": False})
    _pause_all(user)
    return away_status(user)


def away_end(*, user: User, now: datetime | None = None) -> bool:
    """``DELETE me/away``, the absence's end, or a move: end the open absence, charge it, resume the seats.

    Returns whether there was one to end."""
    now = now or timezone.now()
    with transaction.atomic():
        # The balance row first, as in `away_start`: the opposite order deadlocked a racing PUT and DELETE.
        row = _locked_balance(user, now)
        absence = Absence.objects.select_for_update().filter(user=user, ended_at__isnull=True).first()
        if absence is None:
            return False
        balance = _accrued(row, now)
        charged = 0
        if absence.first_frozen_at is not None:
            charged = int((now - max(absence.started_at, absence.first_frozen_at)).total_seconds())
        absence.ended_at, absence.charged_s = now, min(charged, balance)
        absence.save(update_fields=["ended_at", "charged_s"])
        row.seconds, row.at = max(0, balance - charged), now
        row.save(update_fields=["seconds", "at"])
        notices.on_away(user, "away_ended", {"charged_s": absence.charged_s})
    for match_id in _away_match_ids(user):
        _resume(match_id, user.pk, reason="back")
    return True


def back_if_away(user: User) -> None:
    """A move by the user, anywhere: they are back (one prepared, indexed query when they are not away)."""
    if sql.is_away(user.pk):
        away_end(user=user)


def auto_away(match: Match, seats: list[Seat], seat: Seat, now: datetime) -> bool:
    """A deadline is due for ``seat``: with ``auto_away`` on and balance left, start an absence
    instead (at most a day) and pause this seat now, under the caller's lock. Returns whether it did."""
    user = seat.user
    if (
        user is None
        or seat.bot
        or not (user.preferences or {}).get("auto_away")
        or not clocks.away_allowed(match.time_control)
        or all(s.bot or s.user_id is None for s in seats if s.index != seat.index)
        or Absence.objects.filter(user=user, ended_at__isnull=True).exists()
    ):
        return False
    balance = _accrued(_balance_row(user, now), now)
    if balance < max(1, _config()["min_s"]):
        return False
    until = now + min(timedelta(seconds=balance), AUTO_AWAY_MAX)
    try:
        with transaction.atomic():
            Absence.objects.create(user=user, started_at=now, until=until, auto=True)
    except IntegrityError:
        return False
    notices.on_away(user, "away_started", {"until": until.isoformat(), "auto": True})
    _pause_seat(match, seats, seat, until, now)
    transaction.on_commit(lambda: _pause_all(user))
    return True


# --- one match at a time --------------------------------------------------------------------------


def _away_match_ids(user: User) -> list[str]:
    return sorted(set(Seat.objects.filter(user=user, away_until__isnull=False).values_list("match_id", flat=True)))


def _pause_all(user: User) -> None:
    """Pause every seat of the user's open absence not yet paused (each match in its own transaction)."""
    absence = _open(user)
    if absence is None:
        return
    ids = Seat.objects.filter(
        user=user, away_until__isnull=True, resigned=False, caretaker=False, match__status=Match.Status.ACTIVE
    ).values_list("match_id", flat=True)
    for match_id in sorted(set(ids)):
        _pause(match_id, user.pk)


def _pause(match_id: str, user_id: int) -> None:
    with transaction.atomic():
        match, seats = writes.locked(match_id)
        absence = Absence.objects.filter(user_id=user_id, ended_at__isnull=True).first()
        seat = next((s for s in seats if s.user_id == user_id), None)
        if (
            absence is None
            or seat is None
            or match.status != Match.Status.ACTIVE
            or seat.away_until is not None
            or seat.resigned
            or seat.caretaker
            or not clocks.away_allowed(match.time_control)
        ):
            return
        _pause_seat(match, seats, seat, absence.until, timezone.now())


def _pause_seat(match: Match, seats: list[Seat], seat: Seat, until: datetime, now: datetime) -> None:
    """The ``paused`` record: the seat's clock keeps what it had left; the match row's version moves on."""
    remaining: int | None = None
    if seat.deadline is not None:
        remaining = max(0, int((seat.deadline - now).total_seconds() * 1000))
        if match.time_control and "bank_s" in match.time_control:
            seat.bank_ms = remaining
    seat.deadline = seat.clock_started_at = None
    seat.away_until, seat.away_since, seat.paused_ms = until, now, remaining
    seat.save(update_fields=["deadline", "clock_started_at", "bank_ms", "away_until", "away_since", "paused_ms"])
    if remaining is not None and seat.user_id is not None:
        Absence.objects.filter(user_id=seat.user_id, ended_at__isnull=True, first_frozen_at__isnull=True).update(
            first_frozen_at=now
        )
    record = writes.append(
        match,
        Record.Type.PAUSED,
        actor=Record.Actor.SYSTEM,
        seat=seat.index,
        data={"seat": seat.index, "reason": "away", "remaining_ms": remaining, "until": until.isoformat()},
        at=now,
    )
    _saved(match, seats, now)
    notices.on_opponent(match, seats, seat, record, "opponent_away")


def _resume(match_id: str, user_id: int, *, reason: str) -> None:
    """The owner is back: restart a frozen clock (``resumed``), take the seat back from a caretaker
    (``seat_returned``), or, after the cap already restarted it, only clear the mark."""
    with transaction.atomic():
        match, seats = writes.locked(match_id, replaying=True)
        seat = next((s for s in seats if s.user_id == user_id), None)
        if seat is None or seat.away_until is None:
            return
        now = timezone.now()
        if seat.caretaker:
            seat.bot, seat.caretaker = "", False
            seat.away_until = seat.away_since = seat.paused_ms = None
            seat.save(update_fields=["bot", "caretaker", "away_until", "away_since", "paused_ms"])
            record = writes.append(
                match, Record.Type.SEAT_RETURNED, actor=Record.Actor.SYSTEM, seat=seat.index, data={"seat": seat.index}
            )
            _saved(match, seats, now)
            notices.on_opponent(match, seats, seat, record, "opponent_back")
        elif match.status != Match.Status.ACTIVE or seat.away_since is None:
            seat.away_until = seat.away_since = seat.paused_ms = None
            seat.save(update_fields=["away_until", "away_since", "paused_ms"])
        else:
            _resume_seat(match, seats, seat, reason, now)


def _resume_seat(match: Match, seats: list[Seat], seat: Seat, reason: str, now: datetime) -> None:
    tc = match.time_control or {}
    rules = replay.rules_for(match)
    clocked = seat.index in rules.clocked_seats(replay.match_state(match)) and not seat.resigned
    deadline: datetime | None = None
    remaining = seat.paused_ms
    if clocked and tc:
        remaining = seat.paused_ms if seat.paused_ms is not None else clocks.budget_ms(tc, seat)
        deadline = now + timedelta(milliseconds=remaining)
        seat.clock_started_at, seat.deadline = now, deadline
        if "bank_s" in tc:
            seat.bank_ms = remaining
    if reason != "cap":  # after the cap the owner is still away, but the clock runs
        seat.away_until = None
    seat.away_since = seat.paused_ms = None
    seat.save(update_fields=["deadline", "clock_started_at", "bank_ms", "away_until", "away_since", "paused_ms"])
    record = writes.append(
        match,
        Record.Type.RESUMED,
        actor=Record.Actor.SYSTEM,
        seat=seat.index,
        data={
            "seat": seat.index,
            "reason": reason,
            "remaining_ms": remaining if clocked else None,
            "deadline": deadline.isoformat() if deadline else None,
        },
        at=now,
    )
    _saved(match, seats, now)
    notices.on_opponent(match, seats, seat, record, "opponent_back")


def _saved(match: Match, seats: list[Seat], now: datetime) -> None:
    """Save the match row's version and wake its timers for the deadline now due (if any)."""
    match.updated_at = now
    writes.save_progress(match)
    due = min([d for d in (match.timer_deadline, *(s.deadline for s in seats)) if d is not None], default=None)
    scheduling.wake_on_commit(match.id, match.version, due, False)


def _cap(match_id: str, seat_index: int) -> None:
    """One absence has held the match for its ``away_cap_s``: the caretaker plays, or the clock runs."""
    with transaction.atomic():
        match, seats = writes.locked(match_id, replaying=True)
        seat = seats[seat_index]
        tc = match.time_control or {}
        now = timezone.now()
        if (
            match.status != Match.Status.ACTIVE
            or seat.away_since is None
            or seat.caretaker
            or (now - seat.away_since).total_seconds() < clocks.away_cap_s(tc)
        ):
            return
        level = ((seat.user.preferences or {}) if seat.user else {}).get("caretaker", "off")
        if level in bots.LEVELS:
            seat.bot, seat.caretaker = level, True
            seat.save(update_fields=["bot", "caretaker"])
            record = writes.append(
                match,
                Record.Type.BOT_TOOK_OVER,
                actor=Record.Actor.SYSTEM,
                seat=seat.index,
                data={"level": level, "caretaker": True},
            )
            _resume_clock_for_caretaker(match, seats, seat, now)
            notices.on_took_over(match, seat, record)
            return
        _resume_seat(match, seats, seat, "cap", now)


def _resume_clock_for_caretaker(match: Match, seats: list[Seat], seat: Seat, now: datetime) -> None:
    """The caretaker's clock: what was left, so it runs like the owner's (the seat stays marked away)."""
    tc = match.time_control or {}
    rules = replay.rules_for(match)
    if seat.index in rules.clocked_seats(replay.match_state(match)) and tc:
        remaining = seat.paused_ms if seat.paused_ms is not None else clocks.budget_ms(tc, seat)
        seat.clock_started_at, seat.deadline = now, now + timedelta(milliseconds=remaining)
        seat.save(update_fields=["clock_started_at", "deadline"])
    seat.away_since = seat.paused_ms = None  # the cap is spent: it does not fire again
    seat.save(update_fields=["away_since", "paused_ms"])
    match.updated_at = now
    writes.save_progress(match)
    due = min([d for d in (match.timer_deadline, *(s.deadline for s in seats)) if d is not None], default=None)
    scheduling.wake_on_commit(match.id, match.version, due, True)


# --- the sweep ------------------------------------------------------------------------------------


def sweep(now: datetime | None = None, limit: int = 200) -> int:
    """Beat: end absences whose ``until`` passed, pause seats an absence has not reached yet (a lost
    task, a match started during it), resume seats whose absence is over, and apply the caps."""
    now = now or timezone.now()
    done = 0
    for absence in Absence.objects.filter(ended_at__isnull=True, until__lte=now).select_related("user")[:limit]:
        done += away_end(user=absence.user, now=now)
    open_users = Absence.objects.filter(ended_at__isnull=True).values_list("user_id", flat=True)
    unpaused = Seat.objects.filter(
        user_id__in=open_users,
        away_until__isnull=True,
        resigned=False,
        caretaker=False,
        match__status=Match.Status.ACTIVE,
    ).values_list("match_id", "user_id")[:limit]
    for match_id, user_id in unpaused:
        _pause(match_id, user_id)
        done += 1
    stale = (
        Seat.objects.filter(away_until__isnull=False)
        .exclude(user_id__in=open_users)
        .values_list("match_id", "user_id")[:limit]
    )
    for match_id, user_id in stale:
        _resume(match_id, user_id, reason="back")
        done += 1
    frozen = Seat.objects.filter(away_since__isnull=False, match__status=Match.Status.ACTIVE)
    for seat in frozen.select_related("match")[:limit]:
        since = seat.away_since or now
        if (now - since).total_seconds() >= clocks.away_cap_s(seat.match.time_control or {}):
            _cap(seat.match_id, seat.index)
            done += 1
    return done


def deadline_after(records: list[Record], seat: int) -> datetime | None:
    """The deadline the log gives ``seat`` after its last ``resumed`` record (None when the clock
    it restarted did not run): a replay of the away records alone, for the tests and audits."""
    for record in reversed(records):
        if record.type == Record.Type.RESUMED and record.seat == seat:
            remaining = record.data.get("remaining_ms")
            return None if remaining is None else record.at + timedelta(milliseconds=remaining)
    return None
