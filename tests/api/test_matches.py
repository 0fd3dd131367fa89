"""Matches through the HTTP stack with the toy engine (tests/toy.py): lobby, state, moves, errors."""

from __future__ import annotations

import pytest
from django.test import override_settings

from games.models import Match, Record

pytestmark = pytest.mark.django_db


@pytest.fixture
def players(make_user, api):
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    return {"alice": api(alice), "bob": api(bob), "carol": api(carol)}


@pytest.fixture
def active(toy_game, players):
    """A started 2-player toy match: alice seat 0, bob seat 1."""
    r = players["alice"].post("/api/v1/matches", {"game": "toy", "players": 2}, format="json")
    mid = r.json()["id"]
    players["bob"].post(f"/api/v1/matches/{mid}/join", {}, format="json")
    return mid


def move(client, mid, n, version, **headers):
    body = {"move": {"type": "take", "n": n}, "expected_version": version}
    return client.post(f"/api/v1/matches/{mid}/moves", body, format="json", headers=headers)


def version_of(mid):
    return Match.objects.get(id=mid).version


# --- catalogue ---


def test_games_catalogue_lists_options_and_limits(toy_game, players):
    games = players["alice"].get("/api/v1/games").json()
    toy = next(g for g in games if g["id"] == "toy")
    assert toy["min_players"] == 2 and toy["max_players"] == 4
    assert toy["options"][0] == {
        "name": "pile",
        "type": "integer",
        "default": 7,
        "description": "counters",
        "minimum": 1,
        "maximum": 50,
    }
    assert players["alice"].get("/api/v1/games/toy/").json()["id"] == "toy"
    assert players["alice"].get("/api/v1/games/chess").status_code == 404


# --- creation and lobby ---


def test_create_seats_the_creator_and_waits_for_players(toy_game, players):
    r = players["alice"].post("/api/v1/matches", {"game": "toy", "players": 3}, format="json")
    assert r.status_code == 201
    m = r.json()
    assert m["status"] == "open" and m["seats"][0]["username"] == "alice" and m["seats"][1]["username"] is None
    assert m["seed"] is None and len(m["seed_commitment"]) == 64
    assert m["version"] == 2  # created, seat_taken


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": "nope", "players": 2}, "game"),
        ({"game": "toy", "players": 9}, "players"),
        ({"game": "toy", "players": 2, "options": {"pile": 0}}, "options"),
        ({"game": "toy", "players": 2, "options": {"colour": "red"}}, "options"),
        ({"game": "toy", "players": 2, "time_control": {"per_move_s": 0}}, "time_control.per_move_s"),
        ({"game": "toy", "players": 2, "time_control": {"per_move_s": 5, "bank_s": 5}}, "time_control"),
        (
            {"game": "toy", "players": 2, "time_control": {"per_move_s": 5, "on_timeout": "explode"}},
            "time_control.on_timeout",
        ),
        ({"game": "toy", "players": 2, "bots": [{"seat": 0, "level": "random"}]}, "bots[0].seat"),
        ({"game": "toy", "players": 2, "bots": [{"seat": 1, "level": "genius"}]}, "bots[0].level"),
    ],
)
def test_create_refuses_bad_input_with_field_errors(toy_game, players, body, field):
    before = Match.objects.count()
    r = players["alice"].post("/api/v1/matches", body, format="json")
    assert r.status_code == 400, r.json()
    assert r.json()["code"] == "invalid_request"
    assert field in r.json()["errors"], r.json()
    assert Match.objects.count() == before


@override_settings(TABULA_ALLOW_SETUP=False)
def test_setup_option_is_for_staff_only(toy_game, players, make_user, api):
    r = players["alice"].post("/api/v1/matches", {"game": "toy", "players": 2, "options": {"setup": {}}}, format="json")
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    staff = make_user("staff")
    staff.is_staff = True
    staff.save()
    r = api(staff).post("/api/v1/matches", {"game": "toy", "players": 2, "options": {"setup": {}}}, format="json")
    assert r.status_code == 201 and r.json()["rated"] is False


def test_match_starts_by_itself_when_full(active, players):
    m = players["alice"].get(f"/api/v1/matches/{active}").json()
    assert m["status"] == "active" and m["awaiting"] == [0]
    types = list(Record.objects.filter(match_id=active).values_list("type", flat=True))
    assert types == ["created", "seat_taken", "seat_taken", "started"]


def test_join_errors(toy_game, players, make_user, api):
    mid = players["alice"].post("/api/v1/matches", {"game": "toy", "players": 3}, format="json").json()["id"]
    assert players["alice"].post(f"/api/v1/matches/{mid}/join").json()["code"] == "already_seated"
    assert players["bob"].post(f"/api/v1/matches/{mid}/join", {"seat": 0}, format="json").json()["code"] == "seat_taken"
    assert players["bob"].post(f"/api/v1/matches/{mid}/join", {"seat": 7}, format="json").status_code == 400
    assert players["bob"].post(f"/api/v1/matches/{mid}/join", {"seat": 2}, format="json").status_code == 200
    players["carol"].post(f"/api/v1/matches/{mid}/join")
    late = api(make_user("dan")).post(f"/api/v1/matches/{mid}/join")
    assert late.status_code == 409 and late.json()["code"] == "match_not_open"
    assert players["bob"].post("/api/v1/matches/nope/join").status_code == 404


def test_leave_before_start_and_abort_when_empty(toy_game, players):
    mid = players["alice"].post("/api/v1/matches", {"game": "toy", "players": 3}, format="json").json()["id"]
    players["bob"].post(f"/api/v1/matches/{mid}/join")
    assert players["bob"].post(f"/api/v1/matches/{mid}/leave").status_code == 200
    assert players["carol"].post(f"/api/v1/matches/{mid}/leave").json()["code"] == "not_seated"
    m = players["alice"].post(f"/api/v1/matches/{mid}/leave").json()
    assert m["status"] == "aborted"


def test_leave_after_start_is_refused(active, players):
    r = players["bob"].post(f"/api/v1/matches/{active}/leave")
    assert r.status_code == 409 and r.json()["code"] == "match_started"


def test_bots_can_fill_an_open_match(toy_game, players):
    mid = players["alice"].post("/api/v1/matches", {"game": "toy", "players": 2}, format="json").json()["id"]
    assert players["bob"].post(f"/api/v1/matches/{mid}/bots", {"level": "random"}, format="json").status_code == 403
    r = players["alice"].post(f"/api/v1/matches/{mid}/bots", {"level": "random"}, format="json")
    assert r.status_code == 200
    assert r.json()["seats"][1]["bot"] == "random" and r.json()["status"] == "active"


# --- state ---


def test_state_has_etag_and_answers_304(active, players):
    r = players["alice"].get(f"/api/v1/matches/{active}/state")
    assert r.status_code == 200
    etag = r["ETag"]
    again = players["alice"].get(f"/api/v1/matches/{active}/state", headers={"If-None-Match": etag})
    assert again.status_code == 304
    move(players["alice"], active, 1, version_of(active))
    changed = players["alice"].get(f"/api/v1/matches/{active}/state", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed["ETag"] != etag


def test_state_is_the_callers_view(active, players):
    mine = players["alice"].get(f"/api/v1/matches/{active}/state").json()
    assert mine["you"] == 0 and mine["legal_moves"] == [{"type": "take", "n": 1}, {"type": "take", "n": 2}]
    spectator = players["carol"].get(f"/api/v1/matches/{active}/state").json()
    assert spectator["you"] is None and spectator["legal_moves"] == []
    assert (
        players["alice"].get(f"/api/v1/matches/{active}/state")["ETag"]
        != players["carol"].get(f"/api/v1/matches/{active}/state")["ETag"]
    )


def test_paths_answer_with_and_without_trailing_slash(active, players):
    for path in (f"/api/v1/matches/{active}", f"/api/v1/matches/{active}/state", "/api/v1/games", "/api/v1/me"):
        assert players["alice"].get(path).status_code == 200
        assert players["alice"].get(path + "/").status_code == 200


# --- moves and their errors, in the pinned order ---


def test_move_is_accepted_and_answers_the_new_state(active, players):
    v = version_of(active)
    r = move(players["alice"], active, 2, v)
    assert r.status_code == 201
    assert r.json()["version"] == v + 1 and r.json()["state"]["view"]["pile"] == 5
    assert r.json()["state"]["awaiting"] == [1]


def test_not_seated_comes_first(active, players):
    r = move(players["carol"], active, 1, 0)
    assert r.status_code == 403 and r.json()["code"] == "not_seated"


def test_stale_version_is_409_with_current_version(active, players):
    v = version_of(active)
    r = move(players["alice"], active, 1, v - 1)
    assert r.status_code == 409
    assert r.json()["code"] == "version_conflict" and r.json()["current_version"] == v


@pytest.mark.parametrize("payload", [{"type": "take", "n": 3}, {"type": "fly"}, {"type": "take"}, [1, 2], "take"])
def test_a_body_that_is_not_a_move_is_400_invalid_move(active, players, payload):
    v = version_of(active)
    r = players["alice"].post(
        f"/api/v1/matches/{active}/moves", {"move": payload, "expected_version": v}, format="json"
    )
    assert r.status_code == 400 and r.json()["code"] == "invalid_move"
    assert version_of(active) == v


def test_missing_expected_version_is_a_field_error(active, players):
    r = players["alice"].post(f"/api/v1/matches/{active}/moves", {"move": {"type": "take", "n": 1}}, format="json")
    assert r.status_code == 400 and "expected_version" in r.json()["errors"]


def test_a_seat_that_is_not_awaited_gets_422_not_awaited(active, players):
    v = version_of(active)
    r = move(players["bob"], active, 1, v)
    assert r.status_code == 422 and r.json()["code"] == "not_awaited"
    assert version_of(active) == v


def test_illegal_move_carries_the_reason(toy_game, players):
    r = players["alice"].post("/api/v1/matches", {"game": "toy", "players": 2, "options": {"pile": 1}}, format="json")
    mid = r.json()["id"]
    players["bob"].post(f"/api/v1/matches/{mid}/join")
    r = move(players["alice"], mid, 2, version_of(mid))
    assert r.status_code == 422
    assert r.json()["code"] == "illegal_move" and r.json()["reason"] == "too_many"


def test_match_over_is_409(toy_game, players):
    mid = (
        players["alice"]
        .post("/api/v1/matches", {"game": "toy", "players": 2, "options": {"pile": 1}}, format="json")
        .json()["id"]
    )
    players["bob"].post(f"/api/v1/matches/{mid}/join")
    assert move(players["alice"], mid, 1, version_of(mid)).status_code == 201
    r = move(players["bob"], mid, 1, version_of(mid))
    assert r.status_code == 409 and r.json()["code"] == "match_over"
    m = players["alice"].get(f"/api/v1/matches/{mid}").json()
    assert m["status"] == "finished"
    assert m["result"] == {"winners": [0], "ranking": [[0], [1]], "scores": [1, 0], "reason": "last_counter"}
    assert m["seed"] is not None


def test_moves_before_the_start_are_refused(toy_game, players):
    mid = players["alice"].post("/api/v1/matches", {"game": "toy", "players": 2}, format="json").json()["id"]
    r = move(players["alice"], mid, 1, version_of(mid))
    assert r.status_code == 409 and r.json()["code"] == "match_not_started"


def test_idempotency_key_replays_the_first_answer(active, players):
    v = version_of(active)
    first = move(players["alice"], active, 1, v, **{"Idempotency-Key": "k-1"})
    retry = move(players["alice"], active, 1, v, **{"Idempotency-Key": "k-1"})
    assert first.status_code == retry.status_code == 201
    assert first.json() == retry.json()
    assert version_of(active) == v + 1
    other = move(players["alice"], active, 2, v, **{"Idempotency-Key": "k-1"})
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"


# --- resign, events, export, listing ---


def test_resign_ends_a_two_player_match(active, players):
    r = players["bob"].post(f"/api/v1/matches/{active}/resign")
    assert r.status_code == 200 and r.json()["status"] == "finished"
    assert r.json()["result"]["winners"] == [0]
    assert players["bob"].post(f"/api/v1/matches/{active}/resign").json()["code"] == "match_over"
    assert players["carol"].post(f"/api/v1/matches/{active}/resign").json()["code"] == "not_seated"


def test_resign_before_start_is_refused(toy_game, players):
    mid = players["alice"].post("/api/v1/matches", {"game": "toy", "players": 2}, format="json").json()["id"]
    assert players["alice"].post(f"/api/v1/matches/{mid}/resign").json()["code"] == "match_not_started"


def test_events_are_redacted_per_viewer(active, players):
    move(players["alice"], active, 1, version_of(active))
    own = players["alice"].get(f"/api/v1/matches/{active}/events?after=4").json()
    other = players["bob"].get(f"/api/v1/matches/{active}/events", {"after": 4}).json()
    spectator = players["carol"].get(f"/api/v1/matches/{active}/events?after=4").json()
    assert [e["kind"] for e in own[0]["data"]["effects"]] == ["took", "secret"]
    assert own[0]["data"]["move"] == {"type": "take", "n": 1}
    assert [e["kind"] for e in other[0]["data"]["effects"]] == ["took"] and "move" not in other[0]["data"]
    assert spectator[0]["data"] == other[0]["data"]
    assert [e["seq"] for e in players["bob"].get(f"/api/v1/matches/{active}/events").json()] == [1, 2, 3, 4, 5]
    assert players["bob"].get(f"/api/v1/matches/{active}/events?after=-1").status_code == 400
    assert players["bob"].get(f"/api/v1/matches/{active}/events?after=x").status_code == 400


def test_export_only_once_over(active, players):
    r = players["alice"].get(f"/api/v1/matches/{active}/export")
    assert r.status_code == 409 and r.json()["code"] == "match_live"
    players["bob"].post(f"/api/v1/matches/{active}/resign")
    log = players["carol"].get(f"/api/v1/matches/{active}/export").json()
    assert log["seed"] == Match.objects.get(id=active).seed
    assert [r["seq"] for r in log["records"]] == list(range(1, len(log["records"]) + 1))


def test_listing_filters(toy_game, players):
    a = players["alice"].post("/api/v1/matches", {"game": "toy", "players": 2}, format="json").json()["id"]
    b = players["bob"].post("/api/v1/matches", {"game": "toy", "players": 2}, format="json").json()["id"]
    players["alice"].post("/api/v1/matches", {"game": "toy", "players": 2, "private": True}, format="json")

    def ids(client, query=""):
        return [m["id"] for m in client.get(f"/api/v1/matches?{query}").json()["results"]]

    assert ids(players["carol"]) == [b, a]  # the private one is not listed to others
    assert ids(players["alice"], "mine=true")[1:] == [a]
    assert ids(players["alice"], "joinable=true") == [b]
    assert ids(players["carol"], "player=bob") == [b]
    assert ids(players["carol"], "status=active") == []
    assert players["carol"].get("/api/v1/matches?status=bogus").status_code == 400
    page = players["carol"].get("/api/v1/matches?limit=1").json()
    assert page["count"] == 2 and len(page["results"]) == 1 and page["next"]


def test_private_match_is_listed_to_its_players(toy_game, players):
    mid = (
        players["alice"]
        .post("/api/v1/matches", {"game": "toy", "players": 2, "private": True}, format="json")
        .json()["id"]
    )
    assert mid in [m["id"] for m in players["alice"].get("/api/v1/matches").json()["results"]]


def test_clock_deadlines_show_in_summary_and_state(toy_game, players):
    r = players["alice"].post(
        "/api/v1/matches",
        {"game": "toy", "players": 2, "time_control": {"bank_s": 600, "increment_s": 5}},
        format="json",
    )
    mid = r.json()["id"]
    players["bob"].post(f"/api/v1/matches/{mid}/join")
    summary = players["alice"].get(f"/api/v1/matches/{mid}").json()
    state = players["bob"].get(f"/api/v1/matches/{mid}/state").json()
    assert list(summary["deadlines"]["seats"]) == ["0"] == list(state["deadlines"]["seats"])
    assert state["deadlines"]["seats"]["0"]["bank_ms"] == 600_000
    assert summary["time_control"] == {"bank_s": 600, "increment_s": 5, "on_timeout": "default_move"}


@pytest.mark.parametrize(
    ("game", "setup"),
    [
        ("eko", {}),
        ("ekko", {"hands": [[1, 1], [2]], "start": 3}),
        ("enka", {"hands": [["red-99"], []], "start": "red-1"}),
    ],
)
def test_a_setup_that_breaks_the_rules_is_refused_at_creation(players, game, setup):
    before = Match.objects.count()
    r = players["alice"].post(
        "/api/v1/matches", {"game": game, "players": 2, "options": {"setup": setup}}, format="json"
    )
    assert r.status_code == 400, r.json()
    assert r.json()["code"] == "invalid_request" and "options" in r.json()["errors"]
    assert Match.objects.count() == before


def test_the_catalogue_is_public(api):
    assert {g["id"] for g in api().get("/api/v1/games").json()} >= {"ekko", "enka", "eko", "ecos"}
    assert api().get("/api/v1/games/ekko").json()["max_players"] == 8


def test_idempotency_replays_the_first_answer_byte_for_byte(active, players):
    """Issue 23 item 11: the replay re-rendered the stored JSON (PostgreSQL's jsonb orders keys its own
    way: JSON-equal, not the same bytes). Here the stored JSON is reordered as jsonb would."""
    from api.models import IdempotentRequest

    v = version_of(active)
    first = move(players["alice"], active, 1, v, **{"Idempotency-Key": "k-bytes"})
    row = IdempotentRequest.objects.get(key="k-bytes")
    assert bytes(row.content) == first.content and row.content_type == first["Content-Type"]

    def reordered(value):
        if isinstance(value, dict):
            return {k: reordered(value[k]) for k in sorted(value, key=lambda k: (len(k), k), reverse=True)}
        return [reordered(v) for v in value] if isinstance(value, list) else value

    row.body = reordered(row.body)
    row.save(update_fields=["body"])
    retry = move(players["alice"], active, 1, v, **{"Idempotency-Key": "k-bytes"})
    assert (retry.status_code, retry["Content-Type"], retry.content) == (201, first["Content-Type"], first.content)


def test_an_idempotent_row_without_bytes_still_replays(active, players):
    from api.models import IdempotentRequest

    v = version_of(active)
    first = move(players["alice"], active, 1, v, **{"Idempotency-Key": "k-old"})
    IdempotentRequest.objects.filter(key="k-old").update(content=None, content_type="")  # a row from before
    retry = move(players["alice"], active, 1, v, **{"Idempotency-Key": "k-old"})
    assert retry.status_code == 201 and retry.json() == first.json()


def test_my_matches_are_found_by_a_semi_join_not_a_distinct_over_match_rows(toy_game, players):
    """`matches?mine=true` (issue 31): the page is found among the caller's seats alone (the index
    ``seat_history``), with no DISTINCT over whole match rows (jsonb included), and each match once."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    alice = players["alice"]
    made = {alice.post("/api/v1/matches", {"game": "toy", "players": 2}, format="json").json()["id"] for _ in range(3)}
    with CaptureQueriesContext(connection) as queries:
        answer = alice.get("/api/v1/matches?mine=true").json()
    assert {m["id"] for m in answer["results"]} >= made and answer["count"] == len(answer["results"])
    listing = [q["sql"] for q in queries.captured_queries if '"games_match"' in q["sql"] and "LIMIT" in q["sql"]]
    seats_first = 'SELECT S.MATCH_ID AS ID, COUNT(*) OVER () AS TOTAL FROM "GAMES_SEAT" S WHERE S.USER_ID ='
    assert listing and all("DISTINCT" not in sql.upper() and seats_first in sql.upper() for sql in listing), listing
