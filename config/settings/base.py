"""Settings shared by every environment. Everything deploy-specific comes from the environment."""

from __future__ import annotations

import logging
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
from corsheaders.defaults import default_headers as cors_default_headers

from config import logs

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("TABULA_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


SECRET_KEY = os.environ.get("SECRET_KEY", "insecure-development-key-set-SECRET_KEY-in-production")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "games",
    "notify",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files (admin, the offline Swagger UI) from gunicorn
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "accounts.User"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

# PostgreSQL in production (DATABASE_URL=postgres://…); SQLite under var/ by default.
DEFAULT_SQLITE = f"sqlite:///{VAR_DIR / 'tabula.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", DEFAULT_SQLITE),
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "600")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers run beside the one writer; IMMEDIATE takes the write lock up front, so two
    # racing writers queue instead of failing on lock upgrade.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.BearerOrTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "api.schema.TabulaAutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "EXCEPTION_HANDLER": "api.exceptions.problem_exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Tabula API",
    "DESCRIPTION": (
        "Asynchronous tabletop games as a service: EKKO, Enka, Ekö and Ecos. "
        "Authenticate with `Authorization: Token <key>` from `POST /api/v1/auth/register` or `auth/token`. "
        "Errors are RFC 9457 problem documents with a stable `code`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "OAS_VERSION": "3.1.0",  # JSON Schema's "null": a nullable $ref (a state's view, result) is expressible
    "POSTPROCESSING_HOOKS": [
        "api.schema.paths_without_trailing_slash",
        "api.schema.stream_paths",
        "api.schema.add_game_schemas",
        "api.schema.problem_responses",
        "api.schema.openapi_31_nullable",
    ],
}

# Celery: filesystem:// broker under var/ by default (no server to install); Redis in production.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
BROKER_DIR = VAR_DIR / "broker"
# The filesystem broker is polled: kombu looks at the queue folder again after this long when it
# found nothing (its default, 1 s, made a bot answer a human about 1 s late: issue 15). 0.05 s
# costs make run's three workers about 1 % of a core while idle (bench section "bots"). Redis is
# not polled: its workers block on BRPOP.
TABULA_BROKER_POLL_S = float(os.environ.get("TABULA_BROKER_POLL_S", "0.05"))
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        "polling_interval": TABULA_BROKER_POLL_S,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ALWAYS_EAGER = False
CELERY_BEAT_SCHEDULE = {
    "sweep-due-deadlines": {"task": "games.tasks.deadlines_sweep", "schedule": timedelta(seconds=5)},
    # ranks are refreshed after every rated match; hourly too, for players leaving the active window
    "refresh-leaderboards": {"task": "games.tasks.leaderboards_refresh", "schedule": timedelta(hours=1)},
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# Tabula's own knobs.
TABULA_ALLOW_SETUP = False  # the `setup` option: test settings or staff only
TABULA_TIMER_HORIZON_S = 60  # deadlines further away than this are left to the sweep
TABULA_QUEUE_TIMERS = True  # queue a countdown task per deadline (False where tasks run inline: tests)
TABULA_STATE_CACHE_SIZE = 512  # matches whose latest state each process keeps
TABULA_TOKEN_TTL_DAYS = int(os.environ.get("TABULA_TOKEN_TTL_DAYS", "365"))  # API tokens expire after this
TABULA_TOKEN_TOUCH_S = 60  # a token's last_used is written at most this often
# With Redis, each process caches token lookups and checks one Redis counter per request instead
# (accounts/tokencache.py: a revoked token is refused at once); TABULA_TOKEN_CACHE=false to query always.
TABULA_TOKEN_CACHE = env_bool("TABULA_TOKEN_CACHE", True)
TABULA_PROVISIONAL_GAMES = int(os.environ.get("TABULA_PROVISIONAL_GAMES", "10"))  # rated games before listed
TABULA_LEADERBOARD_ACTIVE_DAYS = int(os.environ.get("TABULA_LEADERBOARD_ACTIVE_DAYS", "90"))  # recent window

VAR_DIR.mkdir(parents=True, exist_ok=True)
if CELERY_BROKER_URL.startswith("filesystem://"):
    for _folder in ("queue", "processed", "control"):
        (BROKER_DIR / _folder).mkdir(parents=True, exist_ok=True)

# --- Operations (issue 16): structured logs, request ids, CORS, metrics, health ------------------
# Logs: JSON lines unless LOG_FORMAT=console (the dev settings' default); see config/logs.py.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "json")
LOGGING = logs.configure(LOG_FORMAT, os.environ.get("LOG_LEVEL", "INFO"))
DJANGO_STRUCTLOG_TRUST_UPSTREAM_REQUEST_ID = True  # core.middleware vetted or made the X-Request-ID
DJANGO_STRUCTLOG_STATUS_START_LOG_LEVEL = logging.DEBUG  # one line per request: request_finished
DJANGO_STRUCTLOG_STATUS_4XX_LOG_LEVEL = logging.INFO  # a refused move is the client's business
DJANGO_STRUCTLOG_IP_LOGGING_ENABLED = False
DJANGO_STRUCTLOG_CELERY_ENABLED = True  # tasks carry the request id of the request that queued them
CELERY_WORKER_HIJACK_ROOT_LOGGER = False  # Celery logs through LOGGING (config/celery.py)

INSTALLED_APPS += ["django_prometheus", "django_structlog", "corsheaders"]
MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "core.middleware.RequestIdMiddleware",
    "core.middleware.ProbeMiddleware",  # /livez, /readyz, /metrics: nothing below runs for them
    "django_structlog.middlewares.RequestMiddleware",
    "corsheaders.middleware.CorsMiddleware",  # preflights answer here, before authentication
    *MIDDLEWARE,
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

# CORS: only the API; never with credentials (the session-authenticated paths stay same-origin).
# CORS_ALLOWED_ORIGINS=https://a.example,https://b.example restricts the API to those origins;
# unset, any origin may call the token-authenticated API (TABULA_CORS_ANY_ORIGIN=false to refuse).
CORS_URLS_REGEX = r"^/api/"
CORS_ALLOWED_ORIGINS = env_list("CORS_ALLOWED_ORIGINS", "")
CORS_ALLOW_ALL_ORIGINS = not CORS_ALLOWED_ORIGINS and env_bool("TABULA_CORS_ANY_ORIGIN", True)
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_HEADERS = [*cors_default_headers, "idempotency-key", "if-none-match", "x-request-id"]
CORS_EXPOSE_HEADERS = ["ETag", "X-Request-ID", "Retry-After", "RateLimit", "RateLimit-Policy", "Link", "Location"]

# Metrics (/metrics): with TABULA_METRICS_TOKEN set, a scrape sends `Authorization: Bearer <token>`;
# without it only loopback and private addresses may scrape. Worker processes serve theirs on
# TABULA_WORKER_METRICS_PORT (config/celery.py). PROMETHEUS_MULTIPROC_DIR is set by the start-up
# scripts, which empty it first.
TABULA_METRICS_TOKEN = os.environ.get("TABULA_METRICS_TOKEN", "")
TABULA_METRICS_QUEUES = env_list("TABULA_METRICS_QUEUES", "celery,timers,bots")  # queue depth, per queue
TABULA_READY_TIMEOUT_S = float(os.environ.get("TABULA_READY_TIMEOUT_S", "2"))  # each /readyz check


def instrument_database(databases: dict[str, Any]) -> None:
    """django-prometheus' database wrappers (query counts and latency), for the running service."""
    for db in databases.values():
        engine = db["ENGINE"]
        if engine == "core.postgresql":  # the hardening backend (a deadline per query), with metrics
            db["ENGINE"] = "core.postgresql_metrics"
        elif engine in ("django.db.backends.postgresql", "django.db.backends.sqlite3"):
            db["ENGINE"] = "django_prometheus.db.backends." + engine.rsplit(".", 1)[1]


# --- Web client (issue 14): the browser client served at `/` from `web/` (static ES modules, WhiteNoise).
INSTALLED_APPS += ["web"]
# --- Abuse and faults (issue 10): limits, rate limits, quotas, clean failure, worker queues -------
# Request bodies: every request is small (a move is well under 1 KiB). Over the limit: 413, unread.
TABULA_MAX_BODY_BYTES = int(os.environ.get("TABULA_MAX_BODY_BYTES", str(16 * 1024)))
TABULA_MAX_BODY_BYTES_BY_PATH = {r"^/api/v1/matches/?$": 64 * 1024}  # creation: a staff `setup` deal
TABULA_MAX_JSON_DEPTH = 32
TABULA_MAX_IDEMPOTENCY_KEY = 255
REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"] = ["api.limits.StrictJSONParser"]
REST_FRAMEWORK["DEFAULT_PAGINATION_CLASS"] = "api.pagination.CappedLimitOffsetPagination"
REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"] = ["api.ratelimit.ScopedRateLimit"]
MIDDLEWARE.insert(1, "api.limits.ApiGuardMiddleware")  # right after SecurityMiddleware, before any body is read
MIDDLEWARE.append("api.ratelimit.RateLimitMiddleware")
TABULA_MAX_PAGE_SIZE = 100  # every list endpoint
TABULA_EVENTS_PAGE_SIZE = 500  # GET matches/{id}/events without `limit`
TABULA_EVENTS_MAX_PAGE_SIZE = 1000

# Rate limits: "<count>/<period>" with s, m, h or d; per scope, counted in the shared cache below
# (so they hold across web processes). TABULA_RATE_LIMITS=off turns every one off (load tests on a
# private machine); TABULA_RATE_LIMITS="moves=600/m,reads=2000/m" overrides some.
TABULA_RATE_LIMIT_DEFAULTS = {
    "login_ip": "30/m",  # POST auth/token, per client address
    "login_user": "10/m",  # POST auth/token, per username tried
    "register_ip": "20/h",  # POST auth/register, per client address
    "create": "30/m",  # POST matches, per user
    "moves": "600/m",  # POST matches/{id}/moves, per user: stops abuse, never a human's pace
    "writes": "300/m",  # every other POST/PATCH/DELETE, per user
    "reads": "1200/m",  # GET, per user
    "anon": "300/m",  # every anonymous request, per client address
    "export": "10/m",  # GET users/{username}/export, per user (a streamed dump of many matches)
}
TABULA_RATE_LIMITS_OFF = os.environ.get("TABULA_RATE_LIMITS", "").strip().lower() in {"off", "0", "false", "no"}
TABULA_RATE_LIMITS = dict(TABULA_RATE_LIMIT_DEFAULTS)
if not TABULA_RATE_LIMITS_OFF:
    for _item in env_list("TABULA_RATE_LIMITS", ""):
        _scope, _, _rate = _item.partition("=")
        if _scope.strip() in TABULA_RATE_LIMITS and _rate.strip():
            TABULA_RATE_LIMITS[_scope.strip()] = _rate.strip()
# Failed logins for one username: after this many in a row, wait 2, 4, 8… s (at most the cap).
TABULA_LOGIN_BACKOFF_AFTER = 5
TABULA_LOGIN_BACKOFF_MAX_S = 900
# Client address: REMOTE_ADDR, or with N trusted proxies in front, the Nth address from the right
# of X-Forwarded-For (never trust the header without a proxy that sets it).
TABULA_TRUSTED_PROXIES = int(os.environ.get("TABULA_TRUSTED_PROXIES", "0"))

# The shared cache (rate limits, the sweep's memory): Redis when REDIS_URL or the broker is Redis;
# on the embedded default a file cache under var/, which every local process shares.
REDIS_URL = os.environ.get("REDIS_URL") or (CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "tabula",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
            "KEY_PREFIX": "tabula",
            "OPTIONS": {"MAX_ENTRIES": 20000},
        }
    }

# Quotas per user.
TABULA_MAX_OPEN_MATCHES = int(os.environ.get("TABULA_MAX_OPEN_MATCHES", "20"))  # created, not yet started
TABULA_MAX_BOT_MATCHES = int(os.environ.get("TABULA_MAX_BOT_MATCHES", "10"))  # active, with a bot seat
TABULA_MAX_OPTION_INT = 366 * 24 * 3600  # any integer option (a year, in seconds, is the largest sane one)

# Clean failure: a database that is down, refusing or hung answers 503 within a few seconds.
TABULA_DB_CONNECT_TIMEOUT_S = int(os.environ.get("TABULA_DB_CONNECT_TIMEOUT_S", "3"))
TABULA_DB_STATEMENT_TIMEOUT_S = int(os.environ.get("TABULA_DB_STATEMENT_TIMEOUT_S", "5"))
# The hot path's statements (core/sql.py) are prepared once per connection on PostgreSQL; false
# behind a pooler that cannot keep prepared statements (PgBouncer in transaction mode before 1.21).
TABULA_DB_PREPARED = env_bool("TABULA_DB_PREPARED", True)
TABULA_RETRY_AFTER_S = 5
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["ENGINE"] = "core.postgresql"  # PostgreSQL with a client-side query deadline
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "connect_timeout": TABULA_DB_CONNECT_TIMEOUT_S,
            "options": f"-c statement_timeout={TABULA_DB_STATEMENT_TIMEOUT_S * 1000}"
            f" -c lock_timeout={TABULA_DB_STATEMENT_TIMEOUT_S * 1000}",
            "keepalives": 1,
            "keepalives_idle": 5,
            "keepalives_interval": 2,
            "keepalives_count": 3,
            "tcp_user_timeout": (TABULA_DB_STATEMENT_TIMEOUT_S + 2) * 1000,
        }
    )

# Worker isolation: timers and bots on their own queues, each with its own worker processes.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {
    "games.tasks.deadline_fire": {"queue": "timers"},
    "games.tasks.deadlines_sweep": {"queue": "timers"},
    "games.tasks.bots_play": {"queue": "bots"},
}
TABULA_BOT_TURN_MOVES = 8  # a bot task plays this many moves, then queues the rest behind others' turns

# --- Notifications, streams, webhooks, e-mail (issue 12) ---------------------------------------------
CELERY_BEAT_SCHEDULE["webhooks-sweep"] = {"task": "games.tasks.webhooks_sweep", "schedule": timedelta(seconds=30)}
CELERY_BEAT_SCHEDULE["clock-low-sweep"] = {"task": "games.tasks.clock_low_sweep", "schedule": timedelta(seconds=10)}
CELERY_TASK_ROUTES["games.tasks.clock_low_sweep"] = {"queue": "timers"}
# Streams (config/stream.py): caps per user and per process; beyond them 503 with a jittered Retry-After.
TABULA_STREAMS_PER_USER = int(os.environ.get("TABULA_STREAMS_PER_USER", "8"))
TABULA_STREAMS_PER_PROCESS = int(os.environ.get("TABULA_STREAMS_PER_PROCESS", "5000"))
TABULA_STREAM_KEEPALIVE_S = 15.0
TABULA_STREAM_POLL_S = float(os.environ.get("TABULA_STREAM_POLL_S", "0.25"))  # embedded default: the shared poll
TABULA_STREAM_TICKET_TTL_S = 60
TABULA_STREAM_MAX_LIFE_S = 3600  # a stream ends after this; the client resumes with Last-Event-ID
TABULA_GUNICORN_SOCKET = os.environ.get("TABULA_GUNICORN_SOCKET", str(VAR_DIR / "run" / "gunicorn.sock"))
# Webhooks: production accepts only https to public addresses (notify/ssrf.py).
TABULA_WEBHOOKS = True
TABULA_WEBHOOK_ALLOW_PRIVATE = env_bool("TABULA_WEBHOOK_ALLOW_PRIVATE", False)
TABULA_WEBHOOK_TIMEOUT_S = 5.0
# About three days: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h, 24 h, 24 h (±20 % jitter).
TABULA_WEBHOOK_BACKOFF_S: list[float] = [
    5,
    30,
    120,
    600,
    1800,
    3600,
    3 * 3600,
    6 * 3600,
    12 * 3600,
    24 * 3600,
    24 * 3600,
]
TABULA_WEBHOOK_MAX_FAILURES = 5  # deliveries in a row that exhausted their retries: the endpoint is disabled
# E-mail: a "your turn" digest at most once per interval; none while a stream is open or the user is active.
TABULA_EMAIL = True
TABULA_EMAIL_INTERVAL_S = int(os.environ.get("TABULA_EMAIL_INTERVAL_S", str(6 * 3600)))
TABULA_EMAIL_ACTIVE_S = int(os.environ.get("TABULA_EMAIL_ACTIVE_S", "300"))
TABULA_EMAIL_DELAY_S = int(os.environ.get("TABULA_EMAIL_DELAY_S", "300"))  # wait this long after a your_turn
TABULA_PUBLIC_URL = os.environ.get("TABULA_PUBLIC_URL", "http://127.0.0.1:8000")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Tabula <tabula@localhost>")
if os.environ.get("EMAIL_HOST"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
    EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = str(VAR_DIR / "mail")
