"""Users (a custom model from day one), their API tokens and their per-game ratings."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone

import languages
from accounts import usernames


class User(AbstractUser):
    """A player account. ``preferences`` holds client settings the user chose (free-form JSON).

    ``username_key`` (NFKC, case-folded) and ``username_skeleton`` (TR39-style confusable skeleton)
    are unique: ``Ann``, ``ＡＮＮ`` and a Cyrillic ``Аnn`` are one name.
    """

    display_name = models.CharField(max_length=64, blank=True)
    preferences = models.JSONField(default=dict, blank=True)
    username_key = models.CharField(max_length=150, unique=True, null=True, editable=False)  # noqa: DJ001  # null: unique, unset
    username_skeleton = models.CharField(max_length=600, unique=True, null=True, editable=False)  # noqa: DJ001  # null: unique, unset
    deleted_at = models.DateTimeField(null=True, blank=True)
    #: The language everything sent to this user speaks (issue 33): API answers to their token, mails,
    #: pushes, webhook lines and notices. Set at sign-up from the browser; `PATCH me` changes it.
    language = models.CharField(
        max_length=8, choices=[(c, languages.NAMES[c]) for c in languages.CODES], default=languages.DEFAULT
    )

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.username = usernames.normalise(self.username)
        self.username_key = usernames.key(self.username)
        self.username_skeleton = usernames.skeleton(self.username)
        fields = kwargs.get("update_fields")
        if fields is not None and "username" in fields:
            kwargs["update_fields"] = {*fields, "username_key", "username_skeleton"}
        super().save(*args, **kwargs)

    @property
    def public_name(self) -> str:
        return usernames.DELETED if self.deleted_at is not None else self.username


class ApiToken(models.Model):
    """An API token. Only the SHA-256 of its key is stored; the key is shown once, at creation."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="api_tokens", on_delete=models.CASCADE)
    key_hash = models.CharField(max_length=64, unique=True)
    label = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.label or self.pk}"


def provisional(rated_games: int) -> bool:
    """A rating is provisional, and its player not listed, until ``TABULA_PROVISIONAL_GAMES`` rated
    games: the one home of that rule (a leaderboard's SQL takes the same threshold)."""
    return rated_games < settings.TABULA_PROVISIONAL_GAMES


class Rating(models.Model):
    """A user's OpenSkill (Plackett–Luce) rating in one game.

    ``rating`` is the displayed figure (a conservative ``mu − 3σ``, scaled so that a new player
    shows 1500); ``rank`` is the leaderboard position, stored and refreshed when ratings change
    (``games.ratings.leaderboard_refresh``), null while the player is not listed.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="ratings", on_delete=models.CASCADE)
    game = models.CharField(max_length=16)
    mu = models.FloatField()
    sigma = models.FloatField()
    matches = models.PositiveIntegerField(default=0)  # rated games played
    rating = models.FloatField(default=1500.0)
    rated_at = models.DateTimeField(null=True, blank=True)  # the last rated game
    rank = models.PositiveIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="rating_unique_per_user_game")]
        indexes = [models.Index(fields=["game", "rank"], name="rating_board")]
        ordering = ["game"]

    def __str__(self) -> str:
        return f"{self.user} {self.game} {self.mu:.1f}±{self.sigma:.1f}"

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return provisional(self.matches)


class RatingChange(models.Model):
    """A user's rating after one rated match: the rating-history chart."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    game = models.CharField(max_length=16)
    match_id = models.CharField(max_length=22)
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.FloatField()
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["user", "game", "at"], name="rating_history")]
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.user_id} {self.game} {self.match_id} {self.rating:.0f}"
