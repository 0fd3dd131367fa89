"""The API's own rows: the remembered answers to requests sent with an ``Idempotency-Key``.

The table kept the name it had in `games` (``Meta.db_table``): the model moved here by a
state-only migration, so no row moved.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class IdempotentRequest(models.Model):
    """The first answer to a request sent with an ``Idempotency-Key``, replayed on a retry."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(
        max_length=64
    )  # method, path and body hashed: a reused key on another request is refused
    status = models.PositiveSmallIntegerField()
    body = models.JSONField()
    # The first answer as sent, byte for byte, and its Content-Type (a JSON column may reorder keys
    # and spacing); rows stored before these columns replay ``body`` re-rendered.
    content = models.BinaryField(null=True, blank=True)
    content_type = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "games_idempotentrequest"
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_unique_per_user")]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.key}"
