"""EKKO end to end through the HTTP stack: interrupts, the reaction window, redaction, race_lost."""

from __future__ import annotations

import pytest

from games.models import Match, Record

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(make_user, api):
    users = [make_user(name) for name in ("ann", "ben", "cat")]
    return [api(u) for u in users]


def ekko(table, hands, start=37, **options):
    setup = {"dealer": 0, "hands": hands, "start": start}
    r = table[0].post(
        "/api/v1/matches",
        {"game": "ekko", "players": len(hands), "options": {"setup": setup, **options}},
        format="json",
    )
    assert r.status_code == 201, r.json()
    mid = r.json()["id"]
    for client in table[1 : len(hands)]:
        assert client.post(f"/api/v1/matches/{mid}/join").status_code == 200
    return mid


def send(client, mid, move):
    version = Match.objects.get(id=mid).version
    return client.post(f"/api/v1/matches/{mid}/moves", {"move": move, "expected_version": version}, format="json")


def state(client, mid):
    return client.get(f"/api/v1/matches/{mid}/state").json()


def test_state_shows_only_the_callers_hand(table):
    mid = ekko(table, [[73, 20], [40, 50], [60, 70]])
    views = [state(c, mid) for c in table]
    assert [v["you"] for v in views] == [0, 1, 2]
    assert views[0]["view"]["hand"] == [20, 73] and views[1]["view"]["hand"] == [40, 50]
    assert views[1]["awaiting"] == [1]
    assert {"type": "play", "card": 40} in views[1]["legal_moves"]
    for v in views[1:]:
        assert 73 not in v["view"]["hand"]
    # the mirror is an interrupt the non-awaited seat 0 may send now
    assert {"type": "mirror", "card": 73, "against": 37, "effect": "others_draw"} in views[0]["legal_moves"]


def test_deal_effects_are_private_in_the_event_stream(table):
    mid = ekko(table, [[73, 20], [40, 50], [60, 70]])
    started = next(e for e in table[2].get(f"/api/v1/matches/{mid}/events").json() if e["type"] == "started")
    kinds = [e["kind"] for e in started["data"]["effects"]]
    assert "round_started" in kinds
    hands = [e["data"]["hand"] for e in started["data"]["effects"] if e["kind"] == "hand_dealt"]
    assert hands == [[60, 70]]


def test_a_mirror_out_of_turn_is_accepted_and_a_stale_one_loses_the_race(table):
    mid = ekko(table, [[73, 20], [40, 50], [60, 70]])
    r = send(table[0], mid, {"type": "mirror", "card": 73, "against": 37, "effect": "others_draw"})
    assert r.status_code == 201, r.json()
    assert r.json()["state"]["view"]["top"]["card"] == 73
    lost = send(table[2], mid, {"type": "mirror", "card": 73, "against": 37, "effect": "others_draw"})
    assert lost.status_code == 409 and lost.json()["code"] == "race_lost"


def test_play_by_a_seat_that_is_not_current_is_not_awaited(table):
    mid = ekko(table, [[73, 20], [40, 50], [60, 70]])
    r = send(table[2], mid, {"type": "play", "card": 60})
    assert r.status_code == 422 and r.json()["code"] == "not_awaited"


def test_wrong_direction_is_illegal_with_the_pages_reason(table):
    mid = ekko(table, [[73, 20], [12, 50], [60, 70]])
    r = send(table[1], mid, {"type": "play", "card": 12})
    assert r.status_code == 422
    assert (r.json()["code"], r.json()["reason"]) == ("illegal_move", "must_play_higher")


@pytest.mark.parametrize(
    "move",
    [
        {"type": "play", "card": 99},
        {"type": "play"},
        {"type": "mirror", "card": 73, "against": 37, "effect": "explode"},
        {"type": "shout"},
        {"type": "play", "card": "40"},
    ],
)
def test_malformed_ekko_moves_are_invalid_and_change_nothing(table, move):
    mid = ekko(table, [[73, 20], [40, 50], [60, 70]])
    before = Match.objects.get(id=mid).version
    r = send(table[1], mid, move)
    assert r.status_code == 400 and r.json()["code"] == "invalid_move"
    assert Match.objects.get(id=mid).version == before


def test_the_reaction_window_awaits_everyone_and_hides_who_passed(table):
    mid = ekko(table, [[20, 22], [40], [60, 70]])
    r = send(table[1], mid, {"type": "play", "card": 40})  # seat 1 empties its hand: the window opens
    assert r.status_code == 201
    view = state(table[0], mid)
    assert view["awaiting"] == [0, 2] and view["view"]["phase"] == "reaction"
    deadline = Match.objects.get(id=mid).timer_deadline
    assert view["view"]["reaction"]["deadline"] == deadline.isoformat()
    opened = [
        e
        for rec in table[2].get(f"/api/v1/matches/{mid}/events").json()
        for e in rec["data"].get("effects", [])
        if e["kind"] == "reaction_opened"
    ]
    assert opened and opened[0]["data"]["deadline"] == deadline.isoformat()

    assert send(table[0], mid, {"type": "pass"}).status_code == 201
    after = state(table[2], mid)
    assert after["awaiting"] == [0, 2]  # unchanged: nobody learns who answered
    assert state(table[0], mid)["legal_moves"] == []
    seq = Match.objects.get(id=mid).version
    seen_by_other = table[2].get(f"/api/v1/matches/{mid}/events?after={seq - 1}").json()[0]
    seen_by_self = table[0].get(f"/api/v1/matches/{mid}/events?after={seq - 1}").json()[0]
    assert seen_by_other["seat"] is None and seen_by_other["actor"] is None and "move" not in seen_by_other["data"]
    assert seen_by_self["seat"] == 0 and seen_by_self["data"]["move"] == {"type": "pass"}
    again = send(table[0], mid, {"type": "pass"})
    assert again.status_code == 422 and again.json()["reason"] == "already_answered"

    assert send(table[2], mid, {"type": "pass"}).status_code == 201  # the last answer closes the window
    closed = state(table[1], mid)["view"]
    assert closed["phase"] != "reaction" and closed["last_round"]["reason"] == "went_out"
    assert Match.objects.get(id=mid).timer_deadline is None


def test_finished_ekko_match_exports_its_log_and_seed(table):
    mid = ekko(table[:2], [[20, 22], [40]], target_score=1)
    send(table[1], mid, {"type": "play", "card": 40})
    send(table[0], mid, {"type": "pass"})
    match = Match.objects.get(id=mid)
    assert match.status == "finished", state(table[0], mid)
    assert match.result["winners"] == [1] and match.result["reason"] == "target_score"
    log = table[0].get(f"/api/v1/matches/{mid}/export").json()
    assert log["seed"] == match.seed and len(log["records"]) == match.version
    assert Record.objects.filter(match=match).count() == match.version


def test_a_tie_under_tie_policy_rematch_starts_the_rematch(table):
    setup = {"dealer": 0, "hands": [[20, 22], [40]], "start": 37, "scores": [7, 10]}
    options = {"setup": setup, "target_score": 10, "tie_policy": "rematch"}
    mid = (
        table[0].post("/api/v1/matches", {"game": "ekko", "players": 2, "options": options}, format="json").json()["id"]
    )
    table[1].post(f"/api/v1/matches/{mid}/join")
    send(table[1], mid, {"type": "play", "card": 40})
    send(table[0], mid, {"type": "pass"})
    done = table[0].get(f"/api/v1/matches/{mid}").json()
    assert done["result"]["winners"] == [0, 1] and done["result"]["rematch"] == "automatic"
    rematch = table[1].get(f"/api/v1/matches/{done['rematch']}").json()
    assert rematch["status"] == "active" and rematch["rematch_of"] == mid
    assert [s["username"] for s in rematch["seats"]] == ["ann", "ben"]
    assert "setup" not in rematch["options"] and rematch["options"]["tie_policy"] == "rematch"
