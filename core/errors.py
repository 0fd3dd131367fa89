"""The platform's error vocabulary: each error has a stable ``code`` (an API contract) and its HTTP status.

It lives in `core`, beneath every app, so that each raises these without importing another;
`games.errors` adds the errors of play, `api.idempotency` its own. ``api/exceptions.py`` renders
every one as an RFC 9457 problem document.
"""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    code = "error"
    status = 400
    title = "Bad request"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class InvalidRequest(ApplicationError):
    code, status, title = "invalid_request", 400, "Invalid request"


class NotFound(ApplicationError):
    code, status, title = "not_found", 404, "Not found"


class Forbidden(ApplicationError):
    code, status, title = "forbidden", 403, "Forbidden"


class Conflict(ApplicationError):
    """A lifecycle request that does not fit the match's status (join a started match, …)."""

    code, status, title = "conflict", 409, "Conflict"

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.code = code
