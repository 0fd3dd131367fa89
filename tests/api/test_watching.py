"""Watching without an account (issue 32): a public match's summary, public view, log and timeline
answer anyone; a private match stays a 404 for them, and nothing they could not see leaks."""

from __future__ import annotations

import pytest

from games.services import lobby

API = "/api/v1"
pytestmark = pytest.mark.django_db
READS = ("", "/state", "/events?after=0", "/timeline", "/state?at=2")


def test_a_visitor_reads_a_public_match_as_a_spectator(make_user, client, api):
    ann, ben = make_user("ann"), make_user("ben")
    match = lobby.match_create(user=ann, game="enka", players=2)
    lobby.match_join(match_id=match.id, user=ben)
    for path in READS:
        answer = client.get(f"{API}/matches/{match.id}{path}")
        assert answer.status_code == 200, (path, answer.content)
    state = client.get(f"{API}/matches/{match.id}/state").json()
    assert state["you"] is None and state["legal_moves"] == []
    # The visitor sees what a signed-in spectator sees, never a hand.
    spectator = api(make_user("cyd")).get(f"{API}/matches/{match.id}/state").json()
    assert state["view"] == spectator["view"]
    seated = api(ann).get(f"{API}/matches/{match.id}/state").json()["view"]
    assert seated["hand"] and state["view"]["hand"] == []  # a spectator holds no cards


def test_a_private_match_does_not_exist_for_a_visitor(make_user, client):
    ann, ben = make_user("ann"), make_user("ben")
    match = lobby.match_create(user=ann, game="enka", players=2, private=True)
    lobby.match_join(match_id=match.id, user=ben)
    for path in READS:
        assert client.get(f"{API}/matches/{match.id}{path}").status_code == 404, path


def test_a_visitor_may_not_play_export_or_stream(make_user, client):
    ann, ben = make_user("ann"), make_user("ben")
    match = lobby.match_create(user=ann, game="enka", players=2)
    lobby.match_join(match_id=match.id, user=ben)
    assert client.post(f"{API}/matches/{match.id}/moves", {}, content_type="application/json").status_code == 401
    assert client.get(f"{API}/matches/{match.id}/export").status_code == 401
    assert client.get(f"{API}/matches").status_code == 401
