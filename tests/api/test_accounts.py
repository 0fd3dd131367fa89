"""Accounts through the HTTP stack: register, tokens, logout, me, public profiles."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_register_returns_a_working_token(api):
    r = api().post("/api/v1/auth/register", {"username": "carol", "password": "s3cret-passphrase"}, format="json")
    assert r.status_code == 201
    assert r.json()["username"] == "carol"
    client = api()
    client.credentials(HTTP_AUTHORIZATION=f"Token {r.json()['token']}")
    assert client.get("/api/v1/me").json()["username"] == "carol"


def test_register_refuses_a_taken_username(api, make_user):
    make_user("carol")
    r = api().post("/api/v1/auth/register", {"username": "carol", "password": "s3cret-passphrase"}, format="json")
    assert r.status_code == 409
    assert r.json()["code"] == "username_taken"
    assert r["Content-Type"] == "application/problem+json"


def test_register_refuses_a_weak_password_with_field_errors(api):
    r = api().post("/api/v1/auth/register", {"username": "dave", "password": "password"}, format="json")
    assert r.status_code == 400
    body = r.json()
    assert body["code"] == "invalid_request" and "password" in body["errors"]


def test_register_reports_missing_fields(api):
    r = api().post("/api/v1/auth/register", {}, format="json")
    assert r.status_code == 400
    assert set(r.json()["errors"]) >= {"username", "password"}


def test_malformed_json_is_a_problem_not_a_crash(api):
    r = api().generic("POST", "/api/v1/auth/register", "{not json", content_type="application/json")
    assert r.status_code == 400
    assert r.json()["code"] == "malformed_request"


def test_token_for_good_credentials_and_400_for_bad(api, make_user):
    make_user("erin", "a-long-password-1")
    good = api().post("/api/v1/auth/token", {"username": "erin", "password": "a-long-password-1"}, format="json")
    assert good.status_code == 200 and good.json()["token"]
    bad = api().post("/api/v1/auth/token", {"username": "erin", "password": "nope"}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_request"


def test_logout_revokes_the_token(api, make_user):
    client = api(make_user("frank"))
    assert client.post("/api/v1/auth/logout").status_code == 204
    r = client.get("/api/v1/me")
    assert r.status_code == 401
    assert r.json()["code"] == "authentication_failed"


def test_anonymous_requests_get_401_problem(api):
    r = api().get("/api/v1/matches")
    assert r.status_code == 401
    assert r.json()["code"] == "not_authenticated"
    assert "Token" in r["WWW-Authenticate"]


def test_bearer_header_is_accepted_too(api, make_user):
    from accounts.services import token_for

    user = make_user("gina")
    client = api()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_for(user)}")
    assert client.get("/api/v1/me").status_code == 200


def test_me_can_be_edited_and_rejects_bad_preferences(api, make_user):
    client = api(make_user("hugo"))
    r = client.patch("/api/v1/me", {"display_name": "Hugo", "preferences": {"theme": "dark"}}, format="json")
    assert r.status_code == 200
    assert r.json()["display_name"] == "Hugo" and r.json()["preferences"] == {"theme": "dark"}
    bad = client.patch("/api/v1/me", {"preferences": [1, 2]}, format="json")
    assert bad.status_code == 400 and "preferences" in bad.json()["errors"]
    assert client.get("/api/v1/me").json()["preferences"] == {"theme": "dark"}


def test_username_is_read_only_on_me(api, make_user):
    client = api(make_user("iris"))
    client.patch("/api/v1/me", {"username": "root"}, format="json")
    assert client.get("/api/v1/me").json()["username"] == "iris"


def test_public_profile_and_404(api, make_user):
    client = api(make_user("jack"))
    make_user("kate")
    r = client.get("/api/v1/users/kate")
    assert r.status_code == 200
    assert r.json()["username"] == "kate" and r.json()["counts"]["played"] == 0
    assert "email" not in r.json()
    missing = client.get("/api/v1/users/nobody")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def test_unknown_path_is_a_problem_document(api, make_user):
    r = api(make_user()).get("/api/v1/nowhere")
    assert r.status_code == 404
    assert r.json()["code"] == "not_found"


def test_public_profile_counts_played_and_won_matches(api, make_user):
    from games.services import lobby, play

    ann, ben = make_user("ann"), make_user("ben")
    for loser in (ben, ann, ben):
        match = lobby.match_create(user=ann, game="ekko", players=2)
        lobby.match_join(match_id=match.id, user=ben)
        play.match_resign(match_id=match.id, user=loser)
    profile = api(ben).get("/api/v1/users/ann").json()
    assert profile["counts"] == {"played": 3, "active": 0, "won": 2}
    assert len(profile["recent_matches"]) == 3
    assert {r["game"] for r in profile["ratings"]} == {"ekko"}


def test_a_profile_costs_the_same_queries_for_one_recent_match_or_several(api, make_user):
    """Each recent match's rematch is read with the match (it was one query per match)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.services import lobby, play

    ann, ben = make_user("ann"), make_user("ben")
    reader = api(ben)

    def finished_one() -> None:
        match = lobby.match_create(user=ann, game="ekko", players=2)
        lobby.match_join(match_id=match.id, user=ben)
        play.match_resign(match_id=match.id, user=ben)

    def queries() -> int:
        with CaptureQueriesContext(connection) as seen:
            assert reader.get("/api/v1/users/ann").status_code == 200
        return len(seen.captured_queries)

    finished_one()
    queries()  # the first request of a token also records its use
    one = queries()
    for _ in range(4):
        finished_one()
    assert queries() == one
