"""Cache and Redis: the cache every process shares (rate limits, the sweep's memory) and REDIS_URL, which
the streams' fan-out and the token cache use too."""

from __future__ import annotations

import os

from config.settings.celery import CELERY_BROKER_URL
from config.settings.env import VAR_DIR

# Redis when REDIS_URL is set or the broker is Redis; on the embedded default a file cache under
# var/ (Django makes its folder on first write), which every local process shares: Django's, listing
# its folder to cull once in fifty writes (core/filecache.py).
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
    CACHES["replay"] = CACHES["default"]  # the matches' replay snapshots (games/replay.py)
else:
    CACHES = {
        "default": {
            "BACKEND": "core.filecache.FileCache",
            "LOCATION": str(VAR_DIR / "cache"),
            "KEY_PREFIX": "tabula",
            "OPTIONS": {"MAX_ENTRIES": 20000},
        },
        # The matches' replay snapshots (games/replay.py) in a folder of their own: the file cache
        # lists its whole folder to cull, and a file per match would slow every other write (the
        # rate limits'); here only a snapshot's write pays for it, and 2,000 at most.
        "replay": {
            "BACKEND": "core.filecache.FileCache",
            "LOCATION": str(VAR_DIR / "replay-cache"),
            "KEY_PREFIX": "tabula",
            "OPTIONS": {"MAX_ENTRIES": 2000},
        },
    }
