"""Nothing in a notification, a stream or a webhook shows a seat what it may not see.

Every inbox entry that carries a record carries it exactly as ``GET events`` shows it to that
user's seat; the hidden-action twin check (tests/games/test_hidden_actions.py) is run again with
each observer's inbox for the match added to what it compares."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games import replay
from games.models import Match
from games.services import deadlines, lobby, play
from notify.models import Notification
from rules import RULES
from tests.games import test_hidden_actions as twins

pytestmark = pytest.mark.django_db


def _random_match(game: str, users, moves: int = 80) -> Match:
    match = lobby.match_create(user=users[0], game=game, players=len(users))
    for user in users[1:]:
        lobby.match_join(match_id=match.id, user=user)
    rules, chooser = RULES[game], random.Random(game)
    for _ in range(moves):
        match = Match.objects.get(id=match.id)
        if match.status != Match.Status.ACTIVE:
            break
        state = replay.match_state(match)
        movers = [s for s in range(len(users)) if rules.legal_moves(state, s)]
        if not movers:
            Match.objects.filter(id=match.id).update(
                timer_deadline=match.timer_deadline and match.timer_deadline.replace(year=2000)
            )
            deadlines.deadlines_process(match_id=match.id)
            continue
        seat = chooser.choice([s for s in movers if s in match.awaiting] or movers)
        move = rules.dump_move(chooser.choice(rules.legal_moves(state, seat)))
        play.move_submit(match_id=match.id, seat_index=seat, move=move, expected_version=match.version)
    return Match.objects.get(id=match.id)


@pytest.mark.parametrize("game", sorted(RULES))
def test_every_notification_shows_the_record_as_events_does(game, make_user, api):
    users = [make_user(f"{game}{i}") for i in range(3 if 3 in RULES[game].seats else 2)]
    match = _random_match(game, users)
    checked = 0
    for user in users:
        client = api(user)
        inbox = client.get("/api/v1/me/notifications?limit=500").json()
        assert [n["id"] for n in inbox] == list(range(1, len(inbox) + 1))  # numbered per user, no gaps
        for note in inbox:
            assert note["match"] == match.id
            since = note["payload"].get("since_your_last", {}).get("records", [])  # your_turn: the same rule
            for event in [note["payload"].get("event"), *since]:
                if event is None:
                    continue
                seen = client.get(f"/api/v1/matches/{match.id}/events?after={event['seq'] - 1}&limit=1").json()
                assert event == seen[0], f"{note['type']} #{note['id']} differs from events"
                checked += 1
    assert checked > 0
    assert Notification.objects.filter(type="your_turn").exists()


def _seen_with_inbox(client, match_id: str) -> dict[str, Any]:
    seen = _original_seen(client, match_id)
    inbox = client.get("/api/v1/me/notifications?limit=500").json()
    seen["inbox"] = [{"type": n["type"], "payload": n["payload"]} for n in inbox if n["match"] == match_id]
    return seen


_original_seen = twins._seen


@pytest.mark.parametrize("game", sorted(RULES))
def test_a_hidden_action_leaves_the_same_inbox_whoever_took_it(game, make_user, api, monkeypatch):
    monkeypatch.setattr(twins, "_seen", _seen_with_inbox)
    twins.test_a_hidden_action_looks_the_same_whoever_took_it(game, make_user, api)
