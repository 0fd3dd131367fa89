"""Webhooks: every inbox entry of the chosen types POSTed to the user's endpoints, signed.

Deliveries follow the Standard Webhooks specification, signed with the ``standardwebhooks``
package: ``webhook-id`` is the notification's id (``ntf_<n>``, the same on every retry),
``webhook-timestamp``, ``webhook-signature: v1,<base64 HMAC-SHA256>``, ``whsec_`` secrets.
Sent from Celery (`notify.tasks`: ``webhooks_fanout`` / ``webhook_attempt``), with a timeout and no
redirects, to the address `notify.ssrf` checked. A failure is retried with exponential backoff and
jitter over about three days (``TABULA_WEBHOOK_BACKOFF_S``); a ``410 Gone`` disables the endpoint;
``TABULA_WEBHOOK_MAX_FAILURES`` deliveries in a row that exhaust their retries disable it too, and the
user hears of it (a ``webhook_disabled`` notification). Discord and Slack incoming-webhook formats
are presets (``format``): the same event as one line of text in their own body shape.
"""

from __future__ import annotations

import base64
import json
import logging
import random
import secrets
import time
from datetime import timedelta
from typing import Any

import httpx
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext
from standardwebhooks.webhooks import Webhook as Signer

import languages
from core import taskqueue
from core.errors import InvalidRequest, NotFound
from notify import inbox, registry, ssrf, words
from notify.models import Delivery, Notification, Webhook

log = logging.getLogger(__name__)

MAX_PER_USER = 10


def _new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def webhook_create(*, user: Any, url: str, events: list[str] | None, format: str = "standard") -> Webhook:
    try:
        ssrf.check(url)
    except ssrf.UnsafeUrl as exc:
        raise InvalidRequest(str(exc), errors={"url": [str(exc)]}) from exc
    known = {*registry.types(), "test"}
    unknown = [e for e in events or [] if e not in known]
    if unknown:
        raise InvalidRequest(
            f"Unknown event types: {', '.join(unknown)}.",
            errors={"events": [f"Each one of {', '.join(sorted(known))}."]},
        )
    if Webhook.objects.filter(user=user).count() >= MAX_PER_USER:
        raise InvalidRequest(f"At most {MAX_PER_USER} webhooks per user.")
    return Webhook.objects.create(
        id="wh_" + secrets.token_urlsafe(12),
        user=user,
        url=url,
        events=list(events or []),
        format=format,
        secret=_new_secret(),
    )


def webhook_get(user: Any, webhook_id: str) -> Webhook:
    hook = Webhook.objects.filter(user=user, id=webhook_id).first()
    if hook is None:
        raise NotFound(f"No webhook {webhook_id!r}.")
    return hook


def _text(body: dict[str, Any], language: str) -> str:
    """The chat line of a Discord or Slack preset, in the hook owner's language."""
    data = body["data"]
    payload = data.get("payload") or {}
    with languages.speaking(language):
        what = words.title(body["type"])
        if not data.get("match"):
            return gettext("Tabula: %(what)s.") % {"what": what}
        return gettext("Tabula: %(what)s (%(game)s, match %(match)s).") % {
            "what": what,
            "game": words.game_name(payload.get("game")),
            "match": data.get("match"),
        }


def body_for(hook: Webhook, type: str, data: dict[str, Any], at: str) -> dict[str, Any]:
    body = {"type": type, "timestamp": at, "data": data}
    if hook.format == Webhook.Format.DISCORD:
        return {"content": _text(body, hook.user.language)}
    if hook.format == Webhook.Format.SLACK:
        return {"text": _text(body, hook.user.language)}
    return body


def fanout(notification_id: int) -> int:
    """One delivery per active webhook of the notification's user that wants its type; each sent now."""
    note = Notification.objects.filter(pk=notification_id).first()
    if note is None:
        return 0
    sent = 0
    for hook in Webhook.objects.filter(user_id=note.user_id, active=True):
        if not hook.wants(note.type):
            continue
        delivery, created = Delivery.objects.get_or_create(
            webhook=hook, msg_id=f"ntf_{note.pk}", defaults={"notification": note, "type": note.type}
        )
        if created:
            attempt(delivery.pk)
            sent += 1
    return sent


def test_send(hook: Webhook) -> Delivery:
    delivery = Delivery.objects.create(webhook=hook, msg_id="test_" + secrets.token_urlsafe(9), type="test")
    transaction.on_commit(lambda: _queue(delivery.pk, 0.0))
    return delivery


def _queue(delivery_id: int, countdown: float) -> None:
    taskqueue.send(taskqueue.WEBHOOK_ATTEMPT, (delivery_id,), countdown=countdown, lost="the sweep retries it")


def _backoff(attempts: int) -> float | None:
    schedule = settings.TABULA_WEBHOOK_BACKOFF_S
    if attempts > len(schedule):
        return None
    base = float(schedule[attempts - 1])
    return base * random.uniform(0.8, 1.2)  # jitter: retries of many endpoints do not line up


def _post(hook: Webhook, msg_id: str, body: dict[str, Any]) -> httpx.Response:
    target = ssrf.check(hook.url)
    payload = json.dumps(body, separators=(",", ":"))
    now = timezone.now()
    signature = Signer(hook.secret).sign(msg_id, now, payload)
    headers = {
        "Host": target.host_header,
        "Content-Type": "application/json",
        "User-Agent": "Tabula-Webhooks/1",
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": signature,
    }
    timeout = httpx.Timeout(settings.TABULA_WEBHOOK_TIMEOUT_S)
    with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False) as client:
        return client.post(target.url, content=payload, headers=headers, extensions={"sni_hostname": target.host})


def attempt(delivery_id: int) -> str:
    """Send one delivery once; on failure schedule the next try (or give up). Answers the new status."""
    delivery = Delivery.objects.select_related("webhook__user", "notification").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != Delivery.Status.PENDING:
        return "gone"
    hook = delivery.webhook
    if not hook.active:
        Delivery.objects.filter(pk=delivery.pk).update(status=Delivery.Status.FAILED, last_error="webhook disabled")
        return Delivery.Status.FAILED
    note = delivery.notification
    data = note.to_json() if note is not None else {"id": None, "type": "test", "match": None, "payload": {}}
    at = (note.created_at if note is not None else delivery.created_at).isoformat()
    body = body_for(hook, delivery.type, data, at)
    delivery.attempts += 1
    error, code = "", None
    started = time.perf_counter()
    try:
        response = _post(hook, delivery.msg_id, body)
        code = response.status_code
        if not 200 <= code < 300:
            error = f"HTTP {code}"
    except ssrf.UnsafeUrl as exc:
        error = f"refused: {exc}"
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}"
    delivery.last_status, delivery.last_error = code, error[:300]
    log.info(
        "webhook %s %s attempt %s: %s",
        hook.id,
        delivery.msg_id,
        delivery.attempts,
        error or code,
        extra={"seconds": time.perf_counter() - started},
    )
    if not error:
        delivery.status, delivery.delivered_at, delivery.next_attempt_at = (
            Delivery.Status.DELIVERED,
            timezone.now(),
            None,
        )
        delivery.save()
        if hook.consecutive_failures:
            Webhook.objects.filter(pk=hook.pk).update(consecutive_failures=0)
        return delivery.status
    if code == 410:
        delivery.status, delivery.next_attempt_at = Delivery.Status.FAILED, None
        delivery.save()
        _disable(hook, "gone")
        return delivery.status
    wait = _backoff(delivery.attempts)
    if wait is None:
        delivery.status, delivery.next_attempt_at = Delivery.Status.FAILED, None
        delivery.save()
        hook.consecutive_failures += 1
        Webhook.objects.filter(pk=hook.pk).update(consecutive_failures=hook.consecutive_failures)
        if hook.consecutive_failures >= settings.TABULA_WEBHOOK_MAX_FAILURES:
            _disable(hook, "failing")
        return delivery.status
    delivery.next_attempt_at = timezone.now() + timedelta(seconds=wait)
    delivery.save()
    if settings.TABULA_QUEUE_TIMERS and wait <= settings.TABULA_TIMER_HORIZON_S:
        _queue(delivery.pk, wait)
    return delivery.status


def _disable(hook: Webhook, reason: str) -> None:
    with transaction.atomic():
        updated = Webhook.objects.filter(pk=hook.pk, active=True).update(active=False, disabled_reason=reason)
        if updated:
            payload = {"webhook": hook.id, "url": hook.url, "reason": reason}
            inbox.notify(hook.user_id, "webhook_disabled", payload)


def due(limit: int = 200) -> list[int]:
    """Deliveries whose next try is due (the beat sweep: a lost or far-off retry)."""
    now = timezone.now()
    return list(
        Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
