"""Matches, seats and the append-only record log. The log is the truth; state is derived by replay."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone


class Match(models.Model):
    """One play of a game. ``version`` is the number of records (the optimistic-lock token)."""

    class Status(models.TextChoices):
        OPEN = "open"
        ACTIVE = "active"
        FINISHED = "finished"
        ABORTED = "aborted"

    id = models.CharField(primary_key=True, max_length=22, editable=False)
    game = models.CharField(max_length=16, db_index=True)
    rules_version = models.PositiveIntegerField()
    players = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, blank=True)
    time_control = models.JSONField(null=True, blank=True)
    seed = models.BigIntegerField()  # secret while the match is live
    seed_commitment = models.CharField(max_length=64)  # SHA-256 of the seed, shown from creation
    private = models.BooleanField(default=False)
    rated = models.BooleanField(default=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True)
    version = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.PROTECT)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    awaiting = models.JSONField(default=list, blank=True)  # derived, denormalised for listings
    # Since when each awaited seat has been awaited ({"<seat>": ISO time}): what a nudge waits for.
    awaited_since = models.JSONField(default=dict, blank=True)
    rematch_of = models.OneToOneField(
        "self", null=True, blank=True, related_name="rematch", on_delete=models.SET_NULL
    )  # a tie under tie_policy "rematch" creates the next match with the same seats
    # The game's own deadline (EKKO's reaction window), independent of seat clocks.
    timer_key = models.CharField(max_length=64, blank=True, default="")
    timer_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    # The invitation link's secret: its holder may see a private match and join it (seated players see it).
    invite_code = models.CharField(max_length=32, unique=True, null=True, blank=True, editable=False)
    # Who may take moves back (games.services.agreements): "none", "own_input" or "by_consent".
    takebacks = models.CharField(max_length=16, default="none")
    # The tournament this match is a table of (the `tournaments` app's id; `games` knows nothing more
    # of it): its away and timeout policies are in ``time_control``, its audience in `selectors`.
    tournament = models.CharField(max_length=22, blank=True, default="", db_index=True)
    # Set once a finished match's records moved to its one compressed `ArchivedLog` row (games/archive.py).
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "matches"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.game} {self.id} ({self.status}, v{self.version})"

    @property
    def is_live(self) -> bool:
        return self.status in (self.Status.OPEN, self.Status.ACTIVE)


class Seat(models.Model):
    """A place at the table: a user or a bot (``bot`` holds its level)."""

    match = models.ForeignKey(Match, related_name="seats", on_delete=models.CASCADE, db_index=False)  # (match, index)
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(  # indexed by ``seat_history``, which starts with it
        settings.AUTH_USER_MODEL, null=True, blank=True, related_name="seats", on_delete=models.PROTECT, db_index=False
    )
    # The match's creation time, copied when the seat is made (it never changes): a player's history
    # is read newest first from their seats alone (the index ``seat_history``), where looking up
    # every match they ever sat in grew with their history (issue 31).
    match_created_at = models.DateTimeField(editable=False)
    # The match's status, end and privacy, kept equal to the match's by the database itself (triggers:
    # migration 0016): whatever writes a match or a seat (the services, the ORM, raw SQL, a bulk
    # load), and whatever a seat's own save sends for them. A public profile finds a player's recent
    # finished matches and counts their active ones, and ``GET me/turns`` finds their active seats,
    # from their seats alone (the indexes ``seat_finished`` and ``seat_active``), where looking up
    # each of their matches grew with their history, or with the server's active matches (issue 31).
    # Only those statements read them, and nothing in Python writes them; a migration that rebuilds
    # either table on SQLite drops triggers, and `tests/games/test_seat_copies.py` then fails.
    match_status = models.CharField(max_length=16, default="", editable=False)
    match_finished_at = models.DateTimeField(null=True, editable=False)
    match_private = models.BooleanField(default=False, editable=False)
    bot = models.CharField(max_length=16, blank=True, default="")
    joined_at = models.DateTimeField(null=True, blank=True)
    resigned = models.BooleanField(default=False)
    # Clock (only with a time_control): ``deadline`` is set while the seat's clock runs.
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    clock_started_at = models.DateTimeField(null=True, blank=True)
    bank_ms = models.BigIntegerField(null=True, blank=True)
    consecutive_timeouts = models.PositiveSmallIntegerField(default=0)
    # Away (games.services.away): while ``away_until`` is set the seat's clock is frozen, with
    # ``paused_ms`` left on it (null: it was not running); ``away_since`` starts the match's cap.
    away_until = models.DateTimeField(null=True, blank=True, db_index=True)
    away_since = models.DateTimeField(null=True, blank=True)
    paused_ms = models.BigIntegerField(null=True, blank=True)
    caretaker = models.BooleanField(default=False)  # ``bot`` plays the seat until its owner is back

    class Meta:
        ordering = ["match", "index"]
        indexes = [
            models.Index(fields=["user", "-match_created_at", "-match"], name="seat_history"),
            models.Index(
                fields=["user", "-match_finished_at", "-match"],
                condition=models.Q(match_status="finished", match_private=False),
                name="seat_finished",
            ),
            models.Index(
                fields=["user", "match_private"], condition=models.Q(match_status="active"), name="seat_active"
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="seat_unique_index_per_match"),
            models.UniqueConstraint(
                fields=["match", "user"], condition=models.Q(user__isnull=False), name="seat_unique_user_per_match"
            ),
        ]

    def __str__(self) -> str:
        who = self.user.username if self.user is not None else (f"bot:{self.bot}" if self.bot else "free")
        return f"{self.match_id}#{self.index} {who}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.match_created_at is None:  # unset until its first save (a test, the admin)
            self.match_created_at = self.match.created_at
        super().save(*args, **kwargs)

    @property
    def taken(self) -> bool:
        return self.user_id is not None or bool(self.bot)


class Record(models.Model):
    """One accepted input, numbered 1…n per match with no gaps. Never updated, never deleted."""

    class Type(models.TextChoices):
        CREATED = "created"
        SEAT_TAKEN = "seat_taken"
        SEAT_LEFT = "seat_left"
        BOT_ADDED = "bot_added"
        STARTED = "started"
        MOVE = "move"
        TIMEOUT = "timeout"  # a seat's clock ran out: the game's default move
        EXPIRED = "expired"  # the game's own timer ran out (EKKO's reaction window)
        RESIGNED = "resigned"
        BOT_TOOK_OVER = "bot_took_over"
        ABORTED = "aborted"
        PAUSED = "paused"  # the seat's owner is away: its clock is frozen
        RESUMED = "resumed"  # its clock runs again (the owner is back, or the match's away cap)
        SEAT_RETURNED = "seat_returned"  # the caretaker bot hands the seat back to its owner
        UNDONE = "undone"  # an undo or an accepted takeback: the state is that at ``to_seq`` again
        DRAWN = "drawn"  # a draw by agreement: every remaining seat shares first place
        CONCEDED = "conceded"  # everyone agreed that one seat wins
        CANCELLED = "cancelled"  # everyone agreed to end the match, unrated
        TIME_GRANTED = "time_granted"  # more time on a seat's clock
        ADJUDICATED = "adjudicated"  # a tournament's round deadline passed: ranked by the engine's evaluation

    class Actor(models.TextChoices):
        PLAYER = "player"
        TIMEOUT = "timeout"
        BOT = "bot"
        SYSTEM = "system"

    # No index of its own: the unique (match, seq) index serves every lookup by match (on
    # PostgreSQL the two single-column ones Django adds for a foreign key took 178 MB at 7 M records,
    # and every move wrote to them).
    match = models.ForeignKey(Match, related_name="records", on_delete=models.CASCADE, db_index=False)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=16, choices=Type.choices)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    actor = models.CharField(max_length=8, choices=Actor.choices)
    move = models.JSONField(null=True, blank=True)  # as the engine parsed it: what replay re-applies
    effects = models.JSONField(default=list, blank=True)  # [{"kind", "data", "to"}]: what happened
    data = models.JSONField(default=dict, blank=True)  # lifecycle details (username, bot level…)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [models.UniqueConstraint(fields=["match", "seq"], name="record_seq_unique_per_match")]

    def __str__(self) -> str:
        return f"{self.match_id}@{self.seq} {self.type}"


class ArchivedLog(models.Model):
    """A finished match's whole record log in one compressed row (issue 30: hot tables stay small).

    ``records`` is zlib-compressed JSON, one ``[seq, type, seat, actor, move, effects, data, at]``
    per record; `games.archive.records` reads it back as `Record` objects, so that every reader of
    a log (events, export, replay, the audit) reads an archived match as it read a live one."""

    match = models.OneToOneField(Match, primary_key=True, related_name="archived_log", on_delete=models.CASCADE)
    count = models.PositiveIntegerField()
    records = models.BinaryField()
    archived_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.match_id}: {self.count} records archived"


class FinalState(models.Model):
    """The state a match ended in, folded once, when it ended (`games.replay.keep_final`): a later
    read of the finished match (a history page opened days later, when no process and no shared
    snapshot holds it any more) unpickles it instead of replaying the whole log (issue 31).

    ``state`` is the pickled ``(rules tag, version, state)`` the shared snapshot cache holds too. It
    is an accelerator like that cache: it is used only at the match's current version and rules,
    and a value that does not read back is ignored (the log is replayed). ``tests/games/
    test_final_state.py`` holds it to a full replay."""

    match = models.OneToOneField(Match, primary_key=True, related_name="+", on_delete=models.CASCADE)
    version = models.PositiveIntegerField()
    state = models.BinaryField()

    def __str__(self) -> str:
        return f"{self.match_id}: final state at {self.version}"


class Tally(models.Model):
    """A player's finished public matches of one game, folded as their public profile shows them
    (`games.selectors.user_profile`): kept as each match ends (`games.tallies`), so that a profile
    reads a row per game, however long the history. ``won``, ``drawn``, ``lost``: by
    `selectors.outcome_of` (none is a loss); ``winners``: among the winners, shared or not (the
    profile's count of wins); the streaks: of wins in a row, in the order the matches finished.
    ``first_*``: the first match counted, whose order is the order the profile lists the games in."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE, db_index=False
    )  # (user, game)
    game = models.CharField(max_length=16)
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    drawn = models.PositiveIntegerField(default=0)
    lost = models.PositiveIntegerField(default=0)
    winners = models.PositiveIntegerField(default=0)
    placement_sum = models.PositiveIntegerField(default=0)
    placement_count = models.PositiveIntegerField(default=0)
    score_sum = models.FloatField(default=0.0)
    score_count = models.PositiveIntegerField(default=0)
    current_streak = models.PositiveIntegerField(default=0)
    longest_streak = models.PositiveIntegerField(default=0)
    first_finished_at = models.DateTimeField(null=True, blank=True)
    first_match_id = models.CharField(max_length=22, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="tally_unique_per_user_game")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.game}: {self.played} played"


class Invitation(models.Model):
    """A user invited to a match; ``seat`` is reserved for them while the invitation is pending."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"

    match = models.ForeignKey(Match, related_name="invitations", on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="invitations", on_delete=models.CASCADE)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(default=timezone.now)
    # False when the invitee blocks the inviter: the inviter sees it pending; the invitee never hears
    # of it, never lists it, and it shows them no private match (circles.selectors).
    delivered = models.BooleanField(default=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["match", "user"], name="invitation_unique_per_match")]
        indexes = [models.Index(fields=["user", "status"], name="invitation_inbox")]

    def __str__(self) -> str:
        return f"{self.match_id} -> {self.user_id} ({self.status})"


class Absence(models.Model):
    """A user's time away (docs/api.md, *Away*): from ``started_at`` until ``until``, or until
    ``ended_at`` when it ended sooner. The balance is charged once, from the first frozen clock."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="absences", on_delete=models.CASCADE)
    started_at = models.DateTimeField(default=timezone.now)
    until = models.DateTimeField(db_index=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    auto = models.BooleanField(default=False)  # started by a deadline under `auto_away`
    first_frozen_at = models.DateTimeField(null=True, blank=True)
    charged_s = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user"], condition=models.Q(ended_at__isnull=True), name="absence_one_open_per_user"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id} away until {self.until:%Y-%m-%d %H:%M}"


class AwayBalance(models.Model):
    """The time a user may spend away: ``seconds`` at ``at``, accruing since (settings TABULA_AWAY)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, primary_key=True, related_name="away_balance", on_delete=models.CASCADE
    )
    seconds = models.PositiveIntegerField()
    at = models.DateTimeField(default=timezone.now)
    last_manual_start = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.seconds} s away"


class Proposal(models.Model):
    """An agreement put to a match's seats (games.services.agreements): a takeback, a draw, a
    concession, a cancellation, a pause or more time. ``needed`` are the seats whose yes it takes;
    ``votes`` maps a seat (as a string) to its answer."""

    class Status(models.TextChoices):
        OPEN = "open"
        PASSED = "passed"
        REJECTED = "rejected"
        EXPIRED = "expired"
        WITHDRAWN = "withdrawn"

    match = models.ForeignKey(Match, related_name="proposals", on_delete=models.CASCADE)
    kind = models.CharField(max_length=16)
    by_seat = models.PositiveSmallIntegerField()
    by_user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    params = models.JSONField(default=dict, blank=True)  # to_seq, seat, until, seconds
    needed = models.JSONField(default=list)
    votes = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True)
    created_at = models.DateTimeField(default=timezone.now)
    created_version = models.PositiveIntegerField()
    expires_at = models.DateTimeField(db_index=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "kind"], condition=models.Q(status="open"), name="proposal_one_open_per_kind"
            )
        ]

    def __str__(self) -> str:
        return f"{self.match_id} {self.kind} by {self.by_seat} ({self.status})"
