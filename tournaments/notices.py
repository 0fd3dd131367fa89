"""What the e-mail digest says of tournaments: the notices of the last digest interval."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from notify import preferences
from notify.models import Notification

LINES = {  # translated into the recipient's language when the digest is written
    "tournament_started": gettext_noop("%(name)s has started"),
    "tournament_paired": gettext_noop("%(name)s: round %(round)s is paired"),
    "tournament_finished": gettext_noop("%(name)s is over"),
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
        text = _(LINES[note.type]) % {"name": p.get("name") or _("A tournament"), "round": p.get("round", "?")}
        out.append(f"- {text}: {base}/tournaments/{p.get('tournament', '')}")
    return out
