"""Production: every secret and address from the environment."""

import os

from config.settings.base import *  # noqa: F403

SECRET_KEY = os.environ["SECRET_KEY"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True

# --- Operations (issue 16) ---
from config.settings.base import DATABASES, instrument_database  # noqa: E402

instrument_database(DATABASES)
