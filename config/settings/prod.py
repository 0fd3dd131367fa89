"""Production: every secret and address from the environment; `manage.py check --deploy` is clean."""

import os

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F403
from config.settings.database import DATABASES, instrument_database
from config.settings.env import env_bool, env_list

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    raise ImproperlyConfigured(
        "SECRET_KEY is not set: production needs a long random signing key in the environment "
        "(python -c 'import secrets; print(secrets.token_urlsafe(50))'); `manage.py check --deploy` checks it."
    )
DEBUG = False  # pinned: never from the environment in production
# /metrics wants TABULA_METRICS_TOKEN: no address is trusted unless TABULA_METRICS_ALLOW names it (a
# proxy on the same host would make every client look like loopback).
TABULA_METRICS_ALLOW = env_list("TABULA_METRICS_ALLOW", "")
DATABASES = instrument_database(DATABASES)

# HTTPS: HSTS and the redirect are on unless the environment says otherwise; behind a proxy that
# terminates TLS, set SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO (the header it sets) and
# TABULA_TRUSTED_PROXIES=1 (so rate limits see the client's address).
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_REDIRECT_EXEMPT = [r"^livez/?$", r"^readyz/?$", r"^metrics/?$"]  # probes speak plain HTTP inside the network
if os.environ.get("SECURE_PROXY_SSL_HEADER"):
    SECURE_PROXY_SSL_HEADER = (os.environ["SECURE_PROXY_SSL_HEADER"], "https")
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]
