"""A private match's stream is as absent as a missing match for anyone who may not see it, and
open to its players, its invitees and the holder of its invitation code (issue 13 meets issue 12)."""

from __future__ import annotations

import json
import time

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


def test_streams_show_a_stranger_no_private_match(toy_game, make_user, stream_server, sse):
    """The stream paths of tests/api/test_privacy.py's walk: what a stream replays is what the API
    answers (the caller's inbox, a match's events), and a private match's stream is a 404."""
    from tests.api.test_privacy import MISSING, add_private_invitation, add_private_played, build_world

    world = build_world(make_user, hooks=False)
    add_private_played(world)
    add_private_invitation(world)
    api = f"{stream_server}/api/v1"
    for viewer, hidden in (("dave", ["finished", "live", "open"]), ("carol", ["finished", "live"])):
        headers = _auth(world.users[viewer])
        inbox = httpx.get(f"{api}/me/notifications?limit=500", headers=headers).json()
        events = httpx.get(f"{api}/matches/{world.public}/events", headers=headers).json()
        mine = sse(f"{api}/me/stream?after=0", headers)
        public = sse(f"{api}/matches/{world.public}/stream?after=0", headers)
        want = (len(inbox), len(events))
        assert mine.wait_for(lambda got, n=want[0]: len(got) >= n)
        assert public.wait_for(lambda got, n=want[1]: len(got) >= n)
        time.sleep(0.3)  # anything more would have come by now
        assert [e.data for e in mine.events] == inbox and [e.data for e in public.events] == events
        seen = json.dumps([inbox, events, [e.data for e in mine.events + public.events]])
        missing = httpx.get(f"{api}/matches/{MISSING}/stream", headers=headers)
        for name in hidden:
            match_id = world.private[name]
            assert match_id not in seen, (viewer, name)
            answer = httpx.get(f"{api}/matches/{match_id}/stream", headers=headers)
            assert answer.status_code == 404 == missing.status_code
            assert answer.text.replace(match_id, "ID") == missing.text.replace(MISSING, "ID")
        mine.close()
        public.close()
    assert world.private["open"] in json.dumps([e.data for e in mine.events])  # carol's invitation
