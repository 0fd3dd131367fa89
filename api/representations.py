"""What the API shows of a match, built as plain dicts: the runtime twin of ``api.serializers``.

``MatchSerializer`` and ``SeatSerializer`` stay as the published schema (drf-spectacular reads
them); every answer is built here instead. DRF spends about half a millisecond per match summary
walking its fields, which made a page of history ten times slower than ``GET games`` (issue 31).
These functions give the same keys in the same order, the same value types and the same datetime
formatting, which ``tests/api/test_representations.py`` proves against the serializers.

Events need no twin: ``games.selectors.record_for_viewer`` already builds each one as
``EventSerializer`` shows it (that test proves that too).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, tzinfo
from typing import Any

from django.utils import timezone

from games import selectors
from games.models import Match, Seat
from games.sql import ListedMatch, ListedSeat

HIDDEN_SETUP = "hidden until the match is over"


def drf_datetime(value: datetime | str | None, tz: tzinfo | None = None) -> str | None:
    """``value`` as DRF's ``DateTimeField`` renders it (``DATETIME_FORMAT`` is ISO 8601): in the
    current time zone, microseconds when there are any, and UTC written ``Z``. The summary's
    ``deadlines`` are not this: they keep ``isoformat()``'s ``+00:00``, as they always have."""
    if not value:
        return None
    if isinstance(value, str):  # DRF passes a string through as it is
        return value
    tz = tz or timezone.get_current_timezone()
    value = value.astimezone(tz) if timezone.is_aware(value) else timezone.make_aware(value, tz)
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def seat_summary(seat: Seat | ListedSeat, tz: tzinfo | None = None) -> dict[str, Any]:
    """One seat as ``SeatSerializer`` shows it; a deleted account reads "deleted player". A list's
    seats come as `ListedSeat` (``games.sql.seats_of``), their public names already resolved."""
    if isinstance(seat, ListedSeat):
        username = seat.username
    else:
        username = seat.user.public_name if seat.user is not None else None
    return {
        "index": seat.index,
        "username": username,
        "bot": seat.bot or None,
        "resigned": seat.resigned,
        "deadline": drf_datetime(seat.deadline, tz),
        "remaining_ms": seat.bank_ms,
        "consecutive_timeouts": seat.consecutive_timeouts,
        "away_until": drf_datetime(seat.away_until, tz),
        "caretaker": seat.caretaker,
    }


def match_options(match: Match | ListedMatch) -> dict[str, Any]:
    """The engine's options with the platform's ``takebacks``; a ``setup`` fixture is the deal
    itself, so it is hidden like the seed while the match is live."""
    options = {**match.options, "takebacks": match.takebacks}
    if match.is_live and "setup" in options:
        options["setup"] = HIDDEN_SETUP
    return options


def rematch_id(match: Match | ListedMatch) -> str | None:
    """The automatic rematch after a tie, by the reverse one-to-one: the list selectors
    ``select_related`` it (a page read by hand has its id); elsewhere it is one query."""
    if isinstance(match, ListedMatch):
        return match.rematch
    try:
        return match.rematch.id
    except Match.DoesNotExist:
        return None


def match_summary(match: Match | ListedMatch, tz: tzinfo | None = None) -> dict[str, Any]:
    """The match summary exactly as ``MatchSerializer(match).data`` is (``GET matches/{id}`` and
    every list of matches). Seats: those `match_summaries` read for a page, else ``match.seats.all()``
    (prefetch them, with their users, as ``selectors.match_get`` does). A page read by hand comes as
    `ListedMatch` rows, its creator's public name already resolved. ``tz``: the current time zone,
    when the caller has it (a page looks it up once)."""
    tz = tz or timezone.get_current_timezone()
    seats = selectors.seats_shown(match)
    live = match.is_live
    active = match.status == Match.Status.ACTIVE
    return {
        "id": match.id,
        "game": match.game,
        "status": str(match.status),
        "players": match.players,
        "version": match.version,
        "seats": [seat_summary(s, tz) for s in seats],
        "awaiting": list(match.awaiting) if active else [],
        "awaited_since": dict(match.awaited_since or {}) if active else {},
        "deadlines": {
            "timer": match.timer_deadline.isoformat() if match.timer_deadline else None,
            "seats": {
                str(s.index): {"deadline": s.deadline.isoformat(), "bank_ms": s.bank_ms} for s in seats if s.deadline
            },
        },
        "result": match.result,
        "options": match_options(match),
        "time_control": match.time_control,
        "private": match.private,
        "rated": match.rated,
        "created_by": match.creator if isinstance(match, ListedMatch) else match.created_by.public_name,
        "created_at": drf_datetime(match.created_at, tz),
        "started_at": drf_datetime(match.started_at, tz),
        "finished_at": drf_datetime(match.finished_at, tz),
        "seed_commitment": match.seed_commitment,
        "seed": None if live else match.seed,
        "rematch_of": match.rematch_of_id,
        "rematch": rematch_id(match),
        "tournament": match.tournament or None,
    }


def match_summaries(matches: Iterable[Match | ListedMatch]) -> list[dict[str, Any]]:
    """A page of summaries (``MatchSerializer(matches, many=True).data``), with the seats of all of
    them read in one statement (`games.selectors.with_seats`): no query per match."""
    tz = timezone.get_current_timezone()
    return [match_summary(m, tz) for m in selectors.with_seats(matches)]
