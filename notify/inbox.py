"""The per-user inbox: one row per thing a user should hear about, numbered 1…n per user.

An app appends with `notify(user, type, payload, match)` in the transaction of what causes the
entry, so nothing is announced that did not happen and nothing that happened is missed (`games`
does, from `games.notices`: a move's entries are redacted for each recipient's seat there). After
the commit, `notify.fanout` tells the stream processes (and queues webhooks and e-mail).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from core import sql
from notify import fanout
from notify.models import InboxCounter, Notification


def notify(user: Any, type: str, payload: dict[str, Any], match: Any = None) -> Notification:
    """Append one entry to ``user``'s inbox (a user or its id) in the current transaction; announced
    after the commit. ``match``: the `games.Match` the entry is about, if any."""
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
    touches inboxes in ascending order too (`games.notices.on_played`), so the two cannot deadlock."""
    ids = sorted(set(user_ids))
    InboxCounter.objects.bulk_create([InboxCounter(user_id=i, last=0) for i in ids], ignore_conflicts=True)
    list(InboxCounter.objects.select_for_update().filter(user_id__in=ids).order_by("user_id").values_list("pk"))


def inbox(user: Any, *, after: int = 0, limit: int = 100) -> list[Notification]:
    return list(Notification.objects.filter(user=user, seq__gt=after).order_by("seq")[:limit])
