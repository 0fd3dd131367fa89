"""How every service writes a match: locked first, its records appended complete, its row's progress saved.

Each service is one transaction that locks the match row first (`lock`, `locked`: hand-written in
`games.sql`), so appends are serialised per match: the record sequence has no gaps, and of two
racing requests against one version exactly one is accepted. Records are never updated.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from django.utils import timezone

from core import sql
from games import replay
from games import sql as games_sql
from games.models import Match, Record, Seat
from notify import fanout

# What an input changes on the match row (`play.apply_input`); the rest is written at creation.
PROGRESS = (
    "version",
    "status",
    "awaiting",
    "awaited_since",
    "result",
    "updated_at",
    "started_at",
    "finished_at",
    "timer_key",
    "timer_deadline",
)


def new_match_id() -> str:
    return secrets.token_urlsafe(12)  # 16 URL-safe characters, 96 random bits


def append(
    match: Match,
    rtype: str,
    *,
    actor: str,
    seat: int | None = None,
    move: Any = None,
    effects: list[dict[str, Any]] | None = None,
    data: dict[str, Any] | None = None,
    at: datetime | None = None,
    defer: bool = False,
) -> Record:
    """Insert the next record, complete: records are never updated. The caller holds the match row lock.

    ``defer``: the record is written with the match's next `save_progress` (one round trip for
    both), or before any later record of the match, whichever comes first."""
    _flush(match)
    match.version += 1
    fanout.record_on_commit(match.id, match.version)
    record = Record(
        match=match,
        seq=match.version,
        type=rtype,
        seat=seat,
        actor=actor,
        move=move,
        effects=effects or [],
        data=data or {},
        at=at or timezone.now(),
    )
    if defer:
        match._unwritten = record  # type: ignore[attr-defined]
        return record
    return sql.insert(record)  # Record.objects.create, precompiled: every record is written here


def _flush(match: Match) -> None:
    """Write the record `append` deferred, if any."""
    record = match.__dict__.pop("_unwritten", None)
    if record is not None:
        sql.insert(record)


def save_progress(match: Match) -> None:
    """Save what an input changed on the match row (`PROGRESS`), with its deferred record if any."""
    record = match.__dict__.pop("_unwritten", None)
    if record is None:
        sql.update(match, PROGRESS)
    else:
        sql.insert_and_update(record, match, PROGRESS)


def lock(match_id: str) -> Match:
    """The match row, locked (`games.sql.lock`): every write takes it."""
    return games_sql.lock(match_id)


def locked(match_id: str, *, replaying: bool = False) -> tuple[Match, list[Seat]]:
    """`lock` and `seats_of` in one round trip (`games.sql.locked`). ``replaying``: the caller folds
    the match's state next, so the records after this process's cached state come too
    (`replay.Tail`); the others (an invitation, a rematch of a finished match) would only read a
    log they never use."""
    tail = replay.tail_of(match_id) if replaying else replay.NO_TAIL
    match, seats, records = games_sql.locked(match_id, tail.sql, tail.params)
    tail.attach(match, records)
    return match, seats


def seats_of(match: Match) -> list[Seat]:
    return games_sql.seats(match)
