"""The state a match ended in, kept with it (`games.models.FinalState`, `games.replay.keep_final`):
written by the move that ends the match, it is what a full replay gets; a read of the finished match
that no process and no shared snapshot holds takes it and folds no record (on PostgreSQL in the one
statement that reads the row, without its records); one of other rules, of another version or that
does not read back is ignored (a full replay, never a wrong state or an error). An archived match
keeps it too."""

from __future__ import annotations

import logging
import pickle
import random
import uuid

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from games import archive, replay, selectors
from games.models import FinalState, Match
from games.services import lobby, play
from tests.games.test_replay_shared import _fold, _play, _same

pytestmark = pytest.mark.django_db

API = "/api/v1"


@pytest.fixture(autouse=True)
def empty_shared_cache():
    """A shared snapshot cache of this test's own, emptied before each read below: what is kept
    with the match is all there is."""
    backend = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": uuid.uuid4().hex}
    with override_settings(CACHES={"default": backend, "replay": backend}):
        yield


def _cold() -> None:
    """Another process, long after: nothing of the match in memory, no shared snapshot left."""
    replay.forget_all()
    from django.core.cache import caches

    caches["replay"].clear()


@pytest.fixture
def resigned(make_user):
    """A two-seat EKKO match that ended when its second seat resigned, and its players."""
    ann, ben = make_user("ann"), make_user("ben")
    match = lobby.match_create(user=ann, game="ekko", players=2)
    lobby.match_join(match_id=match.id, user=ben)
    for _ in range(2):  # a move or two, so that the state is not the deal's
        current = Match.objects.get(id=match.id)
        state = replay.match_state(current)
        rules = replay.rules_for(current)
        mover = next(s for s in range(2) if rules.legal_moves(state, s))
        move = rules.dump_move(rules.legal_moves(state, mover)[0])
        play.move_submit(match_id=match.id, user=(ann, ben)[mover], move=move, expected_version=current.version)
    play.match_resign(match_id=match.id, user=ben)
    return Match.objects.get(id=match.id), (ann, ben)


def _read(match_id: str, user) -> tuple[Match, object]:
    """``GET state``'s read: the row (and on PostgreSQL what to fold) in one statement, then the state."""
    read = selectors.match_with_seat_of(match_id, user)
    return read, replay.match_state(read)


def test_the_move_that_ends_a_match_keeps_its_final_state(resigned):
    match, _ = resigned
    assert match.status == Match.Status.FINISHED
    kept = FinalState.objects.get(match_id=match.id)
    tag, version, state = pickle.loads(kept.state)
    assert (tag, version, kept.version) == (replay.rules_tag(match), match.version, match.version)
    assert _same(match, state, replay.full_replay(match))


@pytest.mark.parametrize("game", ["ekko", "enka"])
def test_a_match_played_to_its_end_keeps_what_a_full_replay_gets(
    game, make_user, django_capture_on_commit_callbacks, folded
):
    users = [make_user(f"{game}-{i}") for i in range(2)]
    created = lobby.match_create(user=users[0], game=game, players=2)
    lobby.match_join(match_id=created.id, user=users[1])
    match = _play(created, users, 10**6, django_capture_on_commit_callbacks, random.Random(f"final-{game}"))
    assert match.status == Match.Status.FINISHED
    assert FinalState.objects.get(match_id=match.id).version == match.version
    want = replay.full_replay(match)
    _cold()
    folded[0] = 0
    with CaptureQueriesContext(connection) as queries:
        _, state = _read(match.id, users[0])
    assert _same(match, state, want)
    assert folded[0] == 0  # not one record folded
    assert len(queries.captured_queries) == (1 if connection.vendor == "postgresql" else 2)


def test_a_live_match_keeps_none(make_user):
    ann, ben = make_user("ann"), make_user("ben")
    match = lobby.match_create(user=ann, game="ekko", players=2)
    lobby.match_join(match_id=match.id, user=ben)
    assert not FinalState.objects.filter(match_id=match.id).exists()


def test_a_cold_read_of_a_finished_match_takes_it_and_reads_no_record(resigned, folded):
    match, (ann, _) = resigned
    want = replay.full_replay(match)
    _cold()
    folded[0] = 0
    with CaptureQueriesContext(connection) as queries:
        _, state = _read(match.id, ann)
    assert _same(match, state, want) and folded[0] == 0
    if connection.vendor == "postgresql":  # the row and the state in one statement
        assert len(queries.captured_queries) == 1
    else:  # the row, then the state: no query of the records
        assert len(queries.captured_queries) == 2
        assert [q for q in queries.captured_queries if '"games_record"' in q["sql"]] == []


def test_what_is_kept_is_what_is_read(resigned):
    """The control of the tests below: a planted state (of an earlier version, claimed final) is read."""
    match, (ann, _) = resigned
    earlier = _fold(match, match.version - 3)
    assert not _same(match, earlier, replay.full_replay(match))
    FinalState.objects.filter(match_id=match.id).update(
        state=pickle.dumps((replay.rules_tag(match), match.version, earlier))
    )
    _cold()
    assert _same(match, _read(match.id, ann)[1], earlier)


@pytest.mark.parametrize(
    "planted",
    [
        pytest.param(lambda m, s: pickle.dumps(("ekko:0", m.version, s)), id="other rules"),
        pytest.param(lambda m, s: pickle.dumps((replay.rules_tag(m), m.version - 1, s)), id="another version"),
        pytest.param(lambda m, s: b"\x80\x05not a pickle", id="does not read back"),
        pytest.param(lambda m, s: pickle.dumps(["a", "list"]), id="not a state"),
    ],
)
def test_a_kept_state_that_does_not_fit_is_ignored(resigned, folded, planted, caplog):
    match, (ann, _) = resigned
    earlier = _fold(match, match.version - 3)
    FinalState.objects.filter(match_id=match.id).update(state=planted(match, earlier))
    want = replay.full_replay(match)
    for read in (lambda: _read(match.id, ann)[1], lambda: replay.match_state(Match.objects.get(id=match.id))):
        _cold()
        folded[0] = 0
        with caplog.at_level(logging.WARNING, logger="games.replay"):
            assert _same(match, read(), want)
        assert folded[0] == match.version  # from record 1
    assert all("not a pickle" not in r.getMessage() for r in caplog.records)  # the error's type only


def test_a_row_of_another_version_is_not_read(resigned, folded):
    """A record after the end (none is written today) moves the version past the kept state's."""
    match, (ann, _) = resigned
    FinalState.objects.filter(match_id=match.id).update(version=match.version - 1)
    want = replay.full_replay(match)
    _cold()
    folded[0] = 0
    assert _same(match, _read(match.id, ann)[1], want)
    assert folded[0] == match.version


def test_an_archived_match_reads_its_final_state_too(resigned, folded):
    match, (ann, _) = resigned
    want = replay.full_replay(match)
    assert archive.archive(match.id)
    _cold()
    folded[0] = 0
    assert _same(match, _read(match.id, ann)[1], want)
    assert folded[0] == 0


def test_get_state_answers_the_same_cold_and_warm(resigned, api):
    match, (ann, _) = resigned
    client = api(ann)
    warm = client.get(f"{API}/matches/{match.id}/state")
    _cold()
    cold = client.get(f"{API}/matches/{match.id}/state")
    assert warm.status_code == cold.status_code == 200
    assert warm.json() == cold.json()
    FinalState.objects.filter(match_id=match.id).update(state=b"garbage")
    _cold()
    assert client.get(f"{API}/matches/{match.id}/state").json() == warm.json()
