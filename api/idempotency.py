"""``Idempotency-Key`` on ``POST moves``: a retry with the same key gets the first answer, stored here.

The stored answer is looked up under the match lock (in the block of `games.services.play.move_turn`), so
of two racing first uses of one key, the second waits for the first and replays its answer. A
key reused with another request (method, path and body, hashed) is refused with 422.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from api.models import IdempotentRequest
from core.errors import ApplicationError, InvalidRequest

log = logging.getLogger(__name__)


class IdempotencyKeyReused(ApplicationError):
    code, status, title = "idempotency_key_reused", 422, gettext_noop("Idempotency key reused")


class Replay(Exception):
    """The request was answered before: ``status`` and ``body`` are that answer; ``content`` its bytes
    as first sent with their ``content_type`` (None for a row stored before they were kept)."""

    def __init__(self, status: int, body: Any, content: bytes | None = None, content_type: str = "") -> None:
        super().__init__("replayed")
        self.status, self.body = status, body
        self.content, self.content_type = content, content_type

    def response(self) -> HttpResponse | Response:
        if self.content is None:
            return Response(self.body, status=self.status)
        return HttpResponse(self.content, status=self.status, content_type=self.content_type)


def render(view: APIView, request: Request, status: int, body: Any) -> Response:
    """The answer ``body`` rendered now, as the view would render it (the negotiated renderer and its
    context): its bytes are what `remember` keeps and what the first answer sends."""
    response = Response(body, status=status)
    response.accepted_renderer = request.accepted_renderer
    response.accepted_media_type = request.accepted_media_type
    response.renderer_context = view.get_renderer_context()  # type: ignore[attr-defined]
    response.render()
    return response


def validate_key(key: str) -> None:
    """1 to ``TABULA_MAX_IDEMPOTENCY_KEY`` printable ASCII characters (the column holds 255), else 400."""
    limit = settings.TABULA_MAX_IDEMPOTENCY_KEY
    if len(key) > limit or not all(" " < c <= "~" for c in key):
        raise InvalidRequest(
            _("Idempotency-Key must be 1 to %(limit)s printable ASCII characters, without spaces.") % {"limit": limit},
            errors={"Idempotency-Key": [_("At most %(limit)s printable ASCII characters.") % {"limit": limit}]},
        )


def fingerprint(path: str, data: Any) -> str:
    canonical = json.dumps([path.rstrip("/"), data], sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def replay_if_answered(user: User, key: str, print_: str) -> None:
    """Raise `Replay` with the stored answer to this key, or `IdempotencyKeyReused` for another request."""
    stored = IdempotentRequest.objects.filter(user=user, key=key).first()
    if stored is None:
        return
    if stored.fingerprint != print_:
        raise IdempotencyKeyReused(_("This Idempotency-Key was used for another request."))
    content = bytes(stored.content) if stored.content is not None else None  # memoryview on PostgreSQL
    raise Replay(stored.status, stored.body, content, stored.content_type)


def remember(user: User, key: str, print_: str, response: Response) -> None:
    """Store the rendered answer, in the transaction that made it (a rolled-back move stores nothing)."""
    try:
        with transaction.atomic():
            IdempotentRequest.objects.create(
                user=user,
                key=key,
                fingerprint=print_,
                status=response.status_code,
                body=response.data,
                content=response.content,
                content_type=response["Content-Type"],
            )
    except IntegrityError:  # a concurrent first use of the key; ours still stands
        log.info("idempotency key raced for user %s", user.pk)
