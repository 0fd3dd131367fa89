"""gunicorn settings for every web process (`bin/run`, docker/entrypoint.sh web): `gunicorn -c config/gunicorn.py`.

Threads, and clients that cannot hold them: the worker class is gunicorn's ``gthread`` with one
change (`BoundedThreadWorker`): once a request's first bytes arrive, its headers and body must
arrive within ``TABULA_CLIENT_READ_S`` in total (a socket timeout per read, shrinking to that
deadline), so a client trickling its request holds one thread for a bounded time, never a whole
worker, and never for long. In production a buffering proxy in front (nginx, see
docker/compose.yaml) takes slow clients off gunicorn entirely; this is the floor without one.

Logs: no access log: django-structlog's `request_finished` line is the access log, with the request
id; gunicorn's own lines go through the same structured formatter. In multiprocess metrics mode a
worker that exits has its live gauges dropped.

Environment: ``GUNICORN_BIND`` (default 0.0.0.0:8000; `bin/run` passes ``--bind``), ``WEB_WORKERS``
(processes, default 3), ``WEB_THREADS`` (threads each, default 8), ``TABULA_CLIENT_READ_S``
(default 10), ``GUNICORN_TIMEOUT``, ``GUNICORN_GRACEFUL_TIMEOUT``.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from gunicorn.workers.gthread import ThreadWorker  # type: ignore[import-untyped]

from config import logs

CLIENT_READ_S = float(os.environ.get("TABULA_CLIENT_READ_S", "10"))

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_WORKERS", "3"))
threads = int(os.environ.get("WEB_THREADS", "8"))
worker_class = "config.gunicorn.BoundedThreadWorker"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))  # a worker whose main loop stops answering is restarted
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "10"))
keepalive = 5  # an idle keep-alive connection waits in the poller, not on a thread
limit_request_line = 8190  # the most gunicorn allows; longer lines get its own (HTML) 400
limit_request_fields = 64
limit_request_field_size = 8190
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


class _DeadlineSocket:
    """A socket whose reads fail once the request's deadline has passed."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self.deadline = float("inf")

    def recv(self, size: int, *args: Any) -> bytes:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the client took too long to send its request")
        self._sock.settimeout(min(left, CLIENT_READ_S))
        return self._sock.recv(size, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class BoundedThreadWorker(ThreadWorker):
    """gthread, with a total deadline on reading each request (headers and body)."""

    def enqueue_req(self, conn: Any) -> None:
        if conn.parser is None and not isinstance(conn.sock, _DeadlineSocket):
            conn.sock = _DeadlineSocket(conn.sock)  # before init() hands the socket to the parser
        super().enqueue_req(conn)

    def handle(self, conn: Any) -> Any:
        conn.sock.deadline = time.monotonic() + CLIENT_READ_S
        return super().handle(conn)
