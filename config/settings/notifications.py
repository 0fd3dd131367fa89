"""Notifications beyond the inbox: webhooks (delivery, retries, the SSRF guard) and the "your turn" e-mail."""

from __future__ import annotations

import os

from config.settings.env import VAR_DIR, env_bool

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
TABULA_PUBLIC_URL = os.environ.get("TABULA_PUBLIC_URL", "http://127.0.0.1:8000")  # the links in a mail
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Tabula <tabula@localhost>")
if os.environ.get("EMAIL_HOST"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
    EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
else:  # mails are files under var/mail/ (Django makes the folder)
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = str(VAR_DIR / "mail")
