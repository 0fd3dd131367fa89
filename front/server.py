"""How the front is served: uvicorn with the project's options, the same everywhere.

``python -m front`` (bin/run, docker/entrypoint.sh, the bench) and the browser tests
(tests/web/conftest.py, one process in a thread) build their server from `config`:

- ``WEB_WORKERS`` processes (default 2) share the port; uvicorn's supervisor restarts one that dies
  or stops answering its health check. Each process serves the stream paths on its event loop and
  every other request on ``WEB_THREADS`` threads (`front.app`).
- httptools parses HTTP, uvloop runs the loop (both picked up when installed); no WebSocket.
- No access log: django-structlog's ``request_finished`` line is the access log, with the request
  id. uvicorn's own lines go through Django's LOGGING (``log_config=None``), so in production they
  are JSON lines like every other.
- REMOTE_ADDR is the TCP peer (``proxy_headers=False``): behind a proxy, ``TABULA_TRUSTED_PROXIES``
  says how many ``X-Forwarded-For`` entries to trust (api/ratelimit.py), one mechanism, not two.
- Graceful shutdown: on SIGTERM or Ctrl-C a process stops accepting, lets the requests in flight
  finish for up to ``GRACEFUL_S`` seconds, then ends the open streams (clients resume with
  ``Last-Event-ID``).

Limits on clients, in `OPTIONS` so that every topology gets them:

- at most ``TABULA_FRONT_MAX_CONNECTIONS`` open connections per process (default 6000: above the
  per-process stream cap, 5000, plus room for ordinary requests); past it a request is answered
  ``503 server_busy`` (a problem document, front/protocol.py) and its connection closed;
- each request's headers within ``TABULA_HEADER_TIMEOUT_S`` (10 s) of the connection opening or of
  the previous answer (front/protocol.py), its body within ``TABULA_BODY_TIMEOUT_S`` (30 s) of its
  headers (``408``, front/app.py); an idle keep-alive connection is closed after 5 s.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from typing import Any

import uvicorn

from front.protocol import FrontProtocol

APP = "front.app:application"
EX_CONFIG = 78  # sysexits.h: bin/run's supervisor never restarts a process that ends with it
GRACEFUL_S = 3
OPTIONS: dict[str, Any] = {
    "lifespan": "on",
    "ws": "none",
    "access_log": False,
    "log_config": None,
    "proxy_headers": False,
    "timeout_graceful_shutdown": GRACEFUL_S,
    "http": FrontProtocol,
    "timeout_keep_alive": 5,
    "limit_concurrency": int(os.environ.get("TABULA_FRONT_MAX_CONNECTIONS", "6000")),
}


def workers() -> int:
    return int(os.environ.get("WEB_WORKERS", "2"))


def config(host: str, port: int, processes: int = 1, app: Any = APP, loop: str = "auto") -> uvicorn.Config:
    """The front on ``host:port`` in ``processes`` worker processes (in this one when 1); tests may
    pass another ``app`` (`front.app.build` around stand-ins), and serve from a thread of their own
    process on asyncio's ``loop``: uvloop's, run in a thread beside the test, once crashed the test
    process with a segmentation fault (an open kind of uvloop bug, MagicStack/uvloop#706)."""
    return uvicorn.Config(app, host=host, port=port, workers=processes, loop=loop, **OPTIONS)


def _logging() -> None:
    """Django's LOGGING in this (the supervising) process too: its lines look like every other."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
    from django.conf import settings
    from django.utils.log import configure_logging

    configure_logging(settings.LOGGING_CONFIG, settings.LOGGING)


def _can_listen(host: str, port: int) -> None:
    """End at once, with `EX_CONFIG`, when the port is taken: uvicorn would find out only after
    loading Django (seconds on a busy machine), and a supervisor cannot tell that from a crash."""
    try:
        with socket.create_server((host, port)):
            pass
    except OSError as error:
        print(f"python -m front: cannot listen on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        raise SystemExit(EX_CONFIG) from None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m front", description="Serve Tabula (the front) with uvicorn.")
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--workers", type=int, default=None, help="processes (default: WEB_WORKERS, else 2)")
    args = parser.parse_args(argv)
    _can_listen(args.host, args.port)
    _logging()
    uvicorn.run(APP, host=args.host, port=args.port, workers=args.workers or workers(), **OPTIONS)
