"""Logs, request ids, metrics and health: structured log lines (config/logs.py) with the request id,
the Prometheus scrape, and the readiness probe's checks."""

from __future__ import annotations

import logging
import os

from config import logs
from config.settings.env import env_list

# Logs: JSON lines unless LOG_FORMAT=console (the dev settings' default); see config/logs.py.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "json")
LOGGING = logs.configure(LOG_FORMAT, os.environ.get("LOG_LEVEL", "INFO"))
# django-structlog's request line, the access log (one `request_finished` per answer, early ones included).
DJANGO_STRUCTLOG_TRUST_UPSTREAM_REQUEST_ID = True  # core.middleware vetted or made the X-Request-ID
DJANGO_STRUCTLOG_STATUS_START_LOG_LEVEL = logging.DEBUG  # one line per request: request_finished
DJANGO_STRUCTLOG_STATUS_4XX_LOG_LEVEL = logging.INFO  # a refused move is the client's business
DJANGO_STRUCTLOG_IP_LOGGING_ENABLED = False
DJANGO_STRUCTLOG_CELERY_ENABLED = True  # tasks carry the request id of the request that queued them

# Metrics (/metrics): a scrape sends `Authorization: Bearer <TABULA_METRICS_TOKEN>`, or comes from an
# address in TABULA_METRICS_ALLOW (networks, comma-separated; loopback only by default). The address
# is the TCP peer, never X-Forwarded-For: behind a proxy every client shares the proxy's address, so
# only a token or a list naming the scraper's own network (not the proxy's) is safe there.
# Worker processes serve theirs on
# TABULA_WORKER_METRICS_PORT (config/celery.py). PROMETHEUS_MULTIPROC_DIR is set by the start-up
# scripts, which empty it first.
TABULA_METRICS_TOKEN = os.environ.get("TABULA_METRICS_TOKEN", "")
TABULA_METRICS_ALLOW = env_list("TABULA_METRICS_ALLOW", "127.0.0.0/8,::1/128")
TABULA_METRICS_QUEUES = env_list("TABULA_METRICS_QUEUES", "celery,timers,bots")  # queue depth, per queue
TABULA_READY_TIMEOUT_S = float(os.environ.get("TABULA_READY_TIMEOUT_S", "2"))  # each /readyz check
