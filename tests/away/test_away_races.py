"""Racing absence writes (issue 25): PUTs, DELETEs, moves and sweeps at once leave one consistent
outcome: at most one open absence, every seat paused exactly when its owner is away, no 5xx."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import tasks
from games.models import Absence, Match, Record, Seat
from games.services import lobby
from tests.away.test_away import API, _iso
from tests.away.test_away_schedules import _check_log
from tests.races import race

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("round_", range(3))
def test_racing_puts_deletes_moves_and_sweeps_leave_one_consistent_outcome(make_user, api, round_):
    people = [make_user(f"{name}{round_}") for name in ("ann", "ben", "cyd")]
    matches = []
    for _ in range(2):
        match = lobby.match_create(user=people[0], game="enka", players=3, time_control={"per_move_s": 86400})
        for person in people[1:]:
            lobby.match_join(match_id=match.id, user=person)
        matches.append(match)
    ann = people[0]
    mover = matches[0]
    state = api(people[mover.awaiting[0] if mover.awaiting else 0]).get(f"{API}/matches/{mover.id}/state").json()

    def until(hours: int) -> str:
        return _iso(timezone.now() + timedelta(hours=hours))

    racers = [
        lambda: api(ann).put(f"{API}/me/away", {"until": until(30)}, format="json"),
        lambda: api(ann).put(f"{API}/me/away", {"until": until(40)}, format="json"),
        lambda: api(ann).delete(f"{API}/me/away"),
        lambda: tasks.deadlines_sweep(),
        lambda: api(ann).put(f"{API}/me/away", {"until": until(50)}, format="json"),
        lambda: api(people[state["you"] or 0]).post(
            f"{API}/matches/{mover.id}/moves",
            {"move": state["legal_moves"][0], "expected_version": state["version"]},
            format="json",
        )
        if state["legal_moves"]
        else None,
    ]
    answers = race(racers)
    for answer in answers:
        assert answer is None or isinstance(answer, int) or answer.status_code < 500, answer.content
    tasks.deadlines_sweep()  # whatever a race left undone, the sweep finishes
    open_absences = Absence.objects.filter(user=ann, ended_at__isnull=True).count()
    assert open_absences <= 1
    for match in matches:
        seat = Seat.objects.get(match=match, user=ann)
        assert (seat.away_until is not None) == (
            open_absences == 1 and Match.objects.get(id=match.id).status == "active"
        )
        _check_log(match)
        seqs = list(Record.objects.filter(match=match).values_list("seq", flat=True))
        assert seqs == list(range(1, len(seqs) + 1))
