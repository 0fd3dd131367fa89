"""What staff and operators do to a match: abort it (the admin's action, `manage.py abort_match`)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games.errors import MatchOver
from games.models import Match, Record, Seat
from games.services import writes


@transaction.atomic
def match_abort(*, match_id: str, reason: str, by: User | None = None) -> Match:
    """End a live match with no result and no rating: one `aborted` record, under the lock.

    By staff from the admin (``by``), or by an operator (`manage.py abort_match`).
    """
    match = writes.lock(match_id)
    if not match.is_live:
        raise MatchOver(f"The match is {match.status}.")
    now = timezone.now()
    who = by.username if by is not None else "operator"
    writes.append(match, Record.Type.ABORTED, actor=Record.Actor.SYSTEM, data={"reason": reason, "by": who}, at=now)
    match.status, match.finished_at, match.updated_at = Match.Status.ABORTED, now, now
    match.timer_key, match.timer_deadline, match.awaiting = "", None, []
    Seat.objects.filter(match=match).update(deadline=None, clock_started_at=None)
    match.save()
    return match
