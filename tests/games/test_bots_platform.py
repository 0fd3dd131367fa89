"""Bots as seats: they play through the same service path as a human (records by the `bot` actor),
see only their seat's view, take over after `bot_after` timeouts, and a human can finish a match
against three of them in every game."""

from __future__ import annotations

import json
import random

import pytest

from games import botplay, replay, selectors
from games.models import Match, Record, Seat
from games.services import deadlines, lobby, play
from rules import RULES, bots

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
            deadlines.deadlines_process(match_id=mid)
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
    """Every decision the platform asks of a bot gets exactly what the API shows that seat
    (``GET state``'s ``view`` and ``legal_moves``, as JSON) and none of the cards the other
    seats hold (the true state, replayed in full, says which those are)."""
    ann = make_user("ann")
    match = lobby.match_create(
        user=ann, game="ekko", players=3, bots=[{"seat": 1, "level": "greedy"}, {"seat": 2, "level": "greedy"}]
    )
    rules = RULES["ekko"]
    asked = []

    def spy(rules_given, view, legal_moves, seat, level, seed, **kwargs):
        current = Match.objects.get(id=match.id)
        api = json.loads(json.dumps(selectors.match_state_view(current, seat)))
        truth = replay.full_replay(current)
        others = {card for s in range(3) if s != seat for card in truth.hands[s]}
        asked.append((seat, json.loads(json.dumps(view)), json.loads(json.dumps(legal_moves)), api, others))
        return legal_moves[0]

    monkeypatch.setattr(bots, "choose_move", spy)
    monkeypatch.setattr(bots, "choose_interrupt", lambda *a, **k: None)
    for _ in range(20):  # the human plays whenever awaited, the bots answer in between
        match.refresh_from_db()
        if match.status != "active" or (len({seat for seat, *_ in asked}) == 2 and len(asked) >= 6):
            break
        state = replay.match_state(match)
        if 0 in rules.awaiting(state) and rules.legal_moves(state, 0):
            move = rules.dump_move(rules.legal_moves(state, 0)[0])
            play.move_submit(match_id=match.id, user=ann, move=move, expected_version=match.version)
        botplay.bots_play(match_id=match.id, expected_version=None, limit=1)
    assert {seat for seat, *_ in asked} == {1, 2}, "both bots were asked"
    for seat, view, legal, api, others in asked:
        assert view == api["view"] and legal == api["legal_moves"], seat
        assert view["you"] == seat and legal
        assert others and not others & set(view["hand"]), "the bot was shown a card another seat holds"
        assert not others & {m["card"] for m in legal if "card" in m}


@pytest.mark.django_db
def test_bots_move_as_the_bot_actor_and_answer_within_the_request_path(make_user):
    ann = make_user("ann")
    match = lobby.match_create(
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
                play.move_submit(
                    match_id=match.id, user=ann, move=RULES["ekko"].dump_move(moves[0]), expected_version=match.version
                )
                continue
        botplay.bots_play(match_id=match.id, expected_version=None)
        match.refresh_from_db()
        if match.timer_deadline:
            Match.objects.filter(id=match.id).update(timer_deadline=match.timer_deadline.replace(year=2000))
            deadlines.deadlines_process(match_id=match.id)
    assert Record.objects.filter(match=match, actor="bot", type="move").exists()


@pytest.mark.django_db
def test_bot_seats_can_be_listed_with_their_level(make_user, api):
    client = api(make_user("ann"))
    r = client.post(
        "/api/v1/matches", {"game": "enka", "players": 3, "bots": [{"seat": 2, "level": "strong"}]}, format="json"
    )
    assert [s["bot"] for s in r.json()["seats"]] == [None, None, "strong"]
    assert Seat.objects.get(match_id=r.json()["id"], index=2).bot == "strong"
