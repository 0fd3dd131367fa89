"""Private notes per match: the owner's only, shown when they open the match (``GET/PUT
matches/{id}/notes``), never in any other response, export or log."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone

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
        raise InvalidRequest("text must be a string.", errors={"text": ["Must be a string."]})
    if len(text) > limit:
        raise InvalidRequest("text is too long.", errors={"text": [f"At most {limit} characters."]})
    if "\x00" in text:  # the body parser refuses NUL already; a note is stored as given otherwise
        raise InvalidRequest("text holds NUL.", errors={"text": ["No NUL characters."]})
    if not text.strip():
        Note.objects.filter(user=user, match=match).delete()
        return {"text": "", "updated_at": None}
    note, _ = Note.objects.update_or_create(
        user=user, match=match, defaults={"text": text, "updated_at": timezone.now()}
    )
    return {"text": note.text, "updated_at": note.updated_at.isoformat()}


def forget(user: User) -> None:
    """A deleted account's notes."""
    Note.objects.filter(user=user).delete()
