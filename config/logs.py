"""Structured logs: JSON lines in production, readable lines in development (structlog).

Every line, from structlog or from a plain ``logging`` call, carries what is bound in the context:
the request id (``X-Request-ID``, see `core.middleware`), the user, the match and the version
(bound by the services), and in Celery tasks the same ids (django-structlog's Celery step).

Probe requests (``/livez``, ``/readyz``, ``/metrics``) are dropped below warning level.
Log lines name ids, codes and timings, never a move, a view or an effect: see
``tests/ops/test_logs.py``, which scans the logs of whole matches for hidden information.
"""

from __future__ import annotations

import logging
from collections.abc import MutableMapping
from typing import Any
from urllib.parse import unquote_plus

import structlog
from structlog.processors import ExceptionRenderer
from structlog.tracebacks import ExceptionDictTransformer

PROBE_PATHS = ("/livez", "/readyz", "/metrics")
_QUIET_LEVELS = {"debug", "info"}
#: Query parameters whose values are credentials (a stream ticket, the unsubscribe token, an OAuth
#: code, an API key …): the request log shows their names, never their values.
SECRET_PARAMS = frozenset(
    {"ticket", "token", "code", "key", "api_key", "access_token", "secret", "password", "signature", "sig"}
)
REDACTED = "***"


def redact_query(target: str) -> str:
    """``target`` (``/path?query`` or ``METHOD /path?query``) with the values of secret parameters as ``***``."""
    head, sep, query = target.partition("?")
    if not sep:
        return target
    pairs = []
    for pair in query.split("&"):
        name = pair.partition("=")[0]
        if unquote_plus(name).strip().lower() in SECRET_PARAMS:
            pair = f"{name}={REDACTED}"
        pairs.append(pair)
    return f"{head}?{'&'.join(pairs)}"


def redact_secret_params(
    logger: Any, method_name: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """django-structlog's ``request`` field, django.request's request object (and uvicorn's access
    line, if on) without secret values."""
    for field in ("request", "path", "url"):
        value = event_dict.get(field)
        if hasattr(value, "get_full_path"):  # django.request's lines carry the request itself
            value = f"{getattr(value, 'method', '')} {value.get_full_path()}"  # type: ignore[union-attr]
            event_dict[field] = value
        if isinstance(value, str) and "?" in value:
            event_dict[field] = redact_query(value)
    return event_dict


def drop_probe_requests(
    logger: Any, method_name: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """django-structlog logs each request; a probe's is noise unless it failed."""
    if method_name in _QUIET_LEVELS and event_dict.get("event") in ("request_started", "request_finished"):
        path = str(event_dict.get("request", "")).partition(" ")[2].partition("?")[0].rstrip("/")
        if path in PROBE_PATHS:
            raise structlog.DropEvent
    return event_dict


def drop_color_message(logger: Any, method_name: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """uvicorn passes a colored copy of each of its messages as an extra: not a field of the line."""
    event_dict.pop("color_message", None)
    return event_dict


NOTHING_DONE = frozenset({"0", "None", "False", "[]", "{}", "()", "''", '""'})


class TasksThatDidSomething(logging.Filter):
    """Celery's one line per finished task, kept only when the task did something.

    Every task returns what it did (a count, a flag: games/tasks.py, notify/tasks.py), so an idle
    service's sweeps every few seconds, which find nothing, write nothing. Failures are logged at
    ERROR by another path and always pass.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        data = getattr(record, "data", None)
        return not (isinstance(data, dict) and str(data.get("return_value")) in NOTHING_DONE)


def _shared_processors() -> list[Any]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]


def configure(fmt: str, level: str) -> dict[str, Any]:
    """Configure structlog and answer the LOGGING dict for Django (``fmt`` is "json" or "console")."""
    logging.captureWarnings(True)  # Python warnings become log lines too (py.warnings)
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            drop_probe_requests,
            redact_secret_params,
            *_shared_processors(),
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.UnicodeDecoder(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=False, exception_formatter=structlog.dev.plain_traceback)
    )
    final: list[Any] = [structlog.stdlib.ProcessorFormatter.remove_processors_meta]
    if fmt == "json":  # tracebacks without their frames' locals: a local may hold a hand or a seed
        final.append(ExceptionRenderer(ExceptionDictTransformer(show_locals=False)))
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "structured": {
                "()": structlog.stdlib.ProcessorFormatter,
                "processors": [*final, renderer],
                # lines from plain `logging` calls (Django, Celery, uvicorn, ours) get the same fields
                "foreign_pre_chain": [
                    *_shared_processors(),
                    structlog.stdlib.ExtraAdder(),
                    drop_color_message,
                    redact_secret_params,
                ],
            }
        },
        "filters": {"tasks_that_did_something": {"()": TasksThatDidSomething}},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "structured"}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # Idle is quiet: one line per task that did something (celery.app.trace's, filtered),
            # not five (beat's "sending", the worker's "received", django-structlog's enqueued,
            # started and succeeded). Failures and retries still come at WARNING and above.
            "celery.beat": {"level": "WARNING"},
            "celery.worker.strategy": {"level": "WARNING"},
            "django_structlog.celery.receivers": {"level": "WARNING"},
            "celery.app.trace": {"filters": ["tasks_that_did_something"]},
            # django-structlog's request_finished line is the access log
            "django.server": {"level": "WARNING"},
            "django.request": {"level": "ERROR"},
            # httpx (webhook deliveries, notify/webhooks.py) logs every request it sends at info
            "httpx": {"level": "WARNING"},
            "httpcore": {"level": "WARNING"},
        },
    }
