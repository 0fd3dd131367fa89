"""Racing submissions through the real HTTP stack: exactly one is accepted, nothing is lost."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest
from django.db import connection

from games.models import Match, Record

pytestmark = pytest.mark.django_db(transaction=True)

RACERS = 6


def _race(clients, mid, version, barrier, key=None):
    def submit(client):
        barrier.wait()
        try:
            headers = {"Idempotency-Key": key} if key else {}
            body = {"move": {"type": "take", "n": 1}, "expected_version": version}
            return client.post(f"/api/v1/matches/{mid}/moves", body, format="json", headers=headers)
        finally:
            connection.close()

    with ThreadPoolExecutor(len(clients)) as pool:
        return list(pool.map(submit, clients))


def test_racing_moves_against_one_version_accept_exactly_one(toy_game, make_user, api):
    alice, bob = make_user("alice"), make_user("bob")
    mid = (
        api(alice)
        .post("/api/v1/matches", {"game": "toy", "players": 2, "options": {"pile": 50}}, format="json")
        .json()["id"]
    )
    api(bob).post(f"/api/v1/matches/{mid}/join")
    version = Match.objects.get(id=mid).version
    responses = _race([api(alice) for _ in range(RACERS)], mid, version, Barrier(RACERS))
    codes = sorted(r.status_code for r in responses)
    assert codes == [201] + [409] * (RACERS - 1)
    assert {r.json()["code"] for r in responses if r.status_code == 409} == {"version_conflict"}
    seqs = list(Record.objects.filter(match_id=mid).values_list("seq", flat=True))
    assert seqs == list(range(1, version + 2))


def test_racing_retries_with_one_idempotency_key_apply_once(toy_game, make_user, api):
    alice, bob = make_user("alice"), make_user("bob")
    mid = (
        api(alice)
        .post("/api/v1/matches", {"game": "toy", "players": 2, "options": {"pile": 50}}, format="json")
        .json()["id"]
    )
    api(bob).post(f"/api/v1/matches/{mid}/join")
    version = Match.objects.get(id=mid).version
    responses = _race([api(alice) for _ in range(RACERS)], mid, version, Barrier(RACERS), key="retry-1")
    assert [r.status_code for r in responses] == [201] * RACERS
    assert all(r.json() == responses[0].json() for r in responses)
    assert Match.objects.get(id=mid).version == version + 1
