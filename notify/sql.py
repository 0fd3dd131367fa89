"""The hand-written SQL of notify: PostgreSQL and SQLite side by side.

A move that hands the turn on writes one inbox entry; numbering it, writing it and reading whether
its recipient wants webhooks or e-mail is one statement on PostgreSQL (data-modifying CTEs) and
three on SQLite (which has none): both are here. The shared helpers (quoting, the preparing
cursor, `inserted`) are `core.sql`'s; ``tests/games/test_sql.py`` counts the statements.
"""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, transaction

from accounts.models import User
from core.sql import fetch, insert, inserted, table
from notify.models import InboxCounter, Notification, PushSubscription, Webhook

# e-mail address, preferences, an active webhook, a push subscription: what `fanout.wants` needs
Recipient = tuple[str | None, Any, bool, bool]


def counter_bump() -> str:
    """Create or bump the user's counter row, holding its lock until the transaction ends
    (PostgreSQL, and SQLite from 3.35); ``RETURNING`` the number it gives."""
    connection = connections[DEFAULT_DB_ALIAS]
    counter, last = table(InboxCounter), connection.ops.quote_name("last")
    return (
        f"INSERT INTO {counter} (user_id, {last}) VALUES (%s, 1)"
        f" ON CONFLICT (user_id) DO UPDATE SET {last} = {counter}.{last} + 1 RETURNING {last}"
    )


def next_seq(user_id: int) -> int:
    """Take the user's next inbox number, in one statement."""
    return int(fetch(counter_bump(), [user_id])[0][0])


def insert_numbered(note: Notification) -> Recipient | None:
    """Number ``note`` (the user's next ``seq``) and insert it.

    PostgreSQL: one statement, the counter's bump as a data-modifying CTE, ``RETURNING`` what
    `recipient` would read. SQLite: the bump and the INSERT in one transaction
    (no savepoint when nested), and None: the delivery columns are read after the commit.
    """
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.vendor != "postgresql":
        with transaction.atomic(savepoint=False):  # the number and its entry together
            note.seq = next_seq(note.user_id)
            insert(note)
        return None
    quote = connection.ops.quote_name
    fields = [f for f in Notification._meta.concrete_fields if not f.primary_key and f.attname != "seq"]
    params = [f.get_db_prep_save(f.pre_save(note, True), connection) for f in fields]
    rows = fetch(
        f"WITH c AS ({counter_bump()})"
        f" INSERT INTO {table(Notification)} AS n ({', '.join(quote(f.column) for f in fields)}, {quote('seq')})"
        f" SELECT {', '.join(['%s'] * len(fields))}, c.{quote('last')} FROM c"
        f" RETURNING n.id, n.seq, {delivery_columns('n.user_id')}",
        [note.user_id, *params],
    )
    note.seq = rows[0][1]
    inserted(note, rows[0][0])
    email, preferences, has_hooks, has_push = rows[0][2:]
    return email, preferences, has_hooks, has_push


def delivery_columns(user_id: str) -> str:
    """Four SQL expressions: the e-mail address and preferences of the user whose id is the column
    ``user_id``, whether they have an active webhook, and whether they have a push subscription
    (read with another statement: the inbox entry's INSERT … RETURNING)."""
    users, hooks, pushes = table(User), table(Webhook), table(PushSubscription)
    return (
        f"(SELECT u.email FROM {users} u WHERE u.id = {user_id}),"
        f" (SELECT u.preferences FROM {users} u WHERE u.id = {user_id}),"
        f" EXISTS(SELECT 1 FROM {hooks} w WHERE w.user_id = {user_id} AND w.active),"
        f" EXISTS(SELECT 1 FROM {pushes} p WHERE p.user_id = {user_id})"
    )


def recipient(user_id: int) -> Recipient:
    """`delivery_columns` of one user, in one query; a user that is gone has no address, no webhook
    and no push subscription."""
    email, preferences, has_hooks, has_push = fetch(f"SELECT {delivery_columns('%s')}", [user_id] * 4)[0]
    return email, preferences, has_hooks, has_push
