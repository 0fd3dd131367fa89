"""Deadlines: the game timer and the seat clocks that ran out, applied as game inputs under the lock.

Run by the timer task a move queued (`games.tasks.deadline_fire`) and by the beat sweep.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from core import metrics
from games.models import Match, Record, Seat
from games.services import away, play, writes
from rules.base import Expired, Input, Resigned, TimedOut

MAX_RECORDS_PER_SWEEP = 64


def deadlines_process(*, match_id: str, expected_version: int | None = None) -> int:
    """Apply every deadline of the match that is due now; returns how many inputs it applied.

    With ``expected_version`` (a timer task), a match that moved on is left alone: the move that
    moved it scheduled its own timer. The sweep passes None and acts on whatever is due.
    """
    applied = 0
    with transaction.atomic():
        match = Match.objects.select_for_update(no_key=True).filter(id=match_id).first()  # as `writes.lock`
        if match is None or match.status != Match.Status.ACTIVE:
            return 0
        if expected_version is not None and match.version != expected_version:
            return 0
        source = "sweep" if expected_version is None else "task"
        fired: list[tuple[str, float]] = []
        while applied < MAX_RECORDS_PER_SWEEP and match.status == Match.Status.ACTIVE:
            now = timezone.now()
            seats = writes.seats_of(match)
            if match.timer_deadline is not None and match.timer_deadline <= now:
                fired.append(("game_timer", (now - match.timer_deadline).total_seconds()))
                play.apply_input(match, seats, Expired(), actor=Record.Actor.TIMEOUT)
            else:
                due = [s for s in seats if s.deadline is not None and s.deadline <= now and not s.resigned]
                if not due:
                    break
                seat = min(due, key=lambda s: (s.deadline, s.index))
                assert seat.deadline is not None
                fired.append(("seat_clock", (now - seat.deadline).total_seconds()))
                _seat_timeout(match, seats, seat)
            applied += 1
        if fired:
            transaction.on_commit(lambda: _timers_fired(fired, source))
    return applied


def _timers_fired(fired: list[tuple[str, float]], source: str) -> None:
    for kind, lateness in fired:
        metrics.timer_fired(kind, source, lateness)


def _seat_timeout(match: Match, seats: list[Seat], seat: Seat) -> None:
    """The seat's clock ran out: an absence under ``auto_away``, else its default move or a forfeit
    (``on_timeout``)."""
    if away.auto_away(match, seats, seat, timezone.now()):
        return
    seat.consecutive_timeouts += 1
    seat.save(update_fields=["consecutive_timeouts"])
    forfeit = (match.time_control or {}).get("on_timeout") == "forfeit"
    given: Input = Resigned(seat.index) if forfeit else TimedOut(seat.index)
    play.apply_input(match, seats, given, actor=Record.Actor.TIMEOUT)
