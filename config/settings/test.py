"""Test settings: the `setup` option is allowed, passwords hash fast, Celery runs tasks inline
unless a test starts a real worker (tests/games/test_worker.py); limits and quotas are off unless a
test turns them on (tests/api/test_limits.py): the suite's own floods are not abuse."""

import os

from config.settings.base import *  # noqa: F403
from config.settings.celery import CELERY_BROKER_URL, CELERY_TASK_ROUTES, filesystem_broker
from config.settings.database import DATABASES as _configured
from config.settings.env import VAR_DIR
from config.settings.observability import LOGGING

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
LOGGING = {**LOGGING, "root": {**LOGGING["root"], "level": "ERROR"}}
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "tabula-test"},
    "replay": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "tabula-test-replay"},
}
WHITENOISE_USE_FINDERS = True  # serve static files from the apps, without collectstatic
WHITENOISE_AUTOREFRESH = True

_database = {**_configured["default"], "CONN_MAX_AGE": 0}  # a worker thread must not keep the test database open
if _database["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not memory, so that a real worker thread sees what a test committed.
    _database["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
DATABASES = {"default": _database}
if "replica" in _configured:  # tests/ops/test_replica.py runs a real streaming replica
    DATABASES["replica"] = {**_configured["replica"], "CONN_MAX_AGE": 0}

# Celery: tasks run inline; a worker a test starts listens on this process's own queue (one per
# pytest-xdist process, so it never runs another's tasks), on a broker folder apart from `make run`'s.
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_DEFAULT_QUEUE = "tabula-test-" + os.environ.get("PYTEST_XDIST_WORKER", "main")
CELERY_TASK_ROUTES = {name: {"queue": CELERY_TASK_DEFAULT_QUEUE} for name in CELERY_TASK_ROUTES}
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = filesystem_broker(VAR_DIR / "test-broker")

# The game platform: deals on demand, inline tasks.
TABULA_ALLOW_SETUP = True
TABULA_QUEUE_TIMERS = False  # inline tasks cannot wait for a countdown: the sweep fires deadlines
TABULA_BOT_TURN_MOVES = 500  # inline tasks: re-queueing would nest one task inside another

# Limits and quotas off (each process keeps its cache in memory, above).
TABULA_RATE_LIMITS_OFF = True
TABULA_MAX_OPEN_MATCHES = 10_000
TABULA_MAX_BOT_MATCHES = 10_000

TABULA_TOKEN_CACHE = False  # tests change tokens with raw updates; tests/api/test_token_cache.py turns it on
TABULA_JSON_RENDERER_CHECK = True  # every answer rendered by orjson and by DRF must be the same (api/renderers.py)

# Notifications and streams: loopback receivers (tests/notifications turn it off for the SSRF
# checks), fast retries, mails in memory, a fast poll.
TABULA_WEBHOOK_ALLOW_PRIVATE = True
TABULA_WEBHOOK_BACKOFF_S = [0.2, 0.2, 0.2]
TABULA_PUSH_BACKOFF_S = [0.2, 0.2]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
TABULA_STREAM_POLL_S = 0.05

# Away: short absences and no interval between them, so tests run in simulated minutes.
TABULA_AWAY = {**TABULA_AWAY, "min_s": 60, "interval_s": 0}  # noqa: F405
