"""gunicorn settings for every web process (docker/entrypoint.sh web, bin/run): `gunicorn -c config/gunicorn.py`.

No access log: django-structlog's `request_finished` line is the access log, with the request id.
gunicorn's own lines go through the same structured formatter. In multiprocess metrics mode a
worker that exits has its live gauges dropped.
"""

import os

from config import logs

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_WORKERS", "3"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "10"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
accesslog = None
_dev = os.environ.get("DJANGO_SETTINGS_MODULE", "").endswith(".dev")
_logging = logs.configure(
    os.environ.get("LOG_FORMAT", "console" if _dev else "json"), os.environ.get("LOG_LEVEL", "INFO")
)
_logging["loggers"].update(
    {
        "gunicorn.error": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "gunicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
    }
)
logconfig_dict = _logging


def child_exit(server: object, worker: object) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]
