"""Notifications beyond the inbox: webhooks (delivery, retries, the SSRF guard) and the "your turn" e-mail."""

from __future__ import annotations

import os
from collections.abc import Mapping

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
# Retention (notify/retention.py, hourly): inbox entries, and deliveries that are over, are deleted
# after these many days.
TABULA_INBOX_RETENTION_DAYS = int(os.environ.get("TABULA_INBOX_RETENTION_DAYS", "90"))
TABULA_DELIVERY_RETENTION_DAYS = int(os.environ.get("TABULA_DELIVERY_RETENTION_DAYS", "30"))
TABULA_WEBHOOK_MAX_FAILURES = 5  # deliveries in a row that exhausted their retries: the endpoint is disabled

# Web Push (notify/push.py): the VAPID key (PEM) from the environment, else this checkout's own file,
# made on first use; the subject push services may contact; retries; subscriptions per user.
TABULA_PUSH = env_bool("TABULA_PUSH", True)
TABULA_VAPID_PRIVATE_KEY = os.environ.get("TABULA_VAPID_PRIVATE_KEY", "")
TABULA_VAPID_KEY_FILE = os.environ.get("TABULA_VAPID_KEY_FILE", str(VAR_DIR / "vapid_private.pem"))
TABULA_VAPID_SUBJECT = os.environ.get("TABULA_VAPID_SUBJECT", "mailto:tabula@localhost")
TABULA_PUSH_BACKOFF_S: list[float] = [5, 30, 120, 600, 3600]
TABULA_MAX_PUSH_SUBSCRIPTIONS = 5

# E-mail: a "your turn" digest at most once per interval; none while a stream is open or the user is active.
TABULA_EMAIL = env_bool("TABULA_EMAIL", True)  # TABULA_EMAIL=0: no digests at all (the notification bench)
TABULA_EMAIL_INTERVAL_S = int(os.environ.get("TABULA_EMAIL_INTERVAL_S", str(6 * 3600)))
TABULA_EMAIL_ACTIVE_S = int(os.environ.get("TABULA_EMAIL_ACTIVE_S", "300"))
TABULA_EMAIL_DELAY_S = int(os.environ.get("TABULA_EMAIL_DELAY_S", "300"))  # wait this long after a your_turn
# A mail's one-click unsubscribe link works this long (notify/mail.py), then answers 400 link_expired.
TABULA_UNSUBSCRIBE_MAX_AGE_S = int(os.environ.get("TABULA_UNSUBSCRIBE_MAX_AGE_S", str(30 * 24 * 3600)))


def public_url(environ: Mapping[str, str]) -> str:
    """The address the links in a mail name: TABULA_PUBLIC_URL, else the host and port the front
    serves under `make run` (bin/run's HOST and PORT, 127.0.0.1:8000 by default; a wildcard host
    is not an address to link to)."""
    if environ.get("TABULA_PUBLIC_URL"):
        return environ["TABULA_PUBLIC_URL"]
    host = environ.get("HOST") or "127.0.0.1"
    host = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{environ.get('PORT') or 8000}"


TABULA_PUBLIC_URL = public_url(os.environ)  # the links in a mail
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
