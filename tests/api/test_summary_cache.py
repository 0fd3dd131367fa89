"""Summaries of ended matches cached per process for the lists (`api.summaries`): a page read from
the cache is the page read whole, a second read of a page of ended matches reads no summary, and
each change that can alter a summary is seen: a user's (a rename, a deletion), a record, a rematch,
the age of the entry. A match still live, or whose seats still have a mark that can be cleared
without a record, is read anew each time."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts import tokencache
from api import summaries
from games import sql
from games.models import Match, Seat
from games.services import lobby, play

API = "/api/v1"

pytestmark = pytest.mark.django_db


@pytest.fixture
def summaries_on(cache_on, settings):
    """The summary cache on: it rides on the token cache's generation (`cache_on`)."""
    settings.TABULA_SUMMARY_CACHE = True
    summaries.clear()
    yield
    summaries.clear()


@pytest.fixture
def reads(monkeypatch):
    """The ids of each whole read of summaries that fills the cache (`games.sql.summaries_by_id`)."""
    calls: list[list[str]] = []
    real = sql.summaries_by_id

    def counted(fields, ids):
        calls.append(sorted(ids))
        return real(fields, ids)

    monkeypatch.setattr(sql, "summaries_by_id", counted)
    return calls


@pytest.fixture
def table(make_user):
    """ann's history: two finished matches (one against ben, one against cid) and a live one."""
    ann, ben, cid = make_user("ann"), make_user("ben"), make_user("cid")
    ended = []
    for other in (ben, cid):
        match = lobby.match_create(user=ann, game="ekko", players=2).id
        lobby.match_join(match_id=match, user=other)
        play.match_resign(match_id=match, user=other)
        ended.append(match)
    live = lobby.match_create(user=ann, game="ekko", players=2).id
    lobby.match_join(match_id=live, user=cid)
    return {"ann": ann, "ben": ben, "cid": cid, "ended": ended, "live": live}


PAGES = ("/users/ann/matches", "/matches?mine=true&limit=20")


def _results(client, path):
    r = client.get(f"{API}{path}")
    assert r.status_code == 200, r.content
    return r.json()


@pytest.mark.parametrize("path", PAGES)
def test_a_page_from_the_cache_is_the_page_read_whole(summaries_on, table, api, settings, path, reads):
    client = api(table["ann"])
    first = _results(client, path)
    second = _results(client, path)
    settings.TABULA_SUMMARY_CACHE = False
    whole = _results(client, path)
    assert first == second == whole
    assert len(whole["results"]) == 3 and whole["count"] == 3
    assert reads == [sorted([*table["ended"], table["live"]]), [table["live"]]]  # the live one each time


def test_without_the_cache_a_page_is_one_statement_whole(table, api, reads):
    """The test settings leave the token cache off: no Redis generation, the page as before."""
    assert not summaries.enabled()
    assert len(_results(api(table["ann"]), PAGES[0])["results"]) == 3
    assert reads == []


def test_a_deleted_account_is_seen_at_once(summaries_on, table, api, reads):
    client = api(table["ann"])
    _results(client, PAGES[0])
    lobby.account_delete(table["ben"])
    names = {seat["username"] for m in _results(client, PAGES[0])["results"] for seat in m["seats"]}
    assert "ben" not in names and "deleted player" in names
    assert table["ended"][0] in reads[-1]


def test_a_renamed_player_is_seen_at_once_even_by_a_process_that_held_the_old_name(summaries_on, table, api):
    client = api(table["ann"])
    _results(client, PAGES[0])
    held = dict(summaries._entries)
    cid = table["cid"]
    cid.username = "cyd"
    cid.save()
    summaries._entries.update(held)  # another process: it still holds what it read before
    names = {seat["username"] for m in _results(client, PAGES[0])["results"] for seat in m["seats"]}
    assert "cid" not in names and "cyd" in names


def test_a_rematch_offered_after_the_end_is_seen(summaries_on, table, api):
    client = api(table["ann"])
    before = {m["id"]: m for m in _results(client, PAGES[0])["results"]}
    assert before[table["ended"][0]]["rematch"] is None
    rematch = lobby.match_rematch(match_id=table["ended"][0], user=table["ann"]).id
    after = {m["id"]: m for m in _results(client, PAGES[0])["results"]}
    assert after[table["ended"][0]]["rematch"] == rematch


def test_a_new_record_is_a_new_summary(summaries_on, table, api):
    """No record follows the end today; were one added (or a version moved by hand), the stamp differs."""
    client = api(table["ann"])
    _results(client, PAGES[0])
    match = table["ended"][1]
    Match.objects.filter(id=match).update(version=999, result={"winners": [0], "note": "edited"})
    after = {m["id"]: m for m in _results(client, PAGES[0])["results"]}
    assert after[match]["version"] == 999 and after[match]["result"]["note"] == "edited"


def test_an_entry_is_read_again_after_its_time(summaries_on, table, api, monkeypatch):
    client = api(table["ann"])
    _results(client, PAGES[0])
    match = table["ended"][0]
    Match.objects.filter(id=match).update(rated=False)  # by hand: nothing tells the cache
    assert {m["id"]: m for m in _results(client, PAGES[0])["results"]}[match]["rated"] is True  # held
    later = summaries.time.monotonic() + summaries.TTL_S + 1
    monkeypatch.setattr(summaries.time, "monotonic", lambda: later)
    assert {m["id"]: m for m in _results(client, PAGES[0])["results"]}[match]["rated"] is False


def test_an_away_mark_on_an_ended_match_is_never_held(summaries_on, table, api, reads):
    """`games.services.away` clears a mark left on an ended match without a record: such a summary
    is read anew until the mark is gone."""
    client = api(table["ann"])
    match = table["ended"][0]
    Seat.objects.filter(match_id=match, index=1).update(away_until=timezone.now() + timedelta(days=1))
    assert {m["id"]: m for m in _results(client, PAGES[0])["results"]}[match]["seats"][1]["away_until"]
    Seat.objects.filter(match_id=match, index=1).update(away_until=None)
    assert {m["id"]: m for m in _results(client, PAGES[0])["results"]}[match]["seats"][1]["away_until"] is None
    assert match in reads[0] and match in reads[1]


def test_a_page_past_the_end_counts_and_shows_nothing(summaries_on, table, api):
    r = _results(api(table["ann"]), "/users/ann/matches?offset=10")
    assert r == {"count": 3, "next": None, "results": []}


def test_the_cache_keeps_a_bounded_number_of_summaries(summaries_on, table, api, settings):
    settings.TABULA_SUMMARY_CACHE_SIZE = 1
    _results(api(table["ann"]), PAGES[0])
    assert len(summaries._entries) == 1


def test_when_redis_fails_every_page_is_read_whole(summaries_on, table, api, settings, reads):
    client = api(table["ann"])
    held = _results(client, PAGES[0])
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    tokencache._client = None
    assert _results(client, PAGES[0]) == held
    assert len(reads) == 1  # the first page alone filled the cache; the second was one statement


def test_a_profiles_recent_matches_come_from_the_cache_too(summaries_on, table, api, settings, reads):
    client = api(table["ben"])
    first = _results(client, "/users/ann")
    second = _results(client, "/users/ann")
    settings.TABULA_SUMMARY_CACHE = False
    whole = _results(client, "/users/ann")
    assert first == second == whole
    assert [m["id"] for m in whole["recent_matches"]] == table["ended"][::-1]
    assert reads == [sorted(table["ended"])]  # the second read held both
    settings.TABULA_SUMMARY_CACHE = True
    lobby.account_delete(table["cid"])
    names = {seat["username"] for m in _results(client, "/users/ann")["recent_matches"] for seat in m["seats"]}
    assert "cid" not in names and "deleted player" in names


def test_a_profile_with_nothing_finished_shows_no_recent_match(summaries_on, make_user, api):
    eve = make_user("eve")
    r = _results(api(eve), "/users/eve")
    assert r["recent_matches"] == [] and r["counts"]["active"] == 0


@pytest.mark.parametrize("path", (*PAGES, "/users/ann"))
def test_a_request_asks_redis_for_the_generation_once(summaries_on, table, api, monkeypatch, path):
    """The token was looked up under a generation; the summaries are read under the same one."""
    client = api(table["ann"])
    held = _results(client, path)
    asked: list[int | None] = []
    real = tokencache.generation

    def counted():
        asked.append(real())
        return asked[-1]

    monkeypatch.setattr(tokencache, "generation", counted)
    assert _results(client, path) == held
    assert len(asked) == 1 and asked[0] is not None
