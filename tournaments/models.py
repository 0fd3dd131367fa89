"""Tournaments of tables (docs/api.md, *Tournaments*): entrants, rounds, tables and byes.

A table is an ordinary match (`games.Match`, its ``tournament`` the tournament's id); a round is
paired once (the unique round number, under the tournament's row lock); a no-show earns a ban.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Tournament(models.Model):
    class Status(models.TextChoices):
        OPEN = "open"  # taking entries
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"  # too few entrants at the start time

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin"
        SWISS = "swiss"
        ELIMINATION = "elimination"

    class Entry(models.TextChoices):
        OPEN = "open"
        INVITE = "invite"

    id = models.CharField(primary_key=True, max_length=22, editable=False)
    name = models.CharField(max_length=100)
    game = models.CharField(max_length=16, db_index=True)
    options = models.JSONField(default=dict, blank=True)
    time_control = models.JSONField()
    format = models.CharField(max_length=16, choices=Format.choices)
    table_size = models.PositiveSmallIntegerField()
    max_players = models.PositiveSmallIntegerField()
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)  # Swiss; the others derive theirs
    pool_size = models.PositiveSmallIntegerField(null=True, blank=True)  # round robin; null: one pool
    concurrent = models.BooleanField(default=True)  # round robin: every round's matches start at once
    points = models.JSONField()  # by place at a table, best first
    bye_points = models.FloatField(default=0.0)
    round_hours = models.PositiveIntegerField()  # a round's deadline, from its pairing
    start_at = models.DateTimeField(null=True, blank=True)  # null: when full
    entry = models.CharField(max_length=8, choices=Entry.choices, default=Entry.OPEN)
    private = models.BooleanField(default=False)  # its matches: entrants (and staff) only
    conditions = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True)
    round = models.PositiveSmallIntegerField(default=0)  # the last round paired
    schedule = models.JSONField(null=True, blank=True)  # round robin, one round at a time: the rounds to come
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.PROTECT)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.game} {self.format}, {self.status})"


class Entrant(models.Model):
    """A player in a tournament; ``number`` orders entry, ``seed`` the start's seeding (by rating)."""

    tournament = models.ForeignKey(Tournament, related_name="entrants", on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="tournament_entries", on_delete=models.CASCADE)
    number = models.PositiveSmallIntegerField()
    seed = models.PositiveSmallIntegerField(null=True, blank=True)
    rating = models.FloatField(null=True, blank=True)  # at the start
    joined_at = models.DateTimeField(default=timezone.now)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    out_after = models.PositiveSmallIntegerField(null=True, blank=True)  # elimination: the round lost

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="entrant_once_per_tournament"),
            models.UniqueConstraint(fields=["tournament", "number"], name="entrant_number_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id} #{self.number} {self.user_id}"


class Invitee(models.Model):
    """Who may join a tournament of entry "invite" (and see it, when private)."""

    tournament = models.ForeignKey(Tournament, related_name="invitees", on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="invitee_once_per_tournament")]

    def __str__(self) -> str:
        return f"{self.tournament_id} invites {self.user_id}"


class Round(models.Model):
    """A round, paired once: its number is unique in the tournament."""

    tournament = models.ForeignKey(Tournament, related_name="round_set", on_delete=models.CASCADE)
    number = models.PositiveSmallIntegerField()
    paired_at = models.DateTimeField(default=timezone.now)
    deadline = models.DateTimeField(db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    pairing_ms = models.FloatField(default=0.0)  # how long its pairing took (operations; the bench prints it)
    slots = models.JSONField(default=list, blank=True)  # elimination: ["t<index>" | "b<entrant>"] in bracket order

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_paired_once")]

    def __str__(self) -> str:
        return f"{self.tournament_id} round {self.number}"


class Table(models.Model):
    """One table of a round: its match, its entrants in seat order, and the points each took."""

    round = models.ForeignKey(Round, related_name="tables", on_delete=models.CASCADE)
    index = models.PositiveSmallIntegerField()
    match = models.OneToOneField("games.Match", related_name="+", on_delete=models.PROTECT)
    entrants = models.JSONField()  # Entrant ids, seat 0 first
    points = models.JSONField(null=True, blank=True)  # {"<entrant id>": points} once finished
    ranking = models.JSONField(null=True, blank=True)  # entrant id groups, best first
    adjudicated = models.BooleanField(default=False)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round", "index"]
        constraints = [models.UniqueConstraint(fields=["round", "index"], name="table_unique_index_per_round")]

    def __str__(self) -> str:
        return f"{self.round} table {self.index}"


class Bye(models.Model):
    round = models.ForeignKey(Round, related_name="byes", on_delete=models.CASCADE)
    entrant = models.ForeignKey(Entrant, related_name="byes", on_delete=models.CASCADE)
    points = models.FloatField()

    class Meta:
        ordering = ["round", "entrant"]
        constraints = [models.UniqueConstraint(fields=["round", "entrant"], name="bye_once_per_round")]

    def __str__(self) -> str:
        return f"{self.round} bye {self.entrant_id}"


class Ban(models.Model):
    """No-shows: each doubles the ban from joining tournaments (``TABULA_TOURNAMENTS["ban_hours"]`` first)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, related_name="tournament_ban", on_delete=models.CASCADE
    )
    offences = models.PositiveSmallIntegerField(default=0)
    until = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.user_id} banned until {self.until:%Y-%m-%d %H:%M}"
