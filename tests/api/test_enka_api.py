"""Enka through the HTTP stack: the jump-in race and the ONE call."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest
from django.db import connection

from games.models import Match

HANDS = [
    ["blue-4", "red-1", "red-2"],  # A, seat 0, plays first (dealer is seat 3)
    ["blue-9", "yellow-3"],  # B
    ["green-1", "green-2", "green-3"],  # C
    ["blue-4", "green-7", "green-8"],  # D holds the other blue-4
]


@pytest.fixture
def table(make_user, api):
    return [api(make_user(name)) for name in ("ann", "ben", "cat", "dan")]


def enka(table):
    setup = {"dealer": 3, "hands": HANDS, "start": "blue-1"}
    mid = (
        table[0]
        .post("/api/v1/matches", {"game": "enka", "players": 4, "options": {"setup": setup}}, format="json")
        .json()["id"]
    )
    for client in table[1:]:
        client.post(f"/api/v1/matches/{mid}/join")
    return mid


def send(client, mid, move, version=None):
    version = Match.objects.get(id=mid).version if version is None else version
    return client.post(f"/api/v1/matches/{mid}/moves", {"move": move, "expected_version": version}, format="json")


def hand(client, mid):
    return client.get(f"/api/v1/matches/{mid}/state").json()["view"]["hand"]


@pytest.mark.django_db
def test_jump_in_names_the_top_by_its_seq_and_is_listed_only_to_the_holder(table):
    mid = enka(table)
    assert send(table[0], mid, {"type": "play", "card": "blue-4"}).status_code == 201
    top = table[3].get(f"/api/v1/matches/{mid}/state").json()["view"]["top"]
    jump = {"type": "jump_in", "card": "blue-4", "against_seq": top["seq"]}
    assert jump in table[3].get(f"/api/v1/matches/{mid}/state").json()["legal_moves"]
    assert not [m for m in table[2].get(f"/api/v1/matches/{mid}/state").json()["legal_moves"] if m["type"] == "jump_in"]
    r = send(table[3], mid, jump)
    assert r.status_code == 201, r.json()
    assert r.json()["state"]["awaiting"] == [0]  # B and C are passed over: A is current


@pytest.mark.django_db(transaction=True)
def test_jump_in_racing_the_current_player_exactly_one_wins_and_the_loser_keeps_its_card(table):
    mid = enka(table)
    send(table[0], mid, {"type": "play", "card": "blue-4"})
    version = Match.objects.get(id=mid).version
    seq = table[3].get(f"/api/v1/matches/{mid}/state").json()["view"]["top"]["seq"]
    barrier = Barrier(2)

    def go(args):
        client, move = args
        barrier.wait()
        try:
            return send(client, mid, move, version)
        finally:
            connection.close()

    racers = [
        (table[1], {"type": "play", "card": "blue-9", "one": True}),
        (table[3], {"type": "jump_in", "card": "blue-4", "against_seq": seq}),
    ]
    with ThreadPoolExecutor(2) as pool:
        ben, dan = pool.map(go, racers)
    assert sorted([ben.status_code, dan.status_code]) == [201, 409]
    loser, card = (table[3], "blue-4") if ben.status_code == 201 else (table[1], "blue-9")
    assert {ben.json().get("code"), dan.json().get("code")} & {"version_conflict", "race_lost"}
    assert card in hand(loser, mid)
    assert Match.objects.get(id=mid).version == version + 1
    # the jump-in resent at the new version names a card that is no longer on top: race_lost, no penalty
    if ben.status_code == 201:
        late = send(table[3], mid, {"type": "jump_in", "card": "blue-4", "against_seq": seq})
        assert late.status_code == 409 and late.json()["code"] == "race_lost"
        assert "blue-4" in hand(table[3], mid)


@pytest.mark.django_db
def test_one_called_leaves_one_card_and_is_public(table):
    mid = enka(table)
    send(table[0], mid, {"type": "play", "card": "blue-4"})
    r = send(table[1], mid, {"type": "play", "card": "blue-9", "one": True})
    assert r.status_code == 201
    assert hand(table[1], mid) == ["yellow-3"]
    seats = table[2].get(f"/api/v1/matches/{mid}/state").json()["view"]["seats"]
    assert seats[1]["hand_count"] == 1 and seats[1]["one"] is True


@pytest.mark.django_db
def test_forgetting_one_draws_the_penalty_card(table):
    mid = enka(table)
    send(table[0], mid, {"type": "play", "card": "blue-4"})
    r = send(table[1], mid, {"type": "play", "card": "blue-9"})
    assert r.status_code == 201
    assert len(hand(table[1], mid)) == 2
    events = table[2].get(f"/api/v1/matches/{mid}/events").json()
    drew = [e["data"] for rec in events for e in rec["data"].get("effects", []) if e["kind"] == "drew"]
    assert drew[-1]["cause"] == "one_penalty" and drew[-1]["seat"] == 1
    assert "cards" not in drew[-1]  # which card was drawn is B's secret
