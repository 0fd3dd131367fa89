"""The replay oracle, for every game: the state the service keeps (cached and rebuilt) equals the
engine applied directly to the same moves from the same seed."""

from __future__ import annotations

import json
import random

import pytest

from games import replay
from games.models import Match, Record
from games.services import lobby, play
from rules import RULES

pytestmark = pytest.mark.django_db


def _canon(rules, state):
    return json.dumps(rules.dump_state(state), sort_keys=True)


@pytest.mark.parametrize("game", sorted(RULES))
def test_service_state_equals_the_engine_applied_directly(game, make_user, django_capture_on_commit_callbacks):
    rules = RULES[game]
    users = [make_user(f"p{i}") for i in range(3)]
    match = lobby.match_create(user=users[0], game=game, players=3)
    for user in users[1:]:
        lobby.match_join(match_id=match.id, user=user)
    match.refresh_from_db()
    direct = rules.setup(rules.parse_config(match.options, match.players), match.seed)[0]
    chooser = random.Random(game)
    for _ in range(60):
        match.refresh_from_db()
        movers = [s for s in range(3) if rules.legal_moves(direct, s)]
        if match.status != "active" or not movers:
            break
        seat = chooser.choice(sorted(movers))
        move = rules.dump_move(chooser.choice(list(rules.legal_moves(direct, seat))))
        with django_capture_on_commit_callbacks(execute=True):
            play.move_submit(match_id=match.id, user=users[seat], move=move, expected_version=match.version)
        direct, _ = rules.apply(direct, seat, rules.parse_move(move))
    match.refresh_from_db()
    assert Record.objects.filter(match=match, type="move").count() > 5
    cached = replay.match_state(match)
    replay.forget_all()
    rebuilt = replay.full_replay(Match.objects.get(id=match.id))
    assert _canon(rules, cached) == _canon(rules, direct) == _canon(rules, rebuilt)


def test_a_tail_that_does_not_reach_the_version_is_not_used(make_user):
    """`match_state` uses the records read with the match row only when they lead exactly from the
    cached state to ``match.version``; otherwise it queries (a match changed after it was read)."""
    users = [make_user("t0"), make_user("t1")]
    created = lobby.match_create(user=users[0], game="ekko", players=2, options={"target_score": 30})
    lobby.match_join(match_id=created.id, user=users[1])
    match = Match.objects.get(id=created.id)
    rules = replay.rules_for(match)
    replay.forget_all()
    replay.attach_tail(match, (0, None), [])  # claims no record although the match has some
    assert _canon(rules, replay.match_state(match)) == _canon(rules, replay.full_replay(match))
    rows = [[r.type, r.seat, r.move] for r in Record.objects.filter(match=match).order_by("seq")]
    replay.forget_all()
    replay.attach_tail(match, (0, None), rows)  # the whole log, as the SQL gives it
    assert _canon(rules, replay.match_state(match)) == _canon(rules, replay.full_replay(match))
