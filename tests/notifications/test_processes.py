"""Across processes: a stream server in another process (uvicorn, the test database) receives what
this process writes — through Redis pub/sub when Redis is configured (CI), through the shared poll
on the embedded default — and what a real Celery worker writes (a seat clock that runs out)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.db import connection

from accounts.services import token_for
from config.celery import app
from games.services import lobby, operators, play
from notify.models import Notification
from tests.notifications.conftest import free_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("streams-processes")]
ROOT = Path(__file__).resolve().parents[2]


def _database_url() -> str:
    s = connection.settings_dict
    if s["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{s['NAME']}"
    user = s.get("USER") or "postgres"
    return f"postgres://{user}@{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or 5432}/{s['NAME']}"


@pytest.fixture
def other_process(transactional_db):
    port = free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "DATABASE_URL": _database_url()}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--timeout-graceful-shutdown",
            "1",
        ],  # an open stream would hold a graceful stop for ever
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{base}/livez", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    yield base
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def _auth(user) -> dict[str, str]:
    return {"Authorization": f"Token {token_for(user)}"}


def test_a_second_process_streams_what_this_one_wrote(toy_game, make_user, other_process, sse):
    alice, bob = make_user("alice"), make_user("bob")
    match = lobby.match_create(user=alice, game="toy", players=2, options={"pile": 20})
    lobby.match_join(match_id=match.id, user=bob)
    inbox = sse(f"{other_process}/api/v1/me/stream?after=1", _auth(bob))
    assert inbox.status == 200
    match.refresh_from_db()
    play.move_submit(match_id=match.id, user=alice, move={"type": "take", "n": 1}, expected_version=match.version)
    assert inbox.wait_for(lambda es: any(e.event == "your_turn" for e in es), timeout=10)


@pytest.fixture
def worker_process(transactional_db, settings):
    """A real Celery worker in its own process, on this test process's queue (Redis in CI, the
    filesystem broker otherwise). A process, not a thread: tests/games/test_worker.py holds the one
    in-process worker a test process can start reliably."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "DATABASE_URL": _database_url()}
    from django.conf import settings as django_settings

    queue = django_settings.CELERY_TASK_DEFAULT_QUEUE
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-Q",
            queue,
            "--pool",
            "solo",
            "--loglevel",
            "WARNING",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    app.conf.CELERY_TASK_ALWAYS_EAGER = False
    settings.TABULA_QUEUE_TIMERS = True
    try:
        yield proc
    finally:
        app.conf.CELERY_TASK_ALWAYS_EAGER = True
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_a_real_worker_announces_a_timeout_on_the_stream(make_user, other_process, sse, worker_process):
    alice, bob = make_user("alice"), make_user("bob")
    match = lobby.match_create(user=alice, game="enka", players=2, time_control={"per_move_s": 1})
    inboxes = [sse(f"{other_process}/api/v1/me/stream", _auth(u)) for u in (alice, bob)]
    lobby.match_join(match_id=match.id, user=bob)  # the clock starts; nobody moves
    timed_out = lambda es: any(e.event == "timed_out" for e in es)  # noqa: E731
    deadline = time.monotonic() + 45
    while time.monotonic() < deadline and not any(timed_out(i.events) for i in inboxes):
        time.sleep(0.1)
    assert any(timed_out(i.events) for i in inboxes), "no timed_out reached a stream"
    assert Notification.objects.filter(type="timed_out").exists()
    operators.match_abort(match_id=match.id, reason="test over")
    time.sleep(1.0)  # a timer already running finishes before the database is flushed
