"""Chat moderation: mutes (a user silenced until a time, everywhere or in one match), the word lists
that flag a message for staff review (they never hide anything), hiding a message with a reason
(the audit kept in `ChatAction`), and the staff's queue of reported and flagged messages."""

from __future__ import annotations

import re
from datetime import datetime
from functools import cache

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services import by_name
from core.errors import Forbidden, InvalidRequest, NotFound
from games.models import Match
from talk.models import ChatAction, ChatMessage, ChatReport, Mute


def require_staff(user: User) -> None:
    if not user.is_staff:
        raise Forbidden(_("Only staff moderate chat."))


@cache
def _pattern(words: tuple[str, ...]) -> re.Pattern[str] | None:
    if not words:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in words) + r")(?!\w)", re.IGNORECASE)


def flags(text: str) -> bool:
    """Whether ``text`` holds a word of any language's list (`TABULA_CHAT_FLAG_WORDS`)."""
    words = tuple(sorted({w.casefold() for ws in settings.TABULA_CHAT_FLAG_WORDS.values() for w in ws}))
    pattern = _pattern(words)
    return bool(pattern and pattern.search(text.casefold()))


def muted_until(user: User, match: Match) -> datetime | None:
    """Until when ``user`` may not chat in ``match`` (the latest mute that holds), else None."""
    now = timezone.now()
    row = (
        Mute.objects.filter(user=user, until__gt=now)
        .filter(Q(match__isnull=True) | Q(match=match))
        .order_by("-until")
        .values_list("until", flat=True)
        .first()
    )
    return row


def mute(*, by: User, username: str, until: datetime, reason: str, match: Match | None) -> Mute:
    require_staff(by)
    user = by_name(username)
    if user is None:
        raise NotFound(_("No user %(username)s.") % {"username": repr(username)})
    if until <= timezone.now():
        raise InvalidRequest(_("A mute ends in the future."), errors={"until": [_("Must be in the future.")]})
    return Mute.objects.create(user=user, match=match, until=until, reason=reason, by=by)


def unmute(*, by: User, mute_id: int) -> None:
    require_staff(by)
    if not Mute.objects.filter(pk=mute_id, until__gt=timezone.now()).update(until=timezone.now()):
        raise NotFound(_("No mute %(id)s in force.") % {"id": mute_id})


def mutes(by: User) -> QuerySet[Mute]:
    require_staff(by)
    return Mute.objects.filter(until__gt=timezone.now()).select_related("user", "match").order_by("until", "id")


@transaction.atomic
def set_hidden(*, by: User, message: ChatMessage, hidden: bool, reason: str) -> ChatMessage:
    """Hide a message (its text gone for everyone but staff) or show it again; audited either way.
    The reports on it are resolved."""
    require_staff(by)
    message = ChatMessage.objects.select_for_update().get(pk=message.pk)
    if hidden:
        message.hidden_at, message.hidden_by, message.hidden_reason = timezone.now(), by, reason
    else:
        message.hidden_at, message.hidden_by, message.hidden_reason = None, None, ""
    message.save(update_fields=["hidden_at", "hidden_by", "hidden_reason"])
    ChatAction.objects.create(message=message, by=by, action="hide" if hidden else "show", reason=reason)
    ChatReport.objects.filter(message=message).update(resolved=True)
    return message


def queue(by: User, *, limit: int = 100) -> QuerySet[ChatMessage]:
    """Messages waiting for staff: reported (unresolved) or flagged by the word list, and not hidden."""
    require_staff(by)
    open_reports = Count("reports", filter=Q(reports__resolved=False))
    return (
        ChatMessage.objects.annotate(open_reports=open_reports)
        .filter(Q(open_reports__gt=0) | Q(flagged=True, actions__isnull=True), hidden_at__isnull=True)
        .select_related("author")
        .order_by("-at", "-id")[:limit]
    )
