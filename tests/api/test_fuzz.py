"""Whatever a client sends, the answer is never a 5xx, and every error is a problem document."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from games.models import Match
from games.services import lobby

pytestmark = pytest.mark.django_db

PROBLEM_MEMBERS = {"type", "title", "status", "detail", "code"}


def assert_problem(r, context=None):
    """A 4xx answer is an RFC 9457 problem document whose ``status`` is the HTTP status."""
    assert r["Content-Type"] == "application/problem+json", (context, r["Content-Type"], r.content[:300])
    body = r.json()
    assert set(body) >= PROBLEM_MEMBERS, (context, body)
    assert body["status"] == r.status_code, (context, body)
    assert isinstance(body["code"], str) and body["code"] and isinstance(body["title"], str), (context, body)
    return body


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 120) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)
_keys = st.sampled_from(
    [
        "game",
        "players",
        "options",
        "bots",
        "time_control",
        "private",
        "move",
        "expected_version",
        "seat",
        "level",
        "username",
        "password",
        "email",
        "display_name",
        "preferences",
        "x",
    ]
)
_bodies = st.dictionaries(_keys, _json, max_size=5) | _json


@pytest.fixture
def arena(make_user, api):
    ann, ben = make_user("ann"), make_user("ben")
    open_match = lobby.match_create(user=ann, game="enka", players=3)
    active = lobby.match_create(user=ann, game="ekko", players=2)
    lobby.match_join(match_id=active.id, user=ben)
    return api(ann), open_match.id, active.id


PATHS = [
    "auth/register",
    "auth/token",
    "auth/logout",
    "me",
    "matches",
    "matches/{open}/join",
    "matches/{open}/leave",
    "matches/{open}/bots",
    "matches/{active}/resign",
    "matches/{active}/moves",
    "matches/{open}/moves",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS), body=_bodies, method=st.sampled_from(["post", "patch"]))
@example(path="matches", body={"game": 3}, method="post")  # a 400 on every run
def test_no_body_makes_the_server_fail(arena, path, body, method):
    client, open_id, active_id = arena
    url = "/api/v1/" + path.format(open=open_id, active=active_id)
    r = getattr(client, method)(url, body, format="json")
    assert r.status_code < 500, (url, body, r.content[:300])
    if r.status_code >= 400:
        assert_problem(r, (method, url, body))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    query=st.dictionaries(
        st.sampled_from(["game", "status", "player", "mine", "joinable", "limit", "offset", "after"]),
        st.text(max_size=6),
        max_size=3,
    )
)
@example(query={"status": "nope", "after": "zz"})  # a 400 from the list and from events on every run
def test_no_query_makes_the_server_fail(arena, query):
    client, _, active_id = arena
    for url in ("/api/v1/matches", f"/api/v1/matches/{active_id}/events", f"/api/v1/matches/{active_id}/state"):
        r = client.get(url, query)
        assert r.status_code < 500, (url, query)
        if r.status_code >= 400:
            assert_problem(r, (url, query))


def test_a_move_for_the_wrong_game_is_invalid_and_changes_nothing(arena):
    client, _, active_id = arena
    before = Match.objects.get(id=active_id).version
    r = client.post(
        f"/api/v1/matches/{active_id}/moves",
        {"move": {"type": "play", "card": "red-7"}, "expected_version": before},
        format="json",
    )
    assert r.status_code in (400, 422) and Match.objects.get(id=active_id).version == before
    assert assert_problem(r)["code"] in ("invalid_move", "invalid_request", "illegal_move")
