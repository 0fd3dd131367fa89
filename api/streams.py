"""The stream paths as async Django views (served on the front's event loop, front/app.py).

``GET me/stream`` and ``GET matches/{id}/stream``: Server-Sent Events; ``Last-Event-ID`` (or
``?after=``) resumes after that entry, replaying what was missed first (a match stream carries its
records and its ``chat`` messages, each numbered on its own: its ids are ``R`` or ``R.C``); with neither, the stream
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
import re
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.core.handlers.wsgi import WSGIRequest
from django.db import close_old_connections
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework import exceptions as drf
from rest_framework.request import Request

from accounts.models import ApiToken, User
from api.authentication import BearerOrTokenAuthentication
from api.exceptions import PROBLEM, RateLimited, problem
from games import selectors
from games.models import Match
from notify import registry, streams
from notify.models import InboxCounter, StreamTicket
from talk import chat

T = TypeVar("T")


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


Cursor = tuple[int, int | None]  # a record (or inbox) number, and a chat number (match streams only)
_CURSOR = re.compile(r"([0-9]{1,10})(?:\.([0-9]{1,10}))?")


def _after(request: HttpRequest) -> Cursor | None | bool:
    """The id to resume after; None when the client gave none (live from now on); False when
    malformed. A match stream's id is ``R`` or ``R.C``: its last record, and its last chat message
    (`talk.chat`'s number across the match's channels)."""
    raw = request.headers.get("Last-Event-ID") or request.GET.get("after")
    if raw is None or raw == "":
        return None
    found = _CURSOR.fullmatch(raw.strip())
    if found is None:
        return False
    records, chat_ = int(found[1]), None if found[2] is None else int(found[2])
    if records >= 2**31 or (chat_ is not None and chat_ >= 2**31):
        return False
    return records, chat_


def _event_id(records: int, chat_: int) -> str:
    return str(records) if chat_ == 0 else f"{records}.{chat_}"


def _match_pages(match_id: str, user_id: int) -> streams.Page:
    """A match stream's pages: its records, then its chat messages, each with its own number; the
    cursor is both. Messages the reader may not see are passed over (and remembered as passed)."""
    passed = [0]

    def page(cursor: tuple[int, int]) -> list[streams.Row]:
        records, chat_ = cursor
        chat_ = max(chat_, passed[0])
        rows: list[streams.Row] = []
        for event in registry.matches().events(match_id, user_id, records, streams.PAGE):
            records = event["seq"]
            rows.append(((records, chat_), _event_id(records, chat_), event["type"], event))
        if len(rows) < streams.PAGE:
            looked, messages = chat.stream_page(match_id, user_id, chat_, streams.PAGE - len(rows))
            for n, message in messages:
                rows.append(((records, n), _event_id(records, n), "chat", message))
            passed[0] = max(passed[0], looked)
        return rows

    return page


def _inbox_end(user_id: int) -> int:
    try:
        return InboxCounter.objects.filter(user_id=user_id).values_list("last", flat=True).first() or 0
    finally:
        close_old_connections()


def _match_end(match_id: str, user: User, code: str | None) -> tuple[int, int] | None:
    """The match's version and last chat number, or None when there is no such match or ``user``
    may not see it (a private match is as absent as a missing one)."""
    try:
        match = Match.objects.filter(id=match_id).first()
        if match is None or not selectors.match_visible_to(match, user, code):
            return None
        return match.version, chat.chat_end(match_id)
    finally:
        close_old_connections()


@dataclass(frozen=True)
class Opening:
    """A stream about to open: who for, where it resumes (None: from the current end), its place."""

    grant: Grant
    after: Cursor | None
    lease: streams.Lease


async def _prepare(request: HttpRequest) -> Opening | HttpResponse:
    """The stream to open, or the refusal."""
    if isinstance(request, WSGIRequest):  # a sync worker would be held for the stream's life: never
        detail = _("Streams are served on the front's event loop (front/app.py), not by this WSGI worker.")
        return _problem(503, "streams_unavailable", _("Streams unavailable"), detail, {"Retry-After": "30"})
    if request.method != "GET":
        return _problem(405, "method_not_allowed", _("Method not allowed"), _("Streams answer GET only."))
    grant = await streams.read(_authenticate, request)
    if grant is None:
        detail = _("Send Authorization: Token <key>, or ?ticket= from POST /api/v1/me/stream-tickets.")
        return _problem(401, "not_authenticated", _("Not authenticated"), detail, {"WWW-Authenticate": "Token"})
    after = _after(request)
    if after is False or (isinstance(after, tuple) and after[1] is not None and "/matches/" not in request.path):
        detail = _("Last-Event-ID / after must be an id this stream sent: a number (N.C on a match stream).")
        return _problem(400, "invalid_request", _("Invalid request"), detail)
    lease = streams.CAPS.lease(grant.user.pk)
    if isinstance(lease, str):
        wait = str(random.randint(5, 15))
        if lease == "user":
            detail = _("Too many open streams for you.")
        else:
            detail = _("This server holds all the streams it can.")
        return _problem(503, "too_many_streams", _("Too many streams"), detail, {"Retry-After": wait})
    return Opening(grant, after if isinstance(after, tuple) else None, lease)


async def _holding(lease: streams.Lease, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on the streams' pool; ``lease`` given back if that fails or the request is
    cancelled meanwhile (the client gone before the stream opened)."""
    try:
        return await streams.read(fn, *args)
    except BaseException:
        lease.release()
        raise


class EventStream(StreamingHttpResponse):
    """A stream's response. It closes its body as soon as the server stops sending it: Django's
    own iteration closes only its wrappers around the body, which then waits, suspended, for the
    garbage collector, and its place under the caps with it. Closed unsent, it gives the place
    back itself; collected unsent, it leaves it to the next lease (`notify.streams.Caps.orphaned`)."""

    def __init__(self, body: AsyncGenerator[str, None], lease: streams.Lease) -> None:
        super().__init__(body, content_type="text/event-stream")
        self["Cache-Control"] = "no-cache, no-transform"
        self["X-Accel-Buffering"] = "no"
        self.body, self.lease = body, lease
        weakref.finalize(self, lease.caps.orphaned, lease)

    def close(self) -> None:
        self.lease.release()
        super().close()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        content = self.streaming_content  # as Django's own iteration: through any middleware's wrapper
        assert isinstance(content, AsyncIterator)  # (the body is an async generator)
        try:
            async for part in content:
                yield part
        finally:
            await self.body.aclose()


async def me_stream(request: HttpRequest) -> HttpResponseBase:
    opening = await _prepare(request)
    if isinstance(opening, HttpResponse):
        return opening
    grant, lease = opening.grant, opening.lease
    start = opening.after[0] if opening.after is not None else await _holding(lease, _inbox_end, grant.user.pk)
    return EventStream(streams.inbox_events(lease, start, lambda: _revoked(grant)), lease)


async def match_stream(request: HttpRequest, match_id: str) -> HttpResponseBase:
    opening = await _prepare(request)
    if isinstance(opening, HttpResponse):
        return opening
    grant, lease = opening.grant, opening.lease
    code = request.headers.get("Invite-Code")
    end = await _holding(lease, _match_end, match_id, grant.user, code)
    if end is None:
        lease.release()
        return _problem(404, "not_found", _("Not found"), _("No match %(id)s.") % {"id": repr(match_id)})
    records, chat_ = opening.after if opening.after is not None else (end[0], None)
    cursor = (records, end[1] if chat_ is None else chat_)  # without a chat number: new messages only
    allowed = functools.partial(_match_allowed, grant, match_id, code)
    pages = _match_pages(match_id, grant.user.pk)
    return EventStream(streams.match_events(match_id, lease, cursor, allowed, pages), lease)
