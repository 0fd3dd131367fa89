"""Streams end to end under a real ASGI server: a move reaches the awaited user's inbox stream as
`your_turn` and the match stream as its record; resuming replays exactly what was missed; tickets
are single use; the caps answer 503 with a Retry-After."""

from __future__ import annotations

import asyncio
import gc
from contextlib import aclosing

import httpx
import pytest

from accounts.services import token_for
from games.services import lobby, play
from notify.models import Notification
from tests.aio import run_apart

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("streams")]


def _auth(user) -> dict[str, str]:
    return {"Authorization": f"Token {token_for(user)}"}


def _toy(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    match = lobby.match_create(user=alice, game="toy", players=2, options={"pile": 20})
    lobby.match_join(match_id=match.id, user=bob)
    match.refresh_from_db()
    return alice, bob, match


def _take(match, user, n=1):
    match.refresh_from_db()
    return play.move_submit(match_id=match.id, user=user, move={"type": "take", "n": n}, expected_version=match.version)


def test_a_move_reaches_the_awaited_users_stream_and_the_match_stream(toy_game, make_user, stream_server, sse):
    alice, bob, match = _toy(make_user)
    after = Notification.objects.filter(user=bob).order_by("-seq").values_list("seq", flat=True).first() or 0
    inbox = sse(f"{stream_server}/api/v1/me/stream?after={after}", _auth(bob))
    assert inbox.status == 200
    assert inbox.response_headers["content-type"].startswith("text/event-stream")
    assert "content-encoding" not in inbox.response_headers
    assert inbox.comments  # a keep-alive comment at once
    watch = sse(
        f"{stream_server}/api/v1/matches/{match.id}/stream", {**_auth(bob), "Last-Event-ID": str(match.version)}
    )
    _take(match, alice)
    assert inbox.wait_for(lambda es: any(e.event == "your_turn" for e in es))
    turn = next(e for e in inbox.events if e.event == "your_turn")
    assert turn.data["match"] == match.id and turn.data["payload"]["seat"] == 1
    assert turn.id == Notification.objects.get(user=bob, type="your_turn", payload__version=match.version + 1).seq
    assert watch.wait_for(lambda es: any(e.event == "move" for e in es))
    record = next(e for e in watch.events if e.event == "move")
    assert record.id == match.version + 1 and record.data["seat"] == 0


def test_resume_replays_exactly_the_missed_entries(toy_game, make_user, stream_server, sse):
    alice, bob, match = _toy(make_user)
    first = Notification.objects.filter(user=bob).order_by("-seq").first()
    for _ in range(3):  # three turns for bob while he is away
        _take(match, alice)
        _take(match, bob)
    missed = list(
        Notification.objects.filter(user=bob, seq__gt=first.seq).order_by("seq").values_list("seq", flat=True)
    )
    assert len(missed) == 3
    inbox = sse(f"{stream_server}/api/v1/me/stream", {**_auth(bob), "Last-Event-ID": str(first.seq)})
    assert inbox.wait_for(lambda es: len(es) >= 3)
    assert [e.id for e in inbox.events] == missed
    watch = sse(f"{stream_server}/api/v1/matches/{match.id}/stream?after=3", _auth(alice))
    match.refresh_from_db()
    assert watch.wait_for(lambda es: len(es) >= match.version - 3)
    assert [e.id for e in watch.events] == list(range(4, match.version + 1))


def test_a_ticket_opens_one_stream_once(make_user, stream_server, sse, api):
    bob = make_user("bob")
    ticket = api(bob).post("/api/v1/me/stream-tickets").json()["ticket"]
    first = sse(f"{stream_server}/api/v1/me/stream?ticket={ticket}")
    assert first.status == 200
    again = sse(f"{stream_server}/api/v1/me/stream?ticket={ticket}")
    assert again.status == 401 and again.response_headers["content-type"] == "application/problem+json"
    assert sse(f"{stream_server}/api/v1/me/stream").status == 401
    assert sse(f"{stream_server}/api/v1/me/stream?ticket=forged").status == 401


def test_beyond_the_cap_a_stream_is_refused_with_retry_after(make_user, stream_server, sse, settings):
    settings.TABULA_STREAMS_PER_USER = 2
    bob = make_user("bob")
    for _ in range(2):
        assert sse(f"{stream_server}/api/v1/me/stream", _auth(bob)).status == 200
    refused = sse(f"{stream_server}/api/v1/me/stream", _auth(bob))
    assert refused.status == 503
    assert 5 <= int(refused.response_headers["retry-after"]) <= 15
    assert '"code":"too_many_streams"' in refused.body.replace(" ", "")


def test_bad_input_is_a_clear_4xx(make_user, stream_server):
    bob = make_user("bob")
    r = httpx.get(f"{stream_server}/api/v1/me/stream", headers={**_auth(bob), "Last-Event-ID": "nope"})
    assert r.status_code == 400 and r.headers["content-type"] == "application/problem+json"
    r = httpx.get(f"{stream_server}/api/v1/matches/nosuchmatch/stream", headers=_auth(bob))
    assert r.status_code == 404


def test_without_an_id_the_stream_starts_at_the_current_end(toy_game, make_user, stream_server, sse):
    alice, bob, match = _toy(make_user)
    _take(match, alice)
    _take(match, bob)  # alice now has entries before the stream opens
    inbox = sse(f"{stream_server}/api/v1/me/stream", _auth(alice))
    _take(match, alice)
    _take(match, bob)
    assert inbox.wait_for(lambda es: len(es) >= 1)
    last = Notification.objects.filter(user=alice).order_by("-seq").first()
    assert [e.id for e in inbox.events] == [last.seq]


def test_a_wsgi_worker_never_holds_a_stream(make_user, api):
    answer = api(make_user("bob")).get("/api/v1/me/stream")
    assert answer.status_code == 503 and answer.json()["code"] == "streams_unavailable"
    assert answer["Retry-After"]


def _body(ended: list[str], lease=None):
    """A stream's body as `notify.streams.events` is one: its end gives its lease back."""

    async def body():
        try:
            for n in range(1000):  # a long backlog
                yield f"id: {n}\n\n"
        finally:
            ended.append("finally")
            if lease is not None:
                lease.release()

    return body()


async def _send_one_part_and_go(response, ended: list[str]) -> list[str]:
    """What Django's ASGI handler does when the client goes while a stream sends (it stops reading
    ``aiter(response)`` and closes that: `ASGIHandler.send_response`); then what had ended by the
    time the loop came round again (its end would close every generator left open)."""
    async with aclosing(aiter(response)) as parts:
        async for _ in parts:
            break
    await asyncio.sleep(0)
    return list(ended)


def test_a_stream_the_client_leaves_mid_backlog_ends_and_gives_its_place_back(settings):
    """Django closes only its own wrappers around a body: a plain streaming response leaves the body
    suspended at its ``yield`` (its ``finally`` waits for the garbage collector, and its place under
    the caps with it). `EventStream` closes the body itself."""
    from django.http import StreamingHttpResponse

    from api.streams import EventStream
    from notify.streams import Caps

    settings.TABULA_STREAMS_PER_USER = 1
    caps = Caps()
    ended: list[str] = []
    gc.disable()  # no collection comes to the rescue, as in a busy process
    try:
        plain = StreamingHttpResponse(_body(ended))
        assert run_apart(_send_one_part_and_go(plain, ended)) == []  # why EventStream exists
        ended.clear()

        lease = caps.lease(7)
        assert not isinstance(lease, str) and caps.lease(7) == "user"
        response = EventStream(_body(ended, lease), lease)
        assert run_apart(_send_one_part_and_go(response, ended)) == ["finally"]
        assert not lease.held and caps.total == 0
        assert not isinstance(caps.lease(7), str)  # the user may open a stream again
    finally:
        gc.enable()


def test_a_stream_closed_unsent_or_collected_unsent_gives_its_place_back():
    from api.streams import EventStream
    from notify.streams import Caps

    caps = Caps()
    closed, collected = caps.lease(1), caps.lease(2)
    assert not isinstance(closed, str) and not isinstance(collected, str)
    EventStream(_body([]), closed).close()  # the response was never iterated: its body never ran
    assert not closed.held
    EventStream(_body([]), collected)  # dropped unsent (the request cancelled after the view answered)
    gc.collect()  # the collector gives it back at the next lease (it may run with the caps' lock held)
    again = caps.lease(2)
    assert not collected.held and not isinstance(again, str) and caps.total == 1
    again.release()
    closed.release()  # a second ending gives nothing back twice
    assert caps.total == 0 and dict(caps.per_user) == {}


def test_a_stream_refused_or_missing_holds_no_place(make_user, stream_server):
    from notify.streams import CAPS

    bob = make_user("bob")
    assert httpx.get(f"{stream_server}/api/v1/matches/nosuchmatch/stream", headers=_auth(bob)).status_code == 404
    assert CAPS.per_user.get(bob.pk, 0) == 0
