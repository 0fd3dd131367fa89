"""Bots as seats: they play through the same service path as a human (records by the `bot` actor),
see only their seat's view, take over after `bot_after` timeouts, and a human can finish a match
against three of them in every game."""

from __future__ import annotations

import random

import pytest

from games import botplay, bots, replay, services
from games.engines import RULES
from games.models import Match, Record, Seat

SHORT = {  # options that keep a whole match short
    "ekko": {"target_score": 1},
    "enka": {"target_score": 1, "hand_size": 3},
    "eko": {"max_turns": 6},
    "ecos": {"target_score": 8},
}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", sorted(RULES))
def test_a_human_finishes_a_match_against_three_bots(game, make_user, api):
    human = make_user("human")
    client = api(human)
    body = {
        "game": game,
        "players": 4,
        "options": SHORT[game],
        "bots": [{"seat": s, "level": "random"} for s in (1, 2, 3)],
    }
    r = client.post("/api/v1/matches", body, format="json")
    assert r.status_code == 201, r.json()
    mid = r.json()["id"]
    chooser = random.Random(7)
    for _ in range(3000):
        state = client.get(f"/api/v1/matches/{mid}/state").json()
        if state["status"] != "active":
            break
        if state["legal_moves"] and 0 in state["awaiting"]:
            move = chooser.choice(state["legal_moves"])
            r = client.post(
                f"/api/v1/matches/{mid}/moves", {"move": move, "expected_version": state["version"]}, format="json"
            )
            assert r.status_code in (201, 409), r.json()
        else:  # a game timer (EKKO's window) may be what everyone waits for: let it run out
            match = Match.objects.get(id=mid)
            assert match.timer_deadline is not None or set(match.awaiting) - {0}, state
            Match.objects.filter(id=mid).update(
                timer_deadline=match.timer_deadline and match.timer_deadline.replace(year=2000)
            )
            services.deadlines_process(match_id=mid)
    match = Match.objects.get(id=mid)
    assert match.status == "finished", match.awaiting
    actors = set(Record.objects.filter(match=match, type="move").values_list("actor", flat=True))
    assert actors == {"player", "bot"}
    assert set(Record.objects.filter(match=match, actor="bot").values_list("seat", flat=True)) <= {1, 2, 3}
    for path in (
        "/api/v1/users/human",
        "/api/v1/matches?mine=true",
        f"/api/v1/matches/{mid}",
        f"/api/v1/matches/{mid}/events",
        f"/api/v1/matches/{mid}/export",
        f"/api/v1/matches/{mid}/state",
    ):
        assert client.get(path).status_code == 200, path


@pytest.mark.django_db
def test_the_bot_decision_function_is_given_only_its_seats_view(make_user, monkeypatch):
    ann = make_user("ann")
    match = services.match_create(
        user=ann, game="ekko", players=3, bots=[{"seat": 1, "level": "greedy"}, {"seat": 2, "level": "greedy"}]
    )
    match.refresh_from_db()
    seen = []

    def spy(rules, view, legal_moves, seat, level, seed, **kwargs):
        seen.append((view, legal_moves, seat))
        return legal_moves[0]

    monkeypatch.setattr(bots, "choose_move", spy)
    monkeypatch.setattr(bots, "choose_interrupt", lambda *a, **k: None)
    state = replay.match_state(match)
    awaited = sorted(state and RULES["ekko"].awaiting(state))
    if awaited == [0]:  # the human is first: let the human play so that a bot is awaited
        move = RULES["ekko"].legal_moves(state, 0)[0]
        services.move_submit(
            match_id=match.id, user=ann, move=RULES["ekko"].dump_move(move), expected_version=match.version
        )
        match.refresh_from_db()
    botplay.bots_play(match_id=match.id, expected_version=None, limit=1)
    assert seen, "no bot was asked"
    view, legal, seat = seen[0]
    assert seat in (1, 2)
    assert set(view) >= {"game", "phase", "hand", "seats"}
    others = [s for s in range(3) if s != seat]
    truth = replay.full_replay(Match.objects.get(id=match.id))
    hidden = {c for s in others for c in truth.hands[s]} if hasattr(truth, "hands") else set()
    # the bot got its own hand and nothing of the others'
    assert not hidden & set(view["hand"])
    assert all(isinstance(m, dict) for m in legal)


@pytest.mark.django_db
def test_bots_move_as_the_bot_actor_and_answer_within_the_request_path(make_user):
    ann = make_user("ann")
    match = services.match_create(
        user=ann, game="ekko", players=2, options={"target_score": 1}, bots=[{"seat": 1, "level": "random"}]
    )
    for _ in range(400):
        match.refresh_from_db()
        if match.status != "active":
            break
        if 0 in match.awaiting:
            state = replay.match_state(match)
            moves = RULES["ekko"].legal_moves(state, 0)
            if moves:
                services.move_submit(
                    match_id=match.id, user=ann, move=RULES["ekko"].dump_move(moves[0]), expected_version=match.version
                )
                continue
        botplay.bots_play(match_id=match.id, expected_version=None)
        match.refresh_from_db()
        if match.timer_deadline:
            Match.objects.filter(id=match.id).update(timer_deadline=match.timer_deadline.replace(year=2000))
            services.deadlines_process(match_id=match.id)
    assert Record.objects.filter(match=match, actor="bot", type="move").exists()


@pytest.mark.django_db
def test_bot_seats_can_be_listed_with_their_level(make_user, api):
    client = api(make_user("ann"))
    r = client.post(
        "/api/v1/matches", {"game": "enka", "players": 3, "bots": [{"seat": 2, "level": "strong"}]}, format="json"
    )
    assert [s["bot"] for s in r.json()["seats"]] == [None, None, "strong"]
    assert Seat.objects.get(match_id=r.json()["id"], index=2).bot == "strong"
