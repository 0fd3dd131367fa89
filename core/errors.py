"""The platform's error vocabulary: each error has a stable ``code`` (an API contract) and its HTTP status.

It lives in `core`, beneath every app, so that each raises these without importing another;
`games.errors` adds the errors of play, `api.idempotency` its own. ``api/exceptions.py`` renders
every one as an RFC 9457 problem document.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_noop

PROBLEM = "application/problem+json"
TYPE_BASE = "https://tabula.example/problems/"


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> dict[str, Any]:
    """An RFC 9457 problem document: ``type`` names the ``code``, a stable part of the API contract.

    ``title`` and ``detail`` speak the request's language (issue 33): either may be a lazy gettext
    string, made text here under the language active now; ``code``, ``type`` and ``reason`` never
    change with it."""
    return {
        "type": TYPE_BASE + code,
        "title": str(title),
        "status": status,
        "detail": str(detail),
        "code": code,
        **extra,
    }


class ApplicationError(Exception):
    code = "error"
    status = 400
    title = gettext_noop("Bad request")  # marked for the catalogue; api.exceptions translates it

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class InvalidRequest(ApplicationError):
    code, status, title = "invalid_request", 400, gettext_noop("Invalid request")


class NotFound(ApplicationError):
    code, status, title = "not_found", 404, gettext_noop("Not found")


class Forbidden(ApplicationError):
    code, status, title = "forbidden", 403, gettext_noop("Forbidden")


class Conflict(ApplicationError):
    """A lifecycle request that does not fit the match's status (join a started match, …)."""

    code, status, title = "conflict", 409, gettext_noop("Conflict")

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.code = code
