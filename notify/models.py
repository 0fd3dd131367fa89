"""The notification channels' rows: the inbox, its counters, webhooks and their deliveries, stream tickets.

The tables kept the names they had in `games` (``Meta.db_table``): the models moved here by
state-only migrations, so no row moved. A notification may point at a match (``"games.Match"``, by
name: `notify` imports nothing of `games`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone


class Notification(models.Model):
    """One inbox entry. ``seq`` is the user's own number (the stream's ``id:``); never updated."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="notifications", on_delete=models.CASCADE)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    match = models.ForeignKey("games.Match", null=True, blank=True, related_name="+", on_delete=models.CASCADE)
    payload = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "games_notification"
        ordering = ["user", "seq"]
        constraints = [models.UniqueConstraint(fields=["user", "seq"], name="notification_seq_unique_per_user")]

    def __str__(self) -> str:
        return f"{self.user_id}#{self.seq} {self.type}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.seq,
            "type": self.type,
            "match": self.match_id,
            "payload": self.payload,
            "at": self.created_at.isoformat(),
        }


class InboxCounter(models.Model):
    """The last ``seq`` given to a user's notification; its row lock serialises a user's appends."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, related_name="+", on_delete=models.CASCADE)
    last = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "games_inboxcounter"

    def __str__(self) -> str:
        return f"{self.user_id}: {self.last}"


class Webhook(models.Model):
    """A user's endpoint: every inbox entry of the chosen types is POSTed to it, signed (Standard Webhooks)."""

    class Format(models.TextChoices):
        STANDARD = "standard"
        DISCORD = "discord"
        SLACK = "slack"

    id = models.CharField(primary_key=True, max_length=26, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="webhooks", on_delete=models.CASCADE)
    url = models.URLField(max_length=2000)
    events = models.JSONField(default=list, blank=True)  # empty: every type
    format = models.CharField(max_length=16, choices=Format.choices, default=Format.STANDARD)
    secret = models.CharField(max_length=64)  # whsec_<base64>
    active = models.BooleanField(default=True)
    disabled_reason = models.CharField(max_length=64, blank=True, default="")
    consecutive_failures = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "games_webhook"
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.id} {self.url}"

    def wants(self, type: str) -> bool:
        return not self.events or type in self.events


class Delivery(models.Model):
    """One notification sent to one webhook: ``msg_id`` is the ``webhook-id``, the same on every retry."""

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    webhook = models.ForeignKey(Webhook, related_name="deliveries", on_delete=models.CASCADE)
    notification = models.ForeignKey(Notification, null=True, blank=True, related_name="+", on_delete=models.CASCADE)
    msg_id = models.CharField(max_length=64)
    type = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_delivery"
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["webhook", "msg_id"], name="delivery_unique_per_webhook")]

    def __str__(self) -> str:
        return f"{self.webhook_id} {self.msg_id} {self.status}"


class StreamTicket(models.Model):
    """A single-use, short-lived ticket for ``?ticket=`` on stream paths (EventSource sends no header)."""

    key = models.CharField(primary_key=True, max_length=64)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    # the token that asked for it (None in a browser session): the stream ends when it is revoked
    token = models.ForeignKey("accounts.ApiToken", null=True, blank=True, related_name="+", on_delete=models.CASCADE)
    expires_at = models.DateTimeField()

    class Meta:
        db_table = "games_streamticket"

    def __str__(self) -> str:
        return f"ticket for {self.user_id}"


class PushSubscription(models.Model):
    """A browser's Web Push subscription (RFC 8030): where its push service takes messages, and the
    keys a message is encrypted to (RFC 8291). Deleted when the push service says it is gone."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="push_subscriptions", on_delete=models.CASCADE)
    endpoint = models.URLField(max_length=2000, unique=True)
    p256dh = models.CharField(max_length=200)  # the browser's ECDH public key, base64url
    auth = models.CharField(max_length=64)  # the shared authentication secret, base64url
    label = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.user_id} push {self.pk}"


class PushDelivery(models.Model):
    """One inbox entry pushed to one subscription: sent at once, held until quiet hours end
    (``next_attempt_at``), or retried with backoff; the beat sweep sends what is due."""

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        SUPPRESSED = "suppressed"  # the user was on the site (a stream open, a move just made)
        FAILED = "failed"

    subscription = models.ForeignKey(PushSubscription, related_name="deliveries", on_delete=models.CASCADE)
    notification = models.ForeignKey(Notification, related_name="+", on_delete=models.CASCADE)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_status = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")
    next_attempt_at = models.DateTimeField(null=True, blank=True, db_index=True)
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["subscription", "notification"], name="push_delivery_once"),
        ]

    def __str__(self) -> str:
        return f"push {self.notification_id} -> {self.subscription_id} {self.status}"


class MailHeld(models.Model):
    """A user's e-mail digest held back (quiet hours, a daily digest's hour): the beat sweep sends
    it at ``due_at``."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, related_name="+", on_delete=models.CASCADE)
    due_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"digest of {self.user_id} at {self.due_at:%Y-%m-%d %H:%M}"
