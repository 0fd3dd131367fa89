"""Property test (issue 25): random schedules of absences, returns, moves, waits and sweeps (a
lost task is a sweep that comes late). Whatever the schedule: no deadline fires for a seat while
its clock is frozen, every ``resumed`` deadline is the time left plus the resume time (the log
alone gives it), and no balance goes negative."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import replay, tasks
from games.models import Match, Record, Seat
from games.services import away, lobby
from tests.away.test_away import API, Clock, _iso

pytestmark = pytest.mark.django_db

STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("away"), st.integers(0, 2), st.integers(2, 60)),  # hours
        st.tuples(st.just("back"), st.integers(0, 2), st.just(0)),
        st.tuples(st.just("move"), st.just(0), st.just(0)),
        st.tuples(st.just("wait"), st.just(0), st.integers(1, 40 * 60)),  # minutes
        st.tuples(st.just("sweep"), st.just(0), st.just(0)),
    ),
    min_size=5,
    max_size=25,
)


def _check_log(match: Match) -> None:
    records = list(Record.objects.filter(match=match).order_by("seq"))
    frozen: set[int] = set()
    for record in records:
        if record.type == "paused" and record.data["remaining_ms"] is not None:
            frozen.add(record.seat)
        elif record.type in ("resumed", "seat_returned"):
            frozen.discard(record.seat)
            if record.type == "resumed" and record.data["remaining_ms"] is not None:
                expected = record.at + timedelta(milliseconds=record.data["remaining_ms"])
                assert record.data["deadline"] == expected.isoformat()
        elif record.type == "bot_took_over" and record.data.get("caretaker"):
            frozen.discard(record.seat)
        elif record.type == "timeout":
            assert record.seat not in frozen, f"a deadline fired for seat {record.seat} while it was away"


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=STEPS)
def test_random_schedules_never_fire_a_frozen_clock(steps, api, monkeypatch):
    clock = Clock(monkeypatch)
    from accounts.models import User

    people = [User.objects.create_user(username=f"p{uuid.uuid4().hex[:10]}", password="x-long-enough-1") for _ in "abc"]
    match = lobby.match_create(user=people[0], game="enka", players=3, time_control={"per_move_s": 3600})
    for person in people[1:]:
        lobby.match_join(match_id=match.id, user=person)
    for op, who, amount in steps:
        person = people[who]
        if op == "away":
            api(person).put(f"{API}/me/away", {"until": _iso(timezone.now() + timedelta(hours=amount))}, format="json")
        elif op == "back":
            assert api(person).delete(f"{API}/me/away").status_code == 204
            seat = Seat.objects.get(match=match, user=person)
            last = Record.objects.filter(match=match).order_by("-seq").first()
            if last is not None and last.type == "resumed" and last.seat == seat.index and seat.deadline:
                assert seat.deadline == away.deadline_after([last], seat.index)
        elif op == "move":
            match.refresh_from_db()
            if match.status != Match.Status.ACTIVE or not match.awaiting:
                continue
            mover = people[match.awaiting[0]]
            state = api(mover).get(f"{API}/matches/{match.id}/state").json()
            if state["legal_moves"]:
                body = {"move": state["legal_moves"][0], "expected_version": state["version"]}
                assert api(mover).post(f"{API}/matches/{match.id}/moves", body, format="json").status_code in (201, 409)
        elif op == "wait":
            clock.advance(amount * 60)
        else:
            tasks.deadlines_sweep()
        for person in people:
            assert away.away_status(person).balance_s >= 0
        _check_log(match)
    match.refresh_from_db()
    if match.version:
        replay.forget_all()
        replay.match_state(match)  # the log, paused and resumed records among it, still replays
