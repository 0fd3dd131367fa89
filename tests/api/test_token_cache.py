"""Token lookups cached per process with Redis (`accounts.tokencache`): no query per request, and a
revoked token, a deactivated user or a renamed one are seen at once, even by a process that still
holds what it cached before the change (simulated here by putting its entries back)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import tokencache
from accounts.models import ApiToken
from accounts.services import token_authenticate, token_create, token_hash

API = "/api/v1"
pytestmark = pytest.mark.django_db


def _token_queries(queries: CaptureQueriesContext) -> int:
    return sum(ApiToken._meta.db_table in q["sql"] and q["sql"].lstrip().startswith("SELECT") for q in queries)


def _another_process(entries):
    """This process's cache replaced by ``entries``: what a process that did not make the change holds."""
    tokencache._entries.clear()
    tokencache._entries.update(entries)


def test_a_cached_token_needs_no_query(cache_on, make_user, api):
    client = api(make_user("ann"))
    assert client.get(f"{API}/me").status_code == 200
    with CaptureQueriesContext(connection) as queries:
        r = client.get(f"{API}/me")
    assert r.status_code == 200 and r.json()["username"] == "ann"
    assert _token_queries(queries) == 0


def test_without_the_cache_every_request_looks_its_token_up(make_user, api):
    client = api(make_user("ann"))
    client.get(f"{API}/me")
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"{API}/me").status_code == 200
    assert _token_queries(queries) == 1


def test_a_revoked_token_is_refused_at_once_everywhere(cache_on, make_user, api):
    ann = make_user("ann")
    keeper, doomed = api(ann), api(ann)
    assert doomed.get(f"{API}/me").status_code == 200
    held = dict(tokencache._entries)  # another process cached the doomed token
    tokens = keeper.get(f"{API}/me/tokens").json()
    doomed_id = max(t["id"] for t in tokens["results"]) if isinstance(tokens, dict) else max(t["id"] for t in tokens)
    assert keeper.delete(f"{API}/me/tokens/{doomed_id}").status_code == 204
    _another_process(held)
    r = doomed.get(f"{API}/me")
    assert r.status_code == 401 and r.json()["code"] == "authentication_failed"


def test_a_deactivated_or_renamed_user_is_seen_at_once(cache_on, make_user):
    ben = make_user("ben")
    _, key = token_create(ben)
    assert token_authenticate(key)[0].username == "ben"
    held = dict(tokencache._entries)
    ben.username = "benedict"
    ben.save()
    _another_process(held)
    assert token_authenticate(key)[0].username == "benedict"
    held = dict(tokencache._entries)
    ben.is_active = False
    ben.save()
    _another_process(held)
    assert token_authenticate(key) is None


def test_each_request_gets_its_own_user(cache_on, make_user):
    cy = make_user("cy")
    cy.preferences = {"theme": "dark"}
    cy.save()
    _, key = token_create(cy)
    first, _ = token_authenticate(key)
    first.preferences["theme"] = "light"
    first.username = "mallory"
    second, _ = token_authenticate(key)
    assert (second.username, second.preferences) == ("cy", {"theme": "dark"})


def test_a_new_token_leaves_the_cache_alone(cache_on, make_user):
    dee = make_user("dee")
    _, key = token_create(dee)
    token_authenticate(key)
    before = tokencache.generation()
    token_create(dee)
    assert tokencache.generation() == before
    assert token_hash(key) in tokencache._entries


def test_when_redis_fails_the_database_answers(cache_on, settings, make_user):
    eve = make_user("eve")
    token, key = token_create(eve)
    token_authenticate(key)
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    tokencache._client = None
    with CaptureQueriesContext(connection) as queries:
        assert token_authenticate(key)[0].username == "eve"
    assert _token_queries(queries) == 1 and tokencache._entries == {}
    token.delete()
    assert token_authenticate(key) is None


def test_entries_expire(cache_on, make_user, monkeypatch):
    fay = make_user("fay")
    token, key = token_create(fay)
    token_authenticate(key)
    ApiToken.objects.filter(pk=token.pk).delete()  # raw: a queryset delete still sends post_delete…
    assert token_authenticate(key) is None
    token2, key2 = token_create(fay)
    token_authenticate(key2)
    ApiToken.objects.filter(pk=token2.pk).update(label="raw")  # …an UPDATE sends nothing: seen after TTL_S
    now = tokencache.time.monotonic()
    monkeypatch.setattr(tokencache.time, "monotonic", lambda: now + tokencache.TTL_S + 1)
    assert token_authenticate(key2)[1].label == "raw"
