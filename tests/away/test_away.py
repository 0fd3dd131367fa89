"""Away (issue 25): an absence freezes the user's clocks exactly, ends by DELETE, by ``until`` or by
a move, is charged once, and the cap hands the seat to the match's policy or to a caretaker."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import tasks
from games.models import Absence, Match, Record, Seat
from games.services import away, lobby
from notify.models import Notification

pytestmark = pytest.mark.django_db
API = "/api/v1"
HOUR = 3600


class Clock:
    """Moves `timezone.now` forward: days pass in a test."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.offset = timedelta()
        real = timezone.now
        monkeypatch.setattr(timezone, "now", lambda: real() + self.offset)

    def advance(self, seconds: float) -> None:
        self.offset += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return Clock(monkeypatch)


@pytest.fixture
def table(make_user):
    """A 3-seat Enka table of people, a day per move; ann (seat 0) starts."""

    def make(**time_control: Any) -> tuple[Match, list[Any]]:
        people = [make_user(name) for name in ("ann", "ben", "cyd")]
        tc = {"per_move_s": 24 * HOUR, **time_control}
        match = lobby.match_create(user=people[0], game="enka", players=3, time_control=tc)
        for person in people[1:]:
            lobby.match_join(match_id=match.id, user=person)
        match.refresh_from_db()
        assert match.status == Match.Status.ACTIVE
        return match, people

    return make


def _seat(match: Match, index: int) -> Seat:
    return Seat.objects.get(match=match, index=index)


def _records(match: Match, rtype: str) -> list[Record]:
    return list(Record.objects.filter(match=match, type=rtype).order_by("seq"))


def _awaited(match: Match) -> int:
    match.refresh_from_db()
    return match.awaiting[0]


def _iso(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


def test_an_absence_freezes_the_clock_and_the_resume_gives_back_exactly_what_was_left(table, api, clock):
    match, people = table()
    seat = _awaited(match)
    person = people[seat]
    before = _seat(match, seat).deadline
    clock.advance(2 * HOUR)
    answer = api(person).put(f"{API}/me/away", {"until": _iso(timezone.now() + timedelta(days=2))}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["active"] is True and answer.json()["auto"] is False
    [paused] = _records(match, "paused")
    assert paused.actor == "system" and paused.data["reason"] == "away" and paused.seat == seat
    assert paused.data["remaining_ms"] == pytest.approx((before - paused.at).total_seconds() * 1000, abs=2)
    assert _seat(match, seat).deadline is None

    clock.advance(30 * HOUR)  # past the old deadline: nothing fires while away
    tasks.deadlines_sweep()
    assert not _records(match, "timeout")
    state = api(people[(seat + 1) % 3]).get(f"{API}/matches/{match.id}/state").json()
    assert state["seats"][seat]["away_until"] is not None
    summary = api(people[(seat + 1) % 3]).get(f"{API}/matches/{match.id}").json()
    assert summary["seats"][seat]["away_until"] is not None

    assert api(person).delete(f"{API}/me/away").status_code == 204
    [resumed] = _records(match, "resumed")
    assert resumed.data["remaining_ms"] == paused.data["remaining_ms"]
    deadline = _seat(match, seat).deadline
    assert deadline == resumed.at + timedelta(milliseconds=paused.data["remaining_ms"])
    assert away.deadline_after(list(Record.objects.filter(match=match)), seat) == deadline  # the log says it
    status = api(person).get(f"{API}/me/away").json()
    charged = Absence.objects.get(user=person).charged_s
    assert status == {"active": False, "until": None, "balance_s": status["balance_s"], "auto": False}
    assert 30 * HOUR <= charged <= 30 * HOUR + 5  # charged once, from the frozen clock
    others = {n.user_id for n in Notification.objects.filter(type="opponent_away", match=match)}
    assert others == {p.pk for i, p in enumerate(people) if i != seat}
    assert Notification.objects.filter(user=person, type="away_started").exists()
    assert Notification.objects.filter(user=person, type="away_ended").exists()


def test_a_move_anywhere_ends_the_absence(table, api, clock):
    match, people = table()
    seat = _awaited(match)
    person = people[seat]
    api(person).put(f"{API}/me/away", {"until": _iso(timezone.now() + timedelta(days=1))}, format="json")
    state = api(person).get(f"{API}/matches/{match.id}/state").json()
    body = {"move": state["legal_moves"][0], "expected_version": state["version"] + 0}
    answer = api(person).post(f"{API}/matches/{match.id}/moves", body, format="json")
    assert answer.status_code == 409  # the pause moved the version on; the absence ended all the same
    assert api(person).get(f"{API}/me/away").json()["active"] is False
    assert _records(match, "resumed")


def test_the_absence_ends_by_itself_at_until(table, api, clock):
    match, people = table()
    seat = _awaited(match)
    api(people[seat]).put(f"{API}/me/away", {"until": _iso(timezone.now() + timedelta(hours=5))}, format="json")
    clock.advance(5 * HOUR + 1)
    tasks.deadlines_sweep()
    assert Absence.objects.get(user=people[seat]).ended_at is not None
    assert _seat(match, seat).deadline is not None and _seat(match, seat).away_until is None


def test_a_match_that_disallows_away_keeps_the_clock_running(table, api, clock):
    match, people = table(away="disallowed")
    seat = _awaited(match)
    api(people[seat]).put(f"{API}/me/away", {"until": _iso(timezone.now() + timedelta(days=3))}, format="json")
    assert not _records(match, "paused")
    clock.advance(25 * HOUR)
    tasks.deadlines_sweep()
    assert _records(match, "timeout")


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"until": "yesterday"}, 400, "invalid_request"),
        ({}, 400, "invalid_request"),
        ({"until": "2020-01-01T00:00:00Z"}, 400, "invalid_request"),
        ({"until": "2099-01-01T00:00:00Z"}, 400, "invalid_request"),
        ("SHORT", 400, "invalid_request"),
        ("LONG", 422, "away_too_long"),
    ],
)
def test_bad_absences_are_refused_and_change_nothing(make_user, api, body, status, code):
    person = make_user()
    if body == "SHORT":
        body = {"until": _iso(timezone.now() + timedelta(seconds=5))}
    if body == "LONG":
        body = {"until": _iso(timezone.now() + timedelta(days=20))}
    answer = api(person).put(f"{API}/me/away", body, format="json")
    assert answer.status_code == status and answer.json()["code"] == code
    assert answer["Content-Type"].startswith("application/problem+json")
    if code == "away_too_long":
        assert datetime.fromisoformat(answer.json()["max_until"]) < timezone.now() + timedelta(days=4)
    assert not Absence.objects.exists()


def test_no_absence_while_a_clock_is_nearly_out(table, api, clock):
    match, people = table()
    seat = _awaited(match)
    clock.advance(23 * HOUR)  # under 10 % of the day left
    answer = api(people[seat]).put(f"{API}/me/away", {"until": _iso(timezone.now() + timedelta(days=1))}, format="json")
    assert answer.status_code == 409 and answer.json()["code"] == "away_not_now"
    assert answer.json()["reason"] == "clock_low" and not Absence.objects.exists()


def test_auto_away_turns_a_deadline_into_an_absence(table, api, clock):
    match, people = table()
    seat = _awaited(match)
    person = people[seat]
    assert api(person).patch(f"{API}/me", {"preferences": {"auto_away": True}}, format="json").status_code == 200
    clock.advance(24 * HOUR + 1)
    tasks.deadlines_sweep()
    assert not _records(match, "timeout")
    absence = Absence.objects.get(user=person)
    assert absence.auto and absence.until <= timezone.now() + timedelta(days=1)
    assert api(person).get(f"{API}/me/away").json()["auto"] is True
    assert _records(match, "paused")[0].data["remaining_ms"] == 0


def test_auto_away_is_never_used_against_bots_only(make_user, api, clock):
    person = make_user("ann")
    person.preferences = {"auto_away": True}
    person.save()
    match = lobby.match_create(
        user=person, game="enka", players=2, time_control={"per_move_s": 60}, bots=[{"seat": 1, "level": "random"}]
    )
    match.refresh_from_db()
    while _awaited(match) != 0:
        clock.advance(5)
        tasks.deadlines_sweep()
    clock.advance(61)
    tasks.deadlines_sweep()
    assert _records(match, "timeout") and not Absence.objects.exists()


def test_the_cap_hands_the_seat_to_a_caretaker_and_the_owner_takes_it_back(table, api, clock):
    match, people = table(away_cap_s=2 * HOUR)
    seat = _awaited(match)
    person = people[seat]
    person.preferences = {"caretaker": "random"}
    person.save()
    api(person).put(f"{API}/me/away", {"until": _iso(timezone.now() + timedelta(days=2))}, format="json")
    clock.advance(2 * HOUR + 1)
    tasks.deadlines_sweep()
    [took] = _records(match, "bot_took_over")
    assert took.data == {"level": "random", "caretaker": True}
    clock.advance(5)
    tasks.deadlines_sweep()  # the sweep wakes the caretaker (a lost task changes nothing)
    assert Record.objects.filter(match=match, seat=seat, actor="bot", type="move").exists()
    assert api(person).delete(f"{API}/me/away").status_code == 204
    assert _records(match, "seat_returned")
    back = _seat(match, seat)
    assert back.bot == "" and not back.caretaker and back.away_until is None


def test_without_a_caretaker_the_cap_lets_the_clock_run_again(table, api, clock):
    match, people = table(away_cap_s=2 * HOUR)
    seat = _awaited(match)
    api(people[seat]).put(f"{API}/me/away", {"until": _iso(timezone.now() + timedelta(days=2))}, format="json")
    clock.advance(2 * HOUR + 1)
    tasks.deadlines_sweep()
    [resumed] = _records(match, "resumed")
    assert resumed.data["reason"] == "cap"
    clock.advance(24 * HOUR)
    tasks.deadlines_sweep()
    assert _records(match, "timeout")  # the others waited the cap, then the match's own policy


def test_preferences_are_checked(make_user, api):
    person = make_user()
    answer = api(person).patch(f"{API}/me", {"preferences": {"caretaker": "genius"}}, format="json")
    assert answer.status_code == 400


def test_a_week_away_at_a_three_player_table(table, api, clock, capsys):
    """The note's figure: one of three away for ten days (balance given), the default 7-day cap and a
    greedy caretaker. The others wait exactly the cap, then the caretaker plays the seat."""
    from games.models import AwayBalance

    match, people = table()
    seat = _awaited(match)
    person = people[seat]
    person.preferences = {"caretaker": "greedy"}
    person.save()
    AwayBalance.objects.create(user=person, seconds=20 * 24 * HOUR)
    start = timezone.now()
    assert (
        api(person).put(f"{API}/me/away", {"until": _iso(start + timedelta(days=10))}, format="json").status_code == 200
    )
    waited = None
    for _ in range(10 * 24):
        clock.advance(HOUR)
        tasks.deadlines_sweep()
        moved = Record.objects.filter(match=match, seat=seat, type="move").first()
        if moved is not None:
            waited = moved.at - start
            break
    assert moved is not None and moved.actor == "bot" and waited is not None
    assert timedelta(days=7) <= waited <= timedelta(days=7, hours=2)
    assert not _records(match, "timeout")
    with capsys.disabled():
        print(
            f"\n[away] 3 seats, seat {seat} away 10 days: the others waited {waited};"
            " a greedy caretaker played the seat"
        )


def test_a_clock_that_would_start_while_its_owner_is_away_stays_frozen(table, api, clock):
    match, people = table()
    mover = _awaited(match)
    nxt = (mover + 1) % 3  # Enka plays clockwise at the start
    api(people[nxt]).put(f"{API}/me/away", {"until": _iso(timezone.now() + timedelta(days=2))}, format="json")
    [paused] = _records(match, "paused")
    assert paused.data["remaining_ms"] is None  # its clock was not running
    state = api(people[mover]).get(f"{API}/matches/{match.id}/state").json()
    play = (
        next(m for m in state["legal_moves"] if m["type"] == "draw")
        if any(m["type"] == "draw" for m in state["legal_moves"])
        else state["legal_moves"][0]
    )
    body = {"move": play, "expected_version": state["version"]}
    assert api(people[mover]).post(f"{API}/matches/{match.id}/moves", body, format="json").status_code == 201
    clock.advance(30 * HOUR)
    tasks.deadlines_sweep()
    assert _awaited(match) == nxt  # the mover's turn ended (by its move, or by its own timeout)
    assert _seat(match, nxt).deadline is None
    assert all(r.seat != nxt for r in _records(match, "timeout"))
    assert api(people[nxt]).delete(f"{API}/me/away").status_code == 204
    [resumed] = _records(match, "resumed")
    assert resumed.data["remaining_ms"] == 24 * HOUR * 1000  # a fresh turn, not a clock that ran
    assert _seat(match, nxt).deadline == resumed.at + timedelta(days=1)
