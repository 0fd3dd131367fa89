"""Local settings: `make run` on the embedded default (SQLite, filesystem broker): DEBUG unless told
otherwise, readable log lines, database metrics, webhooks to local receivers."""

import os

from config import logs
from config.settings.base import *  # noqa: F403
from config.settings.database import DATABASES, instrument_database
from config.settings.env import env_bool

DEBUG = env_bool("DEBUG", True)

LOG_FORMAT = os.environ.get("LOG_FORMAT", "console")
LOGGING = logs.configure(LOG_FORMAT, os.environ.get("LOG_LEVEL", "INFO"))
DATABASES = instrument_database(DATABASES)

TABULA_WEBHOOK_ALLOW_PRIVATE = True  # local receivers (http, loopback) are allowed under `make run`
