"""Structured logs: JSON lines with the request id, the user, the match and the version; and no
hidden information in any line, over whole random matches (issue 16)."""

from __future__ import annotations

import json
import logging
import random
from typing import Any

import pytest

from config import logs
from games.models import Match, Record

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_move_request_logs_one_json_line_with_request_user_match_and_version(captured, make_user, api):
    ann, ben = make_user("ann"), make_user("ben")
    mid = api(ann).post("/api/v1/matches", {"game": "enka", "players": 2}, format="json").json()["id"]
    api(ben).post(f"/api/v1/matches/{mid}/join", {}, format="json")
    match = Match.objects.get(id=mid)
    seat = match.awaiting[0]
    client = api(ann if seat == 0 else ben)
    state = client.get(f"/api/v1/matches/{mid}/state").json()
    body = {"move": state["legal_moves"][0], "expected_version": state["version"]}
    r = client.post(f"/api/v1/matches/{mid}/moves", body, format="json", headers={"X-Request-ID": "req-42"})
    assert r.status_code == 201 and r["X-Request-ID"] == "req-42"
    finished = [e for e in captured() if e["event"] == "request_finished" and e.get("request_id") == "req-42"]
    assert len(finished) == 1, captured()
    line = finished[0]
    assert line["user_id"] == (ann if seat == 0 else ben).pk
    assert line["match_id"] == mid and line["version"] == r.json()["version"] and line["game"] == "enka"
    assert line["code"] == 201 and line["level"] == "info"


def test_probes_are_not_logged_at_info(captured, client):
    client.get("/livez")
    client.get("/readyz")
    client.get("/metrics")
    client.get("/api/v1/games")
    requests = [e.get("request", "") for e in captured() if e["event"] == "request_finished"]
    assert requests == ["GET /api/v1/games"]


@pytest.fixture
def uvicorn_error():
    """uvicorn's logger at INFO: a uvicorn.Config made by an earlier test may have left it at WARNING."""
    logger = logging.getLogger("uvicorn.error")
    level, disabled = logger.level, logger.disabled
    logger.setLevel(logging.INFO)
    logger.disabled = False
    yield logger
    logger.setLevel(level)
    logger.disabled = disabled


def test_uvicorns_lines_are_structured_without_their_colored_copy(captured, uvicorn_error):
    """The front's server logs through the same formatter (front/server.py: log_config=None)."""
    uvicorn_error.info(
        "Started server process [%d]", 42, extra={"color_message": "Started server process [\x1b[36m%d\x1b[0m]"}
    )
    line = next(e for e in captured() if e["logger"] == "uvicorn.error")
    assert line["event"] == "Started server process [42]" and "color_message" not in line


def test_the_http_client_logs_no_line_per_request():
    """Webhooks are delivered with httpx (notify/webhooks.py), which logs each request at info."""
    for fmt in ("json", "console"):
        loggers = logs.configure(fmt, "INFO")["loggers"]
        for name in ("httpx", "httpcore"):
            assert logging.getLevelName(loggers.get(name, {}).get("level", "NOTSET")) > logging.INFO, name


# --- nothing hidden from a seat reaches a log line -------------------------------------------------

FORBIDDEN_KEYS = {"move", "moves", "view", "state", "effects", "legal_moves", "hand", "hands", "seed", "deck"}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [json.dumps(value)] + [s for v in value for s in _strings(v)]
    return []


def _play_random_match(api, users, game: str, players: int, rng: random.Random, bots: int) -> str:
    clients = [api(u) for u in users[: players - bots]]
    bot_seats = [{"seat": s, "level": "random"} for s in range(players - bots, players)]
    body = {"game": game, "players": players, "bots": bot_seats}
    mid = clients[0].post("/api/v1/matches", body, format="json").json()["id"]
    for c in clients[1:]:
        assert c.post(f"/api/v1/matches/{mid}/join", {}, format="json").status_code == 200
    for _ in range(3000):
        if Match.objects.get(id=mid).status != Match.Status.ACTIVE:
            break
        for c in clients:
            s = c.get(f"/api/v1/matches/{mid}/state").json()
            if s["status"] == "active" and s["legal_moves"] and (s["you"] in s["awaiting"] or rng.random() < 0.05):
                move = rng.choice(s["legal_moves"])
                c.post(f"/api/v1/matches/{mid}/moves", {"move": move, "expected_version": s["version"]}, format="json")
            c.get(f"/api/v1/matches/{mid}/events?after={max(0, s['version'] - 3)}")
    return mid


@pytest.mark.parametrize(("game", "players", "bots", "options"), [("enka", 3, 1, {}), ("ekko", 2, 1, {})])
def test_logs_of_whole_random_matches_hold_nothing_hidden(captured, make_user, api, game, players, bots, options):
    users = [make_user(f"p{i}") for i in range(players)]
    mid = _play_random_match(api, users, game, players, random.Random(16), bots)
    match = Match.objects.get(id=mid)
    lines = captured()
    assert lines, "nothing was logged"
    text = "\n".join(json.dumps(line) for line in lines)
    assert str(match.seed) not in text, "the seed reached a log line"
    for line in lines:
        assert not FORBIDDEN_KEYS & set(line), f"a log line carries game content: {line}"
    hidden: set[str] = set()
    for record in Record.objects.filter(match_id=mid):
        for effect in record.effects:
            if effect.get("to") is not None:  # seen by some seats only
                hidden.update(s for s in _strings(effect["data"]) if len(s) >= 3)
        if record.move is not None:
            hidden.update(s for s in _strings(record.move) if len(s) >= 3 and s != record.move.get("type"))
    assert hidden and len(lines) > 50, (len(hidden), len(lines))
    leaked = sorted(s for s in hidden if json.dumps(s) in text)
    assert not leaked, f"hidden values in the logs: {leaked[:10]}"


def test_the_request_log_shows_no_stream_ticket_or_unsubscribe_token(captured, make_user, api, client):
    """Issue 23 item 7: request_finished logged the whole query string, credentials included."""
    from notify import mail

    ann = make_user("ann")
    ticket = api(ann).post("/api/v1/me/stream-tickets", {}, format="json").json()["ticket"]
    token = mail.unsubscribe_token(ann.pk)
    client.get(f"/api/v1/me/stream?ticket={ticket}&x=1")
    client.get(f"/api/v1/email/unsubscribe?token={token}")
    client.get("/api/v1/games?Token=abc123secret&code=oauth-code-9&page=2")
    text = json.dumps(captured())
    for secret in (ticket, token, "abc123secret", "oauth-code-9"):
        assert secret not in text
    requests = [e["request"] for e in captured() if e["event"] == "request_finished"]
    assert "GET /api/v1/me/stream?ticket=***&x=1" in requests
    assert "GET /api/v1/email/unsubscribe?token=***" in requests
    assert "GET /api/v1/games?Token=***&code=***&page=2" in requests


@pytest.mark.parametrize(
    ("target", "logged"),
    [
        ("/a", "/a"),
        ("GET /a?ticket=s&key=k&b=1", "GET /a?ticket=***&key=***&b=1"),
        ("/a?tok%65n=s", "/a?tok%65n=***"),
        ("/a?b=token&c", "/a?b=token&c"),
    ],
)
def test_redact_query(target, logged):
    assert logs.redact_query(target) == logged


def test_an_idle_service_is_quiet_and_a_task_that_did_something_is_one_line(captured):
    """Beat's sweeps every few seconds found nothing: no line. A task that did something: its one
    line from Celery, not five (issue 24). The levels and the filter are the ones `make run` gets."""
    config = logs.configure("json", "INFO")
    for name in ("celery.beat", "celery.worker.strategy", "django_structlog.celery.receivers"):
        assert logging.getLevelName(config["loggers"][name]["level"]) > logging.INFO, name
    trace = logging.getLogger("celery.app.trace")
    keep = logs.TasksThatDidSomething()
    trace.addFilter(keep)
    try:
        for name, returned in (("games.tasks.deadlines_sweep", "0"), ("notify.tasks.email_digest", "False")):
            context = {"id": "t1", "name": name, "return_value": returned, "runtime": 0.004}
            trace.info(
                "Task %(name)s[%(id)s] succeeded in %(runtime)ss: %(return_value)s", context, extra={"data": context}
            )
        context = {"id": "t2", "name": "games.tasks.bots_play", "return_value": "3", "runtime": 0.2}
        trace.info(
            "Task %(name)s[%(id)s] succeeded in %(runtime)ss: %(return_value)s", context, extra={"data": context}
        )
    finally:
        trace.removeFilter(keep)
    lines = [e["event"] for e in captured() if e["logger"] == "celery.app.trace"]
    assert lines == ["Task games.tasks.bots_play[t2] succeeded in 0.2s: 3"]
    assert "celery.app.trace" in config["loggers"] and config["loggers"]["celery.app.trace"]["filters"]
