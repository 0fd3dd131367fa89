"""Notice preferences (issue 28): per-type channels, quiet hours in the user's time zone (a property:
nothing is mailed or pushed inside them), the digest's rhythm, and `since_your_last`."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core import mail as outbox
from django.core.cache import cache
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from games.services import lobby, play
from notify import mail, preferences
from notify.models import MailHeld, Notification

API = "/api/v1"
ZONES = ["UTC", "Asia/Tokyo", "Asia/Kolkata", "America/Sao_Paulo"]  # no daylight saving: a plain oracle
clock = st.tuples(st.integers(0, 23), st.integers(0, 59))
moment = st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2027, 12, 31)).map(
    lambda d: d.replace(tzinfo=UTC)
)


def _inside(local: datetime, start: tuple[int, int], end: tuple[int, int]) -> bool:
    m = local.hour * 60 + local.minute + local.second / 60 + local.microsecond / 6e7
    s, e = start[0] * 60 + start[1], end[0] * 60 + end[1]
    return (s < e and s <= m < e) or (s > e and (m >= s or m < e))


@given(start=clock, end=clock, now=moment, zone=st.sampled_from(ZONES))
@hsettings(max_examples=400, deadline=None)
def test_quiet_until_is_the_end_of_the_window_exactly_when_inside(start, end, now, zone):
    prefs = {
        "timezone": zone,
        "quiet_hours": {"start": f"{start[0]:02d}:{start[1]:02d}", "end": f"{end[0]:02d}:{end[1]:02d}"},
    }
    until = preferences.quiet_until(prefs, now)
    local = now.astimezone(ZoneInfo(zone))
    if start != end and _inside(local, start, end):
        assert until is not None and until > now and until - now <= timedelta(hours=24)
        assert (until.astimezone(ZoneInfo(zone)).hour, until.astimezone(ZoneInfo(zone)).minute) == end
    else:
        assert until is None


def test_clock_low_passes_quiet_hours_unless_told_otherwise():
    now = datetime(2026, 6, 1, 23, 0, tzinfo=UTC)
    quiet = {"quiet_hours": {"start": "22:00", "end": "07:00"}}
    assert preferences.quiet_until(quiet, now, "clock_low") is None
    assert preferences.quiet_until(quiet, now, "your_turn") == datetime(2026, 6, 2, 7, 0, tzinfo=UTC)
    strict = {"quiet_hours": {**quiet["quiet_hours"], "clock_low": False}}
    assert preferences.quiet_until(strict, now, "clock_low") is not None


@pytest.mark.django_db
@given(start=clock, end=clock, minute=st.integers(0, 24 * 60 - 1), zone=st.sampled_from(ZONES))
@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_no_digest_is_mailed_inside_quiet_hours(make_user, toy_game, start, end, minute, zone):
    cache.clear()
    outbox.outbox.clear()
    user = make_user(f"q{uuid.uuid4().hex[:12]}")  # one database for every example: names of their own
    user.email = "q@example.com"
    user.preferences = {
        "timezone": zone,
        "quiet_hours": {"start": f"{start[0]:02d}:{start[1]:02d}", "end": f"{end[0]:02d}:{end[1]:02d}"},
    }
    user.save()
    other = make_user(f"o{user.username}")
    match = lobby.match_create(user=other, game="toy", players=2, options={"pile": 20})
    lobby.match_join(match_id=match.id, user=user)
    day = datetime(2026, 6, 1, tzinfo=ZoneInfo(zone))
    now = (day + timedelta(minutes=minute)).astimezone(UTC)
    sent = mail.digest_maybe(user.pk, now=now)
    if start != end and _inside(now.astimezone(ZoneInfo(zone)), start, end):
        assert sent is False and outbox.outbox == []
        assert MailHeld.objects.get(user=user).due_at > now


@pytest.mark.django_db
def test_channels_are_validated_and_shown_in_full(make_user, api):
    ann = make_user("ann")
    me = api(ann).get(f"{API}/me").json()
    assert me["channels"]["your_turn"] == ["stream", "webhook", "email", "push"]
    assert me["channels"]["followed"] == ["stream", "webhook"]
    ok = api(ann).patch(f"{API}/me", {"preferences": {"channels": {"chat": ["stream"]}}}, format="json")
    assert ok.status_code == 200 and ok.json()["channels"]["chat"] == ["stream"]
    for bad in (
        {"channels": {"no_such_type": ["stream"]}},
        {"channels": {"chat": ["pigeon"]}},
        {"channels": ["chat"]},
        {"timezone": "Mars/Olympus"},
        {"quiet_hours": {"start": "25:00", "end": "07:00"}},
        {"quiet_hours": {"start": "22:00"}},
        {"email_digest": "weekly"},
        {"email_digest_hour": 24},
    ):
        answer = api(ann).patch(f"{API}/me", {"preferences": bad}, format="json")
        assert answer.status_code == 400, bad
    assert api(ann).get(f"{API}/me").json()["preferences"] == {"channels": {"chat": ["stream"]}}  # nothing changed


@pytest.mark.django_db
def test_the_digest_rhythm_is_a_preference(make_user, toy_game, settings):
    settings.TABULA_EMAIL_ACTIVE_S = 0
    cache.clear()
    alice, bob = make_user("alice"), make_user("bob")
    bob.email = "bob@example.com"
    bob.preferences = {"email_digest": "off"}
    bob.save()
    match = lobby.match_create(user=alice, game="toy", players=2, options={"pile": 20})
    lobby.match_join(match_id=match.id, user=bob)
    match.refresh_from_db()
    if bob.pk not in [s.user_id for s in match.seats.all() if s.index in match.awaiting]:
        play.move_submit(match_id=match.id, user=alice, move={"type": "take", "n": 1}, expected_version=match.version)
    assert mail.digest_maybe(bob.pk) is False
    bob.preferences = {"email_digest": "immediate"}
    bob.save()
    assert mail.digest_maybe(bob.pk) is True and mail.digest_maybe(bob.pk) is True  # no interval
    bob.preferences = {"email_digest": "daily", "email_digest_hour": 9, "timezone": "Asia/Tokyo"}
    bob.save()
    cache.clear()
    eight = datetime(2026, 6, 1, 8, 0, tzinfo=ZoneInfo("Asia/Tokyo"))
    assert mail.digest_maybe(bob.pk, now=eight) is False
    assert MailHeld.objects.get(user=bob).due_at == datetime(2026, 6, 1, 9, 0, tzinfo=ZoneInfo("Asia/Tokyo"))
    assert mail.held_due(now=eight) == []
    assert mail.held_due(now=eight + timedelta(hours=1)) == [bob.pk]
    nine = datetime(2026, 6, 1, 9, 0, 30, tzinfo=ZoneInfo("Asia/Tokyo"))
    assert mail.digest_maybe(bob.pk, now=nine) is True


@pytest.mark.django_db
def test_since_your_last_is_in_the_turn_entry_and_the_state(make_user, toy_game, api):
    alice, bob = make_user("alice"), make_user("bob")
    match = lobby.match_create(user=alice, game="toy", players=2, options={"pile": 40})
    lobby.match_join(match_id=match.id, user=bob)
    match.refresh_from_db()
    first = next(s.user for s in match.seats.all() if s.index == match.awaiting[0])
    second = bob if first == alice else alice
    for who in (first, second, first):
        match.refresh_from_db()
        play.move_submit(match_id=match.id, user=who, move={"type": "take", "n": 1}, expected_version=match.version)
    entry = Notification.objects.filter(user=second, type="your_turn").order_by("-seq").first()
    since = entry.payload["since_your_last"]
    assert [r["type"] for r in since["records"]] == ["move"] and since["more"] == 0
    state = api(second).get(f"{API}/matches/{match.id}/state").json()
    assert state["since_your_last"] == since
    assert "since_your_last" not in api(first).get(f"{API}/matches/{match.id}/state").json()  # not awaited
