"""Chat on the match stream (issue 27): `chat` events as each reader may see them, numbered apart
from the records (`R.C` ids), resumable, and a poll of the embedded default that wakes them."""

from __future__ import annotations

import pytest

from accounts.services import token_for
from games.services import lobby, play
from talk import chat

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("streams")]


def _auth(user, **more: str) -> dict[str, str]:
    return {"Authorization": f"Token {token_for(user)}", **more}


def test_chat_reaches_the_match_stream_as_each_reader_may_see_it(make_user, stream_server, sse):
    ann, ben, eve = make_user("ann"), make_user("ben"), make_user("eve")
    match = lobby.match_create(user=ann, game="enka", players=2)
    lobby.match_join(match_id=match.id, user=ben)
    match.refresh_from_db()
    bens = sse(f"{stream_server}/api/v1/matches/{match.id}/stream", _auth(ben))
    eves = sse(f"{stream_server}/api/v1/matches/{match.id}/stream", _auth(eve))
    assert bens.wait_for(lambda es: True) and bens.comments and eves.comments
    chat.chat_post(match_id=match.id, user=ann, channel="table", text="hello ben")
    chat.chat_post(match_id=match.id, user=ann, channel="sealed", text="my secret plan")
    chat.chat_post(match_id=match.id, user=eve, channel="spectators", text="ann will win")
    chat.chat_post(match_id=match.id, user=ann, channel="table", text="your move")
    assert bens.wait_for(lambda es: len([e for e in es if e.event == "chat"]) >= 2)
    assert eves.wait_for(lambda es: len([e for e in es if e.event == "chat"]) >= 1)
    said = [e for e in bens.events if e.event == "chat"]
    assert [e.data["text"] for e in said] == ["hello ben", "your move"]  # never ann's sealed, never the spectators
    assert [e.id for e in said] == [f"{match.version}.1", f"{match.version}.4"]
    assert [e.data["text"] for e in eves.events if e.event == "chat"] == ["ann will win"]
    # resuming after the first message replays the rest, and the records go on as before
    again = sse(
        f"{stream_server}/api/v1/matches/{match.id}/stream", _auth(ben, **{"Last-Event-ID": f"{match.version}.1"})
    )
    assert again.wait_for(lambda es: any(e.event == "chat" for e in es))
    assert [e.data["text"] for e in again.events if e.event == "chat"] == ["your move"]
    play.match_resign(match_id=match.id, user=ann)
    assert again.wait_for(lambda es: any(e.event == "resigned" for e in es))
    resigned = next(e for e in again.events if e.event == "resigned")
    assert resigned.id == f"{match.version + 1}.4"


def test_a_malformed_cursor_is_a_400(make_user, stream_server):
    import httpx

    ann = make_user("ann")
    match = lobby.match_create(user=ann, game="enka", players=2)
    for bad in ("1.x", "1.2.3", "-1", ".5"):
        answer = httpx.get(
            f"{stream_server}/api/v1/matches/{match.id}/stream", headers=_auth(ann, **{"Last-Event-ID": bad})
        )
        assert answer.status_code == 400, bad
    inbox = httpx.get(f"{stream_server}/api/v1/me/stream", headers=_auth(ann, **{"Last-Event-ID": "1.2"}))
    assert inbox.status_code == 400
