"""Live streams (server-sent events, games/streams.py) and the front that serves them (config/stream.py)."""

from __future__ import annotations

import os

from config.settings.env import VAR_DIR

# Caps per user and per process; beyond them 503 with a jittered Retry-After.
TABULA_STREAMS_PER_USER = int(os.environ.get("TABULA_STREAMS_PER_USER", "8"))
TABULA_STREAMS_PER_PROCESS = int(os.environ.get("TABULA_STREAMS_PER_PROCESS", "5000"))
TABULA_STREAM_KEEPALIVE_S = 15.0
TABULA_STREAM_POLL_S = float(os.environ.get("TABULA_STREAM_POLL_S", "0.25"))  # embedded default: the shared poll
TABULA_STREAM_TICKET_TTL_S = 60
TABULA_STREAM_MAX_LIFE_S = 3600  # a stream ends after this; the client resumes with Last-Event-ID

# The front (config/stream.py; its other knobs are environment variables it reads itself).
TABULA_GUNICORN_SOCKET = os.environ.get("TABULA_GUNICORN_SOCKET", str(VAR_DIR / "run" / "gunicorn.sock"))
