"""Application errors: each has a stable ``code`` (an API contract) and the HTTP status it maps to.

Engine refusals (`games.engines.base.RulesError`) are mapped in ``api/exceptions.py``; these are the
platform's own. No message names another seat's hidden cards.
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


class NotSeated(ApplicationError):
    code, status, title = "not_seated", 403, "Not seated"


class Forbidden(ApplicationError):
    code, status, title = "forbidden", 403, "Forbidden"


class StaleVersion(ApplicationError):
    code, status, title = "version_conflict", 409, "Version conflict"

    def __init__(self, current: int) -> None:
        super().__init__(
            f"The match is at version {current}; re-read the state and resend with that expected_version.",
            current_version=current,
        )


class MatchOver(ApplicationError):
    code, status, title = "match_over", 409, "Match over"


class Conflict(ApplicationError):
    """A lifecycle request that does not fit the match's status (join a started match, …)."""

    code, status, title = "conflict", 409, "Conflict"

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.code = code


class IdempotencyKeyReused(ApplicationError):
    code, status, title = "idempotency_key_reused", 422, "Idempotency key reused"
