"""Private notes and nudges (issue 27, items 2 and 3)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.core.cache import cache
from django.test import override_settings
from django.utils import timezone

from games.models import Match, Seat
from games.services import away, lobby
from notify.models import Notification
from talk.models import Nudge

pytestmark = pytest.mark.django_db
API = "/api/v1"


def _table(make_user, **kwargs: Any) -> tuple[Match, list[Any]]:
    people = [make_user(n) for n in ("ann", "ben")]
    match = lobby.match_create(user=people[0], game="enka", players=2, **kwargs)
    lobby.match_join(match_id=match.id, user=people[1])
    match.refresh_from_db()
    return match, people


def _notes(api, person, match, text=None) -> Any:
    path = f"{API}/matches/{match.id}/notes"
    return api(person).get(path) if text is None else api(person).put(path, {"text": text}, format="json")


def test_notes_are_their_owners_alone(make_user, api):
    match, (ann, ben) = _table(make_user)
    assert _notes(api, ann, match).json() == {"text": "", "updated_at": None}
    saved = _notes(api, ann, match, "ben hoards wild cards")
    assert saved.status_code == 200 and saved.json()["text"] == "ben hoards wild cards"
    assert _notes(api, ann, match).json()["text"] == "ben hoards wild cards"
    assert _notes(api, ben, match).json()["text"] == ""
    assert _notes(api, ann, match, "x" * 10_001).status_code == 400
    assert _notes(api, ann, match, "").json() == {"text": "", "updated_at": None}  # empty deletes
    for path in ("", "/state", "/events", "/chat"):  # nowhere else
        assert "hoards" not in api(ann).get(f"{API}/matches/{match.id}{path}").content.decode()


def test_notes_of_a_private_match_are_a_404_for_a_stranger(make_user, api):
    match, _ = _table(make_user, private=True)
    assert _notes(api, make_user("eve"), match).status_code == 404


def _awaited(match: Match) -> int:
    match.refresh_from_db()
    return match.awaiting[0]


def _age(match: Match, seat: int, hours: float) -> None:
    """The seat has been awaited for ``hours``."""
    since = (timezone.now() - timedelta(hours=hours)).isoformat()
    Match.objects.filter(id=match.id).update(awaited_since={str(seat): since})


def _nudge(api, person, match, seat) -> Any:
    return api(person).post(f"{API}/matches/{match.id}/nudges", {"seat": seat}, format="json")


def test_awaited_since_is_kept_while_a_seat_stays_awaited(make_user):
    match, _ = _table(make_user)
    seat = _awaited(match)
    assert set(match.awaited_since) == {str(seat)}


def test_a_nudge_waits_twelve_hours_then_once_per_turn_and_day(make_user, api, django_capture_on_commit_callbacks):
    match, people = _table(make_user)
    seat = _awaited(match)
    waiting, nudger = people[seat], people[1 - seat]
    _age(match, seat, 11)
    early = _nudge(api, nudger, match, seat)
    assert early.status_code == 409 and early.json()["code"] == "nudge_too_soon"
    assert 3500 <= early.json()["retry_after"] <= 3601
    _age(match, seat, 13)
    waiting.email = "w@example.com"
    waiting.save()
    cache.set(f"tabula:email-digest:{waiting.pk}", 1)  # a digest went out a moment ago
    with override_settings(TABULA_EMAIL_DELAY_S=3600), django_capture_on_commit_callbacks(execute=True):
        answer = _nudge(api, nudger, match, seat)
    assert answer.status_code == 202, answer.content
    entry = Notification.objects.get(user=waiting, type="nudged")
    assert entry.payload["seat"] == seat and entry.payload["by"] == nudger.username
    assert any("nudged you" in m.body for m in mail.outbox)  # the digest's delay skipped
    again = _nudge(api, nudger, match, seat)
    assert again.status_code == 409 and again.json()["retry_after"] > 0
    assert Nudge.objects.count() == 1
    assert not Notification.objects.filter(user=nudger, type="nudged").exists()  # never public


def test_a_nudge_scales_with_the_per_move_time(make_user, api):
    match, people = _table(make_user, time_control={"per_move_s": 7 * 24 * 3600})
    seat = _awaited(match)
    _age(match, seat, 13)  # 25 % of a week is 42 h
    answer = _nudge(api, people[1 - seat], match, seat)
    assert answer.status_code == 409 and answer.json()["retry_after"] > 28 * 3600


def test_no_nudge_of_oneself_a_seat_not_awaited_or_an_absent_seat(make_user, api):
    match, people = _table(make_user, time_control={"per_move_s": 3600})
    seat = _awaited(match)
    _age(match, seat, 13)
    assert _nudge(api, people[seat], match, seat).status_code == 400
    assert _nudge(api, people[seat], match, 1 - seat).json()["code"] == "not_awaited"
    assert _nudge(api, make_user("eve"), match, seat).status_code == 403
    away.away_start(user=people[seat], until=timezone.now() + timedelta(days=2))
    assert Seat.objects.get(match=match, index=seat).away_until is not None
    assert _nudge(api, people[1 - seat], match, seat).json()["code"] == "seat_away"
