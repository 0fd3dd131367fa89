"""The replay snapshot every process shares (`games.replay`, in Django's cache): a process that holds
nothing of a long match folds fewer than SNAPSHOT_EVERY records on top of it, and gets the state a
full replay gets, for every game; a snapshot of another rules version is ignored; a failing cache
costs a replay, never a wrong state or an error; a transaction that rolls back writes none.

Each test runs on a cache of its own in memory, and, when a Redis server is configured
(``CELERY_BROKER_URL``/``REDIS_URL``, as in production), on Redis too."""

from __future__ import annotations

import logging
import random
import uuid
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from games import replay, selectors
from games.models import Match, Record
from games.services import deadlines, lobby, play
from rules import RULES

pytestmark = pytest.mark.django_db
EVERY = replay.SNAPSHOT_EVERY
OPTIONS: dict[str, dict[str, Any]] = {  # long games: the largest targets, so a match lasts past 3 × 64 records
    "ekko": {"target_score": 100},
    "enka": {"target_score": 10_000},
    "ecos": {"target_score": 10_000},
    "eko": {},
}


@pytest.fixture(params=["memory", "redis"])
def shared_cache(request):
    """A cache of this test's own: in memory, or on the configured Redis (keys under a prefix of
    this test's, kept minutes: a Redis cache's clear() would empty the whole database)."""
    if request.param == "memory":
        backend = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": uuid.uuid4().hex}
    elif settings.REDIS_URL:
        backend = {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": settings.REDIS_URL,
            "KEY_PREFIX": f"test-replay-{uuid.uuid4().hex}",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    else:
        pytest.skip("no Redis configured (REDIS_URL or a redis:// CELERY_BROKER_URL)")
    with override_settings(CACHES={"default": backend, "replay": backend}, TABULA_STATE_SNAPSHOT_TTL=600):
        yield caches["replay"]


def _play(match: Match, users, until: int, capture, chooser: random.Random, stop=None) -> Match:
    """Random legal moves, each committed (its on-commit work run), until ``match.version`` reaches
    ``until``, the match ends, or ``stop(match)``."""
    rules = RULES[match.game]
    for _ in range(3 * until):
        match = Match.objects.get(id=match.id)
        if match.version >= until or match.status != Match.Status.ACTIVE or (stop and stop(match)):
            break
        state = replay.match_state(match)
        movers = [s for s in range(match.players) if rules.legal_moves(state, s)]
        with capture(execute=True):
            if not movers:  # a game timer runs: let it fire
                Match.objects.filter(id=match.id).update(timer_deadline=match.timer_deadline.replace(year=2000))
                deadlines.deadlines_process(match_id=match.id)
                continue
            seat = chooser.choice([s for s in movers if s in match.awaiting] or movers)
            move = rules.dump_move(chooser.choice(rules.legal_moves(state, seat)))
            play.move_submit(match_id=match.id, user=users[seat], move=move, expected_version=match.version)
    return Match.objects.get(id=match.id)


def _long_match(game: str, make_user, capture, records: int) -> tuple[Match, list[Any]]:
    """A 2-player match of ``game`` played past ``records`` records (a new one when a random game
    ends sooner). The deals and the moves come from one generator seeded by the game's name, so a
    run plays the same matches as the last: a deal the services drew would end a match early now
    and then, and fail the test by chance."""
    users = [make_user(f"{game}-{i}") for i in range(2)]
    chooser = random.Random(game)
    for _ in range(5):
        with mock.patch("games.services.lobby.secrets.randbits", lambda bits: chooser.getrandbits(bits)):
            created = lobby.match_create(user=users[0], game=game, players=2, options=OPTIONS[game])
        lobby.match_join(match_id=created.id, user=users[1])
        match = _play(created, users, records, capture, chooser)
        if match.version >= records:
            return match, users
    raise AssertionError(f"no {game} match lasted {records} records")


def _fold(match: Match, seq: int) -> Any:
    """The state after ``seq`` by a plain fold from record 1 (no snapshot, no cache)."""
    rows = Record.objects.filter(match=match, seq__lte=seq).order_by("seq").values_list("type", "seat", "move")
    return replay.replay(match, list(rows))


def _same(match: Match, got: Any, want: Any) -> bool:
    rules = RULES[match.game]
    return (got is None and want is None) or (got is not None and rules.dump_state(got) == rules.dump_state(want))


@pytest.mark.parametrize("game", sorted(RULES))
def test_a_cold_read_folds_less_than_a_snapshot_interval(
    game, shared_cache, folded, make_user, django_capture_on_commit_callbacks
):
    match, users = _long_match(game, make_user, django_capture_on_commit_callbacks, 3 * EVERY - 20)
    stored = shared_cache.get(replay.shared_key(match.id))
    assert stored is not None and stored[0] == replay.rules_tag(match)
    assert match.version - EVERY < stored[1] <= match.version  # the moves kept it fresh
    want = replay.full_replay(match)

    replay.forget_all()  # a new process: nothing of the match in memory
    folded[0] = 0
    assert _same(match, replay.match_state(Match.objects.get(id=match.id)), want)
    assert folded[0] == match.version - stored[1] < EVERY

    replay.forget_all()  # as GET state reads it: on PostgreSQL the records come with the row, one statement
    folded[0] = 0
    with CaptureQueriesContext(connection) as queries:
        read = selectors.match_with_seat_of(match.id, users[0])
        state = replay.match_state(read)
    assert _same(match, state, want)
    assert folded[0] == match.version - stored[1]
    assert len(queries.captured_queries) == (1 if connection.vendor == "postgresql" else 2)

    replay.forget_all()
    for seq in (match.version, stored[1], stored[1] + 1, match.version - 1, EVERY + 3, 5):
        folded[0] = 0
        with django_capture_on_commit_callbacks(execute=True):
            got = replay.state_at(match, seq)
        if seq >= stored[1]:  # from the shared snapshot, not from record 1
            assert folded[0] <= seq - stored[1], seq
        assert _same(match, got, _fold(match, seq)), seq


def test_a_cold_read_with_no_snapshot_anywhere_asks_the_shared_cache_once(
    shared_cache, make_user, django_capture_on_commit_callbacks, monkeypatch
):
    """``GET state`` of a long match that no process holds and no snapshot covers (expired): the
    tail read with the row found nothing shared, so the fold asks no more (a Redis round trip)."""
    match, users = _long_match("ekko", make_user, django_capture_on_commit_callbacks, EVERY + 20)
    shared_cache.delete(replay.shared_key(match.id))
    replay.forget_all()
    asked: list[str] = []
    plain = replay._shared_get
    monkeypatch.setattr(replay, "_shared_get", lambda match_id: asked.append(match_id) or plain(match_id))
    read = selectors.match_with_seat_of(match.id, users[0])
    assert _same(match, replay.match_state(read), replay.full_replay(match))
    assert asked == [match.id]


def test_a_snapshot_of_another_rules_version_is_ignored(
    shared_cache, folded, make_user, django_capture_on_commit_callbacks
):
    """A planted snapshot claims the state at ``version - 10`` is the state at ``version``: under
    the match's rules tag it is used (a wrong state: the planted one was read), under another it is
    not (the full replay's state)."""
    match, users = _long_match("ekko", make_user, django_capture_on_commit_callbacks, EVERY + 30)
    rules, key = RULES["ekko"], replay.shared_key(match.id)
    earlier, want = _fold(match, match.version - 10), replay.full_replay(match)
    assert not _same(match, earlier, want)

    shared_cache.set(key, (replay.rules_tag(match), match.version, earlier))
    replay.forget_all()
    assert _same(match, replay.match_state(Match.objects.get(id=match.id)), earlier)  # the control: it is read

    shared_cache.set(key, (f"ekko:{rules.version + 1}", match.version, earlier))
    for read in (
        lambda: replay.match_state(Match.objects.get(id=match.id)),
        lambda: replay.match_state(selectors.match_with_seat_of(match.id, users[0])),
        lambda: replay.state_at(match, match.version),
    ):
        replay.forget_all()
        folded[0] = 0
        assert _same(match, read(), want)
        assert folded[0] == match.version  # from record 1


@pytest.mark.parametrize("game", ["ekko", "enka"])
def test_a_match_that_ends_shares_its_final_state(
    game, shared_cache, folded, make_user, django_capture_on_commit_callbacks
):
    """The move that ends a match writes its final state, whatever the version: the first read of a
    finished match in another process (its result page, its rematch) folds nothing."""
    users = [make_user(f"{game}-end-{i}") for i in range(2)]
    created = lobby.match_create(user=users[0], game=game, players=2)
    lobby.match_join(match_id=created.id, user=users[1])
    match = _play(created, users, 10**6, django_capture_on_commit_callbacks, random.Random(game))
    assert match.status == Match.Status.FINISHED
    if match.version % EVERY == 0:  # a multiple would be shared anyway: not what this test is about
        pytest.skip("the game ended on a multiple of SNAPSHOT_EVERY")
    stored = shared_cache.get(replay.shared_key(match.id))
    assert stored is not None and stored[:2] == (replay.rules_tag(match), match.version)
    want = replay.full_replay(match)
    assert _same(match, stored[2], want)

    replay.forget_all()  # another process
    folded[0] = 0
    assert _same(match, replay.match_state(Match.objects.get(id=match.id)), want)
    assert folded[0] == 0


class _Down:
    """A cache that fails every call, as a Redis server that is down does."""

    def __init__(self) -> None:
        self.calls = 0

    def get(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        raise ConnectionError("cache down")

    def set(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        raise ConnectionError("cache down")


def test_a_failing_cache_costs_a_replay_not_a_wrong_state(
    shared_cache, monkeypatch, caplog, make_user, django_capture_on_commit_callbacks
):
    match, users = _long_match("enka", make_user, django_capture_on_commit_callbacks, 2 * EVERY + 10)
    want = replay.full_replay(match)
    down = _Down()
    monkeypatch.setattr(replay, "caches", {"replay": down})
    monkeypatch.setattr(replay, "_shared_warned", [False])
    replay.forget_all()
    caplog.set_level(logging.DEBUG, logger="games.replay")
    with django_capture_on_commit_callbacks(execute=True):  # and its on-commit write fails quietly
        assert _same(match, replay.match_state(Match.objects.get(id=match.id)), want)
    for seq in (match.version, EVERY + 5):
        assert _same(match, replay.state_at(match, seq), _fold(match, seq))
    replay.forget_all()
    assert _same(match, replay.match_state(selectors.match_with_seat_of(match.id, users[0])), want)
    warnings = [r for r in caplog.records if r.name == "games.replay" and r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "cache down" not in caplog.text  # once, and without the error's text
    assert down.calls == 2  # one failure per process in forget_all's span: then it is left alone for a while

    monkeypatch.setattr(replay, "SHARED_BACKOFF_S", 0.0)  # and when it is back, moves write again
    monkeypatch.setattr(replay, "caches", {"replay": shared_cache})
    replay.forget_all()
    played = _play(match, users, match.version + 2 * EVERY, django_capture_on_commit_callbacks, random.Random(3))
    assert shared_cache.get(replay.shared_key(match.id))[1] > played.version - EVERY


def test_a_transaction_that_rolls_back_writes_no_snapshot(shared_cache, make_user, django_capture_on_commit_callbacks):
    match, users = _long_match("ekko", make_user, django_capture_on_commit_callbacks, EVERY + 20)
    key = replay.shared_key(match.id)
    shared_cache.delete(key)
    replay.forget_all()

    class Rollback(Exception):
        pass

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(Rollback), transaction.atomic():
        replay.match_state(Match.objects.get(id=match.id))  # a cold read folding all the records
        raise Rollback
    assert shared_cache.get(key) is None and replay.starting_point(match.id) == (0, None)
    with django_capture_on_commit_callbacks(execute=True):  # the control: committed, it is written
        replay.match_state(Match.objects.get(id=match.id))
    assert shared_cache.get(key)[1] == match.version

    # A move that reaches a multiple of SNAPSHOT_EVERY, rolled back: the snapshot stays where it was.
    match = _play(match, users, 3 * EVERY, django_capture_on_commit_callbacks, random.Random(5), _before_a_multiple)
    assert _before_a_multiple(match), "the match ended or jumped past the multiple"
    before = shared_cache.get(key)[1]
    rules, state = RULES["ekko"], replay.match_state(match)
    movers = [s for s in range(match.players) if rules.legal_moves(state, s)]
    seat = next((s for s in movers if s in match.awaiting), movers[0])
    move = rules.dump_move(rules.legal_moves(state, seat)[0])
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(Rollback), transaction.atomic():
        moved = play.move_submit(match_id=match.id, user=users[seat], move=move, expected_version=match.version)
        assert moved.match.version % EVERY == 0
        raise Rollback
    assert shared_cache.get(key)[1] == before
    with django_capture_on_commit_callbacks(execute=True):  # the control: committed, it is written
        play.move_submit(match_id=match.id, user=users[seat], move=move, expected_version=match.version)
    assert shared_cache.get(key)[1] == match.version + 1


def _before_a_multiple(match: Match) -> bool:
    return match.version % EVERY == EVERY - 1


def test_switched_off_no_snapshot_is_read_or_written(folded, make_user, django_capture_on_commit_callbacks):
    """``TABULA_STATE_SNAPSHOTS`` off leaves the cache alone: moves write nothing, and a cold read
    replays from record 1 even when a snapshot is there."""
    backend = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": uuid.uuid4().hex}
    with override_settings(CACHES={"default": backend, "replay": backend}, TABULA_STATE_SNAPSHOTS=False):
        match, _ = _long_match("ekko", make_user, django_capture_on_commit_callbacks, EVERY + 10)
        shared = caches["replay"]
        assert shared.get(replay.shared_key(match.id)) is None
        shared.set(replay.shared_key(match.id), (replay.rules_tag(match), EVERY, _fold(match, EVERY)))
        replay.forget_all()
        folded[0] = 0
        state = replay.match_state(Match.objects.get(id=match.id))
        assert folded[0] == match.version  # from record 1
        assert _same(match, state, replay.full_replay(match))
