"""Racing chat posts, reads and nudges (issue 27) on PostgreSQL: every message gets its own number,
no 5xx, one inbox entry per match until read, one nudge per turn."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Match
from games.services import lobby
from notify.models import Notification
from talk.models import ChatMessage, Nudge
from tests.races import race

pytestmark = pytest.mark.django_db(transaction=True)
API = "/api/v1"


def _pair(make_user, round_: int) -> tuple[Match, list]:
    people = [make_user(f"ann{round_}"), make_user(f"ben{round_}")]
    match = lobby.match_create(user=people[0], game="enka", players=2)
    lobby.match_join(match_id=match.id, user=people[1])
    match.refresh_from_db()
    return match, people


@pytest.mark.parametrize("round_", range(2))
def test_racing_messages_are_numbered_without_gaps_and_notify_once(make_user, api, round_):
    match, (ann, ben) = _pair(make_user, round_)
    say = lambda who, text, channel="table": lambda: api(who).post(  # noqa: E731
        f"{API}/matches/{match.id}/chat", {"channel": channel, "text": text}, format="json"
    )
    answers = race([say(ann, "a1"), say(ann, "a2"), say(ben, "b1"), say(ann, "s1", "sealed"), say(ann, "a3")])
    assert [a.status_code for a in answers] == [201] * 5, [a.content for a in answers]
    table = sorted(ChatMessage.objects.filter(match=match, channel="table").values_list("seq", flat=True))
    assert table == [1, 2, 3, 4]
    assert sorted(ChatMessage.objects.filter(match=match).values_list("n", flat=True)) == [1, 2, 3, 4, 5]
    assert Notification.objects.filter(user=ben, type="chat").count() == 1  # coalesced, whatever the order
    assert Notification.objects.filter(user=ann, type="chat").count() == 1
    version = match.version
    match.refresh_from_db()
    assert match.version == version  # chat wrote no record


@pytest.mark.parametrize("round_", range(2))
def test_racing_nudges_pass_once(make_user, api, round_):
    match, people = _pair(make_user, round_)
    seat = match.awaiting[0]
    nudger = people[1 - seat]
    day_ago = (timezone.now() - timedelta(days=1)).isoformat()
    Match.objects.filter(id=match.id).update(awaited_since={str(seat): day_ago})
    nudge = lambda: api(nudger).post(f"{API}/matches/{match.id}/nudges", {"seat": seat}, format="json")  # noqa: E731
    answers = race([nudge, nudge, nudge])
    assert sorted(a.status_code for a in answers) == [202, 409, 409], [a.content for a in answers]
    assert Nudge.objects.filter(match=match).count() == 1
    assert Notification.objects.filter(user=people[seat], type="nudged").count() == 1
