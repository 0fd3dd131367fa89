"""The Celery app: settings come from Django's CELERY_* names, tasks from each app's tasks.py."""

import os
from pathlib import Path
from typing import Any

from celery import Celery
from celery.beat import PersistentScheduler
from celery.signals import setup_logging, worker_init, worker_process_shutdown
from django_structlog.celery.steps import DjangoStructLogInitStep

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

app = Celery("tabula")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.steps["worker"].add(DjangoStructLogInitStep)  # each task's log lines carry the ids of its sender


class Scheduler(PersistentScheduler):
    """Celery's beat scheduler (CELERY_BEAT_SCHEDULER), which first makes the folder of its schedule file."""

    schedule_filename: str

    def setup_schedule(self) -> None:
        Path(self.schedule_filename).parent.mkdir(parents=True, exist_ok=True)
        super().setup_schedule()


@setup_logging.connect
def _logging(**kwargs: Any) -> None:
    """Celery logs through Django's LOGGING (structlog: JSON lines in production)."""
    import logging.config

    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


@worker_init.connect
def _metrics_server(**kwargs: Any) -> None:
    """A worker serves its processes' metrics on TABULA_WORKER_METRICS_PORT (multiprocess mode)."""
    port = os.environ.get("TABULA_WORKER_METRICS_PORT")
    if not port or not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return
    from prometheus_client import CollectorRegistry, multiprocess, start_http_server

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    start_http_server(int(port), addr=os.environ.get("TABULA_WORKER_METRICS_ADDR", "127.0.0.1"), registry=registry)


@worker_process_shutdown.connect
def _metrics_process_gone(pid: int | None = None, **kwargs: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid or os.getpid())
