"""Celery and its broker: the filesystem:// broker under var/ by default (no server to install), Redis in
production; the queues each task goes to and the periodic tasks beat sends."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

from config.settings.env import VAR_DIR

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
BROKER_DIR = VAR_DIR / "broker"
# The filesystem broker is polled: kombu looks at the queue folder again after this long when it
# found nothing (its default, 1 s, made a bot answer a human about 1 s late). 0.05 s costs make
# run's three workers about 1 % of a core while idle (bench section "bots"). Redis is not polled:
# its workers block on BRPOP.
TABULA_BROKER_POLL_S = float(os.environ.get("TABULA_BROKER_POLL_S", "0.05"))


def filesystem_broker(folder: Path) -> dict[str, Any]:
    """The transport options of a filesystem:// broker kept in ``folder`` (core/broker.py's transport makes
    the folders when it connects)."""
    return {
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "processed_folder": str(folder / "processed"),
        "control_folder": str(folder / "control"),
        "store_processed": False,
        "polling_interval": TABULA_BROKER_POLL_S,
    }


if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT = "core.broker:FilesystemTransport"  # kombu's, writing each message atomically
CELERY_BROKER_TRANSPORT_OPTIONS = (
    filesystem_broker(BROKER_DIR) if CELERY_BROKER_URL.startswith("filesystem://") else {"visibility_timeout": 3600}
)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = False
CELERY_WORKER_HIJACK_ROOT_LOGGER = False  # Celery logs through LOGGING (config/celery.py)

# Worker isolation: timers and bots on their own queues, each with its own worker processes.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {
    "games.tasks.deadline_fire": {"queue": "timers"},
    "games.tasks.deadlines_sweep": {"queue": "timers"},
    "games.tasks.clock_low_sweep": {"queue": "timers"},
    "games.tasks.bots_play": {"queue": "bots"},
}

# Beat: the periodic tasks, and the file it keeps their last runs in (config.celery.Scheduler, Celery's
# own, makes its folder).
CELERY_BEAT_SCHEDULER = "config.celery:Scheduler"
# Several hosts, each running beat (bin/run starts one per host): TABULA_BEAT_SCHEDULER=redis, with a Redis
# broker, makes it celery-redbeat's scheduler. The schedule lives in Redis and only the beat holding the
# lock (redbeat::lock, extended every tick) sends anything; the others wait for it. A lost host's lock
# expires after TABULA_BEAT_LOCK_TIMEOUT_S and another beat takes over within one more loop (5 s).
# docs/operations.md "The CI cluster" shows it; a beat that finds its lock gone (Redis restarted empty)
# exits, and its supervisor (bin/run, compose's restart) starts it again.
TABULA_BEAT_SCHEDULER = os.environ.get("TABULA_BEAT_SCHEDULER", "file")
if TABULA_BEAT_SCHEDULER == "redis" and CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BEAT_SCHEDULER = "redbeat.RedBeatScheduler"
    # bounded waits on a lost Redis (the options ride in the URL: redbeat reads its own options setting
    # only under a name the CELERY_ namespace does not give it)
    CELERY_REDBEAT_REDIS_URL = CELERY_BROKER_URL + ("&" if "?" in CELERY_BROKER_URL else "?")
    CELERY_REDBEAT_REDIS_URL += "socket_timeout=5&socket_connect_timeout=2"
    CELERY_REDBEAT_LOCK_TIMEOUT = int(os.environ.get("TABULA_BEAT_LOCK_TIMEOUT_S", "30"))
    CELERY_BEAT_MAX_LOOP_INTERVAL = 5  # how often the lock is extended, and a waiting beat tries for it
CELERY_BEAT_SCHEDULE = {
    "sweep-due-deadlines": {"task": "games.tasks.deadlines_sweep", "schedule": timedelta(seconds=5)},
    "clock-low-sweep": {"task": "games.tasks.clock_low_sweep", "schedule": timedelta(seconds=10)},
    "webhooks-sweep": {"task": "games.tasks.webhooks_sweep", "schedule": timedelta(seconds=30)},
    "push-sweep": {"task": "notify.tasks.push_sweep", "schedule": timedelta(seconds=30)},
    "email-sweep": {"task": "notify.tasks.email_sweep", "schedule": timedelta(seconds=60)},
    "tournaments-sweep": {"task": "tournaments.tasks.sweep", "schedule": timedelta(seconds=60)},
    # retention (docs/operations.md "Retention"): old inbox entries, deliveries, idempotent answers
    "notify-retention": {"task": "notify.tasks.retention_sweep", "schedule": timedelta(hours=1)},
    "idempotency-retention": {"task": "api.tasks.retention_sweep", "schedule": timedelta(hours=1)},
    "archive-finished-matches": {"task": "games.tasks.archive_sweep", "schedule": timedelta(hours=1)},
    # ranks are refreshed after every rated match; hourly too, for players leaving the active window
    "refresh-leaderboards": {"task": "games.tasks.leaderboards_refresh", "schedule": timedelta(hours=1)},
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
