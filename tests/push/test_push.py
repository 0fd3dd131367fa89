"""Web Push (issue 28): a real local push service receives what a your_turn pushes, decrypts it,
checks the VAPID signature, and finds no game content; 410 removes the subscription; limits, bad
input and the preferences that decide what is pushed."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from games.services import lobby, play
from notify import push
from notify.models import PushDelivery, PushSubscription
from tests.push.receiver import Receiver

pytestmark = pytest.mark.django_db(transaction=True)
API = "/api/v1"


@pytest.fixture(autouse=True)
def _not_just_active(settings):
    settings.TABULA_EMAIL_ACTIVE_S = 0  # bob joined a moment ago: that counts as being on the site


@pytest.fixture
def receiver():
    r = Receiver().start()
    yield r
    r.stop()


def _subscribe(api, user, receiver, **more) -> dict:
    body = {"endpoint": receiver.endpoint, "keys": receiver.keys(), **more}
    answer = api(user).post(f"{API}/me/push-subscriptions", body, format="json")
    assert answer.status_code in (200, 201), answer.content
    return answer.json()


def _toy(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    match = lobby.match_create(user=alice, game="toy", players=2, options={"pile": 20})
    lobby.match_join(match_id=match.id, user=bob)
    match.refresh_from_db()
    return alice, bob, match


def _take(match, user):
    match.refresh_from_db()
    return play.move_submit(match_id=match.id, user=user, move={"type": "take", "n": 1}, expected_version=match.version)


def _wait(condition, seconds=10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_a_turn_is_pushed_encrypted_signed_and_without_game_content(toy_game, make_user, api, receiver):
    cache.clear()
    alice, bob, match = _toy(make_user)
    key = api().get(f"{API}/push/vapid-public-key").json()["key"]
    assert key == push.public_key() and len(push._b64(key)) == 65
    _subscribe(api, bob, receiver, label="phone")
    _take(match, alice)  # bob's turn
    assert _wait(lambda: receiver.pushes), "nothing was pushed"
    delivered = receiver.pushes[0]
    data = receiver.decrypt(delivered)
    assert set(data) == {"type", "match", "n", "title"}
    assert data["type"] == "your_turn" and data["match"] == match.id and data["title"] == "Your turn"
    claims = receiver.vapid_claims(delivered, key)
    origin = receiver.endpoint.split("/push/")[0]
    assert claims["aud"] == origin and claims["sub"].startswith("mailto:")
    assert 0 < claims["exp"] - time.time() <= 24 * 3600
    assert delivered.headers["Topic"] == match.id and delivered.headers["Urgency"] == "normal"
    assert int(delivered.headers["TTL"]) > 0
    assert PushDelivery.objects.get().status == "delivered"


def test_a_410_removes_the_subscription(toy_game, make_user, api, receiver):
    cache.clear()
    receiver.status = 410
    alice, bob, match = _toy(make_user)
    _subscribe(api, bob, receiver)
    _take(match, alice)
    assert _wait(lambda: receiver.pushes)
    assert _wait(lambda: not PushSubscription.objects.exists())


def test_a_failing_push_service_is_retried_then_given_up(toy_game, make_user, api, receiver):
    cache.clear()
    receiver.status = 503
    alice, bob, match = _toy(make_user)
    _subscribe(api, bob, receiver)
    _take(match, alice)
    delivery = PushDelivery.objects.get()
    assert delivery.status == "pending" and delivery.attempts == 1 and delivery.next_attempt_at is not None
    for _ in range(3):  # the beat sweep, each time a retry is due
        PushDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        for pk in push.due():
            push.attempt(pk)
    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.attempts == 3 and len(receiver.pushes) == 3


def test_nothing_is_pushed_while_the_user_is_on_the_site_or_for_an_unchosen_type(toy_game, make_user, api, receiver):
    cache.clear()
    alice, bob, match = _toy(make_user)
    _subscribe(api, bob, receiver)
    cache.set(f"tabula:streaming:{bob.pk}", 1)  # a stream open
    _take(match, alice)
    assert PushDelivery.objects.get().status == "suppressed"
    cache.clear()
    bob.preferences = {"channels": {"your_turn": ["stream"]}}
    bob.save()
    _take(match, bob)
    _take(match, alice)
    assert PushDelivery.objects.count() == 1 and receiver.pushes == []


def test_quiet_hours_hold_a_push_until_they_end(toy_game, make_user, api, receiver):
    cache.clear()
    alice, bob, match = _toy(make_user)
    now = timezone.now().astimezone(timezone.get_fixed_timezone(0))
    start, end = (now - timedelta(hours=1)).strftime("%H:%M"), (now + timedelta(hours=1)).strftime("%H:%M")
    bob.preferences = {"timezone": "UTC", "quiet_hours": {"start": start, "end": end}}
    bob.save()
    _subscribe(api, bob, receiver)
    _take(match, alice)
    held = PushDelivery.objects.get()
    assert held.status == "pending" and held.next_attempt_at > timezone.now() + timedelta(minutes=50)
    assert push.due() == [] and receiver.pushes == []
    bob.preferences = {}
    bob.save()
    PushDelivery.objects.filter(pk=held.pk).update(next_attempt_at=timezone.now())  # the window ended
    for pk in push.due():
        push.attempt(pk)
    assert _wait(lambda: receiver.pushes)


def test_subscriptions_bad_input_and_the_cap(make_user, api, receiver, settings):
    bob = make_user("bob")
    first = _subscribe(api, bob, receiver)
    again = api(bob).post(
        f"{API}/me/push-subscriptions", {"endpoint": receiver.endpoint, "keys": receiver.keys()}, format="json"
    )
    assert again.status_code == 200 and again.json()["id"] == first["id"]  # the same browser
    bad = {"endpoint": receiver.endpoint + "x", "keys": {"p256dh": "AAAA", "auth": "BBBB"}}
    assert api(bob).post(f"{API}/me/push-subscriptions", bad, format="json").status_code == 400
    ftp = {"endpoint": "ftp://127.0.0.1/x", "keys": receiver.keys()}
    assert api(bob).post(f"{API}/me/push-subscriptions", ftp, format="json").status_code == 400
    settings.TABULA_WEBHOOK_ALLOW_PRIVATE = False  # production: https to public hosts only
    plain = {"endpoint": "http://push.example.com/x", "keys": receiver.keys()}
    assert api(bob).post(f"{API}/me/push-subscriptions", plain, format="json").status_code == 400
    settings.TABULA_WEBHOOK_ALLOW_PRIVATE = True
    settings.TABULA_MAX_PUSH_SUBSCRIPTIONS = 1
    more = {"endpoint": receiver.endpoint + "/other", "keys": receiver.keys()}
    capped = api(bob).post(f"{API}/me/push-subscriptions", more, format="json")
    assert capped.status_code == 409 and capped.json()["code"] == "quota_exceeded"
    assert [s["id"] for s in api(bob).get(f"{API}/me/push-subscriptions").json()] == [first["id"]]
    assert api(make_user("eve")).delete(f"{API}/me/push-subscriptions/{first['id']}").status_code == 404
    assert api(bob).delete(f"{API}/me/push-subscriptions/{first['id']}").status_code == 204
