"""Test settings: the `setup` option is allowed, passwords hash fast, Celery runs tasks inline
unless a test starts a real worker (tests/games/test_worker.py)."""

import os

from config.settings.base import *  # noqa: F403
from config.settings.base import DATABASES, LOGGING, VAR_DIR

TABULA_ALLOW_SETUP = True
TABULA_TOKEN_CACHE = False  # tests change tokens with raw updates; tests/api/test_token_cache.py turns it on
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LOGGING["root"]["level"] = "ERROR"
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
TABULA_QUEUE_TIMERS = False  # inline tasks cannot wait for a countdown: the sweep fires deadlines
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not memory, so that a real worker thread sees what a test committed.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
if CELERY_BROKER_URL.startswith("filesystem://"):  # noqa: F405
    # Tests keep their own queue, apart from a `make run` on the same checkout.
    _test_broker = VAR_DIR / "test-broker"
    for _folder in ("queue", "processed", "control"):
        (_test_broker / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_test_broker / "queue"),
        "data_folder_out": str(_test_broker / "queue"),
        "processed_folder": str(_test_broker / "processed"),
        "control_folder": str(_test_broker / "control"),
        "store_processed": False,
        "polling_interval": TABULA_BROKER_POLL_S,  # noqa: F405
    }

# Each pytest-xdist process gets its own queue, so a worker started by one never runs another's tasks.
CELERY_TASK_DEFAULT_QUEUE = "tabula-test-" + os.environ.get("PYTEST_XDIST_WORKER", "main")
DATABASES["default"]["CONN_MAX_AGE"] = 0  # a worker thread must not keep the test database open
WHITENOISE_USE_FINDERS = True  # serve static files from the apps, without collectstatic
WHITENOISE_AUTOREFRESH = True

# --- Abuse and faults (issue 10) ------------------------------------------------------------------
# Limits and quotas are off here unless a test turns them on (tests/api/test_limits.py): the
# suite's own floods are not abuse. Each process keeps its cache in memory.
TABULA_RATE_LIMITS_OFF = True
TABULA_MAX_OPEN_MATCHES = 10_000
TABULA_MAX_BOT_MATCHES = 10_000
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "tabula-test"}}
# Every task on this process's own queue, where the worker a test starts listens.
CELERY_TASK_ROUTES = {name: {"queue": CELERY_TASK_DEFAULT_QUEUE} for name in CELERY_TASK_ROUTES}  # noqa: F405
TABULA_BOT_TURN_MOVES = 500  # inline tasks: re-queueing would nest one task inside another

# --- Notifications (issue 12) ---
TABULA_WEBHOOK_ALLOW_PRIVATE = True  # loopback receivers; tests/notifications turn it off for the SSRF checks
TABULA_WEBHOOK_BACKOFF_S = [0.2, 0.2, 0.2]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
TABULA_STREAM_POLL_S = 0.05
