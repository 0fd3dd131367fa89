"""Retention (issue 30, hot tables stay small): the hourly jobs delete inbox entries, deliveries that
are over, expired stream tickets and stored idempotent answers past their age, and nothing younger
or still pending; inbox numbers go on from the counter."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from api import retention as api_retention
from api.models import IdempotentRequest
from core.retention import delete_in_batches
from notify import inbox
from notify import retention as notify_retention
from notify.models import Delivery, Notification, PushDelivery, PushSubscription, StreamTicket, Webhook

pytestmark = pytest.mark.django_db


def _age(row, **ago) -> None:
    type(row).objects.filter(pk=row.pk).update(created_at=timezone.now() - timedelta(**ago))


def test_old_inbox_entries_and_finished_deliveries_go_young_and_pending_ones_stay(make_user, settings):
    settings.TABULA_INBOX_RETENTION_DAYS, settings.TABULA_DELIVERY_RETENTION_DAYS = 90, 30
    ann = make_user("ann")
    hook = Webhook.objects.create(id="wh-ann", user=ann, url="https://example.com/h", secret="whsec_" + "A" * 32)
    sub = PushSubscription.objects.create(user=ann, endpoint="https://push.example.com/1", p256dh="x", auth="y")
    ancient, old, young = (inbox.notify(ann, "your_turn", {"n": i}) for i in range(3))
    _age(ancient, days=91)
    _age(old, days=40)
    done = {
        s: Delivery.objects.create(webhook=hook, notification=old, msg_id=f"m-{s}", type="your_turn", status=s)
        for s in ("delivered", "failed", "pending")
    }
    for d in done.values():
        _age(d, days=31)
    fresh = Delivery.objects.create(
        webhook=hook, notification=young, msg_id="m-fresh", type="your_turn", status="delivered"
    )
    pushed = PushDelivery.objects.create(subscription=sub, notification=old, status="delivered")
    waiting = PushDelivery.objects.create(subscription=sub, notification=young, status="pending")
    _age(pushed, days=31)
    _age(waiting, days=31)
    StreamTicket.objects.create(key="gone", user=ann, expires_at=timezone.now() - timedelta(seconds=1))
    StreamTicket.objects.create(key="live", user=ann, expires_at=timezone.now() + timedelta(seconds=60))

    deleted = notify_retention.sweep()

    assert deleted == {"webhook_deliveries": 2, "push_deliveries": 1, "notifications": 1, "stream_tickets": 1}
    assert set(Notification.objects.values_list("pk", flat=True)) == {old.pk, young.pk}
    assert set(Delivery.objects.values_list("msg_id", flat=True)) == {"m-pending", "m-fresh"}
    assert list(PushDelivery.objects.values_list("pk", flat=True)) == [waiting.pk]
    assert list(StreamTicket.objects.values_list("key", flat=True)) == ["live"]
    assert fresh.pk and notify_retention.sweep() == dict.fromkeys(deleted, 0)  # nothing left to do
    assert inbox.notify(ann, "your_turn", {}).seq == young.seq + 1  # numbers go on


def test_stored_idempotent_answers_expire_after_their_hours(make_user, settings):
    settings.TABULA_IDEMPOTENCY_RETENTION_H = 48
    ann = make_user("ann")
    rows = {
        key: IdempotentRequest.objects.create(user=ann, key=key, fingerprint="f", status=201, body={})
        for key in ("old", "recent")
    }
    _age(rows["old"], hours=49)
    _age(rows["recent"], hours=47)
    assert api_retention.sweep() == {"idempotency_keys": 1}
    assert list(IdempotentRequest.objects.values_list("key", flat=True)) == ["recent"]


def test_a_backlog_is_deleted_in_bounded_batches(make_user):
    ann = make_user("ann")
    for i in range(25):
        inbox.notify(ann, "your_turn", {"n": i})
    assert delete_in_batches(Notification.objects.all(), batch=10, max_batches=2) == 20
    assert Notification.objects.count() == 5
    assert delete_in_batches(Notification.objects.all(), batch=10) == 5
