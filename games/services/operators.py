"""What staff, operators and tournaments do to a match: abort it (the admin's action, `manage.py
abort_match`), or adjudicate it (a tournament round's deadline)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games import replay, scheduling
from games.errors import MatchOver, match_is
from games.models import Match, Record, Seat
from games.services import play, writes
from rules.base import rank_groups


@transaction.atomic
def match_abort(*, match_id: str, reason: str, by: User | None = None) -> Match:
    """End a live match with no result and no rating: one `aborted` record, under the lock.

    By staff from the admin (``by``), or by an operator (`manage.py abort_match`).
    """
    match = writes.lock(match_id)
    if not match.is_live:
        raise MatchOver(match_is(match.status))
    now = timezone.now()
    who = by.username if by is not None else "operator"
    writes.append(match, Record.Type.ABORTED, actor=Record.Actor.SYSTEM, data={"reason": reason, "by": who}, at=now)
    match.status, match.finished_at, match.updated_at = Match.Status.ABORTED, now, now
    match.timer_key, match.timer_deadline, match.awaiting = "", None, []
    Seat.objects.filter(match=match).update(deadline=None, clock_started_at=None)
    match.save()
    scheduling.ended_on_commit(match)
    return match


@transaction.atomic
def match_adjudicate(*, match_id: str, reason: str = "round_deadline") -> Match | None:
    """End a live, started match by the engine's own evaluation of where each seat stands now (its
    `heuristic`, the one the greedy bot plays by), resigned seats last: one ``adjudicated`` record,
    rated as its result says. A tournament does this when a round's deadline passes. None when the
    match is no longer active (it ended first)."""
    match, seats = writes.locked(match_id, replaying=True)
    if match.status != Match.Status.ACTIVE:
        return None
    rules = replay.rules_for(match)
    state = replay.match_state(match)
    resigned = {s.index for s in seats if s.resigned}
    keys = [(s.index not in resigned, round(rules.heuristic(state, s.index), 6)) for s in seats]
    ranking = rank_groups([(-alive, -value) for alive, value in keys], [s.index for s in seats])
    result = {
        "winners": sorted(ranking[0]),
        "ranking": [sorted(group) for group in ranking],
        "scores": [round(value * 100) for _, value in keys],
        "reason": "adjudicated",
    }
    play.end_by_agreement(match, seats, rtype=Record.Type.ADJUDICATED, data={"reason": reason}, result=result)
    return match
