"""The REST API: Django REST framework (authentication, parsing, paging, throttling, errors), the
OpenAPI document (drf-spectacular) and the page sizes of the lists."""

from __future__ import annotations

import os

from config.settings.env import env_bool

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.BearerOrTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["api.renderers.JSONRenderer"],  # DRF's bytes, written by orjson
    "DEFAULT_PARSER_CLASSES": ["api.limits.StrictJSONParser"],  # bounded size, depth, characters, numbers
    "DEFAULT_SCHEMA_CLASS": "api.schema.TabulaAutoSchema",
    "DEFAULT_PAGINATION_CLASS": "api.pagination.CappedLimitOffsetPagination",  # at most TABULA_MAX_PAGE_SIZE
    "PAGE_SIZE": 20,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "EXCEPTION_HANDLER": "api.exceptions.problem_exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "DEFAULT_THROTTLE_CLASSES": ["api.ratelimit.ScopedRateLimit"],  # TABULA_RATE_LIMITS (limits.py)
}
TABULA_MAX_PAGE_SIZE = 100  # every list endpoint
# Render every answer by orjson and by DRF, and fail one whose bytes differ (the test settings; api/renderers.py).
TABULA_JSON_RENDERER_CHECK = False
# A stored first answer to an Idempotency-Key is kept this long (api/retention.py, hourly), then the key is new again.
TABULA_IDEMPOTENCY_RETENTION_H = int(os.environ.get("TABULA_IDEMPOTENCY_RETENTION_H", "48"))
# With the token cache on (Redis), each process keeps the summaries of ended matches that a list
# showed, valid until a user changes (the token cache's generation) or a minute passes, the
# latest TABULA_SUMMARY_CACHE_SIZE (api/summaries.py); TABULA_SUMMARY_CACHE=false to read every page whole.
TABULA_SUMMARY_CACHE = env_bool("TABULA_SUMMARY_CACHE", True)
TABULA_SUMMARY_CACHE_SIZE = int(os.environ.get("TABULA_SUMMARY_CACHE_SIZE", "2000"))  # about 5 KB each
TABULA_EVENTS_PAGE_SIZE = 500  # GET matches/{id}/events without `limit`
TABULA_EVENTS_MAX_PAGE_SIZE = 1000

SPECTACULAR_SETTINGS = {
    "TITLE": "Tabula API",
    "DESCRIPTION": (
        "Asynchronous tabletop games as a service: EKKO, Enka, Ekö and Ecos. "
        "Authenticate with `Authorization: Token <key>` from `POST /api/v1/auth/register` or `auth/token`. "
        "Errors are RFC 9457 problem documents with a stable `code`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "OAS_VERSION": "3.1.0",  # JSON Schema's "null": a nullable $ref (a state's view, result) is expressible
    "POSTPROCESSING_HOOKS": [
        "api.schema.paths_without_trailing_slash",
        "api.schema.pages_always_name_their_neighbours",
        "api.schema.stream_paths",
        "api.schema.add_game_schemas",
        "api.schema.one_component_per_nullable_enum",
        "api.schema.problem_responses",
        "api.schema.public_reads_need_no_token",  # after problem_responses: a bad token still gets 401
        "api.schema.openapi_31_nullable",
    ],
}
