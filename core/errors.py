"""The platform's error vocabulary: each error has a stable ``code`` (an API contract) and its HTTP status.

It lives in `core`, beneath every app, so that each raises these without importing another;
`games.errors` adds the errors of play, `api.idempotency` its own. ``api/exceptions.py`` renders
every one as an RFC 9457 problem document.
"""

from __future__ import annotations

from typing import Any

PROBLEM = "application/problem+json"
TYPE_BASE = "https://tabula.example/problems/"


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> dict[str, Any]:
    """An RFC 9457 problem document: ``type`` names the ``code``, a stable part of the API contract."""
    return {"type": TYPE_BASE + code, "title": title, "status": status, "detail": detail, "code": code, **extra}


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
