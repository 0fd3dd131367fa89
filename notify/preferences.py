"""What a user chose about their notices (``User.preferences``): the channel of each inbox entry
type, quiet hours in their time zone, and the e-mail digest's rhythm (docs/notifications.md).

- ``channels``: ``{"<inbox type>": ["stream", "webhook", "email", "push"]}``; a type left out keeps
  its default (`default_channels`). The inbox itself (``GET me/notifications``) always has every
  entry: a channel only decides where an entry is carried.
- ``timezone`` (an IANA name, default UTC) and ``quiet_hours`` ``{"start": "22:00", "end":
  "07:30"}``: e-mail and push wait until the window ends; ``clock_low`` passes through unless
  ``quiet_hours.clock_low`` is false.
- ``email_digest``: ``immediate``, ``hourly``, ``every_6_hours`` (the default), ``daily`` (at
  ``email_digest_hour``, local, default 8) or ``off``; ``email_your_turn: false`` is ``off`` too.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from notify import registry

CHANNELS = ("stream", "webhook", "email", "push")
# what the e-mail digest tells of, by default
MAILED = ("your_turn", "chat", "nudged", "tournament_started", "tournament_paired", "tournament_finished")
PUSHED = (
    "your_turn",
    "clock_low",
    "timed_out",
    "match_finished",
    "invited",
    "nudged",
    "proposal",
    "chat",
    "bot_took_over",
    "tournament_started",
    "tournament_paired",
    "tournament_finished",
)
DIGESTS = {"immediate": 0, "hourly": 3600, "every_6_hours": 6 * 3600, "daily": 24 * 3600, "off": None}
_CLOCK = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")


def _prefs(preferences: Any) -> dict[str, Any]:
    if isinstance(preferences, str):  # the raw column (JSON text) read with an inbox entry
        preferences = json.loads(preferences)
    return preferences if isinstance(preferences, dict) else {}


def default_channels(type: str) -> list[str]:
    out = ["stream", "webhook"]
    if type in MAILED:
        out.append("email")
    if type in PUSHED:
        out.append("push")
    return out


def channels(preferences: Any) -> dict[str, list[str]]:
    """The effective channels of every inbox entry type."""
    chosen = _prefs(preferences).get("channels") or {}
    return {t: list(chosen[t]) if t in chosen else default_channels(t) for t in registry.types()}


def wants(preferences: Any, type: str, channel: str) -> bool:
    chosen = (_prefs(preferences).get("channels") or {}).get(type)
    return channel in (chosen if chosen is not None else default_channels(type))


def zone(preferences: Any) -> ZoneInfo:
    try:
        return ZoneInfo(str(_prefs(preferences).get("timezone") or "UTC"))
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _clock(text: str) -> time:
    found = _CLOCK.fullmatch(text)
    assert found is not None
    return time(int(found[1]), int(found[2]))


def quiet_until(preferences: Any, now: datetime, type: str = "") -> datetime | None:
    """When the user's quiet hours end, if ``now`` falls inside them (else None). ``type``:
    ``clock_low`` passes through unless the user said otherwise."""
    prefs = _prefs(preferences)
    quiet = prefs.get("quiet_hours")
    if not isinstance(quiet, dict) or "start" not in quiet or "end" not in quiet:
        return None
    if type == "clock_low" and quiet.get("clock_low", True):
        return None
    tz = zone(prefs)
    local = now.astimezone(tz)
    start, end = _clock(quiet["start"]), _clock(quiet["end"])
    if start == end:
        return None
    today = local.date()
    for day in (today - timedelta(days=1), today):  # a window that began yesterday may still run
        begins = datetime.combine(day, start, tz)
        ends = datetime.combine(day if end > start else day + timedelta(days=1), end, tz)
        if begins <= local < ends:
            return ends
    return None


def digest_interval(preferences: Any) -> int | None:
    """Seconds between two digests (None: no digest at all)."""
    prefs = _prefs(preferences)
    if prefs.get("email_your_turn") is False:
        return None
    return DIGESTS.get(str(prefs.get("email_digest", "every_6_hours")), DIGESTS["every_6_hours"])


def next_daily(preferences: Any, now: datetime) -> datetime:
    """The next ``email_digest_hour`` o'clock in the user's time zone, after ``now``."""
    prefs = _prefs(preferences)
    hour = prefs.get("email_digest_hour", 8)
    tz = zone(prefs)
    local = now.astimezone(tz)
    at = datetime.combine(local.date(), time(int(hour)), tz)
    return at if at > local else datetime.combine(local.date() + timedelta(days=1), time(int(hour)), tz)


def validate(value: dict[str, Any]) -> None:
    """Raise ValueError with a sentence for the first thing wrong in these notification preferences."""
    chosen = value.get("channels")
    if chosen is not None:
        if not isinstance(chosen, dict):
            raise ValueError("channels must be an object of inbox types.")
        known = set(registry.types())
        for type, picked in chosen.items():
            if type not in known:
                raise ValueError(f"channels: unknown inbox type {type!r}.")
            if not isinstance(picked, list) or any(c not in CHANNELS for c in picked):
                raise ValueError(f"channels.{type} must be a list of {', '.join(CHANNELS)}.")
    if "timezone" in value:
        name = value["timezone"]
        if not isinstance(name, str) or name not in _zones():
            raise ValueError("timezone must be an IANA time zone name, such as Europe/Warsaw.")
    if "quiet_hours" in value and value["quiet_hours"] is not None:
        quiet = value["quiet_hours"]
        if not isinstance(quiet, dict) or set(quiet) - {"start", "end", "clock_low"}:
            raise ValueError('quiet_hours must be {"start": "HH:MM", "end": "HH:MM"} (and "clock_low").')
        for end in ("start", "end"):
            if not isinstance(quiet.get(end), str) or not _CLOCK.fullmatch(quiet[end]):
                raise ValueError(f"quiet_hours.{end} must be a time, HH:MM.")
        if "clock_low" in quiet and not isinstance(quiet["clock_low"], bool):
            raise ValueError("quiet_hours.clock_low must be true or false.")
    if "email_digest" in value and value["email_digest"] not in DIGESTS:
        raise ValueError(f"email_digest must be one of {', '.join(DIGESTS)}.")
    if "email_digest_hour" in value:
        hour = value["email_digest_hour"]
        if isinstance(hour, bool) or not isinstance(hour, int) or not 0 <= hour <= 23:
            raise ValueError("email_digest_hour must be an hour, 0 to 23.")


_ZONES: set[str] = set()


def _zones() -> set[str]:
    if not _ZONES:
        _ZONES.update(available_timezones())
    return _ZONES
