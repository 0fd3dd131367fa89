"""Settings shared by every environment: Django's own here, every other topic in its module.

Each setting is declared once, whole, in one place: the apps and the middleware here, each topic's
settings in its module (imported below), and the environment modules (dev.py, test.py, prod.py)
replace a value, never change one in place. Everything deploy-specific comes from the environment.

    env.py            paths (VAR_DIR) and the environment readers
    database.py       DATABASES: SQLite or PostgreSQL, timeouts, prepared statements
    cache.py          CACHES and REDIS_URL
    celery.py         the broker, queues and routes, beat's schedule
    api.py            REST_FRAMEWORK, the OpenAPI document, page sizes
    security.py       CORS, API tokens, trusted proxies
    limits.py         body and JSON limits, rate limits, login backoff, quotas
    observability.py  LOGGING and the request log, metrics, readiness
    notifications.py  webhooks and e-mail
    streams.py        live streams and the front
    gameplay.py       clocks and timers, bots, state cache, ratings
    static.py         static files and the web client
"""

from __future__ import annotations

import os

from config.settings.api import *  # noqa: F403
from config.settings.cache import *  # noqa: F403
from config.settings.celery import *  # noqa: F403
from config.settings.database import *  # noqa: F403
from config.settings.env import *  # noqa: F403
from config.settings.env import BASE_DIR, env_bool, env_list
from config.settings.gameplay import *  # noqa: F403
from config.settings.limits import *  # noqa: F403
from config.settings.notifications import *  # noqa: F403
from config.settings.observability import *  # noqa: F403
from config.settings.security import *  # noqa: F403
from config.settings.static import *  # noqa: F403
from config.settings.streams import *  # noqa: F403
from config.settings.talk import *  # noqa: F403
from config.settings.tournaments import *  # noqa: F403
from core.checks import DEVELOPMENT_SECRET_KEY

SECRET_KEY = os.environ.get("SECRET_KEY", DEVELOPMENT_SECRET_KEY)  # dev.py: var/secret_key; prod: required
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")

# Apps: Django's, the libraries', then Tabula's (the rules engines, rules/, are a plain package).
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
    "drf_spectacular_sidecar",  # the Swagger UI's files, served offline
    "django_prometheus",
    "django_structlog",
    "corsheaders",
    "accounts",
    "games",
    "notify",
    "circles",  # follow and block
    "talk",  # chat, private notes, nudges
    "tournaments",  # tables of two to six, round robin, Swiss, elimination
    "api",
    "web",  # the browser client
]

# Middleware, outermost first. The request id and the request log come before anything that may
# answer early (a probe, a preflight, the API guard's 413 and 400, host validation, a rate limit),
# so every answer carries X-Request-ID and gets its request_finished line.
MIDDLEWARE = [
    "api.release.ReleaseMiddleware",  # last on the way out: frees a DRF answer's view and request at once
    "django_prometheus.middleware.PrometheusBeforeMiddleware",  # request counts and latency, of every answer
    "core.middleware.RequestIdMiddleware",  # takes or makes the X-Request-ID, returns it on every answer
    "django_structlog.middlewares.RequestMiddleware",  # the request log: one request_finished line per answer
    "core.middleware.BadRequestMiddleware",  # too many parameters, a form too big: problem+json, on every path
    "core.middleware.ProbeMiddleware",  # /livez, /readyz, /metrics: nothing below runs for them
    "core.middleware.CompressionMiddleware",  # gzip for whole answers; streams and static files pass
    "corsheaders.middleware.CorsMiddleware",  # preflights answer here, before authentication
    "django.middleware.security.SecurityMiddleware",
    "api.limits.ApiGuardMiddleware",  # /api/: 413 from Content-Length before any body is read; problem+json errors
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files (admin, the offline Swagger UI, the web client)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "core.replicas.ReplicaReadsMiddleware",  # lag-tolerant reads to a replica, if one is configured
    "django.middleware.locale.LocaleMiddleware",  # Accept-Language → the request's language; Content-Language
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "core.middleware.PageMessageMiddleware",  # Django's messages, for the admin's pages: not the API's
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
    "api.ratelimit.RateLimitMiddleware",  # anonymous API requests per address; RateLimit fields on every answer
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
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

# Users and passwords.
AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Language and time. Three languages (issue 33, `languages`): a request speaks its caller's stored
# language (api.authentication activates it) or else its Accept-Language (LocaleMiddleware, which
# also answers Content-Language and Vary: Accept-Language); what is sent without a request speaks
# the recipient's. The platform's sentences are gettext catalogues in languages/locale/.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("pl", "Polski"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "languages" / "locale"]  # in the package: the wheel carries it
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
