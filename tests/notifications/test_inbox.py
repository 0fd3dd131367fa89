"""The inbox API (me/turns, me/notifications) and the "your turn" e-mail digest."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail as outbox
from django.core.cache import cache
from django.utils import timezone

from games.models import Match, Record, Seat
from games.services import deadlines, lobby, play
from notify import mail
from notify.models import Notification

pytestmark = pytest.mark.django_db(transaction=True)


def _toy(alice, bob, **kw):
    match = lobby.match_create(user=alice, game="toy", players=2, options={"pile": 20}, **kw)
    lobby.match_join(match_id=match.id, user=bob)
    match.refresh_from_db()
    return match


def _take(match, user, n=1):
    match.refresh_from_db()
    return play.move_submit(match_id=match.id, user=user, move={"type": "take", "n": n}, expected_version=match.version)


def test_turns_list_the_matches_waiting_for_the_caller_most_urgent_first(toy_game, make_user, api):
    alice, bob = make_user("alice"), make_user("bob")
    calm = _toy(alice, bob)
    urgent = _toy(alice, bob, time_control={"per_move_s": 600})
    _take(calm, alice)
    _take(urgent, alice)
    turns = api(bob).get("/api/v1/me/turns").json()
    assert [t["match"] for t in turns] == [urgent.id, calm.id]
    assert turns[0]["deadline"] is not None and turns[1]["deadline"] is None
    assert turns[0]["game"] == "toy" and turns[0]["version"] == Match.objects.get(id=urgent.id).version
    assert api(alice).get("/api/v1/me/turns").json() == []
    assert api().get("/api/v1/me/turns").status_code == 401


def test_the_inbox_is_numbered_per_user_and_paginated(toy_game, make_user, api):
    alice, bob = make_user("alice"), make_user("bob")
    match = _toy(alice, bob)
    for _ in range(3):
        _take(match, alice)
        _take(match, bob)
    inbox = api(bob).get("/api/v1/me/notifications").json()
    assert [n["type"] for n in inbox] == ["match_started", "your_turn", "your_turn", "your_turn"]
    assert [n["id"] for n in inbox] == [1, 2, 3, 4]
    page = api(bob).get("/api/v1/me/notifications?after=1&limit=2")
    assert [n["id"] for n in page.json()] == [2, 3]
    assert "after=3" in page["Link"] and 'rel="next"' in page["Link"]
    bad = api(bob).get("/api/v1/me/notifications?after=-1")
    assert bad.status_code == 400 and bad["Content-Type"] == "application/problem+json"


def test_the_end_is_announced_with_the_result(toy_game, make_user, api):
    alice, bob = make_user("alice"), make_user("bob")
    match = lobby.match_create(user=alice, game="toy", players=2, options={"pile": 2})
    lobby.match_join(match_id=match.id, user=bob)
    _take(match, alice, 2)
    finished = Notification.objects.filter(type="match_finished")
    assert sorted(finished.values_list("user__username", flat=True)) == ["alice", "bob"]
    assert finished.first().payload["result"] == Match.objects.get(id=match.id).result


def test_a_timeout_and_a_takeover_are_announced(toy_game, make_user):
    alice, bob = make_user("alice"), make_user("bob")
    match = _toy(alice, bob, time_control={"per_move_s": 60, "bot_after": 1})
    Seat.objects.filter(match=match, index=0).update(deadline=timezone.now() - timedelta(seconds=1))
    deadlines.deadlines_process(match_id=match.id)
    types = set(Notification.objects.filter(user=alice).values_list("type", flat=True))
    assert {"timed_out", "bot_took_over"} <= types


def test_clock_low_is_sent_once_past_80_percent(toy_game, make_user):
    alice, bob = make_user("alice"), make_user("bob")
    match = _toy(alice, bob, time_control={"per_move_s": 100})
    now = timezone.now()
    Seat.objects.filter(match=match, index=0).update(
        clock_started_at=now - timedelta(seconds=85), deadline=now + timedelta(seconds=15)
    )
    from games import notices

    assert notices.clock_low_scan() == 1
    assert notices.clock_low_scan() == 0
    assert Notification.objects.filter(user=alice, type="clock_low").count() == 1


def test_no_digest_at_all_when_email_is_off(toy_game, make_user, settings):
    """TABULA_EMAIL=0 (config/settings/notifications.py) turns the digest off for the whole service."""
    settings.TABULA_EMAIL_ACTIVE_S = 0
    settings.TABULA_EMAIL = False
    cache.clear()
    alice, bob = make_user("alice"), make_user("bob")
    bob.email = "bob@example.com"
    bob.save()
    outbox.outbox.clear()
    _take(_toy(alice, bob), alice)
    assert outbox.outbox == []


def test_the_digest_is_one_mail_per_interval_with_one_click_unsubscribe(toy_game, make_user, client, settings):
    settings.TABULA_EMAIL_ACTIVE_S = 0
    cache.clear()
    alice, bob = make_user("alice"), make_user("bob")
    bob.email = "bob@example.com"
    bob.save()
    outbox.outbox.clear()
    first, second = _toy(alice, bob), _toy(alice, bob)
    _take(first, alice)
    _take(second, alice)
    assert len(outbox.outbox) == 1  # the second your_turn falls in the same interval
    message = outbox.outbox[0]
    assert first.id in message.body  # (tests send at once; under a worker the digest waits TABULA_EMAIL_DELAY_S)
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = message.extra_headers["List-Unsubscribe"].strip("<>")
    path = link.split("://", 1)[1].split("/", 1)[1]
    assert client.get("/" + path).status_code == 200  # GET only shows the button
    bob.refresh_from_db()
    assert bob.preferences.get(mail.PREFERENCE) is not False
    assert client.post("/" + path, {"List-Unsubscribe": "One-Click"}).status_code == 200
    bob.refresh_from_db()
    assert bob.preferences[mail.PREFERENCE] is False
    assert client.post("/" + path.replace("token=", "token=x")).status_code == 400
    cache.clear()
    assert mail.digest_maybe(bob.pk) is False  # unsubscribed


def test_no_digest_while_streaming_or_recently_active(toy_game, make_user, settings):
    cache.clear()
    alice, bob = make_user("alice"), make_user("bob")
    bob.email = "bob@example.com"
    bob.save()
    match = _toy(alice, bob)
    outbox.outbox.clear()
    cache.set(mail.streaming_key(bob.pk), 1)
    _take(match, alice)
    assert outbox.outbox == []
    cache.clear()
    _take(match, bob)
    _take(match, alice)  # bob moved a moment ago: active
    assert outbox.outbox == []
    Record.objects.filter(match=match).update(at=timezone.now() - timedelta(hours=1))
    assert mail.digest_maybe(bob.pk) is True
    assert len(outbox.outbox) == 1


def test_an_unsubscribe_link_expires_and_is_bound_to_its_purpose(make_user, client, settings):
    """Issue 23 item 7: a token was valid forever, and any value signed with the salt passed for one."""
    import time
    from unittest import mock

    from django.core import signing

    bob = make_user("bob")
    token = mail.unsubscribe_token(bob.pk)
    url = "/api/v1/email/unsubscribe?token="
    settings.TABULA_UNSUBSCRIBE_MAX_AGE_S = 30 * 24 * 3600
    month_ago = time.time() - 31 * 24 * 3600
    with mock.patch("django.core.signing.time", mock.Mock(time=mock.Mock(return_value=month_ago))):
        old = mail.unsubscribe_token(bob.pk)  # mailed 31 days ago
    late = client.post(url + old)
    assert late.status_code == 400 and late["Content-Type"] == "application/problem+json"
    assert late.json()["code"] == "link_expired"
    bob.refresh_from_db()
    assert (bob.preferences or {}).get(mail.PREFERENCE) is not False  # nothing changed
    forged = signing.dumps({"u": bob.pk}, salt=mail.SALT)  # signed, but not an unsubscribe of this kind
    other = signing.dumps({"u": bob.pk, "do": mail.PURPOSE}, salt="tabula.something-else")
    for bad in (forged, other, token[:-2] + "xx"):
        r = client.post(url + bad)
        assert r.status_code == 400 and r.json()["code"] == "invalid_link", bad
    bob.refresh_from_db()
    assert (bob.preferences or {}).get(mail.PREFERENCE) is not False
    assert client.post(url + token).status_code == 200  # in time, it works
    bob.refresh_from_db()
    assert bob.preferences[mail.PREFERENCE] is False


@pytest.mark.parametrize(
    ("environ", "url"),
    [
        ({"TABULA_PUBLIC_URL": "https://tabula.example", "PORT": "8123"}, "https://tabula.example"),
        ({"PORT": "8123"}, "http://127.0.0.1:8123"),
        ({"PORT": "8123", "HOST": "0.0.0.0"}, "http://127.0.0.1:8123"),
        ({"HOST": "tabula.local"}, "http://tabula.local:8000"),
        ({}, "http://127.0.0.1:8000"),
    ],
)
def test_mails_link_to_the_public_url_or_the_port_served(environ, url):
    """Issue 23 item 11: the links named port 8000 whatever PORT said under make run."""
    from config.settings.notifications import public_url

    assert public_url(environ) == url


def test_the_digest_links_to_the_configured_public_url(toy_game, make_user, settings):
    settings.TABULA_EMAIL_ACTIVE_S = 0
    settings.TABULA_PUBLIC_URL = "http://127.0.0.1:8123"
    cache.clear()
    alice, bob = make_user("alice"), make_user("bob")
    bob.email = "bob@example.com"
    bob.save()
    outbox.outbox.clear()
    _take(_toy(alice, bob), alice)
    message = outbox.outbox[0]
    assert message.extra_headers["List-Unsubscribe"].startswith("<http://127.0.0.1:8123/api/v1/email/unsubscribe?")
    assert "http://127.0.0.1:8123/matches/" in message.body
