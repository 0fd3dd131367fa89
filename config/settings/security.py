"""Security: who may call the API from a browser (CORS), how long API tokens live, and which address a
request comes from behind proxies. Production's HTTPS hardening is in prod.py."""

from __future__ import annotations

import os

from corsheaders.defaults import default_headers as cors_default_headers

from config.settings.env import env_bool, env_list

# CORS: only the API; never with credentials (the session-authenticated paths stay same-origin).
# CORS_ALLOWED_ORIGINS=https://a.example,https://b.example restricts the API to those origins;
# unset, any origin may call the token-authenticated API (TABULA_CORS_ANY_ORIGIN=false to refuse).
CORS_URLS_REGEX = r"^/api/"
CORS_ALLOWED_ORIGINS = env_list("CORS_ALLOWED_ORIGINS", "")
CORS_ALLOW_ALL_ORIGINS = not CORS_ALLOWED_ORIGINS and env_bool("TABULA_CORS_ANY_ORIGIN", True)
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_HEADERS = [*cors_default_headers, "idempotency-key", "if-none-match", "x-request-id"]
CORS_EXPOSE_HEADERS = ["ETag", "X-Request-ID", "Retry-After", "RateLimit", "RateLimit-Policy", "Link", "Location"]

# API tokens.
TABULA_TOKEN_TTL_DAYS = int(os.environ.get("TABULA_TOKEN_TTL_DAYS", "365"))  # API tokens expire after this
TABULA_TOKEN_TOUCH_S = 60  # a token's last_used is written at most this often
# With Redis, each process caches token lookups and checks one Redis counter per request instead
# (accounts/tokencache.py: a revoked token is refused at once); TABULA_TOKEN_CACHE=false to query always.
TABULA_TOKEN_CACHE = env_bool("TABULA_TOKEN_CACHE", True)

# Client address: REMOTE_ADDR, or with N trusted proxies in front, the Nth address from the right
# of X-Forwarded-For (never trust the header without a proxy that sets it). Rate limits count by it.
TABULA_TRUSTED_PROXIES = int(os.environ.get("TABULA_TRUSTED_PROXIES", "0"))
