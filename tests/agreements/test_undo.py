"""Undo your own last input (issue 26, items 1, 2, 4): allowed only when it hides nothing anyone
learned, computed for every engine by the leak oracle; refusals name their reason and record."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games import replay
from games.models import Match, Record
from games.services import lobby
from rules import RULES
from rules.base import Moved, Started, fallback, step, undo_blocker

pytestmark = pytest.mark.django_db
API = "/api/v1"


def _pair(make_user, game: str, **options: Any) -> tuple[Match, list[Any]]:
    ann, ben = make_user("ann"), make_user("ben")
    match = lobby.match_create(user=ann, game=game, players=2, options=options)
    lobby.match_join(match_id=match.id, user=ben)
    match.refresh_from_db()
    return match, [ann, ben]


def _state(api, person, match) -> dict[str, Any]:
    return api(person).get(f"{API}/matches/{match.id}/state").json()


def _move(api, person, match, move) -> Any:
    state = _state(api, person, match)
    return api(person).post(
        f"{API}/matches/{match.id}/moves", {"move": move, "expected_version": state["version"]}, format="json"
    )


def _undo(api, person, match, version=None) -> Any:
    version = _state(api, person, match)["version"] if version is None else version
    return api(person).post(f"{API}/matches/{match.id}/undo", {"expected_version": version}, format="json")


def test_an_undo_on_an_open_board_gives_every_seat_its_view_back(make_user, api):
    match, people = _pair(make_user, "eko", takebacks="own_input")
    mover = people[match.awaiting[0]]
    before = {i: _state(api, p, match)["view"] for i, p in enumerate(people)}
    to_seq = match.version
    state = _state(api, mover, match)
    assert _move(api, mover, match, state["legal_moves"][0]).status_code == 201  # the emperor swap
    assert _state(api, mover, match)["can_undo"] is True
    answer = _undo(api, mover, match)
    assert answer.status_code == 201, answer.content
    [undone] = Record.objects.filter(match=match, type="undone")
    assert undone.data == {"to_seq": to_seq} and undone.actor == "player"
    after = {i: _state(api, p, match)["view"] for i, p in enumerate(people)}
    assert after == before  # every seat sees what it saw at to_seq
    match.refresh_from_db()
    replay.forget_all()
    assert json.dumps(RULES["eko"].dump_state(replay.full_replay(match))) == json.dumps(
        RULES["eko"].dump_state(replay.match_state(match))
    )
    events = api(mover).get(f"{API}/matches/{match.id}/events").json()
    assert [e["type"] for e in events][-2:] == ["move", "undone"]  # the log keeps the span, marked


def test_a_card_played_face_up_cannot_be_taken_back(make_user, api):
    match, people = _pair(make_user, "ekko", takebacks="own_input")
    mover = people[match.awaiting[0]]
    state = _state(api, mover, match)
    play = next((m for m in state["legal_moves"] if m["type"] == "play"), state["legal_moves"][0])  # or a draw
    assert _move(api, mover, match, play).status_code == 201
    assert _state(api, mover, match)["can_undo"] is False
    answer = _undo(api, mover, match)
    assert answer.status_code == 422
    body = answer.json()
    assert body["code"] == "undo_unsafe" and body["reason"] in ("revealed", "random")
    assert body["seq"] == Match.objects.get(id=match.id).version
    assert not Record.objects.filter(match=match, type="undone").exists()


def test_a_rated_match_takes_nothing_back(make_user, api):
    match, people = _pair(make_user, "eko")
    mover = people[match.awaiting[0]]
    _move(api, mover, match, _state(api, mover, match)["legal_moves"][0])
    answer = _undo(api, mover, match)
    assert answer.status_code == 422 and answer.json()["reason"] == "disabled"
    assert _state(api, mover, match)["can_undo"] is False


def test_only_your_own_last_input_and_only_before_anyone_else(make_user, api):
    match, people = _pair(make_user, "eko", takebacks="own_input")
    first = match.awaiting[0]
    mover, other = people[first], people[1 - first]
    _move(api, mover, match, _state(api, mover, match)["legal_moves"][0])
    answer = _undo(api, other, match)
    assert answer.status_code == 422 and answer.json()["reason"] == "not_yours"
    match.refresh_from_db()
    while match.awaiting and match.awaiting[0] == first:  # a turn may have more than one move
        _move(api, mover, match, _state(api, mover, match)["legal_moves"][0])
        match.refresh_from_db()
    _move(api, other, match, _state(api, other, match)["legal_moves"][0])
    answer = _undo(api, mover, match)
    assert answer.status_code == 422 and answer.json()["reason"] == "others_moved"


def test_bad_undo_requests(make_user, api):
    match, people = _pair(make_user, "eko", takebacks="own_input")
    mover = people[match.awaiting[0]]
    _move(api, mover, match, _state(api, mover, match)["legal_moves"][0])
    assert api(mover).post(f"{API}/matches/{match.id}/undo", {}, format="json").status_code == 400
    assert _undo(api, mover, match, version=1).status_code == 409
    assert api(make_user("cyd")).post(
        f"{API}/matches/{match.id}/undo", {"expected_version": 1}, format="json"
    ).status_code in (403, 404)
    bad = api(mover).post(
        f"{API}/matches", {"game": "eko", "players": 2, "options": {"takebacks": "often"}}, format="json"
    )
    assert bad.status_code == 400


@pytest.mark.parametrize("game", sorted(RULES))
def test_a_step_the_oracle_calls_safe_showed_no_seat_a_private_effect(game):
    """Property (issue 26, item 1): on random playouts, a move marked safe to take back told no other
    seat a secret (no effect addressed to some other seats only), and stays safe under other samples
    than the oracle's."""
    rules = RULES[game]
    gen = random.Random(game)
    for seed in range(4):
        players = rules.seats.start
        state, _ = step(rules, None, Started(rules.parse_config({}, players), seed))
        for _ in range(60):
            if not rules.awaiting(state):
                break
            movers = [s for s in range(players) if rules.legal_moves(state, s)]
            given = Moved(s := gen.choice(movers), gen.choice(rules.legal_moves(state, s))) if movers else None
            given = given or fallback(rules, state)
            after, effects = step(rules, state, given)
            if isinstance(given, Moved) and undo_blocker(rules, state, given, after, players, seed=seed) is None:
                private = [e for e in effects if e.to is not None and e.to != frozenset({given.seat})]
                assert private == [], (game, rules.dump_move(given.move))  # none told another seat a secret
                assert undo_blocker(rules, state, given, after, players, seed=seed + 1000) is None
            state = after
