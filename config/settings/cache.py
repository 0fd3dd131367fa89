"""Cache and Redis: the cache every process shares (rate limits, the sweep's memory) and REDIS_URL, which
the streams' fan-out and the token cache use too."""

from __future__ import annotations

import os

from config.settings.celery import CELERY_BROKER_URL
from config.settings.env import VAR_DIR

# Redis when REDIS_URL is set or the broker is Redis; on the embedded default a file cache under
# var/ (Django makes its folder on first write), which every local process shares.
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
