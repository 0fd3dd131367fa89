"""What the e-mail digest says of tournaments: the notices of the last digest interval."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from notify import preferences
from notify.models import Notification

LINES = {
    "tournament_started": "{name} has started",
    "tournament_paired": "{name}: round {round} is paired",
    "tournament_finished": "{name} is over",
}


def digest_lines(user: Any) -> list[str]:
    """One line per tournament notice since the last digest could have gone (its interval)."""
    interval = preferences.digest_interval(user.preferences or {}) or 3600
    since = timezone.now() - timedelta(seconds=max(interval, 3600))
    base = settings.TABULA_PUBLIC_URL.rstrip("/")
    rows = Notification.objects.filter(user=user, type__in=LINES, created_at__gte=since).order_by("seq")
    out = []
    for note in rows[:20]:
        p = note.payload
        text = LINES[note.type].format(name=p.get("name", "A tournament"), round=p.get("round", "?"))
        out.append(f"- {text}: {base}/tournaments/{p.get('tournament', '')}")
    return out
