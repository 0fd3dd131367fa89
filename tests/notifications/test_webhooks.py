"""Webhooks: a receiver on loopback verifies every delivery with the `standardwebhooks` package and
sees a retry keep the same webhook-id; 410 disables; repeated failures disable with a notification;
the SSRF guard refuses private targets under production rules."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from standardwebhooks.webhooks import Webhook as Verifier
from standardwebhooks.webhooks import WebhookVerificationError

from games.services import lobby, play
from notify import ssrf, tasks, webhooks
from notify.models import Delivery, Notification, Webhook

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("webhooks")]


class Receiver:
    def __init__(self, answers: list[int]) -> None:
        self.answers = list(answers)
        self.requests: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                code = receiver.answers.pop(0) if receiver.answers else 200
                self.send_response(code)
                if code in (301, 302):
                    self.send_header("Location", "http://127.0.0.1:1/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture
def receiver():
    made: list[Receiver] = []

    def make(answers: list[int] | None = None) -> Receiver:
        r = Receiver(answers or [])
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


def _toy(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    match = lobby.match_create(user=alice, game="toy", players=2, options={"pile": 20})
    lobby.match_join(match_id=match.id, user=bob)
    match.refresh_from_db()
    return alice, bob, match


def _take(match, user, n=1):
    match.refresh_from_db()
    return play.move_submit(match_id=match.id, user=user, move={"type": "take", "n": n}, expected_version=match.version)


def _sweep_until(predicate, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        tasks.webhooks_sweep()
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_a_signed_delivery_is_retried_with_the_same_webhook_id(toy_game, make_user, api, receiver):
    alice, bob, match = _toy(make_user)
    r = receiver([500])
    created = api(bob).post("/api/v1/me/webhooks", {"url": r.url, "events": ["your_turn"]}, format="json")
    assert created.status_code == 201, created.content
    secret = created.json()["secret"]
    assert secret.startswith("whsec_")
    assert "secret" not in api(bob).get("/api/v1/me/webhooks").json()[0]
    _take(match, alice)
    assert _sweep_until(lambda: len(r.requests) >= 2)
    (h1, b1), (h2, _b2) = r.requests[:2]
    assert h1["webhook-id"] == h2["webhook-id"]
    note = Notification.objects.get(user=bob, type="your_turn", payload__version=match.version + 1)
    assert h1["webhook-id"] == f"ntf_{note.pk}"
    for headers, body in r.requests:
        payload = Verifier(secret).verify(body, headers)  # raises on a bad signature
        assert payload["type"] == "your_turn" and payload["data"]["match"] == match.id
    assert h1["webhook-signature"].startswith("v1,")
    with pytest.raises(WebhookVerificationError):
        Verifier(webhooks._new_secret()).verify(b1, h1)  # another secret does not verify
    hook_id = created.json()["id"]
    deliveries = api(bob).get(f"/api/v1/me/webhooks/{hook_id}/deliveries").json()
    assert deliveries[0]["status"] == "delivered" and deliveries[0]["attempts"] == 2


def test_gone_disables_and_redirects_are_not_followed(toy_game, make_user, api, receiver):
    alice, bob, match = _toy(make_user)
    gone, moved = receiver([410]), receiver([302] * 20)
    h_gone = api(bob).post("/api/v1/me/webhooks", {"url": gone.url}, format="json").json()
    h_moved = api(bob).post("/api/v1/me/webhooks", {"url": moved.url}, format="json").json()
    _take(match, alice)
    assert _sweep_until(lambda: not Webhook.objects.get(id=h_gone["id"]).active)
    assert Webhook.objects.get(id=h_gone["id"]).disabled_reason == "gone"
    assert Notification.objects.filter(user=bob, type="webhook_disabled").exists()
    assert _sweep_until(lambda: Delivery.objects.filter(webhook_id=h_moved["id"], status="failed").exists())
    assert all(req[0].get("host", "").startswith("127.0.0.1") for req in moved.requests)


def test_repeated_failures_disable_the_endpoint_with_a_notification(toy_game, make_user, api, receiver, settings):
    settings.TABULA_WEBHOOK_MAX_FAILURES = 2
    settings.TABULA_WEBHOOK_BACKOFF_S = [0.05]
    alice, bob, match = _toy(make_user)
    r = receiver([500] * 100)
    hook = api(bob).post("/api/v1/me/webhooks", {"url": r.url}, format="json").json()
    _take(match, alice)
    _take(match, bob)
    _take(match, alice)
    assert _sweep_until(lambda: not Webhook.objects.get(id=hook["id"]).active)
    assert Webhook.objects.get(id=hook["id"]).disabled_reason == "failing"
    assert Notification.objects.filter(user=bob, type="webhook_disabled").exists()


def test_the_test_endpoint_sends_a_signed_test_delivery(make_user, api, receiver):
    bob = make_user("bob")
    r = receiver()
    hook = api(bob).post("/api/v1/me/webhooks", {"url": r.url}, format="json").json()
    sent = api(bob).post(f"/api/v1/me/webhooks/{hook['id']}/test")
    assert sent.status_code == 202
    assert _sweep_until(lambda: len(r.requests) == 1)
    headers, body = r.requests[0]
    assert Verifier(hook["secret"]).verify(body, headers)["type"] == "test"
    assert api(bob).delete(f"/api/v1/me/webhooks/{hook['id']}").status_code == 204
    assert api(bob).get(f"/api/v1/me/webhooks/{hook['id']}/deliveries").status_code == 404


def test_another_users_webhook_is_not_found(make_user, api, receiver):
    bob, eve = make_user("bob"), make_user("eve")
    hook = api(bob).post("/api/v1/me/webhooks", {"url": receiver().url}, format="json").json()
    for call in (
        lambda c: c.delete(f"/api/v1/me/webhooks/{hook['id']}"),
        lambda c: c.get(f"/api/v1/me/webhooks/{hook['id']}/deliveries"),
        lambda c: c.post(f"/api/v1/me/webhooks/{hook['id']}/test"),
    ):
        answer = call(api(eve))
        assert answer.status_code == 404 and answer["Content-Type"] == "application/problem+json"
    assert api(eve).get("/api/v1/me/webhooks").json() == []


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "https://127.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data/",
        "https://10.0.0.8/hook",
        "https://[::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://localhost/hook",  # a name that resolves to a private address
        "ftp://example.com/hook",
        "https://user:pw@example.com/hook",
    ],
)
def test_ssrf_targets_are_refused_under_production_rules(url, make_user, api, settings):
    settings.TABULA_WEBHOOK_ALLOW_PRIVATE = False
    with pytest.raises(ssrf.UnsafeUrl):
        ssrf.check(url)
    answer = api(make_user("bob")).post("/api/v1/me/webhooks", {"url": url}, format="json")
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_request"


def test_a_name_that_later_resolves_privately_is_refused_at_delivery(make_user, settings, monkeypatch, receiver):
    """Checked at every send and connected to the checked address: DNS rebinding gains nothing."""
    settings.TABULA_WEBHOOK_ALLOW_PRIVATE = False
    public = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", 443))]
    private = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", 443))]
    answers = iter([public, private])
    monkeypatch.setattr(ssrf.socket, "getaddrinfo", lambda *a, **k: next(answers))
    bob = make_user("bob")
    hook = webhooks.webhook_create(user=bob, url="https://hooks.example.com/x", events=None)
    delivery = Delivery.objects.create(webhook=hook, msg_id="test_1", type="test")
    webhooks.attempt(delivery.pk)
    delivery.refresh_from_db()
    assert delivery.last_error.startswith("refused") and delivery.last_status is None


def test_production_connects_to_the_checked_address(settings, monkeypatch):
    settings.TABULA_WEBHOOK_ALLOW_PRIVATE = False
    info = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", 443))]
    monkeypatch.setattr(ssrf.socket, "getaddrinfo", lambda *a, **k: info)
    target = ssrf.check("https://hooks.example.com/x?y=1")
    assert target.url == "https://93.184.215.14:443/x?y=1"
    assert target.host == "hooks.example.com" and target.host_header == "hooks.example.com"


def test_discord_and_slack_presets(make_user):
    bob = make_user("bob")
    data = {"id": 3, "type": "your_turn", "match": "m1", "payload": {"game": "enka"}, "at": "x"}
    for fmt, key in (("discord", "content"), ("slack", "text")):
        hook = Webhook(user=bob, url="https://x.example/", format=fmt)
        body = webhooks.body_for(hook, "your_turn", data, "x")
        assert list(body) == [key] and "your turn" in body[key].lower() and "enka" in body[key].lower()
    assert json.dumps(webhooks.body_for(Webhook(user=bob), "your_turn", data, "x"))
