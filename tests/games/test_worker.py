"""A real Celery worker on the configured broker (Redis in CI, the filesystem broker otherwise)
fires game timers, and the beat sweep recovers a timer that was never queued."""

from __future__ import annotations

import time

import pytest
from celery.contrib.testing.worker import start_worker

from config.celery import app
from games import scheduling
from games.models import Match, Record
from games.services import lobby, play

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("celery-worker")]


@pytest.fixture(scope="module")
def _module_worker(django_db_setup, django_db_blocker):
    """One worker thread for the module: restarting the Redis consumer per test proved unreliable."""
    app.conf.CELERY_TASK_ALWAYS_EAGER = False  # the namespaced key is the one Celery reads here
    app.control.purge()  # leftovers of an interrupted run name matches that no longer exist
    try:
        with (
            django_db_blocker.unblock(),
            start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10, loglevel="WARNING"),
        ):
            yield
    finally:
        app.conf.CELERY_TASK_ALWAYS_EAGER = True


@pytest.fixture
def worker(_module_worker, settings):
    app.conf.CELERY_TASK_ALWAYS_EAGER = False
    settings.TABULA_QUEUE_TIMERS = True  # a real worker honours countdowns
    yield


def wait_for(predicate, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def _toy_match_at_the_bell(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    match = lobby.match_create(user=alice, game="toy", players=2)
    lobby.match_join(match_id=match.id, user=bob)
    for user, n in ((alice, 2), (bob, 2)):  # pile 7 → 3: the 2-second bell timer opens
        match.refresh_from_db()
        play.move_submit(match_id=match.id, user=user, move={"type": "take", "n": n}, expected_version=match.version)
    return match


def test_a_real_worker_fires_the_game_timer(toy_game, make_user, worker):
    match = _toy_match_at_the_bell(make_user)
    assert Match.objects.get(id=match.id).timer_deadline is not None
    assert wait_for(lambda: Record.objects.filter(match=match, type="expired").exists())
    assert Match.objects.get(id=match.id).timer_deadline is None


def test_the_sweep_recovers_a_timer_that_was_never_queued(toy_game, make_user, worker, monkeypatch):
    monkeypatch.setattr(scheduling, "wake", lambda *args: None)  # the timer task is lost
    match = _toy_match_at_the_bell(make_user)
    time.sleep(2.2)
    assert not Record.objects.filter(match=match, type="expired").exists()
    from games.tasks import deadlines_sweep

    deadlines_sweep.delay()  # what beat sends every few seconds
    assert wait_for(lambda: Record.objects.filter(match=match, type="expired").exists())


def test_a_real_worker_closes_the_ekko_reaction_window(make_user, worker):
    ann, ben, cat = make_user("ann"), make_user("ben"), make_user("cat")
    setup = {"dealer": 0, "hands": [[20, 22], [40], [60, 70]], "start": 37}
    match = lobby.match_create(user=ann, game="ekko", players=3, options={"setup": setup, "reaction_window_s": 2})
    lobby.match_join(match_id=match.id, user=ben)
    lobby.match_join(match_id=match.id, user=cat)
    match.refresh_from_db()
    play.move_submit(match_id=match.id, user=ben, move={"type": "play", "card": 40}, expected_version=match.version)
    match.refresh_from_db()
    assert match.awaiting == [0, 2] and match.timer_deadline is not None
    opened_at = match.version
    # a stale timer (an older version) must do nothing, even once the deadline has passed
    from games.tasks import deadline_fire

    deadline_fire.apply_async((match.id, opened_at - 1), countdown=2.5)
    assert wait_for(lambda: Record.objects.filter(match=match, type="expired").exists())
    expired = Record.objects.get(match=match, type="expired")
    assert expired.seq == opened_at + 1 and expired.actor == "timeout"
    assert Record.objects.filter(match=match, type="expired").count() == 1
    match.refresh_from_db()
    assert match.timer_deadline is None and match.awaiting != [0, 2]


def test_a_real_worker_runs_two_second_seat_clocks_and_a_bot_takes_over(make_user, worker):
    ann, ben = make_user("ann"), make_user("ben")
    tc = {"per_move_s": 2, "bot_after": 1}
    match = lobby.match_create(user=ann, game="ekko", players=2, time_control=tc, options={"target_score": 100})
    lobby.match_join(match_id=match.id, user=ben)
    assert wait_for(lambda: Record.objects.filter(match=match, type="timeout", actor="timeout").exists())
    first = Record.objects.filter(match=match, type="timeout").first()
    assert (first.at - Match.objects.get(id=match.id).started_at).total_seconds() >= 2
    # after one timeout (bot_after=1) a bot holds that seat and plays on the worker by itself
    assert wait_for(lambda: Record.objects.filter(match=match, type="bot_took_over", seat=first.seat).exists())
    assert wait_for(lambda: Record.objects.filter(match=match, actor="bot").exists())
    Match.objects.filter(id=match.id).update(status=Match.Status.ABORTED)  # stop the bots before teardown
