"""Request ids: taken from ``X-Request-ID`` when it is sane, made otherwise, returned on the response.

This middleware sits before django-structlog's, which binds the id (``TRUST_UPSTREAM_REQUEST_ID``)
to every log line of the request and to the Celery tasks it queues, and both sit before every
middleware that may answer early (config/settings/base.py): every answer carries the id and gets
its request line. The match a path names is bound too; the services bind the version they wrote.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

import structlog
from django.conf import settings
from django.contrib.messages.middleware import MessageMiddleware
from django.core.exceptions import (
    BadRequest,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.middleware.gzip import GZipMiddleware
from django.urls import resolve
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.errors import PROBLEM, problem

_SANE = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.META.get("HTTP_X_REQUEST_ID", "")
        request_id = given if _SANE.fullmatch(given) else uuid.uuid4().hex
        request.META["HTTP_X_REQUEST_ID"] = request_id
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        return response

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        match_id = kwargs.get("match_id")
        if match_id:
            structlog.contextvars.bind_contextvars(match_id=match_id)


class ProbeMiddleware:
    """Answers ``/livez``, ``/readyz`` and ``/metrics`` before everything below it, with the views the
    URLconf routes them to (`api.views.ops`, through ``config.urls``: core imports no app).

    Probes come with whatever Host the orchestrator uses (an IP, a service name), so they skip
    ``ALLOWED_HOSTS``, sessions, CSRF, authentication and rate limits. They get an X-Request-ID and a
    request line like any answer; config/logs.py drops the line below warning (a failing probe is logged).
    """

    PATHS = frozenset({"/livez", "/readyz", "/metrics"})

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info not in self.PATHS:
            return self.get_response(request)
        match = resolve(request.path_info)
        response: HttpResponse = match.func(request, *match.args, **match.kwargs)
        return response


class BadRequestMiddleware:
    """Whatever a client can send in the query string or a form body that Django refuses answers a
    problem document, on every path (the API, the web client, the admin, the probes), before anything
    else reads it: more than ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` parameters (``too_many_fields``), more
    than ``DATA_UPLOAD_MAX_NUMBER_FILES`` files (``too_many_files``), a form body over
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (``payload_too_large``), a malformed one (``malformed_request``).

    Left to Django these are a ``SuspiciousOperation`` raised wherever ``request.GET`` or
    ``request.POST`` is first read: an HTML 400 in production, and under ``DEBUG`` a plain-text 500
    (the technical page reads ``request.GET`` again and fails). Parsing both here, once, settles it:
    Django keeps what it parsed for every reader below.
    """

    _FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            request.GET  # noqa: B018 (parsed now, kept on the request)
            if request.method == "POST" and request.content_type in self._FORMS:
                request.POST  # noqa: B018
        except (SuspiciousOperation, BadRequest, MultiPartParserError, UnicodeDecodeError) as exc:
            # LocaleMiddleware has not run yet: the refusal speaks the Accept-Language itself.
            language = translation.get_language_from_request(request)
            with translation.override(language):
                response = _problem_response(self._problem(exc))
            response["Content-Language"] = language
            patch_vary_headers(response, ("Accept-Language",))
            return response
        return self.get_response(request)

    @staticmethod
    def _problem(exc: Exception) -> dict[str, Any]:
        if isinstance(exc, RequestDataTooBig):
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            detail = ngettext(
                "The request body is larger than %(limit)s byte.",
                "The request body is larger than %(limit)s bytes.",
                limit,
            ) % {"limit": limit}
            return problem(413, "payload_too_large", _("Payload too large"), detail, limit=limit)
        if isinstance(exc, TooManyFieldsSent):
            limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
            detail = ngettext(
                "More than %(limit)s parameter (query string and form fields).",
                "More than %(limit)s parameters (query string and form fields).",
                limit,
            ) % {"limit": limit}
            return problem(400, "too_many_fields", _("Too many fields"), detail, limit=limit)
        if isinstance(exc, TooManyFilesSent):
            limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
            detail = ngettext("More than %(limit)s file.", "More than %(limit)s files.", limit) % {"limit": limit}
            return problem(400, "too_many_files", _("Too many files"), detail, limit=limit)
        detail = _("The query string or the form body cannot be read.")
        return problem(400, "malformed_request", _("Malformed request"), detail)


def _problem_response(body: dict[str, Any]) -> HttpResponse:
    return JsonResponse(body, status=body["status"], content_type=PROBLEM)


class CompressionMiddleware(GZipMiddleware):
    """Django's gzip for whole answers (the API's JSON, the client's page) to clients that accept it.

    Streamed answers pass untouched: gzip holds back what it has not filled a block with, so an
    event stream would reach the browser late; WhiteNoise serves the static files' own ``.gz``
    copies (collectstatic writes them). A strong ETag becomes weak, as RFC 9110 asks of a changed
    encoding; the views compare ETags weakly (`api.views.matches`)."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if response.streaming:
            return response
        return super().process_response(request, response)


class PageMessageMiddleware(MessageMiddleware):
    """Django's messages (the admin's "saved" notes), for pages only: the API never shows one, and
    making the cookie-and-session store for each of its requests cost 2.5 % of the front's CPU per
    move. The admin's check (admin.E406) accepts a subclass."""

    def process_request(self, request: HttpRequest) -> None:
        if not request.path_info.startswith("/api/"):
            super().process_request(request)
