"""Seat clocks: the ``time_control`` a match is created with, and the arithmetic of running clocks.

docs/api.md pins ``time_control``: exactly one of ``per_move_s`` (a fresh budget per turn) or
``bank_s`` (a bank that runs while the seat is awaited, plus ``increment_s`` after each move),
``on_timeout`` (``default_move`` or ``forfeit``) and ``bot_after`` (a bot takes a seat over after
that many timeouts in a row), ``away`` (``allowed``: a seat's clock freezes while its owner is away;
``disallowed``) and ``away_cap_s`` (the longest one absence may hold the match). No database access
here: the services save the seats this changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.utils.translation import gettext as _

from core.errors import InvalidRequest

KEYS = frozenset({"per_move_s", "bank_s", "increment_s", "on_timeout", "bot_after", "away", "away_cap_s"})
ON_TIMEOUT = ("default_move", "forfeit")
AWAY = ("allowed", "disallowed")
AWAY_CAP_S = 7 * 24 * 3600  # the default `away_cap_s`
_MINIMUM = {"per_move_s": 1, "bank_s": 1, "increment_s": 0, "bot_after": 1, "away_cap_s": 1}
YEAR_S = 365 * 24 * 3600
_MAXIMUM = {"per_move_s": YEAR_S, "bank_s": YEAR_S, "increment_s": 24 * 3600, "bot_after": 100, "away_cap_s": YEAR_S}


class Clock(Protocol):
    """What a clock needs of a seat (`games.models.Seat` has these fields)."""

    index: int
    resigned: bool
    deadline: datetime | None
    clock_started_at: datetime | None
    bank_ms: int | None
    away_since: datetime | None


def validate(tc: Any) -> dict[str, Any] | None:
    """The match's time control with its defaults, or None; raises `InvalidRequest` naming each key at fault."""
    if tc is None:
        return None
    if not isinstance(tc, dict):
        raise InvalidRequest(_("time_control must be an object."), errors={"time_control": [_("Must be an object.")]})
    errors: dict[str, list[str]] = {}
    unknown = set(tc) - KEYS
    if unknown:
        errors["time_control"] = [_("Unknown keys: %(keys)s.") % {"keys": ", ".join(sorted(unknown))}]
    for name, minimum in _MINIMUM.items():
        value, maximum = tc.get(name), _MAXIMUM[name]
        if value is not None and (type(value) is not int or not minimum <= value <= maximum):
            errors[f"time_control.{name}"] = [
                _("Must be an integer from %(low)s to %(high)s.") % {"low": minimum, "high": maximum}
            ]
    if ("per_move_s" in tc) == ("bank_s" in tc):
        errors.setdefault("time_control", []).append(_("Give exactly one of per_move_s or bank_s."))
    if "increment_s" in tc and "bank_s" not in tc:
        errors.setdefault("time_control", []).append(_("increment_s goes with bank_s."))
    if tc.get("on_timeout", "default_move") not in ON_TIMEOUT:
        errors["time_control.on_timeout"] = [_('Must be "default_move" or "forfeit".')]
    if tc.get("away", "allowed") not in AWAY:
        errors["time_control.away"] = [_('Must be "allowed" or "disallowed".')]
    if errors:
        raise InvalidRequest(_("time_control is not valid."), errors=errors)
    return {"on_timeout": "default_move", **tc}


def away_allowed(tc: dict[str, Any] | None) -> bool:
    """Whether an absence freezes this match's clocks (a match without clocks has none to freeze)."""
    return tc is not None and tc.get("away", "allowed") == "allowed"


def away_cap_s(tc: dict[str, Any]) -> int:
    return int(tc.get("away_cap_s", AWAY_CAP_S))


def budget_ms(tc: dict[str, Any], seat: Clock) -> int:
    """What a clock that starts now gets: a fresh turn, or what is left of the bank."""
    return tc["per_move_s"] * 1000 if "per_move_s" in tc else (seat.bank_ms or 0)


def period_ms(tc: dict[str, Any]) -> int:
    """A clock's full period: the turn's budget, or the starting bank."""
    return int(tc.get("per_move_s") or tc["bank_s"]) * 1000


def initial_bank_ms(tc: dict[str, Any] | None) -> int | None:
    """Each seat's bank at the start, for a bank time control."""
    return tc["bank_s"] * 1000 if tc and "bank_s" in tc else None


def update(
    tc: dict[str, Any] | None, clocked: Iterable[int], seats: Iterable[Clock], *, author: int | None, now: datetime
) -> list[Clock]:
    """Stop the clocks of seats no longer clocked (or that just acted), start those newly clocked.

    ``clocked`` are the seats whose clocks run in the new state (`Rules.clocked_seats`). A bank is
    charged the time it ran and credited the increment. A frozen clock (its owner away,
    ``away_since``) does not start: the absence's end, or the match's away cap, starts it. Returns the seats it changed.
    """
    if not tc:
        return []
    running_now = set(clocked)
    changed: list[Clock] = []
    for seat in seats:
        running = seat.deadline is not None
        should = seat.index in running_now and not seat.resigned and seat.away_since is None
        touched = False
        if running and (not should or seat.index == author):
            if "bank_s" in tc and seat.clock_started_at is not None:
                spent = int((now - seat.clock_started_at).total_seconds() * 1000)
                seat.bank_ms = max(0, (seat.bank_ms or 0) - spent) + tc.get("increment_s", 0) * 1000
            seat.deadline = seat.clock_started_at = None
            touched = True
        if should and seat.deadline is None:
            seat.clock_started_at, seat.deadline = now, now + timedelta(milliseconds=budget_ms(tc, seat))
            touched = True
        if touched:
            changed.append(seat)
    return changed
