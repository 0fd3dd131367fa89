"""The one exception handler: every error is an RFC 9457 problem document with a stable ``code``."""

from __future__ import annotations

import logging
import math
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import get_language, gettext, gettext_noop
from rest_framework import exceptions as drf
from rest_framework.response import Response

from core.errors import PROBLEM as PROBLEM  # the problem vocabulary's home is core.errors
from core.errors import TYPE_BASE as TYPE_BASE
from core.errors import ApplicationError
from core.errors import problem as problem
from languages import DEFAULT
from languages import text as game_text
from rules.base import IllegalMove, InvalidMove, InvalidOptions, NotAwaited, RaceLost, RulesError

log = logging.getLogger(__name__)

_ENGINE_STATUS: dict[type[RulesError], tuple[int, str]] = {
    InvalidMove: (400, gettext_noop("Invalid move")),
    InvalidOptions: (400, gettext_noop("Invalid options")),
    NotAwaited: (422, gettext_noop("Not awaited")),
    IllegalMove: (422, gettext_noop("Illegal move")),
    RaceLost: (409, gettext_noop("Race lost")),
}

_DRF_CODES: dict[type[drf.APIException], str] = {
    drf.ParseError: "malformed_request",
    drf.NotAuthenticated: "not_authenticated",
    drf.AuthenticationFailed: "authentication_failed",
    drf.PermissionDenied: "forbidden",
    drf.NotFound: "not_found",
    drf.MethodNotAllowed: "method_not_allowed",
    drf.NotAcceptable: "not_acceptable",
    drf.UnsupportedMediaType: "unsupported_media_type",
    drf.Throttled: "rate_limited",
}


class PayloadTooLarge(drf.APIException):
    """413: the body is over the path's limit (`api.limits`)."""

    status_code = 413
    default_code = "payload_too_large"
    default_detail = gettext_noop("Payload too large")

    def __init__(self, limit: int) -> None:
        super().__init__(gettext("The request body is larger than %(limit)s bytes.") % {"limit": limit})
        self.limit = limit

    def problem(self) -> dict[str, Any]:
        return problem(413, "payload_too_large", gettext("Payload too large"), str(self.detail), limit=self.limit)


class RequestTimeout(drf.APIException):
    """408: the client did not send its whole body in time."""

    status_code = 408
    default_code = "request_timeout"
    default_detail = gettext_noop("Request timeout")


class RateLimited(drf.APIException):
    """429: a rate limit (`api.ratelimit`) is spent; ``wait`` whole seconds until it refills."""

    status_code = 429
    default_code = "rate_limited"
    default_detail = gettext_noop("Too many requests")

    def __init__(self, wait: int, scope: str, headers: dict[str, str]) -> None:
        super().__init__(
            gettext("Too many requests (%(scope)s): retry in %(wait)s s.") % {"scope": scope, "wait": wait}
        )
        self.wait, self.scope, self.headers = max(1, wait), scope, headers


def service_unavailable_body() -> dict[str, Any]:
    return problem(
        503,
        "service_unavailable",
        gettext("Service unavailable"),
        gettext("The database is not answering; retry after the number of seconds in Retry-After."),
    )


def service_unavailable_response() -> JsonResponse:
    response = JsonResponse(service_unavailable_body(), status=503, content_type=PROBLEM)
    response["Retry-After"] = str(settings.TABULA_RETRY_AFTER_S)
    return response


#: Titles: a short summary of the problem type, the same for every occurrence (RFC 9457 §3.1.3).
_DRF_TITLES: dict[str, str] = {
    "malformed_request": gettext_noop("Malformed request"),
    "not_authenticated": gettext_noop("Not authenticated"),
    "authentication_failed": gettext_noop("Authentication failed"),
    "forbidden": gettext_noop("Forbidden"),
    "not_found": gettext_noop("Not found"),
    "method_not_allowed": gettext_noop("Method not allowed"),
    "not_acceptable": gettext_noop("Not acceptable"),
    "unsupported_media_type": gettext_noop("Unsupported media type"),
    "throttled": gettext_noop("Too many requests"),
    "rate_limited": gettext_noop("Too many requests"),
    "payload_too_large": gettext_noop("Payload too large"),
    "request_timeout": gettext_noop("Request timeout"),
}


def _flatten(errors: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested field errors as {"field.sub": [messages]}."""
    if isinstance(errors, dict):
        out: dict[str, list[str]] = {}
        for key, value in errors.items():
            name = key if not prefix else f"{prefix}.{key}"
            if key == "non_field_errors" and not prefix:
                name = "non_field_errors"
            out.update(_flatten(value, name))
        return out
    if isinstance(errors, list) and errors and all(isinstance(e, str) for e in errors):
        return {prefix or "non_field_errors": [str(e) for e in errors]}
    if isinstance(errors, list):
        out = {}
        for i, value in enumerate(errors):
            out.update(_flatten(value, f"{prefix}[{i}]"))
        return out
    return {prefix or "non_field_errors": [str(errors)]}


def _engine_detail(exc: RulesError) -> str:
    """An engine's refusal in the request's language: the game catalogue's words for its ``reason``
    filled with its ``params`` (what a client renders itself from the same catalogue); the
    engine's own English sentence where the catalogue has none."""
    if exc.game and exc.reason:
        said = game_text(exc.game, get_language() or DEFAULT, f"reason.{exc.reason}", **exc.params)
        if said is not None:
            return said[:1].upper() + said[1:]
    return exc.message


def to_problem(exc: Exception) -> dict[str, Any] | None:
    if isinstance(exc, ApplicationError):
        return problem(exc.status, exc.code, gettext(str(exc.title)), exc.detail, **exc.extra)
    if isinstance(exc, RulesError):
        status, title = _ENGINE_STATUS.get(type(exc), (422, "Illegal move"))
        for cls, (s, t) in _ENGINE_STATUS.items():
            if isinstance(exc, cls):
                status, title = s, t
                break
        extra: dict[str, Any] = {"reason": exc.reason, "params": exc.params} if exc.reason else {}
        return problem(status, exc.code, gettext(title), _engine_detail(exc), **extra)
    if isinstance(exc, drf.ValidationError):
        errors = _flatten(exc.detail)
        first = next(iter(errors.items()), ("", [gettext("Invalid input.")]))
        detail = f"{first[0]}: {first[1][0]}" if first[0] and first[0] != "non_field_errors" else first[1][0]
        return problem(400, "invalid_request", gettext("Invalid request"), detail, errors=errors)
    if isinstance(exc, Http404):
        return problem(404, "not_found", gettext("Not found"), gettext("Nothing here."))
    if isinstance(exc, PermissionDenied):
        return problem(403, "forbidden", gettext("Forbidden"), gettext("You may not do that."))
    if isinstance(exc, PayloadTooLarge):
        return exc.problem()
    if isinstance(exc, drf.APIException):
        code = _DRF_CODES.get(type(exc), str(exc.default_code))
        title = _DRF_TITLES.get(code) or str(exc.default_detail).split("{")[0].strip() or "Error"
        return problem(exc.status_code, code, gettext(title), str(exc.detail))
    if isinstance(exc, OperationalError | InterfaceError):  # the database is down, refusing or too slow
        return service_unavailable_body()
    return None


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    body = to_problem(exc)
    if body is None:
        return None  # a bug: Django's 500 handler (below) answers
    headers: dict[str, str] = {}
    if isinstance(exc, OperationalError | InterfaceError):
        log.warning("database unavailable: %s", exc)
        headers["Retry-After"] = str(settings.TABULA_RETRY_AFTER_S)
    if isinstance(exc, RateLimited):
        headers.update(exc.headers)
    if isinstance(exc, drf.APIException):
        auth = getattr(exc, "auth_header", None)
        if auth:
            headers["WWW-Authenticate"] = auth
        wait = getattr(exc, "wait", None)
        if wait:
            headers["Retry-After"] = str(max(1, math.ceil(wait)))
    response = Response(body, status=body["status"], content_type=PROBLEM, headers=headers)
    return response


def not_found_view(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    body = problem(404, "not_found", gettext("Not found"), gettext("No such path: %(path)s") % {"path": request.path})
    return JsonResponse(body, status=404, content_type=PROBLEM)


def server_error_view(request: HttpRequest) -> JsonResponse:
    body = problem(
        500, "server_error", gettext("Server error"), gettext("Something went wrong on our side; it has been logged.")
    )
    return JsonResponse(body, status=500, content_type=PROBLEM)


def bad_request_view(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    """Django's 400 (a ``SuspiciousOperation`` or ``BadRequest`` raised below core.middleware's check)."""
    body = problem(400, "malformed_request", gettext("Malformed request"), gettext("The request cannot be read."))
    return JsonResponse(body, status=400, content_type=PROBLEM)
