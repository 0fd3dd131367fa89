"""Who follows whom, and who blocks whom (docs/api.md, *Circles*)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Follow(models.Model):
    """``follower`` follows ``followee``; two follows the other way round make friends."""

    follower = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    followee = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["follower", "followee"], name="follow_unique_pair")]
        indexes = [models.Index(fields=["followee", "follower"], name="follow_by_followee")]

    def __str__(self) -> str:
        return f"{self.follower_id} -> {self.followee_id}"


class Block(models.Model):
    """``owner`` blocks ``blocked``: from games (``games``), from talking to them (``messages``), or
    both (``all``). Only its owner ever sees it; the blocked user is never told."""

    class Scope(models.TextChoices):
        ALL = "all"
        GAMES = "games"
        MESSAGES = "messages"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    blocked = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    scope = models.CharField(max_length=8, choices=Scope.choices, default=Scope.ALL)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["owner", "blocked"], name="block_unique_pair")]
        indexes = [models.Index(fields=["blocked", "owner"], name="block_by_blocked")]

    def __str__(self) -> str:
        return f"{self.owner_id} blocks {self.blocked_id} ({self.scope})"
