"""Celery tasks: ids in, one service call, nothing else. Every task is safe to run twice."""

from __future__ import annotations

import logging

from celery import shared_task

from games import services

log = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def deadline_fire(match_id: str, version: int) -> int:
    """A timer queued for a deadline: acts only if the match is still at ``version``.

    A timer that fires a little early (brokers' ETAs are not exact) re-arms itself.
    """
    appended = services.deadlines_process(match_id=match_id, expected_version=version)
    if appended == 0:
        services.rearm_if_early(match_id=match_id, version=version)
    return appended


@shared_task(ignore_result=True)
def deadlines_sweep() -> int:
    """Beat, every few seconds: apply every due deadline and wake every bot that is awaited."""
    appended = 0
    for match_id in services.due_match_ids():
        appended += services.deadlines_process(match_id=match_id)
    for match_id in services.bot_match_ids():
        bots_play.delay(match_id, None)
    return appended


@shared_task(ignore_result=True)
def bots_play(match_id: str, version: int | None) -> int:
    """Play the awaited bots' moves, through the same service path as a human's."""
    from games import botplay

    return botplay.bots_play(match_id=match_id, expected_version=version)
