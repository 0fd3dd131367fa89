"""Celery tasks: ids in, one call, nothing else. Every task is safe to run twice.

Each is registered under its pinned name from `core.taskqueue`, by which `games.scheduling` sends
it after a commit (and beat and the task routes name it).
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.cache import cache

from core import taskqueue
from games import archive, botplay, notices, ratings, scheduling
from games.services import agreements, away, deadlines

log = logging.getLogger(__name__)


@shared_task(name=taskqueue.DEADLINE_FIRE, ignore_result=True)
def deadline_fire(match_id: str, version: int) -> int:
    """A timer queued for a deadline: acts only if the match is still at ``version``.

    A timer that fires a little early (brokers' ETAs are not exact) re-arms itself.
    """
    applied = deadlines.deadlines_process(match_id=match_id, expected_version=version)
    if applied == 0:
        scheduling.rearm_if_early(match_id=match_id, version=version)
    return applied


@shared_task(name=taskqueue.DEADLINES_SWEEP, ignore_result=True)
def deadlines_sweep() -> int:
    """Beat, every few seconds: absences (`away.sweep`), every due deadline, and every awaited bot."""
    applied = away.sweep()  # absences that ended, seats not yet paused, caps reached
    agreements.sweep()  # proposals past their time
    for match_id in scheduling.due_match_ids():
        applied += deadlines.deadlines_process(match_id=match_id)
    for match_id in scheduling.bot_match_ids():
        taskqueue.send(taskqueue.BOTS_PLAY, (match_id, None))
    return applied


@shared_task(name=taskqueue.ARCHIVE_SWEEP, ignore_result=True)
def archive_sweep() -> dict[str, Any]:
    """Hourly: finished matches older than ``TABULA_ARCHIVE_AFTER_DAYS`` into their archive rows."""
    done = archive.sweep()
    if done["archived"]:
        log.info("archive: %s", done)
    return done


@shared_task(name=taskqueue.LEADERBOARDS_REFRESH, ignore_result=True)
def leaderboards_refresh(game: str | None = None) -> int:
    """After rated matches (one game, batched) and hourly (every game): store the leaderboard ranks."""
    if game is not None:
        cache.delete(scheduling.leaderboard_pending_key(game))  # a later match queues the next refresh
    return ratings.leaderboard_refresh(game)


@shared_task(name=taskqueue.BOTS_PLAY, ignore_result=True)
def bots_play(match_id: str, version: int | None) -> int:
    """Play the awaited bots' moves, through the same service path as a human's.

    A few moves per task (``TABULA_BOT_TURN_MOVES``), then the match queues behind the other
    matches' bot turns: one match of bots playing each other flat out gets its share of the bot
    workers, not all of them.
    """
    return botplay.bots_play(match_id=match_id, expected_version=version, limit=settings.TABULA_BOT_TURN_MOVES)


@shared_task(name=taskqueue.CLOCK_LOW_SWEEP, ignore_result=True)
def clock_low_sweep() -> int:
    """Beat: a ``clock_low`` notification for every running clock past 80 % of its time."""
    return notices.clock_low_scan()
