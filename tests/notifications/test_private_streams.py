"""A private match's stream is as absent as a missing match for anyone who may not see it, and
open to its players, its invitees and the holder of its invitation code (issue 13 meets issue 12)."""

from __future__ import annotations

import httpx
import pytest

from accounts.services import token_for
from games.services import lobby
from notify.models import Notification

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("streams")]


def _auth(user, **more: str) -> dict[str, str]:
    return {"Authorization": f"Token {token_for(user)}", **more}


def test_a_strangers_match_stream_of_a_private_match_is_a_404(toy_game, make_user, stream_server, sse):
    alice, bob, carol, dave = (make_user(n) for n in ("alice", "bob", "carol", "dave"))
    match = lobby.match_create(user=alice, game="toy", players=3, options={"pile": 20}, private=True, invite=["carol"])
    lobby.match_join(match_id=match.id, user=bob)
    match.refresh_from_db()
    url = f"{stream_server}/api/v1/matches/{match.id}/stream"
    missing = httpx.get(f"{stream_server}/api/v1/matches/nosuchmatch/stream", headers=_auth(dave))
    stranger = httpx.get(url, headers=_auth(dave))
    assert stranger.status_code == 404 == missing.status_code
    assert stranger.headers["content-type"] == "application/problem+json"
    # the same answer as for a missing match, but for the id the caller sent
    assert stranger.text.replace(match.id, "ID") == missing.text.replace("nosuchmatch", "ID")
    wrong_code = httpx.get(url, headers=_auth(dave, **{"Invite-Code": "not-the-code"}))
    assert wrong_code.status_code == 404
    for allowed in (
        sse(url, _auth(bob)),  # seated
        sse(url, _auth(carol)),  # invited
        sse(url, _auth(dave, **{"Invite-Code": match.invite_code})),  # holds the link
    ):
        assert allowed.status == 200


def test_an_invitation_reaches_the_invitees_inbox_in_its_transaction(toy_game, make_user):
    alice, carol = make_user("alice"), make_user("carol")
    match = lobby.match_create(user=alice, game="toy", players=2, options={"pile": 20}, invite=["carol"])
    note = Notification.objects.get(user=carol, type="invited")
    assert note.match_id == match.id and note.payload["by"] == "alice"
