"""Private notes per match: the owner's only, shown when they open the match (``GET/PUT
matches/{id}/notes``), never in any other response, export or log."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from core.errors import InvalidRequest
from games import selectors as games
from talk.models import Note


def note_get(*, match_id: str, user: User) -> dict[str, Any]:
    match = games.match_get_for(match_id, user)
    note = Note.objects.filter(user=user, match=match).first()
    return {"text": note.text if note else "", "updated_at": note.updated_at.isoformat() if note else None}


def note_put(*, match_id: str, user: User, text: Any) -> dict[str, Any]:
    """Replace the caller's notes on the match (an empty text deletes them)."""
    match = games.match_get_for(match_id, user)
    limit = settings.TABULA_NOTE_MAX_LENGTH
    if not isinstance(text, str):
        raise InvalidRequest(
            _("%(field)s must be a string.") % {"field": "text"}, errors={"text": [_("Must be a string.")]}
        )
    if len(text) > limit:
        raise InvalidRequest(
            _("%(field)s is too long.") % {"field": "text"},
            errors={
                "text": [
                    ngettext("At most %(limit)s character.", "At most %(limit)s characters.", limit) % {"limit": limit}
                ]
            },
        )
    if "\x00" in text:  # the body parser refuses NUL already; a note is stored as given otherwise
        raise InvalidRequest(_("%(field)s holds NUL.") % {"field": "text"}, errors={"text": [_("No NUL characters.")]})
    if not text.strip():
        Note.objects.filter(user=user, match=match).delete()
        return {"text": "", "updated_at": None}
    note = Note.objects.update_or_create(user=user, match=match, defaults={"text": text, "updated_at": timezone.now()})[
        0
    ]
    return {"text": note.text, "updated_at": note.updated_at.isoformat()}


def forget(user: User) -> None:
    """A deleted account's notes."""
    Note.objects.filter(user=user).delete()
