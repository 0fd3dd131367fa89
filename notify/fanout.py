"""After a commit: tell the stream processes what was written, and queue webhooks and e-mail.

With Redis configured (``REDIS_URL``, or a Redis broker) every commit publishes the new
numbers on ``tabula:u:<user id>`` and ``tabula:m:<match id>``; a stream process holds one
subscription and wakes its local streams (`notify.streams.Hub`). On the embedded default
(SQLite, the filesystem broker) nothing is published: the stream process polls the
inbox and the record table by primary key, one cheap query per interval for all its streams.
PostgreSQL ``LISTEN/NOTIFY`` is deliberately not used (it takes a global lock at commit).

Publishing never fails a request: a Redis error is logged, and streams catch up on their next
keep-alive (each one re-reads the database then).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.conf import settings
from django.db import transaction

from core import taskqueue
from notify import preferences, sql

log = logging.getLogger(__name__)

URGENT = ("nudged",)  # mailed without the digest's delay and its interval
USER_CHANNEL = "tabula:u:"
MATCH_CHANNEL = "tabula:m:"

_client: Any = None
_client_lock = threading.Lock()


def redis_url() -> str:
    return str(getattr(settings, "REDIS_URL", "") or "")


def _redis() -> Any:
    global _client
    with _client_lock:
        if _client is None:
            import redis

            _client = redis.Redis.from_url(redis_url(), socket_connect_timeout=1, socket_timeout=1)
        return _client


def publish(channel: str, message: str) -> None:
    if not redis_url():
        return
    try:
        _redis().publish(channel, message)
    except Exception:
        log.warning("could not publish on %s", channel, exc_info=True)


def announce_on_commit(note: Any, wants: tuple[bool, bool, bool] | None = None) -> None:
    """Once committed: publish the user's new number; queue its webhooks, its pushes and the e-mail
    digest check only for a user who has an active webhook, a push subscription, or an e-mail
    address, with the entry's type sent to that channel (`notify.preferences`). ``wants`` (webhooks,
    e-mail, push), when the caller read them with the entry (`notify.sql`); else read after the commit."""
    user_id, seq, pk, type = note.user_id, note.seq, note.pk, note.type

    def after() -> None:
        publish(f"{USER_CHANNEL}{user_id}", str(seq))
        try:
            wants_hooks, wants_mail, wants_push = wants if wants is not None else _wants(user_id, type)
        except Exception:
            log.exception("could not read the delivery preferences of user %s", user_id)
            return
        if wants_hooks:
            taskqueue.send(taskqueue.WEBHOOKS_FANOUT, (pk,), lost="this entry is not sent to the webhooks")
        if wants_push:
            taskqueue.send(taskqueue.PUSH_FANOUT, (pk,), lost="this entry is not pushed")
        if wants_mail:
            urgent = type in URGENT  # a nudge skips the digest's delay, once
            delay = settings.TABULA_EMAIL_DELAY_S if settings.TABULA_QUEUE_TIMERS and not urgent else 0.0
            args = (user_id, True) if urgent else (user_id,)
            taskqueue.send(taskqueue.EMAIL_DIGEST, args, countdown=delay, lost="no e-mail digest for this entry")

    transaction.on_commit(after)


def wants(type: str, email: str | None, prefs: Any, has_hooks: bool, has_push: bool) -> tuple[bool, bool, bool]:
    """Whether an inbox entry of ``type`` goes to the user's webhooks, may be mailed, and is pushed."""
    hooks = getattr(settings, "TABULA_WEBHOOKS", True) and bool(has_hooks) and preferences.wants(prefs, type, "webhook")
    mail = bool(email) and getattr(settings, "TABULA_EMAIL", True) and preferences.wants(prefs, type, "email")
    mail = mail and preferences.digest_interval(prefs) is not None
    push = getattr(settings, "TABULA_PUSH", True) and bool(has_push) and preferences.wants(prefs, type, "push")
    return bool(hooks), bool(mail), bool(push)


def _wants(user_id: int, type: str) -> tuple[bool, bool, bool]:
    """`wants`, read in one query after an inbox entry written without them (SQLite)."""
    return wants(type, *sql.recipient(user_id))


def record_on_commit(match_id: str, seq: int) -> None:
    """Once committed: publish the match's new record number (its stream's ``id:``)."""
    if redis_url():
        transaction.on_commit(lambda: publish(f"{MATCH_CHANNEL}{match_id}", str(seq)))
