"""The per-user inbox: one row per thing a user should hear about, numbered 1…n per user.

Rows are written in the transaction of the record that causes them (`games.services._play` /
`_advance` call `on_played`), so nothing is announced that did not happen and nothing that happened
is missed. Payloads carry the causing record as the user's seat may see it: the same redaction as
``GET matches/{id}/events`` (`games.selectors.record_for_viewer`). After the commit,
`games.fanout` tells the stream processes (and queues webhooks and e-mail).

Other features call `notify(user, type, payload, match)` (an invitation, for example).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from core import sql
from games import selectors
from games.models import InboxCounter, Match, Notification, Record, Seat
from rules.base import Rules

TYPES = (
    "your_turn",
    "match_started",
    "match_finished",
    "clock_low",
    "timed_out",
    "bot_took_over",
    "invited",  # games.services: a seat reserved for the user, or an invitation to a match
    "webhook_disabled",  # games.webhooks: one of the user's endpoints kept failing
)


def notify(user: Any, type: str, payload: dict[str, Any], match: Match | None = None) -> Notification:
    """Append one entry to ``user``'s inbox in the current transaction; announced after the commit."""
    from games import fanout  # fanout sits beside this module: it reads settings and Redis only

    user_id = user if isinstance(user, int) else user.pk
    note = Notification(user_id=user_id, type=type, match=match, payload=payload, created_at=timezone.now())
    if connection.vendor == "postgresql":
        fanout.announce_on_commit(note, _insert_numbered(note))
        return note
    with transaction.atomic(savepoint=False):  # the number and its entry together; no savepoint when nested
        note.seq = _next_seq(user_id)
        sql.insert(note)
    fanout.announce_on_commit(note)
    return note


def _counter_bump() -> str:
    """Create or bump the user's counter row, holding its lock until the transaction ends
    (PostgreSQL, and SQLite from 3.35); ``RETURNING`` the number it gives."""
    counter, last = sql.table(InboxCounter), connection.ops.quote_name("last")
    return (
        f"INSERT INTO {counter} (user_id, {last}) VALUES (%s, 1)"
        f" ON CONFLICT (user_id) DO UPDATE SET {last} = {counter}.{last} + 1 RETURNING {last}"
    )


def _next_seq(user_id: int) -> int:
    """Take the user's next inbox number, in one statement."""
    return int(sql.fetch(_counter_bump(), [user_id])[0][0])


def _insert_numbered(note: Notification) -> tuple[bool, bool]:
    """PostgreSQL: number and insert ``note`` and read its recipient's delivery preferences
    (`fanout.wants`) in one statement, the counter's bump as a data-modifying CTE; returns those
    preferences. SQLite has no such CTE: `notify` makes the two statements there, and the
    preferences are read after the commit."""
    from games import fanout

    quote = connection.ops.quote_name
    fields = [f for f in Notification._meta.concrete_fields if not f.primary_key and f.attname != "seq"]
    params = [f.get_db_prep_save(f.pre_save(note, True), connection) for f in fields]
    rows = sql.fetch(
        f"WITH c AS ({_counter_bump()})"
        f" INSERT INTO {sql.table(Notification)} AS n ({', '.join(quote(f.column) for f in fields)}, {quote('seq')})"
        f" SELECT {', '.join(['%s'] * len(fields))}, c.{quote('last')} FROM c"
        f" RETURNING n.id, n.seq, {fanout.delivery_columns('n.user_id')}",
        [note.user_id, *params],
    )
    note.seq = rows[0][1]
    sql.inserted(note, rows[0][0])
    return fanout.wants(note.type, *rows[0][2:])


def lock_inboxes(user_ids: Iterable[int]) -> None:
    """Lock these users' inbox counters in ascending id order, for a transaction that will write to
    several of them in another order (invitations, then the start's entries). Every other writer
    touches inboxes in ascending order too (``on_played``), so the two cannot deadlock."""
    ids = sorted(set(user_ids))
    InboxCounter.objects.bulk_create([InboxCounter(user_id=i, last=0) for i in ids], ignore_conflicts=True)
    list(InboxCounter.objects.select_for_update().filter(user_id__in=ids).order_by("user_id").values_list("pk"))


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
            notify(seat.user_id, "your_turn", {**base, "deadline": _deadline(seat, match), "event": event}, match)


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


# --- reads --------------------------------------------------------------------------------------


def turns(user: Any) -> list[dict[str, Any]]:
    """The matches in which ``user`` has something to do now: the nearest deadline first, then the longest wait."""
    seats = Seat.objects.filter(user=user, match__status=Match.Status.ACTIVE, resigned=False, bot="").select_related(
        "match"
    )
    out = []
    for seat in seats:
        match = seat.match
        if seat.index not in (match.awaiting or []):
            continue
        due = seat.deadline or match.timer_deadline
        out.append((due, match.updated_at, match, seat))
    far = timezone.now().replace(year=9999)
    out.sort(key=lambda t: (t[0] or far, t[1]))
    return [
        {
            "match": m.id,
            "game": m.game,
            "version": m.version,
            "seat": s.index,
            "deadline": d.isoformat() if d else None,
            "waiting_since": u.isoformat(),
        }
        for d, u, m, s in out
    ]


def inbox(user: Any, *, after: int = 0, limit: int = 100) -> list[Notification]:
    return list(Notification.objects.filter(user=user, seq__gt=after).order_by("seq")[:limit])
