"""Issue 10 at the API: body and JSON limits, rate limits, capped pages, the events cursor, and
problem documents for a database that is down and for DEBUG's pages."""

from __future__ import annotations

import json
import re

import pytest
from django.core.cache import cache
from django.db import OperationalError

from games.services import lobby

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def limits_on(settings):
    settings.TABULA_RATE_LIMITS_OFF = False
    settings.TABULA_RATE_LIMITS = dict(settings.TABULA_RATE_LIMIT_DEFAULTS)
    return settings


def _post(client, path, raw, **extra):
    return client.generic("POST", path, raw, content_type="application/json", **extra)


def test_a_body_over_the_limit_is_refused_with_413_before_it_is_read(api, settings):
    settings.TABULA_MAX_BODY_BYTES = 1024
    r = _post(api(), "/api/v1/auth/register", json.dumps({"username": "a" * 2000, "password": "x" * 10}))
    assert r.status_code == 413 and r["Content-Type"] == PROBLEM
    assert r.json()["code"] == "payload_too_large" and r.json()["limit"] == 1024


@pytest.mark.parametrize("depth", [33, 5000])
def test_json_nested_too_deep_is_a_400(api, make_user, depth):
    r = _post(api(make_user()), "/api/v1/matches", "[" * depth + "]" * depth)
    assert r.status_code == 400 and r.json()["code"] == "malformed_request"


@pytest.mark.parametrize(
    "raw",
    [
        '{"preferences": {"x": "a\\u0000b"}}',
        '{"display_name": "\\ud800"}',
        '{"preferences": {"\\u0000": 1}}',
        '{"preferences": {"n": 1e999}}',
        '{"preferences": {"n": NaN}}',
        '{"preferences": {"n": 100000000000000000000}}',
    ],
)
def test_nul_lone_surrogates_non_numbers_and_huge_integers_are_a_400(api, make_user, raw):
    r = api(make_user()).generic("PATCH", "/api/v1/me", raw, content_type="application/json")
    assert r.status_code == 400, r.content
    assert r["Content-Type"] == PROBLEM


@pytest.mark.parametrize("query", ["game=%00ekko", "status=active%00", "%00=1", "limit=5&game=%C3%AF%00"])
def test_nul_in_a_query_parameter_is_a_400(api, make_user, query):
    """Found by schemathesis: PostgreSQL refused the NUL in a filter, and the API answered 500."""
    ann = make_user("ann")
    for path in ("/api/v1/matches", "/api/v1/users/ann/matches"):
        r = api(ann).get(f"{path}?{query}")
        assert r.status_code == 400, (path, r.content)
        assert r["Content-Type"] == PROBLEM and r.json()["code"] == "malformed_request"


def test_a_huge_clock_is_a_400_and_joins_keep_working(api, make_user):
    ann, bob = make_user("ann"), make_user("bob")
    r = api(ann).post(
        "/api/v1/matches", {"game": "ekko", "players": 2, "time_control": {"per_move_s": 10**12}}, format="json"
    )
    assert r.status_code == 400 and "time_control.per_move_s" in r.json()["errors"]
    r = api(ann).post(
        "/api/v1/matches", {"game": "ekko", "players": 2, "time_control": {"per_move_s": 3600}}, format="json"
    )
    assert r.status_code == 201
    assert api(bob).post(f"/api/v1/matches/{r.json()['id']}/join", {}, format="json").status_code == 200


def test_an_idempotency_key_over_255_characters_is_a_400(api, make_user):
    ann = make_user()
    match = lobby.match_create(user=ann, game="ekko", players=2, bots=[{"seat": 1}])
    r = api(ann).post(
        f"/api/v1/matches/{match.id}/moves",
        {"move": {"type": "draw"}, "expected_version": 0},
        format="json",
        HTTP_IDEMPOTENCY_KEY="k" * 256,
    )
    assert r.status_code == 400 and r.json()["code"] == "invalid_request"
    assert "Idempotency-Key" in r.json()["errors"]


def test_wrong_passwords_are_limited_per_username_with_backoff(api, make_user, limits_on):
    make_user("ann")
    client = api()
    seen = []
    for _ in range(8):
        r = client.post("/api/v1/auth/token", {"username": "ann", "password": "nope-nope"}, format="json")
        seen.append(r.status_code)
    assert seen[:5] == [400] * 5 and set(seen[5:]) == {429}
    assert r["Content-Type"] == PROBLEM and r.json()["code"] == "rate_limited"
    assert int(r["Retry-After"]) >= 1
    assert re.fullmatch(r'"login_user";q=\d+;w=\d+', r["RateLimit-Policy"])
    assert re.fullmatch(r'"login_user";r=\d+;t=\d+', r["RateLimit"])


def test_logins_are_limited_per_address(api, make_user, limits_on):
    limits_on.TABULA_RATE_LIMITS["login_ip"] = "3/m"
    client = api()
    codes = [
        client.post("/api/v1/auth/token", {"username": f"u{i}", "password": "x"}, format="json").status_code
        for i in range(5)
    ]
    assert codes == [400, 400, 400, 429, 429]


def test_match_creation_is_limited_per_user_and_headers_announce_the_policy(api, make_user, limits_on):
    limits_on.TABULA_RATE_LIMITS["create"] = "2/m"
    client = api(make_user())
    first = client.post("/api/v1/matches", {"game": "ekko", "players": 3}, format="json")
    assert first.status_code == 201
    assert first["RateLimit-Policy"] == '"create";q=2;w=60' and first["RateLimit"].startswith('"create";r=1;')
    assert client.post("/api/v1/matches", {"game": "ekko", "players": 3}, format="json").status_code == 201
    r = client.post("/api/v1/matches", {"game": "ekko", "players": 3}, format="json")
    assert r.status_code == 429 and int(r["Retry-After"]) >= 1
    assert client.get("/api/v1/matches").status_code == 200  # reads have their own budget


def test_anonymous_requests_are_limited_per_address(api, limits_on):
    limits_on.TABULA_RATE_LIMITS["anon"] = "2/m"
    client = api()
    codes = [client.get("/api/v1/games").status_code for _ in range(3)]
    assert codes == [200, 200, 429]


def test_rate_limits_off_turns_everything_off(api, make_user, settings):
    settings.TABULA_RATE_LIMITS_OFF = True
    settings.TABULA_RATE_LIMITS = {k: "1/d" for k in settings.TABULA_RATE_LIMIT_DEFAULTS}
    client = api(make_user())
    assert all(client.get("/api/v1/games").status_code == 200 for _ in range(5))
    assert "RateLimit" not in client.get("/api/v1/games")


def test_the_rate_limit_settings_read_the_environment(monkeypatch):
    import importlib

    import config.settings.cache as cache
    import config.settings.celery as celery
    import config.settings.limits as limits

    monkeypatch.setenv("TABULA_RATE_LIMITS", "moves=7/m,reads=9/10s")
    assert importlib.reload(limits).TABULA_RATE_LIMITS["moves"] == "7/m"
    monkeypatch.setenv("TABULA_RATE_LIMITS", "off")
    assert importlib.reload(limits).TABULA_RATE_LIMITS_OFF is True
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:6379/9")
    importlib.reload(celery)
    assert importlib.reload(cache).CACHES["default"]["BACKEND"].endswith("RedisCache")
    monkeypatch.setenv("CELERY_BROKER_URL", "filesystem://")
    importlib.reload(celery)
    assert importlib.reload(cache).CACHES["default"]["BACKEND"] == "core.filecache.FileCache"
    monkeypatch.undo()
    for module in (limits, celery, cache):
        importlib.reload(module)


def test_list_limit_is_capped_at_100(api, make_user):
    ann = make_user()
    for _ in range(3):
        lobby.match_create(user=ann, game="ekko", players=3)
    body = api(ann).get("/api/v1/matches?limit=100000").json()
    assert body["count"] == 3 and len(body["results"]) == 3
    from api.pagination import CappedLimitOffsetPagination

    assert CappedLimitOffsetPagination.max_limit == 100


def test_events_page_with_a_link_to_the_next_until_the_whole_log_is_read(api, make_user):
    ann = make_user()
    match = lobby.match_create(user=ann, game="ekko", players=2, bots=[{"seat": 1, "level": "random"}])
    match.refresh_from_db()
    client = api(ann)
    url, seqs = f"/api/v1/matches/{match.id}/events?limit=2", []
    while url:
        r = client.get(url)
        assert r.status_code == 200
        seqs += [e["seq"] for e in r.json()]
        link = r.headers.get("Link")
        url = re.fullmatch(r'<http://testserver(.+)>; rel="next"', link).group(1) if link else ""
    assert seqs == list(range(1, match.version + 1))
    assert client.get(f"/api/v1/matches/{match.id}/events?limit=1001").status_code == 400


def test_a_database_that_is_down_answers_503_with_retry_after(api, make_user, monkeypatch):
    from games import selectors

    client = api(make_user())

    def down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(selectors, "match_get", down)
    r = client.get("/api/v1/matches/abc")
    assert r.status_code == 503 and r["Content-Type"] == PROBLEM
    assert r.json()["code"] == "service_unavailable" and int(r["Retry-After"]) >= 1


def test_api_errors_are_problem_documents_under_debug_too(api, settings, monkeypatch):
    settings.DEBUG = True
    r = api().get("/api/v1/no/such/path")
    assert r.status_code == 404 and r["Content-Type"] == PROBLEM
    from api.views import matches

    def boom(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(matches, "_game_json", boom)
    client = api()
    client.raise_request_exception = False
    r = client.get("/api/v1/games")
    assert r.status_code == 500 and r["Content-Type"] == PROBLEM and len(r.content) < 500


def test_an_authorization_header_of_another_scheme_is_still_limited_as_anonymous(api, limits_on):
    limits_on.TABULA_RATE_LIMITS["anon"] = "2/m"
    client = api()
    client.credentials(HTTP_AUTHORIZATION="Basic Zm9vOmJhcg==")  # no scheme of ours: the caller stays anonymous
    codes = [client.get("/api/v1/games").status_code for _ in range(3)]
    assert codes == [200, 200, 429]


def test_unknown_tokens_spend_the_addresses_anonymous_budget(api, make_user, limits_on):
    limits_on.TABULA_RATE_LIMITS["anon"] = "2/m"
    guesser = api()
    guesser.credentials(HTTP_AUTHORIZATION="Token not-a-key")
    codes = [guesser.get("/api/v1/games").status_code for _ in range(3)]
    assert codes == [401, 401, 429]
    refused = guesser.get("/api/v1/games")
    assert refused["Content-Type"] == PROBLEM and refused.json()["code"] == "rate_limited"
    assert int(refused["Retry-After"]) >= 1
    assert api(make_user()).get("/api/v1/games").status_code == 200  # a valid token is never refused by it


def test_chat_has_its_own_rate_limit_scope(api, make_user, limits_on):
    from games.services import lobby

    limits_on.TABULA_RATE_LIMITS["chat"] = "2/m"
    ann = make_user("ann")
    match = lobby.match_create(user=ann, game="enka", players=2)
    client = api(ann)
    say = lambda: client.post(f"/api/v1/matches/{match.id}/chat", {"channel": "table", "text": "hi"}, format="json")  # noqa: E731
    assert [say().status_code, say().status_code] == [201, 201]
    refused = say()
    assert refused.status_code == 429 and refused["RateLimit-Policy"] == '"chat";q=2;w=60'
    assert client.put(f"/api/v1/matches/{match.id}/notes", {"text": "n"}, format="json").status_code == 200
