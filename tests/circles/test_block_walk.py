"""Blocks (issue 27, item 4): one rule, and every path that lets one user reach another obeys it.

A walk with a blocked pair over every entry path: the lobby list, a match's page, joining,
invitations, rematches, chat, nudges, follows and the notifications they cause. Nothing gets
through, the blocked user is never told, and a block never removes anyone from a live match.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone

from circles import services
from circles.models import Block
from games.models import Invitation, Match
from games.services import lobby, play
from notify.models import Notification

pytestmark = pytest.mark.django_db
API = "/api/v1"


@pytest.fixture
def pair(make_user, api) -> tuple[Any, Any]:
    """``bea`` blocks ``max`` (scope all)."""
    bea, max_ = make_user("bea"), make_user("max")
    assert api(bea).put(f"{API}/me/blocks/max", {"scope": "all"}, format="json").status_code == 201
    return bea, max_


def _listed(api, user, **params) -> set[str]:
    answer = api(user).get(f"{API}/matches", params)
    assert answer.status_code == 200
    return {m["id"] for m in answer.json()["results"]}


def _inbox(user) -> list[str]:
    return list(Notification.objects.filter(user=user).values_list("type", flat=True))


def test_open_matches_are_hidden_both_ways_as_if_missing(pair, make_user, api):
    bea, max_ = pair
    beas = lobby.match_create(user=bea, game="enka", players=2)
    maxs = lobby.match_create(user=max_, game="enka", players=2)
    other = lobby.match_create(user=make_user("cal"), game="enka", players=2)
    assert _listed(api, max_) == {maxs.id, other.id}
    assert _listed(api, bea) == {beas.id, other.id}
    assert _listed(api, max_, joinable="true") == {other.id}
    for user, match in ((max_, beas), (bea, maxs)):
        for path in ("", "/state", "/events", "/chat"):
            answer = api(user).get(f"{API}/matches/{match.id}{path}")
            assert answer.status_code == 404, path
        joined = api(user).post(f"{API}/matches/{match.id}/join", {}, format="json")
        assert joined.status_code == 404 and joined.json()["code"] == "not_found"
    with pytest.raises(Exception, match="No match"):  # the service itself refuses too
        lobby.match_join(match_id=beas.id, user=max_)
    seen_by_stranger = _listed(api, make_user("dan"))
    assert {beas.id, maxs.id} <= seen_by_stranger


def test_an_invitation_code_does_not_get_through(pair, api):
    bea, max_ = pair
    match = lobby.match_create(user=bea, game="enka", players=2, private=True)
    answer = api(max_).post(f"{API}/matches/{match.id}/join", {"code": match.invite_code}, format="json")
    assert answer.status_code == 404


def test_invitations_between_them_are_not_delivered(pair, api):
    bea, max_ = pair
    # the blocked invites the blocker: the inviter sees it pending, the blocker never hears of it
    match = lobby.match_create(user=max_, game="enka", players=3)
    made = api(max_).post(f"{API}/matches/{match.id}/invitations", {"username": "bea"}, format="json")
    assert made.status_code in (200, 201), made.content
    assert Invitation.objects.get(match=match, user=bea).delivered is False
    assert "invited" not in _inbox(bea)
    assert api(bea).get(f"{API}/me/invitations").json() == []
    # an invitation list at creation too
    lobby.match_create(user=max_, game="enka", players=2, invite=["bea"])
    assert "invited" not in _inbox(bea)
    # the blocker inviting whom they block is told why not (it is their own block)
    own = lobby.match_create(user=bea, game="enka", players=3)
    refused = api(bea).post(f"{API}/matches/{own.id}/invitations", {"username": "max"}, format="json")
    assert refused.status_code == 409 and refused.json()["code"] == "user_blocked"
    assert not Invitation.objects.filter(match=own, user=max_).exists()


def test_a_block_never_removes_anyone_from_a_live_match_and_a_rematch_leaves_them_out(make_user, api):
    bea, max_ = make_user("bea"), make_user("max")
    match = lobby.match_create(user=bea, game="enka", players=2)
    lobby.match_join(match_id=match.id, user=max_)
    services.block(bea, "max", "all")
    state = api(max_).get(f"{API}/matches/{match.id}/state")
    assert state.status_code == 200  # still seated, still playing
    play.match_resign(match_id=match.id, user=bea)
    rematch = api(max_).post(f"{API}/matches/{match.id}/rematch", {}, format="json")
    assert rematch.status_code == 201, rematch.content
    new = Match.objects.get(id=rematch.json()["id"])
    assert not Invitation.objects.filter(match=new, user=bea).exists()
    assert "invited" not in _inbox(bea)
    assert new.seats.filter(user=bea).count() == 0


def test_chat_of_the_blocked_is_filtered_for_the_blocker_and_sends_no_notice(make_user, api):
    bea, max_ = make_user("bea"), make_user("max")
    match = lobby.match_create(user=bea, game="enka", players=2)
    lobby.match_join(match_id=match.id, user=max_)
    services.block(bea, "max", "messages")
    said = api(max_).post(f"{API}/matches/{match.id}/chat", {"channel": "table", "text": "hey"}, format="json")
    assert said.status_code == 201  # the blocked user is not told
    assert api(bea).get(f"{API}/matches/{match.id}/chat").json()["messages"] == []
    assert "chat" not in _inbox(bea)
    api(bea).post(f"{API}/matches/{match.id}/chat", {"channel": "table", "text": "hello"}, format="json")
    assert [m["text"] for m in api(max_).get(f"{API}/matches/{match.id}/chat").json()["messages"]] == ["hey", "hello"]


def test_a_nudge_from_the_blocked_is_accepted_and_never_delivered(make_user, api):
    people = [make_user("bea"), make_user("max")]
    match = lobby.match_create(user=people[0], game="enka", players=2)
    lobby.match_join(match_id=match.id, user=people[1])
    match.refresh_from_db()
    seat = match.awaiting[0]
    waiter = match.seats.get(index=seat).user
    nudger = next(p for p in people if p.pk != waiter.pk)
    services.block(waiter, nudger.username, "messages")  # the awaited seat's owner blocks the other
    old = (timezone.now() - timedelta(hours=13)).isoformat()
    Match.objects.filter(id=match.id).update(awaited_since={str(seat): old})
    answer = api(nudger).post(f"{API}/matches/{match.id}/nudges", {"seat": seat}, format="json")
    assert answer.status_code == 202  # not told
    assert "nudged" not in _inbox(waiter)
    again = api(nudger).post(f"{API}/matches/{match.id}/nudges", {"seat": seat}, format="json")
    assert again.status_code == 409  # as for anyone: once per turn


def test_follows_are_refused_silently_and_make_no_friends(pair, api):
    bea, max_ = pair
    answer = api(max_).put(f"{API}/me/following/bea")
    assert answer.status_code == 201 and answer.json()["username"] == "bea"  # not told
    assert [f["username"] for f in api(max_).get(f"{API}/me/following").json()] == ["bea"]
    assert api(bea).get(f"{API}/me/followers").json() == []
    assert "followed" not in _inbox(bea)
    api(bea).put(f"{API}/me/following/max")
    assert all(f["mutual"] is False for f in api(bea).get(f"{API}/me/following").json())
    assert "followed" in _inbox(max_)  # bea follows whom she blocks: her choice


def test_the_block_list_is_its_owners_alone_and_capped(pair, make_user, api):
    bea, max_ = pair
    assert [(b["username"], b["scope"]) for b in api(bea).get(f"{API}/me/blocks").json()] == [("max", "all")]
    assert api(max_).get(f"{API}/me/blocks").json() == []
    assert api(bea).put(f"{API}/me/blocks/max", {"scope": "games"}, format="json").status_code == 200
    assert Block.objects.get(owner=bea).scope == "games"
    assert api(bea).put(f"{API}/me/blocks/bea", {}, format="json").status_code == 400
    assert api(bea).put(f"{API}/me/blocks/nobody", {}, format="json").status_code == 404
    assert api(bea).put(f"{API}/me/blocks/max", {"scope": "some"}, format="json").status_code == 400
    make_user("zed")
    with override_settings(TABULA_MAX_BLOCKS=1):
        capped = api(bea).put(f"{API}/me/blocks/zed", {}, format="json")
    assert capped.status_code == 409 and capped.json()["code"] == "too_many_blocks"
    assert api(bea).delete(f"{API}/me/blocks/max").status_code == 204
    assert api(bea).get(f"{API}/me/blocks").json() == []


def test_the_feed_shows_public_matches_of_people_one_follows(make_user, api):
    ann, ben, cyd = make_user("ann"), make_user("ben"), make_user("cyd")
    public = lobby.match_create(user=ben, game="enka", players=2)
    lobby.match_join(match_id=public.id, user=cyd)
    hidden = lobby.match_create(user=ben, game="enka", players=2, private=True)
    lobby.match_join(match_id=hidden.id, user=cyd)
    assert api(ann).get(f"{API}/me/feed").json() == []
    assert api(ann).put(f"{API}/me/following/ben").status_code == 201
    feed = api(ann).get(f"{API}/me/feed").json()
    assert [(e["match"]["id"], e["event"], e["players"]) for e in feed] == [(public.id, "started", ["ben"])]
    play.match_resign(match_id=public.id, user=cyd)
    assert api(ann).get(f"{API}/me/feed").json()[0]["event"] == "finished"
    assert "followed" in _inbox(ben)
    assert api(ann).delete(f"{API}/me/following/ben").status_code == 204
    assert api(ann).get(f"{API}/me/feed").json() == []
