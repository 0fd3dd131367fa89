"""The per-user inbox: one row per thing a user should hear about, numbered 1…n per user.

An app appends with `notify(user, type, payload, match)` in the transaction of what causes the
entry, so nothing is announced that did not happen and nothing that happened is missed (`games`
does, from `games.notices`: a move's entries are redacted for each recipient's seat there). After
the commit, `notify.fanout` tells the stream processes (and queues webhooks and e-mail).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils import timezone

from notify import fanout, sql
from notify.models import InboxCounter, Notification


def notify(user: Any, type: str, payload: dict[str, Any], match: Any = None) -> Notification:
    """Append one entry to ``user``'s inbox (a user or its id) in the current transaction; announced
    after the commit. ``match``: the `games.Match` the entry is about, if any."""
    user_id = user if isinstance(user, int) else user.pk
    note = Notification(user_id=user_id, type=type, match=match, payload=payload, created_at=timezone.now())
    recipient = sql.insert_numbered(note)  # PostgreSQL reads the delivery preferences with it
    fanout.announce_on_commit(note, None if recipient is None else fanout.wants(type, *recipient))
    return note


def lock_inboxes(user_ids: Iterable[int]) -> None:
    """Lock these users' inbox counters in ascending id order, for a transaction that will write to
    several of them in another order (invitations, then the start's entries). Every other writer
    touches inboxes in ascending order too (`games.notices.on_played`), so the two cannot deadlock."""
    ids = sorted(set(user_ids))
    InboxCounter.objects.bulk_create([InboxCounter(user_id=i, last=0) for i in ids], ignore_conflicts=True)
    list(InboxCounter.objects.select_for_update().filter(user_id__in=ids).order_by("user_id").values_list("pk"))


def inbox(user: Any, *, after: int = 0, limit: int = 100, types: Iterable[str] | None = None) -> list[Notification]:
    """The user's entries after ``after``; ``types``: only these (a stream, by the user's channels)."""
    rows = Notification.objects.filter(user=user, seq__gt=after)
    if types is not None:
        rows = rows.filter(type__in=list(types))
    return list(rows.order_by("seq")[:limit])
