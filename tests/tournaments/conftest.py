"""Fixtures for tournaments that run for real: users, the toy engine, and a player who plays every
live table of a tournament to its end through the same service path as a move over the API."""

from __future__ import annotations

import random
from typing import Any

import pytest


@pytest.fixture
def players(make_user):
    def make(n: int, prefix: str = "p") -> list[Any]:
        return [make_user(f"{prefix}{i:02d}") for i in range(n)]

    return make


@pytest.fixture
def create(toy_game):
    """A tournament of the toy game (piles of 2: the first mover takes both and wins, or takes one)."""
    from tournaments import services

    def make(user: Any, **data: Any) -> Any:
        body = {
            "name": "Cup",
            "game": "toy",
            "options": {"pile": 2},
            "time_control": {"per_move_s": 3600},
            "format": "round_robin",
            "table_size": 2,
            "max_players": 4,
            **data,
        }
        return services.tournament_create(user=user, data=body)

    return make


@pytest.fixture
def play_round(django_capture_on_commit_callbacks):
    """`play`, with what each move queues after its commit run (a match's end: the tournament's
    `advance`, inline under the test settings)."""

    def run(tournament_id: str, rng: random.Random | None = None) -> int:
        return play(tournament_id, rng, django_capture_on_commit_callbacks)

    return run


def play(tournament_id: str, rng: random.Random | None, capture: Any) -> int:
    """Play every live table of the tournament to its end with random legal moves; answers how many
    matches were played."""
    from games import replay
    from games.models import Match, Seat
    from games.services import play

    rng = rng or random.Random(7)
    played = 0
    for match in Match.objects.filter(tournament=tournament_id, status=Match.Status.ACTIVE).order_by("id"):
        while True:
            match.refresh_from_db()
            if match.status != Match.Status.ACTIVE:
                break
            rules = replay.rules_for(match)
            state = replay.match_state(match)
            seat_index = sorted(match.awaiting)[0]
            seat = Seat.objects.get(match=match, index=seat_index)
            move = rng.choice(list(rules.legal_moves(state, seat_index)))
            with capture(execute=True):
                play.move_submit(
                    match_id=match.id, move=rules.dump_move(move), expected_version=match.version, user=seat.user
                )
        played += 1
    return played
