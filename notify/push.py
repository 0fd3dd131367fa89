"""Web Push (RFC 8030), with VAPID (RFC 8292) and message encryption (RFC 8291).

A subscription is a browser's: ``POST me/push-subscriptions`` with what its ``PushManager`` gave
(``endpoint``, ``keys.p256dh``, ``keys.auth``). Every inbox entry whose type the user sends to
``push`` (`notify.preferences`) becomes one `PushDelivery` per subscription, sent from Celery:

- **No game content.** The payload is ``{type, match, n, title}``: the entry's type, its match, its
  number and a short title. Nothing a seat might not see ever reaches a third party's push service;
  the page opens the match when the notice is clicked.
- ``Topic`` is the match (a newer notice replaces an older one on the device), ``TTL`` the time to
  the seat's deadline (a day without one), ``Urgency: high`` for ``clock_low``.
- Suppressed, as the e-mail digest is, while the user has a stream open or has just moved.
- Held until the user's quiet hours end (`notify.preferences.quiet_until`): ``next_attempt_at``,
  which the beat sweep (`due`) finds.
- ``404``/``410`` from the push service deletes the subscription; anything else but success is
  retried with backoff (``TABULA_PUSH_BACKOFF_S``), then given up.

The encryption is pywebpush's (``WebPusher.encode``: aes128gcm) and the VAPID signature py-vapid's;
the request goes through the webhooks' SSRF guard (`notify.ssrf`): ``https`` to a public host in
production; a loopback ``http`` receiver under the development and test settings.
"""

from __future__ import annotations

import base64
import json
import logging
import random
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from py_vapid import Vapid02
from pywebpush import WebPusher

import languages
from accounts.models import User
from core import taskqueue
from core.errors import Conflict, InvalidRequest, NotFound
from notify import mail, preferences, registry, ssrf, words
from notify.models import Notification, PushDelivery, PushSubscription

log = logging.getLogger(__name__)
_lock = threading.Lock()
_vapid: Vapid02 | None = None


# --- VAPID ------------------------------------------------------------------------------------------


def vapid() -> Vapid02:
    """The server's VAPID key: ``TABULA_VAPID_PRIVATE_KEY`` (PEM), else this checkout's own in
    ``TABULA_VAPID_KEY_FILE``, made on first use (mode 0600): every process of one install shares it."""
    global _vapid
    with _lock:
        if _vapid is None:
            pem = settings.TABULA_VAPID_PRIVATE_KEY
            if pem:
                _vapid = Vapid02.from_pem(pem.encode())
            else:
                path = Path(settings.TABULA_VAPID_KEY_FILE)
                if not path.exists():
                    key = Vapid02()
                    key.generate_keys()
                    path.parent.mkdir(parents=True, exist_ok=True)
                    tmp = path.with_suffix(f".{random.randrange(1 << 30)}")
                    tmp.write_bytes(key.private_pem())
                    tmp.chmod(0o600)
                    if not path.exists():
                        tmp.replace(path)
                    else:
                        tmp.unlink()
                _vapid = Vapid02.from_pem(path.read_bytes())
        return _vapid


def public_key() -> str:
    """The VAPID public key as ``PushManager.subscribe`` takes it (``applicationServerKey``):
    the uncompressed P-256 point, base64url without padding."""
    raw = vapid().public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# --- subscriptions ------------------------------------------------------------------------------------


def subscribe(*, user: User, endpoint: Any, keys: Any, label: str = "") -> tuple[PushSubscription, bool]:
    """Add (or renew) a subscription; at most ``TABULA_MAX_PUSH_SUBSCRIPTIONS`` each."""
    if not isinstance(endpoint, str) or not isinstance(keys, dict):
        raise InvalidRequest("endpoint and keys are required.", errors={"endpoint": ["Required."]})
    try:
        ssrf.check(endpoint, resolve=False)
    except ssrf.UnsafeUrl as exc:
        raise InvalidRequest(str(exc).replace("Webhook", "Push"), errors={"endpoint": [str(exc)]}) from exc
    try:
        p256dh, auth = _b64(str(keys.get("p256dh", ""))), _b64(str(keys.get("auth", "")))
    except ValueError:
        p256dh = auth = b""
    if len(p256dh) != 65 or p256dh[0] != 4 or len(auth) != 16:
        raise InvalidRequest(
            "keys must be the subscription's p256dh (a P-256 point) and auth (16 bytes), base64url.",
            errors={"keys": ["p256dh: 65 bytes, auth: 16 bytes, base64url."]},
        )
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).values_list("pk").first()
        existing = PushSubscription.objects.filter(endpoint=endpoint).first()
        if existing is not None:  # a browser re-subscribing: the endpoint is its identity
            existing.user, existing.p256dh, existing.auth = user, keys["p256dh"], keys["auth"]
            existing.label = label or existing.label
            existing.save()
            return existing, False
        cap = settings.TABULA_MAX_PUSH_SUBSCRIPTIONS
        if PushSubscription.objects.filter(user=user).count() >= cap:
            raise Conflict("quota_exceeded", f"You have {cap} push subscriptions: remove one first.", limit=cap)
        row = PushSubscription.objects.create(
            user=user, endpoint=endpoint, p256dh=keys["p256dh"], auth=keys["auth"], label=label
        )
        return row, True


def unsubscribe(*, user: User, subscription_id: int) -> None:
    if not PushSubscription.objects.filter(user=user, pk=subscription_id).delete()[0]:
        raise NotFound(f"No push subscription {subscription_id}.")


# --- sending ----------------------------------------------------------------------------------------


def fanout(notification_id: int) -> int:
    """One delivery per subscription of the entry's user; each sent now, or held for quiet hours."""
    note = Notification.objects.select_related("user").filter(pk=notification_id).first()
    if note is None or not preferences.wants(note.user.preferences, note.type, "push"):
        return 0
    held = preferences.quiet_until(note.user.preferences, timezone.now(), note.type)
    sent = 0
    for sub in PushSubscription.objects.filter(user_id=note.user_id):
        delivery, created = PushDelivery.objects.get_or_create(
            subscription=sub, notification=note, defaults={"next_attempt_at": held}
        )
        if created:
            sent += 1
            if held is None:
                attempt(delivery.pk)
    return sent


def payload(note: Notification) -> dict[str, Any]:
    """What the push service carries: no game content at all; the title in the recipient's language."""
    with languages.speaking(note.user.language):
        return {"type": note.type, "match": note.match_id, "n": note.seq, "title": words.title(note.type)}


def _ttl(note: Notification) -> int:
    deadline = (note.payload or {}).get("deadline")
    if deadline:
        try:
            left = (datetime.fromisoformat(deadline) - timezone.now()).total_seconds()
            return max(60, int(left))
        except ValueError:
            pass
    return 24 * 3600


def _post(sub: PushSubscription, note: Notification) -> httpx.Response:
    target = ssrf.check(sub.endpoint)
    body = json.dumps(payload(note), separators=(",", ":"))
    info = {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
    encrypted = WebPusher(info).encode(body.encode(), "aes128gcm")["body"]
    parts = urlsplit(sub.endpoint)
    claims = {
        "sub": settings.TABULA_VAPID_SUBJECT,
        "aud": f"{parts.scheme}://{parts.netloc}",
        "exp": int(time.time()) + 12 * 3600,
    }
    headers = {
        **vapid().sign(claims),
        "Host": target.host_header,
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "TTL": str(_ttl(note)),
        "Urgency": "high" if note.type == "clock_low" else "normal",
    }
    if note.match_id:
        headers["Topic"] = note.match_id  # 16 URL-safe characters: a valid Topic
    timeout = httpx.Timeout(settings.TABULA_WEBHOOK_TIMEOUT_S)
    with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False) as client:
        return client.post(target.url, content=encrypted, headers=headers, extensions={"sni_hostname": target.host})


def _on_site(user_id: int) -> bool:
    """The e-mail digest's suppression: a stream open, or a move made in the last minutes."""
    user = User.objects.filter(pk=user_id).first()
    return bool(cache.get(mail.streaming_key(user_id))) or (
        user is not None and registry.matches().recently_active(user)
    )


def attempt(delivery_id: int) -> str:
    """Send one delivery once; on failure schedule the next try (or give up). Answers the new status."""
    delivery = PushDelivery.objects.select_related("subscription", "notification__user").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != PushDelivery.Status.PENDING:
        return "gone"
    note, sub = delivery.notification, delivery.subscription
    held = preferences.quiet_until(note.user.preferences, timezone.now(), note.type)
    if held is not None:
        PushDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=held)
        return "held"
    if note.type != "clock_low" and _on_site(note.user_id):
        PushDelivery.objects.filter(pk=delivery.pk).update(status=PushDelivery.Status.SUPPRESSED, next_attempt_at=None)
        return PushDelivery.Status.SUPPRESSED
    delivery.attempts += 1
    error, code = "", None
    try:
        response = _post(sub, note)
        code = response.status_code
        if not 200 <= code < 300:
            error = f"HTTP {code}"
    except ssrf.UnsafeUrl as exc:
        error = f"refused: {exc}"
    except httpx.HTTPError as exc:
        error = type(exc).__name__
    log.info("push %s to subscription %s attempt %s: %s", note.pk, sub.pk, delivery.attempts, error or code)
    delivery.last_status, delivery.last_error = code, error[:300]
    if not error:
        delivery.status, delivery.delivered_at, delivery.next_attempt_at = "delivered", timezone.now(), None
        delivery.save()
        return delivery.status
    if code in (404, 410):  # the browser unsubscribed, or the push service forgot it
        PushSubscription.objects.filter(pk=sub.pk).delete()
        return "unsubscribed"
    schedule = settings.TABULA_PUSH_BACKOFF_S
    if delivery.attempts > len(schedule):
        delivery.status, delivery.next_attempt_at = PushDelivery.Status.FAILED, None
        delivery.save()
        return delivery.status
    wait = float(schedule[delivery.attempts - 1]) * random.uniform(0.8, 1.2)
    delivery.next_attempt_at = timezone.now() + timedelta(seconds=wait)
    delivery.save()
    if settings.TABULA_QUEUE_TIMERS and wait <= settings.TABULA_TIMER_HORIZON_S:
        taskqueue.send(taskqueue.PUSH_ATTEMPT, (delivery.pk,), countdown=wait, lost="the sweep retries it")
    return delivery.status


def due(limit: int = 200) -> list[int]:
    """Deliveries whose time has come: retries, and notices held through quiet hours (the beat sweep)."""
    return list(
        PushDelivery.objects.filter(status=PushDelivery.Status.PENDING, next_attempt_at__lte=timezone.now())
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
