"""Races on PostgreSQL: the last joins against the start, and two match ends that both close a
round. Exactly one start, one pairing of the next round, never an entrant too many."""

from __future__ import annotations

import pytest

from core.errors import ApplicationError
from games.models import Match, Seat
from games.services import play
from tests.races import race
from tournaments import services
from tournaments.models import Entrant, Round, Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql]


def _outcome(call):
    def run():
        try:
            call()
            return "ok"
        except ApplicationError as exc:
            return exc.code

    return run


@pytest.mark.parametrize("round_", range(3))
def test_racing_last_joins_start_once_and_never_overfill(players, create, round_):
    users = players(6, prefix=f"r{round_}")
    t = create(users[0], format="swiss", rounds=2, max_players=4)
    for u in users[:2]:
        services.join(tournament_id=t.id, user=u)
    answers = race([_outcome(lambda u=u: services.join(tournament_id=t.id, user=u)) for u in users[2:]])
    assert sorted(answers) == ["ok", "ok", "tournament_started", "tournament_started"], answers
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    assert Entrant.objects.filter(tournament=t).count() == 4
    assert Round.objects.filter(tournament=t).count() == 1
    assert Match.objects.filter(tournament=t.id).count() == 2


@pytest.mark.parametrize("round_", range(3))
def test_two_match_ends_that_close_a_round_pair_the_next_once(players, create, round_):
    users = players(4, prefix=f"e{round_}")
    t = create(users[0], format="swiss", rounds=3, max_players=4)
    for u in users:
        services.join(tournament_id=t.id, user=u)
    tables = list(Match.objects.filter(tournament=t.id).order_by("id"))
    assert len(tables) == 2

    def finish(match):
        seat = Seat.objects.get(match=match, index=match.awaiting[0])
        return lambda: play.move_submit(
            match_id=match.id, move={"type": "take", "n": 2}, expected_version=match.version, user=seat.user
        )

    race([finish(m) for m in tables])  # each end queues `advance` after its commit (inline here)
    assert all(m.status == Match.Status.FINISHED for m in Match.objects.filter(id__in=[m.id for m in tables]))
    t.refresh_from_db()
    assert t.round == 2
    assert Round.objects.filter(tournament=t).count() == 2
    assert Match.objects.filter(tournament=t.id).count() == 4
