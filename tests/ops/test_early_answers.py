"""Every answer, also one given before any view runs (the API guard's 413 and 400, a probe, a CORS
preflight, host validation, a 404), carries an X-Request-ID and gets its line in the request log.

The API guard once sat above the request-id and request-log middleware: its 413 and 400 answers had
no X-Request-ID and never reached the log.
"""

from __future__ import annotations

import pytest
from django.conf import settings

from api.views import ops

pytestmark = pytest.mark.django_db(transaction=True)


def _logged(lines: list[dict], request_id: str) -> list[dict]:
    return [e for e in lines if e["event"] == "request_finished" and e.get("request_id") == request_id]


def _post(client, length: str, **extra):
    """A POST whose Content-Length says ``length`` (the two bytes sent are never read)."""
    return client.generic(
        "POST", "/api/v1/matches", b"{}", content_type="application/json", CONTENT_LENGTH=length, **extra
    )


def _early(client, name: str):
    """One early answer by ``name``: (response, its request id)."""
    rid = f"early-{name}"
    if name == "guard-413":  # from Content-Length alone
        r = _post(
            client, str(settings.TABULA_MAX_BODY_BYTES_BY_PATH[r"^/api/v1/matches/?$"] + 1), HTTP_X_REQUEST_ID=rid
        )
    elif name == "guard-400-length":
        r = _post(client, "2x", HTTP_X_REQUEST_ID=rid)
    elif name == "guard-400-query":
        r = client.get("/api/v1/games?q=%00", HTTP_X_REQUEST_ID=rid)
    elif name == "preflight":
        r = client.options(
            "/api/v1/matches",
            HTTP_ORIGIN="https://app.example",
            HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
            HTTP_X_REQUEST_ID=rid,
        )
    elif name == "host":
        r = client.get("/api/v1/games", HTTP_HOST="not-allowed.example", HTTP_X_REQUEST_ID=rid)
    elif name == "not-found":
        r = client.get("/api/v1/nowhere", HTTP_X_REQUEST_ID=rid)
    else:
        raise AssertionError(name)
    return r, rid


@pytest.mark.parametrize(
    ("name", "status", "code"),
    [
        ("guard-413", 413, "payload_too_large"),
        ("guard-400-length", 400, "malformed_request"),
        ("guard-400-query", 400, "malformed_request"),
        ("preflight", 200, None),
        ("host", 400, "malformed_request"),
        ("not-found", 404, "not_found"),
    ],
)
def test_an_early_answer_has_a_request_id_and_a_request_log_line(captured, client, name, status, code):
    r, rid = _early(client, name)
    assert r.status_code == status, r.content
    if code is not None:
        assert r["Content-Type"] == "application/problem+json" and r.json()["code"] == code
    assert r["X-Request-ID"] == rid
    lines = _logged(captured(), rid)
    assert len(lines) == 1, captured()
    assert lines[0]["code"] == status and lines[0]["level"] == "info"


def test_a_made_request_id_is_the_one_logged(captured, client):
    r = _post(client, str(10**9))
    assert r.status_code == 413
    assert len(_logged(captured(), r["X-Request-ID"])) == 1


def test_the_guards_answers_carry_cors_headers_a_browser_needs_to_read_them(client):
    r = _post(client, str(10**9), HTTP_ORIGIN="https://app.example")
    assert r.status_code == 413
    assert r["Access-Control-Allow-Origin"] == "*" and "X-Request-ID" in r["Access-Control-Expose-Headers"]


def test_a_failing_probe_has_a_request_id_and_is_logged_a_passing_one_is_not(captured, client, monkeypatch):
    def broker_down() -> None:
        raise ConnectionRefusedError("no broker")

    assert client.get("/livez", HTTP_X_REQUEST_ID="probe-ok")["X-Request-ID"] == "probe-ok"
    monkeypatch.setitem(ops.CHECKS, "broker", broker_down)
    r = client.get("/readyz", HTTP_X_REQUEST_ID="probe-failing")
    assert r.status_code == 503 and r["X-Request-ID"] == "probe-failing"
    lines = captured()
    assert _logged(lines, "probe-ok") == []  # a passing probe is not logged below warning (config/logs.py)
    failing = _logged(lines, "probe-failing")
    assert len(failing) == 1 and failing[0]["code"] == 503 and failing[0]["level"] == "error", lines


def test_the_middleware_order():
    """The request id and the request log wrap everything that may answer early."""
    order = settings.MIDDLEWARE
    request_id = order.index("core.middleware.RequestIdMiddleware")
    request_log = order.index("django_structlog.middlewares.RequestMiddleware")
    assert request_id < request_log
    for early in (
        "core.middleware.ProbeMiddleware",
        "corsheaders.middleware.CorsMiddleware",
        "api.limits.ApiGuardMiddleware",
        "django.middleware.common.CommonMiddleware",
        "api.ratelimit.RateLimitMiddleware",
    ):
        assert order.index(early) > request_log, early
    assert len(order) == len(set(order))
