"""Nudges (docs/api.md, *Table talk*): a seated player reminds a seat that has been awaited long.

Allowed once the seat has been awaited max(``min_s``, ``share`` × its per-move time), is not away,
and was not nudged this turn nor in the last ``every_s`` (`TABULA_NUDGE`); else ``409
nudge_too_soon`` with ``retry_after``. A nudge writes one ``nudged`` inbox entry, which skips the
e-mail digest's delay (once: nudges are that rare). Never a record, never shown to anyone else;
a seat whose owner blocks the nudger is nudged in vain, and nobody is told.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import User
from circles import selectors as circles
from core.errors import ApplicationError, Conflict, InvalidRequest
from games import selectors as games
from games.errors import NotSeated
from games.models import Match, Seat
from notify.inbox import notify
from talk.models import Nudge

TYPES = ("nudged",)


class NotAwaited(ApplicationError):
    """The seat is not a person the match waits for (a bot, a resigned seat, a seat not to move)."""

    code, status, title = "not_awaited", 422, gettext_noop("Not awaited")


class NudgeTooSoon(Conflict):
    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__("nudge_too_soon", detail, retry_after=retry_after)


def _since(match: Match, seat: int) -> tuple[str, datetime]:
    raw = (match.awaited_since or {}).get(str(seat))
    if raw:
        return raw, datetime.fromisoformat(raw)
    return match.updated_at.isoformat(), match.updated_at  # awaited since before the field existed


def threshold_s(match: Match) -> float:
    rule = settings.TABULA_NUDGE
    per_move = (match.time_control or {}).get("per_move_s") or 0
    return max(float(rule["min_s"]), rule["share"] * per_move)


def nudge_check(match: Match, seat: int, now: datetime) -> tuple[str, float]:
    """The seat's turn key and the seconds until it may be nudged (0: now)."""
    key, since = _since(match, seat)
    every = float(settings.TABULA_NUDGE["every_s"])
    wait = threshold_s(match) - (now - since).total_seconds()
    last = Nudge.objects.filter(match=match, seat=seat).order_by("-at").first()
    if last is not None:
        ago = (now - last.at).total_seconds()
        wait = max(wait, every - ago)
        if last.turn_since == key:  # nudged this turn: the next turn is the earliest
            wait = max(wait, every - ago, threshold_s(match))
    return key, max(0.0, wait)


@transaction.atomic
def nudge(*, match_id: str, user: User, seat: Any) -> dict[str, Any]:
    games.match_get_for(match_id, user)
    match = Match.objects.select_for_update().get(id=match_id)  # racing nudges: one passes
    seats = list(Seat.objects.filter(match=match).select_related("user").order_by("index"))
    mine = next((s for s in seats if s.user_id == user.pk), None)
    if mine is None:
        raise NotSeated(_("Only seated players nudge."))
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < match.players or seat == mine.index:
        raise InvalidRequest(_("No such seat to nudge."), errors={"seat": [_("Another seat of this match.")]})
    if match.status != Match.Status.ACTIVE:
        raise Conflict(
            "match_not_started" if match.status == Match.Status.OPEN else "match_over", _("Nothing to nudge.")
        )
    target = seats[seat]
    if target.user is None or target.bot or target.resigned or seat not in match.awaiting:
        raise NotAwaited(_("Seat %(seat)s is not a person the match waits for.") % {"seat": seat})
    if target.away_until is not None:
        raise Conflict(
            "seat_away",
            _("Seat %(seat)s is away until %(until)s.") % {"seat": seat, "until": target.away_until.isoformat()},
        )
    now = timezone.now()
    key, wait = nudge_check(match, seat, now)
    if wait > 0:
        raise NudgeTooSoon(
            _("Seat %(seat)s may be nudged in %(seconds)s s.") % {"seat": seat, "seconds": math.ceil(wait)},
            math.ceil(wait),
        )
    delivered = not circles.blocks(target.user.pk, user.pk, "messages")
    Nudge.objects.create(match=match, seat=seat, by=user, turn_since=key, at=now, delivered=delivered)
    if delivered:
        payload = {"match": match.id, "game": match.game, "seat": seat, "by": user.username, "since": key}
        notify(target.user, "nudged", payload, match)
    return {"seat": seat, "at": now.isoformat()}


def digest_lines(user: Any) -> list[str]:
    """The e-mail digest's lines for the nudges of the last ``every_s`` to seats the user still holds."""
    base = settings.TABULA_PUBLIC_URL.rstrip("/")
    recent = timezone.now() - timedelta(seconds=settings.TABULA_NUDGE["every_s"])
    mine = Seat.objects.filter(user=user, match__status=Match.Status.ACTIVE).values_list("match_id", "index")
    held = set(mine)
    lines = []
    rows = Nudge.objects.filter(at__gte=recent, delivered=True, match_id__in={m for m, _ in held})
    for nudge_ in rows.select_related("match", "by"):
        if (nudge_.match_id, nudge_.seat) in held and nudge_.seat in nudge_.match.awaiting:
            words = {"username": nudge_.by.username, "game": nudge_.match.game}
            lines.append(
                "- " + _("%(username)s nudged you in %(game)s:") % words + f" {base}/matches/{nudge_.match_id}"
            )
    return lines
