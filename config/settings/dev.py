"""Local settings: `make run` on the embedded default (SQLite, filesystem broker): readable log lines,
database metrics, webhooks to local receivers. DEBUG only when asked (``DEBUG=1``): it logs every
SQL statement with its parameters in memory, a sixth of the server's CPU per move."""

import os
import warnings

from config import logs
from config.settings.base import *  # noqa: F403
from config.settings.database import DATABASES, instrument_database
from config.settings.env import VAR_DIR, env_bool
from config.settings.limits import TABULA_RATE_LIMIT_DEVELOPMENT, rate_limits

DEBUG = env_bool("DEBUG", False)

# The signing key: SECRET_KEY if set, else this checkout's own, which bin/run (`make run`) makes on
# first run in var/secret_key (mode 0600; var/ is never committed). Without either, the published
# development key, with a warning: anyone could forge this server's sessions and unsubscribe links.
_KEY_FILE = VAR_DIR / "secret_key"
if "SECRET_KEY" not in os.environ:
    if _KEY_FILE.is_file():
        SECRET_KEY = _KEY_FILE.read_text().strip()
    else:
        warnings.warn(
            f"No SECRET_KEY and no {_KEY_FILE}: signing with the published development key (make run makes one).",
            stacklevel=1,
        )

LOG_FORMAT = os.environ.get("LOG_FORMAT", "console")
LOGGING = logs.configure(LOG_FORMAT, os.environ.get("LOG_LEVEL", "INFO"))
DATABASES = instrument_database(DATABASES)

TABULA_WEBHOOK_ALLOW_PRIVATE = True  # local receivers (http, loopback) are allowed under `make run`

# Development limits: production's would lock a developer out (20 registrations an hour per address).
TABULA_RATE_LIMITS = rate_limits(TABULA_RATE_LIMIT_DEVELOPMENT)

# Away: an hour is enough to try an absence out in development (production: a day; config/settings/gameplay.py).
TABULA_AWAY = {**TABULA_AWAY, "min_s": int(os.environ.get("TABULA_AWAY_MIN_S", "3600")), "interval_s": 0}  # noqa: F405
