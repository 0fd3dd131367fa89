"""Live streams (server-sent events, notify/streams.py) served on the front's event loop (front/)."""

from __future__ import annotations

import os

# Caps per user and per process; beyond them 503 with a jittered Retry-After.
TABULA_STREAMS_PER_USER = int(os.environ.get("TABULA_STREAMS_PER_USER", "8"))
TABULA_STREAMS_PER_PROCESS = int(os.environ.get("TABULA_STREAMS_PER_PROCESS", "5000"))
TABULA_STREAM_KEEPALIVE_S = 15.0
TABULA_STREAM_POLL_S = float(os.environ.get("TABULA_STREAM_POLL_S", "0.25"))  # embedded default: the shared poll
TABULA_STREAM_TICKET_TTL_S = 60
# Every stream of a process reads the database on this many threads, each holding one connection
# (notify/streams.py `read`): the streams' share of PostgreSQL's max_connections (docs/operations.md).
TABULA_STREAM_READ_THREADS = int(os.environ.get("TABULA_STREAM_READ_THREADS", "2"))
TABULA_STREAM_MAX_LIFE_S = 3600  # a stream ends after this; the client resumes with Last-Event-ID
