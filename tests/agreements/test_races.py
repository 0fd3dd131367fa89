"""Racing votes, moves and withdrawals (issue 26): exactly one outcome, no 5xx, no sequence gap."""

from __future__ import annotations

import pytest

from games.models import Match, Proposal, Record
from games.services import lobby
from tests.races import race

pytestmark = pytest.mark.django_db(transaction=True)
API = "/api/v1"


@pytest.mark.parametrize("round_", range(3))
def test_racing_votes_a_move_and_a_withdrawal_give_one_outcome(make_user, api, round_):
    people = [make_user(f"{n}{round_}") for n in ("ann", "ben", "cyd")]
    match = lobby.match_create(user=people[0], game="enka", players=3)
    for person in people[1:]:
        lobby.match_join(match_id=match.id, user=person)
    pid = api(people[0]).post(f"{API}/matches/{match.id}/proposals", {"kind": "draw"}, format="json").json()["id"]
    match.refresh_from_db()
    mover = people[match.awaiting[0]]
    state = api(mover).get(f"{API}/matches/{match.id}/state").json()
    racers = [
        lambda: api(people[1]).put(f"{API}/matches/{match.id}/proposals/{pid}/vote", {"accept": True}, format="json"),
        lambda: api(people[2]).put(f"{API}/matches/{match.id}/proposals/{pid}/vote", {"accept": True}, format="json"),
        lambda: api(people[0]).delete(f"{API}/matches/{match.id}/proposals/{pid}"),
        lambda: api(mover).post(
            f"{API}/matches/{match.id}/moves",
            {"move": state["legal_moves"][0], "expected_version": state["version"]},
            format="json",
        ),
    ]
    answers = race(racers)
    assert all(a.status_code < 500 for a in answers), [a.content for a in answers]
    proposal = Proposal.objects.get(pk=pid)
    match.refresh_from_db()
    drawn = Record.objects.filter(match=match, type="drawn").count()
    assert (proposal.status == "passed") == (drawn == 1) == (match.status == Match.Status.FINISHED)
    assert proposal.status in ("passed", "withdrawn", "open")
    seqs = list(Record.objects.filter(match=match).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
