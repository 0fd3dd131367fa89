"""Fixtures of the operations tests."""

from __future__ import annotations

import io
import json
import logging

import pytest
import structlog

from config import logs


@pytest.fixture
def captured():
    """Every log line at DEBUG and above, rendered as in production (JSON)."""
    spec = dict(logs.configure("json", "DEBUG")["formatters"]["structured"])
    spec.pop("()")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(**spec))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    structlog.contextvars.clear_contextvars()
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
        structlog.contextvars.clear_contextvars()
