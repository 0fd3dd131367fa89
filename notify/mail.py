"""The "your turn" e-mail: a digest of every match waiting for the user (and what other apps add:
unread chat, nudges; `notify.registry.digest_lines`), sent from Celery.

At most one per user per ``TABULA_EMAIL_INTERVAL_S``; none while the user has a stream open
(the stream process marks that in the shared cache) or made a move in the last
``TABULA_EMAIL_ACTIVE_S``. Only for a user with an e-mail address and ``preferences.email_your_turn``
not false. Every mail carries RFC 8058 one-click unsubscribe headers (``List-Unsubscribe`` and
``List-Unsubscribe-Post``) to a signed, login-free endpoint (``/api/v1/email/unsubscribe``).
Under `make run` mails are written as files under ``var/mail/`` (Django's file backend).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.core.mail import EmailMessage
from django.utils import formats, timezone, translation
from django.utils.translation import gettext, ngettext

import languages
from accounts.models import User
from notify import preferences, registry, words
from notify.models import MailHeld

#: The one thing an unsubscribe token does: the salt binds it to this purpose (no other signed value
#: of the service passes for one), the signed payload to its user; it expires after
#: ``TABULA_UNSUBSCRIBE_MAX_AGE_S`` (the mail's link is a credential anyone holding the mail may use).
PURPOSE = "unsubscribe-digest"
SALT = f"tabula.email.{PURPOSE}"
PREFERENCE = "email_your_turn"


def streaming_key(user_id: int) -> str:
    return f"tabula:streaming:{user_id}"


def unsubscribe_token(user_id: int) -> str:
    return signing.dumps({"u": user_id, "do": PURPOSE}, salt=SALT)  # timestamped (TimestampSigner)


def unsubscribe(token: str) -> Literal["ok", "expired", "invalid"]:
    """Turn the e-mail off for the token's user (valid without login; signed, so unforgeable), unless
    the token is older than ``TABULA_UNSUBSCRIBE_MAX_AGE_S`` or not one: then nothing changes."""
    try:
        data = signing.loads(token, salt=SALT, max_age=settings.TABULA_UNSUBSCRIBE_MAX_AGE_S)
    except signing.SignatureExpired:
        return "expired"
    except signing.BadSignature:
        return "invalid"
    if not isinstance(data, dict) or data.get("do") != PURPOSE or not isinstance(data.get("u"), int):
        return "invalid"
    user = User.objects.filter(pk=data["u"]).first()
    if user is None:
        return "invalid"
    user.preferences = {**(user.preferences or {}), PREFERENCE: False}
    user.save(update_fields=["preferences"])
    return "ok"


def digest_maybe(user_id: int, *, urgent: bool = False, now: datetime | None = None) -> bool:
    """Mail the user their digest if one is due. ``urgent`` (a nudge): not held back by the
    interval since the last digest, nor by a move made lately. Inside the user's quiet hours, or
    before a daily digest's hour, the digest is held (`MailHeld`) for the sweep (`held_due`)."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.email:
        return False
    prefs = user.preferences or {}
    interval = preferences.digest_interval(prefs)
    if interval is None:
        return False
    now = now or timezone.now()
    held = preferences.quiet_until(prefs, now)
    if held is None and not urgent and prefs.get("email_digest") == "daily":
        hour = preferences.next_daily(prefs, now)  # the next one; within its hour, the digest goes now
        if now.astimezone(hour.tzinfo).hour != hour.hour:
            held = hour
    if held is not None:
        MailHeld.objects.update_or_create(user=user, defaults={"due_at": held})
        return False
    matches = registry.matches()
    if cache.get(streaming_key(user_id)) or (not urgent and matches.recently_active(user)):
        return False
    waiting = matches.turns(user)
    with languages.speaking(user.language):
        more = registry.digest_lines(user)  # unread chat, nudges: said in the recipient's language
    if not waiting and not more:
        return False
    gate = f"tabula:email-digest:{user_id}"
    if urgent or interval == 0:
        cache.set(gate, 1, timeout=max(1, interval))
    elif not cache.add(gate, 1, timeout=interval):
        return False  # one digest per interval
    send_digest(user, waiting, more)
    return True


def held_due(now: datetime | None = None, limit: int = 200) -> list[int]:
    """Users whose held digest is due (the beat sweep); their rows are taken."""
    now = now or timezone.now()
    ids = list(MailHeld.objects.filter(due_at__lte=now).order_by("due_at").values_list("user_id", flat=True)[:limit])
    MailHeld.objects.filter(user_id__in=ids, due_at__lte=now).delete()
    return ids


def _deadline(value: Any, prefs: Any) -> str:
    """A deadline as the recipient reads dates: their language's format, their time zone."""
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    tz = preferences.zone(prefs)
    return formats.date_format(when.astimezone(tz), "DATETIME_FORMAT") + f" ({tz.key})"


def send_digest(user: User, waiting: list[dict[str, Any]], more: list[str] | None = None) -> None:
    """The digest, in the recipient's language (issue 33) — ``more`` comes from `registry.digest_lines`,
    which the caller gathers under the same language."""
    with languages.speaking(user.language):
        _send_digest(user, waiting, more)


def _send_digest(user: User, waiting: list[dict[str, Any]], more: list[str] | None) -> None:
    base = settings.TABULA_PUBLIC_URL.rstrip("/")
    link = f"{base}/api/v1/email/unsubscribe?token={unsubscribe_token(user.pk)}"
    zone = user.preferences or {}
    lines = [gettext("Hello %(name)s,") % {"name": user.username}, ""]
    if waiting:
        count = len(waiting)
        lines += [
            ngettext("%(count)s game waits for your move:", "%(count)s games wait for your move:", count)
            % {"count": count},
            "",
        ]
    for turn in waiting:
        game = words.game_name(turn["game"])
        url = f"{base}/matches/{turn['match']}"
        if turn["deadline"]:
            due = _deadline(turn["deadline"], zone)
            lines.append(
                gettext("- %(game)s: %(url)s (deadline %(deadline)s)") % {"game": game, "url": url, "deadline": due}
            )
        else:
            lines.append(gettext("- %(game)s: %(url)s") % {"game": game, "url": url})
    if more:
        lines += ["", gettext("Also for you:"), "", *more]
    lines += ["", gettext("Stop these e-mails: %(link)s") % {"link": link}]
    if waiting:
        count = len(waiting)
        subject = ngettext("Tabula: your turn in %(count)s game", "Tabula: your turn in %(count)s games", count) % {
            "count": count
        }
    else:
        subject = gettext("Tabula: news from your games")
    message = EmailMessage(
        subject=subject,
        body="\n".join(lines),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[user.email],
        headers={
            "List-Unsubscribe": f"<{link}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Content-Language": translation.get_language() or languages.DEFAULT,
        },
    )
    message.send()
