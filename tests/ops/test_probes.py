"""Health, metrics, request ids and CORS (issue 16)."""

from __future__ import annotations

import re
import time

import pytest
from django.test import override_settings

from api.views import ops
from games.models import Match
from games.services import lobby, play

pytestmark = pytest.mark.django_db(transaction=True)


# --- health ---


def test_livez_answers_without_touching_anything(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        r = client.get("/livez", HTTP_HOST="10.1.2.3:8000")  # a probe's Host need not be allowed
    assert r.status_code == 200 and r.json() == {"status": "ok"}


def test_readyz_checks_the_database_migrations_broker_and_cache(client):
    r = client.get("/readyz", HTTP_HOST="web:8000")
    assert r.status_code == 200, r.content
    assert r.json()["checks"] == {"database": "ok", "migrations": "ok", "broker": "ok", "cache": "ok"}


def test_readyz_names_the_failing_check_in_a_problem_document(client, monkeypatch):
    def broker_down() -> None:
        raise ConnectionRefusedError("no broker")

    monkeypatch.setitem(ops.CHECKS, "broker", broker_down)
    r = client.get("/readyz")
    assert r.status_code == 503 and r["Content-Type"] == "application/problem+json"
    body = r.json()
    assert body["code"] == "not_ready" and body["failing"] == ["broker"]
    assert body["checks"]["broker"] == "error: ConnectionRefusedError" and body["checks"]["database"] == "ok"
    assert "broker" in body["detail"]


@override_settings(TABULA_READY_TIMEOUT_S=0.2)
def test_a_hung_check_times_out(client, monkeypatch):
    monkeypatch.setitem(ops.CHECKS, "cache", lambda: time.sleep(3))
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json()["checks"]["cache"] == "timeout"


# --- metrics ---


def _scrape(client, **extra):
    r = client.get("/metrics", **extra)
    assert r.status_code == 200, r.content
    return r.content.decode()


def test_metrics_count_moves_accepted_and_refused_by_game_and_code(client, make_user):
    ann, ben = make_user("ann"), make_user("ben")
    match = lobby.match_create(user=ann, game="enka", players=2)
    lobby.match_join(match_id=match.id, user=ben)
    match = Match.objects.get(id=match.id)
    before = _scrape(client)
    with pytest.raises(Exception):  # noqa: B017  (a stale version)
        play.move_submit(match_id=match.id, user=ann, move={"type": "draw"}, expected_version=0)
    text = _scrape(client)
    assert 'tabula_moves_refused_total{code="version_conflict",game="enka"}' in text
    assert text != before
    for name in ("tabula_move_seconds", "tabula_timer_lateness_seconds", "tabula_bot_decision_seconds"):
        assert f"# TYPE {name} histogram" in text
    assert "tabula_celery_queue_length{" in text
    assert "django_http_requests_total_by_method_total" in text
    assert match.id not in text and "ann" not in re.findall(r'"([^"]*)"', text), "a label names a match or user"


def test_without_a_token_metrics_are_for_loopback_only(client):
    """A private address is not enough: behind a proxy every client has the proxy's (issue 24)."""
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200
    for address in ("8.8.8.8", "10.0.0.7", "172.18.0.5", "192.168.1.2", "fd00::1"):
        assert client.get("/metrics", REMOTE_ADDR=address).status_code == 403, address
    spoofed = client.get("/metrics", REMOTE_ADDR="10.0.0.7", HTTP_X_FORWARDED_FOR="127.0.0.1")
    assert spoofed.status_code == 403 and spoofed["Content-Type"] == "application/problem+json"


@override_settings(TABULA_METRICS_ALLOW=["10.1.0.0/16", "fd00::/8"])
def test_metrics_allow_list_names_the_scrapers_network(client):
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="fd00::1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="10.2.0.1").status_code == 403
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 403  # the list replaces the default


@override_settings(TABULA_METRICS_TOKEN="s3cret")
def test_metrics_token(client):
    assert client.get("/metrics", REMOTE_ADDR="8.8.8.8").status_code == 403
    assert client.get("/metrics", REMOTE_ADDR="8.8.8.8", HTTP_AUTHORIZATION="Bearer nope").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret", REMOTE_ADDR="8.8.8.8").status_code == 200


# --- request ids ---


def test_a_sane_request_id_is_echoed_and_a_missing_or_odd_one_is_made(client):
    assert client.get("/api/v1/games", HTTP_X_REQUEST_ID="abc-123").headers["X-Request-ID"] == "abc-123"
    made = client.get("/api/v1/games").headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    odd = client.get("/api/v1/games", HTTP_X_REQUEST_ID="x" * 300).headers["X-Request-ID"]
    assert odd != "x" * 300


# --- CORS ---


def test_a_preflight_is_answered_before_authentication(client):
    r = client.options(
        "/api/v1/matches",
        HTTP_ORIGIN="https://app.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type, idempotency-key",
    )
    assert r.status_code == 200
    assert r["Access-Control-Allow-Origin"] == "*"
    assert "idempotency-key" in r["Access-Control-Allow-Headers"]
    assert "Access-Control-Allow-Credentials" not in r


def test_api_answers_carry_cors_headers_and_expose_etag(client):
    r = client.get("/api/v1/games", HTTP_ORIGIN="https://app.example")
    assert r["Access-Control-Allow-Origin"] == "*" and "ETag" in r["Access-Control-Expose-Headers"]


def test_session_paths_never_allow_another_origin(client):
    r = client.options("/admin/login/", HTTP_ORIGIN="https://app.example", HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST")
    assert "Access-Control-Allow-Origin" not in r
    assert "Access-Control-Allow-Origin" not in client.get("/admin/login/", HTTP_ORIGIN="https://app.example")


@override_settings(CORS_ALLOWED_ORIGINS=["https://ok.example"], CORS_ALLOW_ALL_ORIGINS=False)
def test_allowed_origins_from_the_environment(client):
    ok = client.get("/api/v1/games", HTTP_ORIGIN="https://ok.example")
    assert ok["Access-Control-Allow-Origin"] == "https://ok.example"
    assert "Access-Control-Allow-Origin" not in client.get("/api/v1/games", HTTP_ORIGIN="https://evil.example")


def test_open_streams_are_counted_in_the_metrics(settings):
    from prometheus_client import REGISTRY

    from notify.streams import Caps

    settings.TABULA_STREAMS_PER_USER = 8
    caps = Caps()
    first, _, _ = caps.lease(1), caps.lease(1), caps.lease(2)
    assert REGISTRY.get_sample_value("tabula_open_streams") == 3
    first.release()
    assert REGISTRY.get_sample_value("tabula_open_streams") == 2
