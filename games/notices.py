"""The inbox entries play causes, and what `notify` reads of the matches.

Entries are written in the transaction of the record that causes them (`games.services.play` calls
`on_played`), through `notify.inbox.notify`. Payloads carry the causing record as the user's seat
may see it: the same redaction as ``GET matches/{id}/events`` (`games.selectors.record_for_viewer`).

`MATCHES` is what `notify` may read of matches (a match stream's events, the stream poll's record
ids, a user's turns for the e-mail digest); `games.apps` registers it with `notify.registry`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import selectors, sql
from games.models import Match, Record, Seat
from notify.inbox import notify
from notify.models import Notification
from rules.base import Rules

TYPES = (
    "your_turn",
    "match_started",
    "match_finished",
    "clock_low",
    "timed_out",
    "bot_took_over",
    "invited",  # games.services.lobby: a seat reserved for the user, or an invitation to a match
    # games.services.away: the user's own absence, and an opponent's in a match they share
    "away_started",
    "away_ended",
    "opponent_away",
    "opponent_back",
    # games.services.agreements: a proposal put to you, and how one ended
    "proposal",
    "proposal_result",
)


def _deadline(seat: Seat, match: Match) -> str | None:
    due = seat.deadline or match.timer_deadline
    return due.isoformat() if due else None


def on_played(
    match: Match,
    rules: Rules[Any, Any, Any],
    record: Record,
    *,
    before: Iterable[int],
    seats: list[Seat],
    started: bool,
    finished: bool,
    timed_out: int | None,
    now: datetime,
) -> None:
    """The inbox entries one engine record causes, each redacted for its recipient's seat."""
    humans = sorted((s for s in seats if s.user_id is not None), key=lambda s: s.user_id or 0)
    before_set = set(before)
    awaiting = set(match.awaiting) if not finished else set()
    for seat in humans:
        base = {"match": match.id, "game": match.game, "version": match.version, "seat": seat.index}
        event = selectors.record_for_viewer(rules, record, seat.index)
        if started:
            notify(seat.user_id, "match_started", {**base, "event": event}, match)
        if timed_out == seat.index:
            notify(seat.user_id, "timed_out", {**base, "event": event}, match)
        if finished:
            notify(seat.user_id, "match_finished", {**base, "result": match.result, "event": event}, match)
        elif seat.index in awaiting and not seat.resigned and not seat.bot and seat.index not in before_set:
            since = selectors.since_your_last(match, rules, seat.index, upto=record)
            payload = {**base, "deadline": _deadline(seat, match), "event": event, "since_your_last": since}
            notify(seat.user_id, "your_turn", payload, match)


def on_agreed(match: Match, seats: list[Seat], record: Record) -> None:
    """A match ended by agreement: ``match_finished`` to every human seat, with the record."""
    for seat in sorted((s for s in seats if s.user_id is not None), key=lambda s: s.user_id or 0):
        payload = {
            "match": match.id,
            "game": match.game,
            "version": match.version,
            "seat": seat.index,
            "result": match.result,
            "event": selectors.record_for_viewer(None, record, seat.index),
        }
        notify(seat.user_id, "match_finished", payload, match)


def on_proposal(match: Match, seats: list[Seat], type: str, proposal: dict[str, Any]) -> None:
    """``proposal`` (a new one, to the seats whose yes it takes) or ``proposal_result`` (to every human seat)."""
    wanted = set(proposal["needed"]) if type == "proposal" else {s.index for s in seats}
    for seat in sorted((s for s in seats if s.user_id is not None), key=lambda s: s.user_id or 0):
        if seat.index in wanted and not (type == "proposal" and seat.index == proposal["by"]):
            payload = {"match": match.id, "game": match.game, "seat": seat.index, "proposal": proposal}
            notify(seat.user_id, type, payload, match)


def on_took_over(match: Match, seat: Seat, record: Record) -> None:
    if seat.user_id is None:
        return
    payload = {
        "match": match.id,
        "game": match.game,
        "version": match.version,
        "seat": seat.index,
        "event": selectors.record_for_viewer(None, record, seat.index),
    }
    notify(seat.user_id, "bot_took_over", payload, match)


def on_away(user: Any, type: str, payload: dict[str, Any]) -> None:
    """``away_started`` / ``away_ended``: to the user, about no match."""
    notify(user, type, payload)


def on_opponent(match: Match, seats: list[Seat], seat: Seat, record: Record, type: str) -> None:
    """``opponent_away`` / ``opponent_back``: to every other human at the table, with the record."""
    for other in sorted(
        (s for s in seats if s.user_id is not None and s.index != seat.index), key=lambda s: s.user_id or 0
    ):
        payload = {
            "match": match.id,
            "game": match.game,
            "version": match.version,
            "seat": other.index,
            "away_seat": seat.index,
            "event": selectors.record_for_viewer(None, record, other.index),
        }
        notify(other.user_id, type, payload, match)


CLOCK_LOW_FRACTION = 0.8


def clock_low_scan(now: datetime | None = None) -> int:
    """The sweep: one ``clock_low`` per running clock that passed 80 % of its bank (once per version)."""
    now = now or timezone.now()
    sent = 0
    running = Seat.objects.filter(
        match__status=Match.Status.ACTIVE, deadline__gt=now, clock_started_at__isnull=False, user__isnull=False
    ).select_related("match")
    for seat in running[:500]:
        assert seat.deadline is not None and seat.clock_started_at is not None and seat.user_id is not None
        total = (seat.deadline - seat.clock_started_at).total_seconds()
        if total <= 0 or (now - seat.clock_started_at).total_seconds() < CLOCK_LOW_FRACTION * total:
            continue
        match = seat.match
        with transaction.atomic():
            done = Notification.objects.filter(
                user_id=seat.user_id, match=match, type="clock_low", payload__version=match.version
            ).exists()
            if done:
                continue
            payload = {
                "match": match.id,
                "game": match.game,
                "version": match.version,
                "seat": seat.index,
                "deadline": seat.deadline.isoformat(),
            }
            notify(seat.user_id, "clock_low", payload, match)
            sent += 1
    return sent


# --- what notify reads of the matches (registered in GamesConfig.ready) ---------------------------


def turns(user: Any) -> list[dict[str, Any]]:
    """The matches in which ``user`` has something to do now: the nearest deadline first, then the longest wait.

    Only the caller's own seats in active matches are read, and of them only the columns the answer
    shows (no match row, no jsonb but `awaiting`), by a prepared statement (`games.sql.waiting_seats`)."""
    out = [
        (seat.deadline or match.timer_deadline, match.updated_at, match.id, match.game, match.version, seat.index)
        for seat, match in sql.waiting_seats(user.pk)
        if seat.index in (match.awaiting or [])
    ]
    far = timezone.now().replace(year=9999)
    out.sort(key=lambda t: (t[0] or far, t[1]))
    return [
        {
            "match": match_id,
            "game": game,
            "version": version,
            "seat": index,
            "deadline": due.isoformat() if due else None,
            "waiting_since": updated.isoformat(),
        }
        for due, updated, match_id, game, version, index in out
    ]


def events(match_id: str, user_id: int, after: int, limit: int) -> list[dict[str, Any]]:
    """A match stream's page: the records after ``after`` as the user may see them."""
    match = Match.objects.filter(id=match_id).first()
    if match is None:
        return []
    from accounts.models import User

    user = User.objects.filter(pk=user_id).first()
    return selectors.event_list(match=match, user=user, after=after, limit=limit)


def last_record() -> int:
    return Record.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def records_after(record_id: int, limit: int) -> list[tuple[int, str]]:
    return list(Record.objects.filter(pk__gt=record_id).order_by("pk").values_list("pk", "match_id")[:limit])


def recently_active(user: Any) -> bool:
    """A move by ``user`` in the last ``TABULA_EMAIL_ACTIVE_S`` (no e-mail digest then)."""
    since = timezone.now() - timedelta(seconds=settings.TABULA_EMAIL_ACTIVE_S)
    seats = Seat.objects.filter(user=user).values_list("match_id", "index")
    recent = Record.objects.filter(actor=Record.Actor.PLAYER, at__gte=since, match__seats__user=user)
    pairs = set(seats)
    return any((m, s) in pairs for m, s in recent.values_list("match_id", "seat")[:200])


class _Matches:
    """`notify.registry.Matches`, from this module's functions."""

    events = staticmethod(events)
    last_record = staticmethod(last_record)
    records_after = staticmethod(records_after)
    turns = staticmethod(turns)
    recently_active = staticmethod(recently_active)


MATCHES = _Matches()
