"""The Celery tasks the project sends: one table of names, one way to send them.

A sender never imports the module that defines a task (`games.tasks`, `notify.tasks` sit above
everything they call): it sends by registered name, and every task is declared with its name from
this table (``@shared_task(name=...)``). The names are pinned: a message queued before a deploy, a
beat entry or a task route still finds its task after one (the notification tasks kept the
``games.tasks.`` names they had before `notify` existed).
"""

from __future__ import annotations

import logging

from celery import current_app

log = logging.getLogger(__name__)

# games.tasks
DEADLINE_FIRE = "games.tasks.deadline_fire"
DEADLINES_SWEEP = "games.tasks.deadlines_sweep"
BOTS_PLAY = "games.tasks.bots_play"
LEADERBOARDS_REFRESH = "games.tasks.leaderboards_refresh"
CLOCK_LOW_SWEEP = "games.tasks.clock_low_sweep"
# notify.tasks
WEBHOOKS_FANOUT = "games.tasks.webhooks_fanout"
WEBHOOK_ATTEMPT = "games.tasks.webhook_attempt"
WEBHOOKS_SWEEP = "games.tasks.webhooks_sweep"
EMAIL_DIGEST = "games.tasks.email_digest"
PUSH_FANOUT = "notify.tasks.push_fanout"
PUSH_ATTEMPT = "notify.tasks.push_attempt"
PUSH_SWEEP = "notify.tasks.push_sweep"
EMAIL_SWEEP = "notify.tasks.email_sweep"
NOTIFY_RETENTION = "notify.tasks.retention_sweep"
ARCHIVE_SWEEP = "games.tasks.archive_sweep"
# api.tasks
IDEMPOTENCY_RETENTION = "api.tasks.retention_sweep"
# tournaments.tasks
TOURNAMENT_ADVANCE = "tournaments.tasks.advance"
TOURNAMENTS_SWEEP = "tournaments.tasks.sweep"

NAMES = (
    DEADLINE_FIRE,
    DEADLINES_SWEEP,
    BOTS_PLAY,
    LEADERBOARDS_REFRESH,
    CLOCK_LOW_SWEEP,
    WEBHOOKS_FANOUT,
    WEBHOOK_ATTEMPT,
    WEBHOOKS_SWEEP,
    EMAIL_DIGEST,
    PUSH_FANOUT,
    PUSH_ATTEMPT,
    PUSH_SWEEP,
    EMAIL_SWEEP,
    NOTIFY_RETENTION,
    IDEMPOTENCY_RETENTION,
    ARCHIVE_SWEEP,
    TOURNAMENT_ADVANCE,
    TOURNAMENTS_SWEEP,
)


def send(name: str, args: tuple[object, ...] = (), *, countdown: float = 0.0, lost: str = "") -> None:
    """Queue the task ``name`` with ``args``, to run ``countdown`` seconds from now.

    A broker failure raises, unless ``lost`` says what becomes of the lost task (the sweep that
    retries it, for instance): then it is logged with that and the caller goes on.
    """
    try:
        current_app.tasks[name].apply_async(args, countdown=countdown)
    except Exception:
        if not lost:
            raise
        log.exception("could not queue %s%r: %s", name, args, lost)
