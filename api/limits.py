"""Request limits at the edge of the API: body size, JSON shape, and problem documents for every failure.

`ApiGuardMiddleware` answers ``413 payload_too_large`` from ``Content-Length`` alone, before any
byte of the body is read (DRF's parsers read the stream and never look at
``DATA_UPLOAD_MAX_MEMORY_SIZE``). `StrictJSONParser` reads at most the limit, refuses JSON nested
deeper than ``TABULA_MAX_JSON_DEPTH``, strings with NUL or lone surrogates (PostgreSQL refuses
both), ``NaN``/``Infinity`` and integers outside 64 bits. On ``/api/`` paths the middleware also
turns whatever escapes the views into a problem document: a database that is down or too slow is
``503 service_unavailable`` with ``Retry-After``, anything else a problem ``500`` (also under
``DEBUG``, whose HTML pages are for the admin only).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from api.exceptions import PROBLEM, PayloadTooLarge, RequestTimeout, problem, service_unavailable_response

log = logging.getLogger(__name__)

INT_BOUND = 2**63  # no integer member of any request needs more than a signed 64-bit
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")
_FORBIDDEN_CHARS = re.compile("[\x00\ud800-\udfff]")


def body_limit(path: str) -> int:
    """The largest body (bytes) the API path takes: ``TABULA_MAX_BODY_BYTES``, or a per-path override."""
    for pattern, limit in settings.TABULA_MAX_BODY_BYTES_BY_PATH.items():
        if re.match(pattern, path):
            return int(limit)
    return int(settings.TABULA_MAX_BODY_BYTES)


def json_depth(text: str) -> int:
    """How deep arrays and objects nest in ``text`` (strings skipped), without parsing it."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _check_strings_and_numbers(value: Any, path: str = "") -> None:
    if isinstance(value, str):
        if _FORBIDDEN_CHARS.search(value):
            raise ParseError(
                _("%(where)s: strings may not contain NUL or unpaired surrogates.") % {"where": path or _("The body")}
            )
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        if not -INT_BOUND <= value < INT_BOUND:
            raise ParseError(_("%(where)s: integers must fit in 64 bits.") % {"where": path or _("The body")})
    elif isinstance(value, dict):
        for key, item in value.items():
            if _FORBIDDEN_CHARS.search(key):
                raise ParseError(_("Member names may not contain NUL or unpaired surrogates."))
            _check_strings_and_numbers(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_strings_and_numbers(item, f"{path}[{i}]")


class StrictJSONParser(JSONParser):
    """DRF's JSON parser, bounded: size, depth, characters and numbers (400 ``malformed_request``)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        request = (parser_context or {}).get("request")
        limit = body_limit(request.path if request is not None else "")
        try:
            raw = stream.read(limit + 1) if stream is not None else b""
        except OSError:  # the client stopped sending (a WSGI server's read deadline)
            raise RequestTimeout() from None
        if len(raw) > limit:
            raise PayloadTooLarge(limit)
        try:
            text = raw.decode((parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET)
        except UnicodeDecodeError as exc:
            raise ParseError(_("The body is not valid UTF-8: %(reason)s.") % {"reason": exc.reason}) from None
        if json_depth(text) > settings.TABULA_MAX_JSON_DEPTH:
            depth = settings.TABULA_MAX_JSON_DEPTH
            raise ParseError(
                ngettext("JSON nested deeper than %(depth)s level.", "JSON nested deeper than %(depth)s levels.", depth)
                % {"depth": depth}
            )
        try:
            data = json.loads(text, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            raise ParseError(_("JSON parse error - %(error)s") % {"error": exc}) from None
        _check_strings_and_numbers(data)
        return data


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


class ApiGuardMiddleware:
    """Body size before the body is read; problem documents for whatever the views let escape."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not _is_api(request):
            return self.get_response(request)
        refused = self._refuse_early(request)
        if refused is not None:
            return refused
        response = self.get_response(request)
        if response.status_code >= 400 and not response.get("Content-Type", "").endswith("json"):
            # Django's own pages (DEBUG's technical 404 and 500, CSRF failures): the API speaks problem+json.
            status = response.status_code
            reason = response.reason_phrase or "Error"
            detail = _("Nothing here.") if status == 404 else reason
            code = {404: "not_found", 403: "forbidden", 405: "method_not_allowed"}.get(status, "server_error")
            if status < 500 and code == "server_error":
                code = "malformed_request"
            replacement = JsonResponse(problem(status, code, reason, detail), status=status, content_type=PROBLEM)
            for header in ("Retry-After", "Allow", "WWW-Authenticate", "Content-Language", "Vary"):
                if header in response:
                    replacement[header] = response[header]
            return replacement
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not _is_api(request):
            return None
        if isinstance(exception, OperationalError | InterfaceError):
            log.warning("database unavailable on %s %s: %s", request.method, request.path, exception)
            return service_unavailable_response()
        log.error("unhandled error on %s %s", request.method, request.path, exc_info=exception)
        body = problem(
            500, "server_error", _("Server error"), _("Something went wrong on our side; it has been logged.")
        )
        return JsonResponse(body, status=500, content_type=PROBLEM)

    def _refuse_early(self, request: HttpRequest) -> HttpResponse | None:
        """A request refused before LocaleMiddleware ran: it speaks the Accept-Language itself."""
        if self._refusal(request) is None:  # the common case, without looking the language up
            return None
        language = translation.get_language_from_request(request)
        with translation.override(language):
            response = self._refusal(request)
        if response is not None:
            response["Content-Language"] = language
            patch_vary_headers(response, ("Accept-Language",))
        return response

    def _refusal(self, request: HttpRequest) -> HttpResponse | None:
        length = request.META.get("CONTENT_LENGTH") or "0"
        if not length.isdigit():
            body = problem(400, "malformed_request", _("Malformed request"), _("Content-Length is not a number."))
            return JsonResponse(body, status=400, content_type=PROBLEM)
        if any(_FORBIDDEN_CHARS.search(k) or any(map(_FORBIDDEN_CHARS.search, v)) for k, v in request.GET.lists()):
            detail = _("Query parameters may not contain NUL or unpaired surrogates.")  # PostgreSQL refuses them
            return JsonResponse(
                problem(400, "malformed_request", _("Malformed request"), detail), status=400, content_type=PROBLEM
            )
        limit = body_limit(request.path)
        if int(length) > limit:
            # The body is not parsed (the front read it whole, up to its own 4 MiB limit: front/app.py).
            return JsonResponse(PayloadTooLarge(limit).problem(), status=413, content_type=PROBLEM)
        return None
