"""Local settings: `make run` on the embedded default (SQLite, filesystem broker)."""

from config.settings.base import *  # noqa: F403
from config.settings.base import env_bool

DEBUG = env_bool("DEBUG", True)
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405  (bin/run collects into it)

# --- Operations (issue 16): readable log lines, database metrics ---
import os  # noqa: E402

from config import logs  # noqa: E402
from config.settings.base import DATABASES, instrument_database  # noqa: E402

LOG_FORMAT = os.environ.get("LOG_FORMAT", "console")
LOGGING = logs.configure(LOG_FORMAT, os.environ.get("LOG_LEVEL", "INFO"))
instrument_database(DATABASES)

# --- Webhooks (issue 12): local receivers (http, loopback) are allowed under `make run` ---
TABULA_WEBHOOK_ALLOW_PRIVATE = True
