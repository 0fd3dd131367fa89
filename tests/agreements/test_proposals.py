"""Proposals (issue 26, item 3): one resource for every agreement; each kind, each refusal."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Rating
from games.models import Match, Proposal, Record, Seat
from games.services import lobby
from notify.models import Notification

pytestmark = pytest.mark.django_db
API = "/api/v1"


def _table(make_user, game="enka", players=3, **kwargs: Any) -> tuple[Match, list[Any]]:
    people = [make_user(n) for n in ("ann", "ben", "cyd", "dot")[:players]]
    match = lobby.match_create(user=people[0], game=game, players=players, **kwargs)
    for person in people[1:]:
        lobby.match_join(match_id=match.id, user=person)
    match.refresh_from_db()
    return match, people


def _propose(api, person, match, **body) -> Any:
    return api(person).post(f"{API}/matches/{match.id}/proposals", body, format="json")


def _vote(api, person, match, pid, accept=True) -> Any:
    return api(person).put(f"{API}/matches/{match.id}/proposals/{pid}/vote", {"accept": accept}, format="json")


def test_a_draw_passes_when_every_human_seat_agrees_and_is_rated(make_user, api):
    match, people = _table(make_user)
    answer = _propose(api, people[0], match, kind="draw")
    assert answer.status_code == 201, answer.content
    proposal = answer.json()
    assert proposal["status"] == "open" and proposal["needed"] == [0, 1, 2] and proposal["votes"] == {"0": True}
    assert {n.user_id for n in Notification.objects.filter(type="proposal")} == {people[1].pk, people[2].pk}
    assert _vote(api, people[1], match, proposal["id"]).json()["status"] == "open"
    assert _vote(api, people[2], match, proposal["id"]).json()["status"] == "passed"
    match.refresh_from_db()
    assert match.status == "finished" and match.result["reason"] == "draw"
    assert match.result["ranking"] == [[0, 1, 2]] and match.result["winners"] == [0, 1, 2]
    assert Record.objects.filter(match=match, type="drawn", actor="system").exists()
    assert Rating.objects.filter(game="enka").count() == 3  # ratings follow the result
    state = api(people[0]).get(f"{API}/matches/{match.id}/state").json()
    assert state["status"] == "finished" and state["result"]["reason"] == "draw"
    assert Notification.objects.filter(type="proposal_result").count() == 3


def test_one_no_rejects_and_nothing_changes(make_user, api):
    match, people = _table(make_user)
    pid = _propose(api, people[0], match, kind="cancel").json()["id"]
    version = Match.objects.get(id=match.id).version
    assert _vote(api, people[1], match, pid, accept=False).json()["status"] == "rejected"
    match.refresh_from_db()
    assert match.status == "active" and match.version == version
    assert _vote(api, people[2], match, pid).status_code == 409  # closed


def test_cancel_ends_the_match_unrated(make_user, api):
    match, people = _table(make_user, players=2)
    pid = _propose(api, people[1], match, kind="cancel").json()["id"]
    _vote(api, people[0], match, pid)
    match.refresh_from_db()
    assert match.status == "aborted" and not match.rated and match.result is None
    assert Record.objects.filter(match=match, type="cancelled").exists()
    assert not Rating.objects.exists()


def test_concede_puts_the_named_seat_first(make_user, api):
    match, people = _table(make_user)
    pid = _propose(api, people[0], match, kind="concede_to", seat=2).json()["id"]
    _vote(api, people[1], match, pid)
    _vote(api, people[2], match, pid)
    match.refresh_from_db()
    assert match.result["winners"] == [2] and match.result["ranking"][0] == [2]
    assert sorted(s for g in match.result["ranking"] for s in g) == [0, 1, 2]
    assert Record.objects.get(match=match, type="conceded").data["seat"] == 2


def test_an_opponents_gift_of_time_passes_at_once(make_user, api):
    match, people = _table(make_user, players=2, time_control={"per_move_s": 3600})
    waiting = match.awaiting[0]
    giver = people[1 - waiting]
    before = Seat.objects.get(match=match, index=waiting).deadline
    proposal = _propose(api, giver, match, kind="extend", seat=waiting, seconds=600).json()
    assert proposal["status"] == "passed"
    after = Seat.objects.get(match=match, index=waiting).deadline
    assert after - before == timedelta(seconds=600)
    assert Record.objects.get(match=match, type="time_granted").data["seconds"] == 600


def test_a_pause_moves_every_running_deadline(make_user, api):
    match, people = _table(make_user, players=2, time_control={"per_move_s": 3600})
    waiting = match.awaiting[0]
    before = Seat.objects.get(match=match, index=waiting).deadline
    until = timezone.now() + timedelta(days=1)
    pid = _propose(api, people[0], match, kind="pause", until=until.isoformat()).json()["id"]
    _vote(api, people[1], match, pid)
    after = Seat.objects.get(match=match, index=waiting).deadline
    assert timedelta(hours=23, minutes=59) < after - before <= timedelta(days=1)
    assert Record.objects.get(match=match, type="paused").data["reason"] == "agreement"


def test_a_takeback_across_a_reveal_is_refused(make_user, api):
    match, people = _table(make_user, game="ekko", players=2, options={"takebacks": "by_consent"})
    mover = people[match.awaiting[0]]
    state = api(mover).get(f"{API}/matches/{match.id}/state").json()
    play = next((m for m in state["legal_moves"] if m["type"] == "play"), state["legal_moves"][0])  # or a draw
    before = state["version"]
    api(mover).post(f"{API}/matches/{match.id}/moves", {"move": play, "expected_version": before}, format="json")
    answer = _propose(api, mover, match, kind="takeback", to_seq=before)
    assert answer.status_code == 422 and answer.json()["code"] == "takeback_unsafe"
    assert answer.json()["seq"] == before + 1


def test_a_takeback_on_an_open_board_restores_the_views(make_user, api):
    match, people = _table(make_user, game="eko", players=2, options={"takebacks": "by_consent"})

    def move(seat: int) -> None:
        state = api(people[seat]).get(f"{API}/matches/{match.id}/state").json()
        body = {"move": state["legal_moves"][0], "expected_version": state["version"]}
        assert api(people[seat]).post(f"{API}/matches/{match.id}/moves", body, format="json").status_code == 201

    for seat in sorted(match.awaiting):  # both emperors' swaps: the second shows both, no takeback crosses it
        move(seat)
    match.refresh_from_db()
    to_seq = match.version
    views = {i: api(p).get(f"{API}/matches/{match.id}/state").json()["view"] for i, p in enumerate(people)}
    move(match.awaiting[0])
    proposal = _propose(api, people[0], match, kind="takeback", to_seq=to_seq).json()
    assert sorted(proposal["needed"]) == sorted({0, Record.objects.get(match=match, seq=to_seq + 1).seat})
    if proposal["status"] == "open":
        assert _vote(api, people[1], match, proposal["id"]).json()["status"] == "passed"
    assert {i: api(p).get(f"{API}/matches/{match.id}/state").json()["view"] for i, p in enumerate(people)} == views
    assert Record.objects.get(match=match, type="undone").data == {"to_seq": to_seq}
    unsafe = _propose(api, people[0], match, kind="takeback", to_seq=to_seq - 1)
    assert unsafe.status_code == 422 and unsafe.json()["seq"] == to_seq


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({}, 400, "invalid_request"),
        ({"kind": "surrender"}, 400, "invalid_request"),
        ({"kind": "concede_to", "seat": 9}, 400, "invalid_request"),
        ({"kind": "pause", "until": "soon"}, 400, "invalid_request"),
        ({"kind": "extend", "seat": 0, "seconds": 0}, 400, "invalid_request"),
        ({"kind": "takeback", "to_seq": 1}, 409, "takebacks_disabled"),
    ],
)
def test_bad_proposals_are_refused_and_change_nothing(make_user, api, body, status, code):
    match, people = _table(make_user, players=2, time_control={"per_move_s": 3600})
    answer = api(people[0]).post(f"{API}/matches/{match.id}/proposals", body, format="json")
    assert answer.status_code == status and answer.json()["code"] == code, answer.content
    assert not Proposal.objects.exists()


def test_one_open_proposal_per_kind_withdrawal_and_the_finished_match(make_user, api):
    match, people = _table(make_user, players=2)
    pid = _propose(api, people[0], match, kind="draw").json()["id"]
    assert _propose(api, people[1], match, kind="draw").json()["code"] == "proposal_open"
    assert api(people[1]).delete(f"{API}/matches/{match.id}/proposals/{pid}").status_code == 403
    assert api(people[0]).delete(f"{API}/matches/{match.id}/proposals/{pid}").status_code == 204
    listed = api(people[1]).get(f"{API}/matches/{match.id}/proposals?status=all").json()
    assert [p["status"] for p in listed] == ["withdrawn"]
    assert api(people[1]).get(f"{API}/matches/{match.id}/proposals").json() == []
    api(people[1]).post(f"{API}/matches/{match.id}/resign")
    assert _propose(api, people[0], match, kind="draw").json()["code"] == "match_over"
    outsider = make_user("eve")
    assert _propose(api, outsider, match, kind="draw").status_code in (403, 404)


def test_proposals_expire(make_user, api, monkeypatch):
    from games import tasks

    match, people = _table(make_user, players=2)
    pid = _propose(api, people[0], match, kind="draw").json()["id"]
    real = timezone.now
    monkeypatch.setattr(timezone, "now", lambda: real() + timedelta(hours=25))
    tasks.deadlines_sweep()
    assert Proposal.objects.get(pk=pid).status == "expired"
    assert _vote(api, people[1], match, pid).status_code == 409


def test_bots_answer_by_their_policy(make_user, api):
    ann = make_user("ann")
    rated = lobby.match_create(user=ann, game="enka", players=2, bots=[{"seat": 1, "level": "random"}])
    answer = _propose(api, ann, rated, kind="cancel").json()
    assert answer["needed"] == [0, 1] and answer["votes"]["1"] is False and answer["status"] == "rejected"
    conceded = _propose(api, ann, rated, kind="concede_to", seat=1).json()
    assert conceded["votes"]["1"] is True and conceded["status"] == "passed"  # a concession to the bot
    rated.refresh_from_db()
    assert rated.result["winners"] == [1]
