"""The stream paths as async Django views (served on the front's event loop, front/app.py).

``GET me/stream`` and ``GET matches/{id}/stream``: Server-Sent Events; ``Last-Event-ID`` (or
``?after=``) resumes after that entry, replaying what was missed first; with neither, the stream
starts at the current end (read the inbox or the events first, then follow from their last id). Authenticated by the
``Authorization`` header or, for ``EventSource``, ``?ticket=`` from ``POST me/stream-tickets``
(single use, short-lived: a token never goes in a URL). Beyond the caps per user and per process
the answer is 503 problem+json with a jittered ``Retry-After``. Before every delivery the stream
checks again that its reader may see it (the token or the account still valid, the match still
visible); when not, it sends ``event: closed`` with ``{"reason": …}`` and ends. The response is
never compressed or buffered (``X-Accel-Buffering: no``; no GZip middleware is installed).
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from typing import Any

from django.core.handlers.wsgi import WSGIRequest
from django.db import close_old_connections
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils import timezone
from rest_framework import exceptions as drf
from rest_framework.request import Request

from accounts.models import ApiToken, User
from api.authentication import BearerOrTokenAuthentication
from api.exceptions import PROBLEM, RateLimited, problem
from games import selectors
from games.models import Match
from notify import streams
from notify.models import InboxCounter, StreamTicket


def _problem(status: int, code: str, title: str, detail: str, headers: dict[str, str] | None = None) -> HttpResponse:
    response = JsonResponse(problem(status, code, title, detail), status=status, content_type=PROBLEM)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


@dataclass(frozen=True)
class Grant:
    """Who a stream is for, and the token it was opened with (through a ticket or not; None when
    the ticket was asked for in a browser session)."""

    user: User
    token_id: int | None


def _authenticate(request: HttpRequest) -> Grant | None:
    try:
        ticket = request.GET.get("ticket")
        if ticket:
            row = StreamTicket.objects.filter(key=ticket, expires_at__gt=timezone.now()).first()
            if row is None or StreamTicket.objects.filter(key=ticket).delete()[0] != 1:
                return None  # unknown, expired or already used
            user = User.objects.filter(pk=row.user_id, is_active=True).first()
            return None if user is None else Grant(user, row.token_id)
        try:
            found = BearerOrTokenAuthentication().authenticate(Request(request))
        except (drf.AuthenticationFailed, RateLimited):  # a bad key (counted on the address's anon budget)
            return None
        return Grant(found[0], found[1].pk) if found else None
    finally:
        close_old_connections()


def _revoked(grant: Grant) -> str | None:
    """Why ``grant`` no longer holds (``token_revoked``, ``account_closed``), else None. Run before
    every delivery (notify/streams.py), on the streams' database threads."""
    if not User.objects.filter(pk=grant.user.pk, is_active=True).exists():
        return "account_closed"
    if grant.token_id is not None:
        live = ApiToken.objects.filter(pk=grant.token_id).filter(
            Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now())
        )
        if not live.exists():
            return "token_revoked"
    return None


def _match_allowed(grant: Grant, match_id: str, code: str | None) -> str | None:
    """As `_revoked`, and ``not_visible`` once the match is no longer the user's to see (an
    invitation declined, a seat left, a match made private)."""
    refused = _revoked(grant)
    if refused is not None:
        return refused
    match = Match.objects.filter(id=match_id).first()
    if match is None or not selectors.match_visible_to(match, grant.user, code):
        return "not_visible"
    return None


def _after(request: HttpRequest) -> int | None | bool:
    """The id to resume after; None when the client gave none (live from now on); False when malformed."""
    raw = request.headers.get("Last-Event-ID") or request.GET.get("after")
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        return False
    return value if 0 <= value < 2**31 else False


def _inbox_end(user_id: int) -> int:
    try:
        return InboxCounter.objects.filter(user_id=user_id).values_list("last", flat=True).first() or 0
    finally:
        close_old_connections()


def _match_end(match_id: str, user: User, code: str | None) -> int | None:
    """The match's version, or None when there is no such match or ``user`` may not see it
    (a private match is as absent as a missing one)."""
    try:
        match = Match.objects.filter(id=match_id).first()
        if match is None or not selectors.match_visible_to(match, user, code):
            return None
        return match.version
    finally:
        close_old_connections()


async def _prepare(request: HttpRequest) -> tuple[Grant | None, int | None, HttpResponse | None]:
    if isinstance(request, WSGIRequest):  # a sync worker would be held for the stream's life: never
        detail = "Streams are served on the front's event loop (front/app.py), not by this WSGI worker."
        return None, None, _problem(503, "streams_unavailable", "Streams unavailable", detail, {"Retry-After": "30"})
    if request.method != "GET":
        return None, None, _problem(405, "method_not_allowed", "Method not allowed", "Streams answer GET only.")
    grant = await streams.read(_authenticate, request)
    if grant is None:
        detail = "Send Authorization: Token <key>, or ?ticket= from POST /api/v1/me/stream-tickets."
        return (
            None,
            None,
            _problem(401, "not_authenticated", "Not authenticated", detail, {"WWW-Authenticate": "Token"}),
        )
    after = _after(request)
    if after is False:
        return (
            None,
            None,
            _problem(400, "invalid_request", "Invalid request", "Last-Event-ID / after must be a number."),
        )
    refused = streams.CAPS.acquire(grant.user.pk)
    if refused is not None:
        wait = str(random.randint(5, 15))
        detail = "Too many open streams for you." if refused == "user" else "This server holds all the streams it can."
        return None, None, _problem(503, "too_many_streams", "Too many streams", detail, {"Retry-After": wait})
    return grant, (-1 if after is None else int(after)), None


def _stream(body: Any) -> StreamingHttpResponse:
    response = StreamingHttpResponse(body, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache, no-transform"
    response["X-Accel-Buffering"] = "no"
    return response


async def me_stream(request: HttpRequest) -> HttpResponseBase:
    grant, after, refused = await _prepare(request)
    if refused is not None:
        return refused
    assert grant is not None and after is not None
    user_id = grant.user.pk
    if after < 0:
        after = await streams.read(_inbox_end, user_id)
    return _stream(streams.inbox_events(user_id, after, lambda: _revoked(grant)))


async def match_stream(request: HttpRequest, match_id: str) -> HttpResponseBase:
    grant, after, refused = await _prepare(request)
    if refused is not None:
        return refused
    assert grant is not None and after is not None
    code = request.headers.get("Invite-Code")
    end = await streams.read(_match_end, match_id, grant.user, code)
    if end is None:
        streams.CAPS.release(grant.user.pk)
        return _problem(404, "not_found", "Not found", f"No match {match_id!r}.")
    if after < 0:
        after = end
    allowed = functools.partial(_match_allowed, grant, match_id, code)
    return _stream(streams.match_events(match_id, grant.user.pk, after, allowed))
