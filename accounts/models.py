"""Users (a custom model from day one) and their per-game ratings."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A player account. ``preferences`` holds client settings the user chose (free-form JSON)."""

    display_name = models.CharField(max_length=64, blank=True)
    preferences = models.JSONField(default=dict, blank=True)


class Rating(models.Model):
    """A user's OpenSkill (Plackett–Luce) rating in one game; ``ordinal`` is the displayed figure."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="ratings", on_delete=models.CASCADE)
    game = models.CharField(max_length=16)
    mu = models.FloatField()
    sigma = models.FloatField()
    matches = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="rating_unique_per_user_game")]
        ordering = ["game"]

    def __str__(self) -> str:
        return f"{self.user} {self.game} {self.mu:.1f}±{self.sigma:.1f}"

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma
