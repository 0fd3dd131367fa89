"""Table talk (docs/api.md, *Table talk*): chat messages numbered per match and channel, what each
reader has read, reports and moderation, mutes, private notes and nudges. None of it is a record:
talking never changes a match's ``version``."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ChatCounter(models.Model):
    """A match's chat numbers: ``n`` across its channels (the match stream's chat cursor), and the
    last ``seq`` of each channel. Its row lock serialises a match's messages."""

    match = models.OneToOneField("games.Match", primary_key=True, related_name="+", on_delete=models.CASCADE)
    n = models.PositiveIntegerField(default=0)
    table = models.PositiveIntegerField(default=0)
    spectators = models.PositiveIntegerField(default=0)
    sealed = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.match_id}: {self.n}"


class ChatMessage(models.Model):
    """One message, never deleted: staff hide one (``hidden_at``) and the text is gone for everyone else."""

    class Channel(models.TextChoices):
        TABLE = "table"  # the seated players (and staff); everyone after the end
        SPECTATORS = "spectators"  # those who watch, never the players while the match is live
        SEALED = "sealed"  # its author alone until the end, then everyone

    match = models.ForeignKey("games.Match", related_name="+", on_delete=models.CASCADE)
    channel = models.CharField(max_length=16, choices=Channel.choices)
    seq = models.PositiveIntegerField()  # per match and channel
    n = models.PositiveIntegerField()  # per match, across channels
    seat = models.PositiveSmallIntegerField(null=True, blank=True)  # the author's seat, if seated
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, related_name="+", on_delete=models.SET_NULL)
    to_seat = models.PositiveSmallIntegerField(null=True, blank=True)  # a whisper: that seat alone
    text = models.TextField()
    at = models.DateTimeField(default=timezone.now)
    flagged = models.BooleanField(default=False)  # the word list matched: for staff review only
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, related_name="+", on_delete=models.SET_NULL)
    hidden_reason = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["match", "n"]
        constraints = [
            models.UniqueConstraint(fields=["match", "channel", "seq"], name="chat_seq_unique_per_channel"),
            models.UniqueConstraint(fields=["match", "n"], name="chat_n_unique_per_match"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id} {self.channel}#{self.seq}"


class ChatCursor(models.Model):
    """How far a user has read a match's channel, and whether their inbox holds an unread ``chat``
    entry for the match (one per match until read: chat never floods an inbox)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    match = models.ForeignKey("games.Match", related_name="+", on_delete=models.CASCADE)
    channel = models.CharField(max_length=16)
    read = models.PositiveIntegerField(default=0)
    notified = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "match", "channel"], name="chat_cursor_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} read {self.match_id} {self.channel} to {self.read}"


class ChatReport(models.Model):
    """A reader's report of a message, for staff."""

    message = models.ForeignKey(ChatMessage, related_name="reports", on_delete=models.CASCADE)
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    reason = models.CharField(max_length=200)
    at = models.DateTimeField(default=timezone.now)
    resolved = models.BooleanField(default=False)

    class Meta:
        ordering = ["-at", "-id"]
        constraints = [models.UniqueConstraint(fields=["message", "reporter"], name="chat_report_once")]

    def __str__(self) -> str:
        return f"report of {self.message_id} by {self.reporter_id}"


class ChatAction(models.Model):
    """The moderation audit: who hid (or showed again) a message, and why. Never deleted."""

    message = models.ForeignKey(ChatMessage, related_name="actions", on_delete=models.CASCADE)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, related_name="+", on_delete=models.SET_NULL)
    action = models.CharField(max_length=16)  # "hide", "show"
    reason = models.CharField(max_length=200)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.action} {self.message_id}"


class Mute(models.Model):
    """A user may not chat until ``until``: in one match, or everywhere (``match`` null)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    match = models.ForeignKey("games.Match", null=True, blank=True, related_name="+", on_delete=models.CASCADE)
    until = models.DateTimeField(db_index=True)
    reason = models.CharField(max_length=200)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, related_name="+", on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "until"], name="mute_by_user")]

    def __str__(self) -> str:
        return f"{self.user_id} muted until {self.until:%Y-%m-%d %H:%M}"


class Note(models.Model):
    """A player's private notes on a match: its owner's alone, shown nowhere else."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    match = models.ForeignKey("games.Match", related_name="+", on_delete=models.CASCADE)
    text = models.TextField(blank=True, default="")
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "match"], name="note_unique_per_match")]

    def __str__(self) -> str:
        return f"notes of {self.user_id} on {self.match_id}"


class Nudge(models.Model):
    """A reminder sent to a seat that has been awaited long (never a record, never public).
    ``delivered`` is false when the seat's owner blocks the nudger (nobody is told)."""

    match = models.ForeignKey("games.Match", related_name="+", on_delete=models.CASCADE)
    seat = models.PositiveSmallIntegerField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    turn_since = models.CharField(max_length=40)  # the seat's `awaited_since` when nudged: "this turn"
    at = models.DateTimeField(default=timezone.now)
    delivered = models.BooleanField(default=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["match", "seat", "at"], name="nudge_by_seat")]

    def __str__(self) -> str:
        return f"nudge {self.match_id}#{self.seat}"
