"""Replay and time travel (issue 32): ``GET state?at=`` is the caller's view of that moment and no
later one (a later reveal never shows backwards), any seat's view only once the match is over;
``GET timeline`` shows each record as ``GET events`` does; the snapshots behind ``state_at`` give
the state a fold from the first record gives, in any order of access."""

from __future__ import annotations

import random

import pytest

from games import replay
from games.models import Match, Record
from games.services import operators
from rules import RULES
from tests.notifications.test_leaks import _random_match

pytestmark = pytest.mark.django_db
API = "/api/v1"


def _fold(match: Match, seq: int):
    """The state after ``seq`` by a plain fold from record 1 (no snapshot, no cache)."""
    rows = Record.objects.filter(match=match, seq__lte=seq).order_by("seq").values_list("type", "seat", "move")
    return replay.replay(match, list(rows))


@pytest.mark.parametrize("game", sorted(RULES))
def test_a_past_state_is_the_view_of_that_moment(game, make_user, api):
    users = [make_user(f"{game}-r{i}") for i in range(2)]
    match = _random_match(game, users, moves=60)
    rules = RULES[game]
    events = api(users[0]).get(f"{API}/matches/{match.id}/events?limit=1000").json()
    rng = random.Random(game)
    for seq in sorted(rng.sample(range(1, match.version + 1), min(12, match.version))):
        answer = api(users[0]).get(f"{API}/matches/{match.id}/state?at={seq}")
        assert answer.status_code == 200, answer.content
        body = answer.json()
        assert body["at"] == seq and body["version"] == match.version and body["you"] == 0
        assert body["legal_moves"] == [] and body["deadlines"] == {"timer": None, "seats": {}}
        state = _fold(match, seq)
        expected = None if state is None else rules.view(state, 0, None)
        assert body["view"] == expected  # nothing of a later record, nothing of the other hand
        assert body["record"] == events[seq - 1]
        again = api(users[0]).get(f"{API}/matches/{match.id}/state?at={seq}", HTTP_IF_NONE_MATCH=answer["ETag"])
        assert again.status_code == 304


def test_another_seats_view_only_once_the_match_is_over(make_user, api):
    users = [make_user(f"o{i}") for i in range(2)]
    stranger = make_user("stranger")
    match = _random_match("enka", users, moves=20)
    assert match.is_live
    mid = match.version // 2
    assert api(users[0]).get(f"{API}/matches/{match.id}/state?at={mid}&seat=1").status_code == 403
    assert api(stranger).get(f"{API}/matches/{match.id}/state?at={mid}&seat=0").status_code == 403
    spectator = api(stranger).get(f"{API}/matches/{match.id}/state?at={mid}").json()
    assert spectator["you"] is None and spectator["view"] == RULES["enka"].view(_fold(match, mid), None, None)
    operators.match_abort(match_id=match.id, reason="test")
    match.refresh_from_db()
    other = api(stranger).get(f"{API}/matches/{match.id}/state?at={mid}&seat=1")
    assert other.status_code == 200
    assert other.json()["view"] == RULES["enka"].view(_fold(match, mid), 1, None)
    last = api(stranger).get(f"{API}/matches/{match.id}/state?at={match.version + 1}")
    assert last.status_code == 400
    end = api(stranger).get(f"{API}/matches/{match.id}/state?at={match.version}").json()
    assert end["status"] == "aborted" and end["record"]["type"] == "aborted"


@pytest.mark.parametrize("query", ["at=0", "at=-1", "at=x", "at=%C2%B2", "seat=0", "at=1&seat=9", "at=99999999999999"])
def test_bad_replay_queries_are_400s(make_user, api, query):
    users = [make_user(f"b{i}") for i in range(2)]
    match = _random_match("ekko", users, moves=4)
    answer = api(users[0]).get(f"{API}/matches/{match.id}/state?{query}")
    assert answer.status_code == 400, answer.content
    assert answer["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize("game", sorted(RULES))
def test_the_timeline_is_the_log_as_events_shows_it(game, make_user, api):
    users = [make_user(f"{game}-t{i}") for i in range(2)]
    match = _random_match(game, users, moves=40)
    for user in users:
        events = api(user).get(f"{API}/matches/{match.id}/events?limit=1000").json()
        line = api(user).get(f"{API}/matches/{match.id}/timeline").json()
        assert [e["seq"] for e in line] == list(range(1, match.version + 1))
        for entry, event in zip(line, events, strict=True):
            assert (entry["type"], entry["seat"], entry["actor"]) == (event["type"], event["seat"], event["actor"])
            assert entry["effects"] == [e["kind"] for e in event["data"].get("effects", [])]
            assert entry["text"]
    page = api(users[0]).get(f"{API}/matches/{match.id}/timeline?after=3&limit=2").json()
    assert [e["seq"] for e in page] == [4, 5]


@pytest.mark.parametrize("game", sorted(RULES))
def test_snapshots_give_the_state_a_fold_gives_in_any_order(
    game, make_user, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(replay, "SNAPSHOT_EVERY", 5)  # many snapshots in a short match
    users = [make_user(f"{game}-s{i}") for i in range(2)]
    match = _random_match(game, users, moves=60)
    rules = RULES[game]
    order = list(range(1, match.version + 1))
    random.Random(7).shuffle(order)
    for seq in order + order[:10]:
        with django_capture_on_commit_callbacks(execute=True):  # snapshots are kept on commit
            got = replay.state_at(match, seq)
        want = _fold(match, seq)
        assert (got is None) == (want is None)
        if want is not None:
            assert rules.dump_state(got) == rules.dump_state(want), seq
    assert len([k for k in replay._snapshots if k[0] == match.id]) >= match.version // 5  # they were used


@pytest.mark.parametrize(
    ("language", "seat", "move", "effect"),
    [("en", "seat", "move", "effect"), ("pl", "miejsce", "ruch", "effect"), ("es", "asiento", "jugada", "effect")],
)
def test_the_timeline_speaks_the_callers_language(language, seat, move, effect, make_user, api):
    """Each line in the caller's language: the seat and the record's type in the platform's words,
    each effect's kind in its game's catalogue (``effect.<kind>``), as a client's log words it."""
    import languages
    from games.models import Record
    from games.selectors import RECORD_WORDS

    assert set(RECORD_WORDS) == set(Record.Type.values)  # every record type has its words
    users = [make_user(f"{language}-w{i}") for i in range(2)]
    match = _random_match("enka", users, moves=6)
    users[0].language = language  # a member's own language (GET me) is what answers to them
    users[0].save(update_fields=["language"])
    line = api(users[0]).get(f"{API}/matches/{match.id}/timeline")
    assert line["Content-Language"] == language
    moves = [e for e in line.json() if e["type"] == "move" and e["effects"]]
    assert moves
    for entry in moves:
        words = [languages.text("enka", language, f"{effect}.{kind}") for kind in entry["effects"]]
        assert all(words)
        assert entry["text"].startswith(f"{seat} {entry['seat'] + 1}") and move in entry["text"]
        assert entry["text"].endswith(", ".join(words))
    started = next(e for e in line.json() if e["type"] == "started")
    assert started["seat"] is None
    assert started["text"].startswith({"en": "started: ", "pl": "początek: ", "es": "empezó: "}[language])
