"""Limits: request bodies and JSON shapes, rate limits per scope, failed-login backoff, quotas per user."""

from __future__ import annotations

import os

from config.settings.env import env_list

# Request bodies: every request is small (a move is well under 1 KiB). Over the limit: 413, unread
# (api.limits.ApiGuardMiddleware, from Content-Length).
TABULA_MAX_BODY_BYTES = int(os.environ.get("TABULA_MAX_BODY_BYTES", str(16 * 1024)))
TABULA_MAX_BODY_BYTES_BY_PATH = {r"^/api/v1/matches/?$": 64 * 1024}  # creation: a staff `setup` deal
TABULA_MAX_JSON_DEPTH = 32
TABULA_MAX_IDEMPOTENCY_KEY = 255

# Rate limits: "<count>/<period>" with s, m, h or d; per scope, counted in the shared cache (so they
# hold across web processes). TABULA_RATE_LIMITS=off turns every one off (load tests on a private
# machine); TABULA_RATE_LIMITS="moves=600/m,reads=2000/m" overrides some.
TABULA_RATE_LIMIT_DEFAULTS = {
    "login_ip": "30/m",  # POST auth/token, per client address
    "login_user": "10/m",  # POST auth/token, per username tried
    "register_ip": "20/h",  # POST auth/register, per client address
    "create": "30/m",  # POST matches, per user
    "moves": "600/m",  # POST matches/{id}/moves, per user: stops abuse, never a human's pace
    "writes": "300/m",  # every other POST/PATCH/DELETE, per user
    "reads": "1200/m",  # GET, per user
    "anon": "300/m",  # every anonymous request, per client address
    "export": "10/m",  # GET users/{username}/export, per user (a streamed dump of many matches)
    "chat": "20/m",  # POST matches/{id}/chat, per user: a conversation, never a flood
}
TABULA_RATE_LIMITS_OFF = os.environ.get("TABULA_RATE_LIMITS", "").strip().lower() in {"off", "0", "false", "no"}


# Development (`make run`, config.settings.dev): the same scopes, loose enough that a person trying
# the web client, registering test accounts and signing in and out, never waits.
TABULA_RATE_LIMIT_DEVELOPMENT = {
    **TABULA_RATE_LIMIT_DEFAULTS,
    "login_ip": "600/m",
    "login_user": "120/m",
    "register_ip": "1000/h",
    "create": "300/m",
    "writes": "3000/m",
    "reads": "12000/m",
    "anon": "3000/m",
    "export": "100/m",
    "chat": "200/m",
}


def rate_limits(defaults: dict[str, str] = TABULA_RATE_LIMIT_DEFAULTS) -> dict[str, str]:
    """``defaults`` with what TABULA_RATE_LIMITS overrides."""
    rates = dict(defaults)
    if not TABULA_RATE_LIMITS_OFF:
        for item in env_list("TABULA_RATE_LIMITS", ""):
            scope, _, rate = item.partition("=")
            if scope.strip() in rates and rate.strip():
                rates[scope.strip()] = rate.strip()
    return rates


TABULA_RATE_LIMITS = rate_limits()
# Failed logins for one username: after this many in a row, wait 2, 4, 8… s (at most the cap).
TABULA_LOGIN_BACKOFF_AFTER = 5
TABULA_LOGIN_BACKOFF_MAX_S = 900

# Quotas per user.
TABULA_MAX_OPEN_MATCHES = int(os.environ.get("TABULA_MAX_OPEN_MATCHES", "20"))  # created, not yet started
TABULA_MAX_BOT_MATCHES = int(os.environ.get("TABULA_MAX_BOT_MATCHES", "10"))  # active, with a bot seat
TABULA_MAX_OPTION_INT = 366 * 24 * 3600  # any integer option (a year, in seconds, is the largest sane one)
