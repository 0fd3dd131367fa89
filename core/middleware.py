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
from django.http import HttpRequest, HttpResponse
from django.urls import resolve

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
