"""Celery tasks of tournaments, by their pinned names (`core.taskqueue`). Each is safe to run twice."""

from __future__ import annotations

from celery import shared_task

from core import taskqueue
from tournaments import services


@shared_task(name=taskqueue.TOURNAMENT_ADVANCE, ignore_result=True)
def advance(tournament_id: str) -> str:
    """A tournament match ended (or an entrant withdrew): score it, pair the next round, or finish."""
    return services.advance(tournament_id)


@shared_task(name=taskqueue.TOURNAMENTS_SWEEP, ignore_result=True)
def sweep() -> int:
    """Beat, every minute: starts at their time, rounds past their deadline, any lost `advance`."""
    return services.sweep()
