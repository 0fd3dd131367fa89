"""Celery tasks of the notification channels: ids in, one call, nothing else. Safe to run twice.

Each keeps the name it had when it lived in ``games.tasks`` (`core.taskqueue`): a message queued
or a beat entry written before the move still finds it.
"""

from __future__ import annotations

from celery import shared_task

from core import taskqueue
from notify import mail, push, retention, webhooks


@shared_task(name=taskqueue.WEBHOOKS_FANOUT, ignore_result=True)
def webhooks_fanout(notification_id: int) -> int:
    """After an inbox entry commits: one delivery per webhook that wants it, each sent at once."""
    return webhooks.fanout(notification_id)


@shared_task(name=taskqueue.WEBHOOK_ATTEMPT, ignore_result=True)
def webhook_attempt(delivery_id: int) -> str:
    """One try of one delivery (a retry, or a test delivery)."""
    return webhooks.attempt(delivery_id)


@shared_task(name=taskqueue.WEBHOOKS_SWEEP, ignore_result=True)
def webhooks_sweep() -> int:
    """Beat: retries that are due (far-off ones are left to this sweep, and lost ones are found)."""
    ids = webhooks.due()
    for delivery_id in ids:
        webhooks.attempt(delivery_id)
    return len(ids)


@shared_task(name=taskqueue.EMAIL_DIGEST, ignore_result=True)
def email_digest(user_id: int, urgent: bool = False) -> bool:
    """A digest for the user, if one is due (the rules in notify/mail.py); ``urgent``: a nudge."""
    return mail.digest_maybe(user_id, urgent=urgent)


@shared_task(name=taskqueue.PUSH_FANOUT, ignore_result=True)
def push_fanout(notification_id: int) -> int:
    """After an inbox entry commits: one Web Push per subscription of its user (notify/push.py)."""
    return push.fanout(notification_id)


@shared_task(name=taskqueue.PUSH_ATTEMPT, ignore_result=True)
def push_attempt(delivery_id: int) -> str:
    """One try of one push (a retry)."""
    return push.attempt(delivery_id)


@shared_task(name=taskqueue.PUSH_SWEEP, ignore_result=True)
def push_sweep() -> int:
    """Beat: pushes that are due (retries, and notices held through quiet hours)."""
    ids = push.due()
    for delivery_id in ids:
        push.attempt(delivery_id)
    return len(ids)


@shared_task(name=taskqueue.EMAIL_SWEEP, ignore_result=True)
def email_sweep() -> int:
    """Beat: digests held through quiet hours or until a daily digest's hour."""
    ids = mail.held_due()
    for user_id in ids:
        mail.digest_maybe(user_id)
    return len(ids)


@shared_task(name=taskqueue.NOTIFY_RETENTION, ignore_result=True)
def retention_sweep() -> dict[str, int]:
    """Beat, hourly: inbox entries, deliveries and stream tickets past their retention (notify/retention.py)."""
    return retention.sweep()
