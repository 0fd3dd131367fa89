"""Services with the toy engine: the record log, replay, game timers, seat clocks, forfeits, bots."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import replay, scheduling, selectors
from games.errors import StaleVersion
from games.models import Match, Record, Seat
from games.services import deadlines, lobby, play

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_bob(make_user):
    return make_user("alice"), make_user("bob")


def start(alice_bob, **kwargs):
    alice, bob = alice_bob
    match = lobby.match_create(user=alice, game="toy", players=2, **kwargs)
    return lobby.match_join(match_id=match.id, user=bob)


def take(match, user, n):
    match.refresh_from_db()
    return play.move_submit(match_id=match.id, user=user, move={"type": "take", "n": n}, expected_version=match.version)


def later(monkeypatch, seconds):
    now = timezone.now() + timedelta(seconds=seconds)
    monkeypatch.setattr(timezone, "now", lambda: now)


def test_records_are_numbered_without_gaps(toy_game, alice_bob):
    alice, bob = alice_bob
    match = start(alice_bob)
    take(match, alice, 1)
    take(match, bob, 1)
    seqs = list(Record.objects.filter(match=match).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    match.refresh_from_db()
    assert match.version == len(seqs)


def test_stale_version_changes_nothing(toy_game, alice_bob):
    alice, _ = alice_bob
    match = start(alice_bob)
    with pytest.raises(StaleVersion):
        play.move_submit(match_id=match.id, user=alice, move={"type": "take", "n": 1}, expected_version=1)
    assert Record.objects.filter(match=match).count() == 4


def test_cached_state_equals_full_replay(toy_game, alice_bob, django_capture_on_commit_callbacks):
    alice, bob = alice_bob
    match = start(alice_bob)
    with django_capture_on_commit_callbacks(execute=True):
        take(match, alice, 1)
        take(match, bob, 2)
    match.refresh_from_db()
    cached = replay.match_state(match)
    replay.forget_all()
    assert toy_game.dump_state(cached) == toy_game.dump_state(replay.full_replay(match))
    assert toy_game.dump_state(cached)["pile"] == 4


def test_replay_oracle_service_equals_engine(toy_game, alice_bob):
    alice, bob = alice_bob
    match = start(alice_bob)
    moves = [(alice, 0, 1), (bob, 1, 2), (alice, 0, 1)]
    expected = toy_game.setup(toy_game.parse_config({}, 2), match.seed)[0]
    for user, seat, n in moves:
        take(match, user, n)
        expected, _ = toy_game.apply(expected, seat, {"type": "take", "n": n})
    match.refresh_from_db()
    assert toy_game.dump_state(replay.full_replay(match)) == toy_game.dump_state(expected)


def test_game_timer_starts_and_its_effect_carries_the_deadline(toy_game, alice_bob):
    alice, bob = alice_bob
    match = start(alice_bob)
    take(match, alice, 2)
    take(match, bob, 2)  # pile 3: the bell timer opens
    match.refresh_from_db()
    assert match.timer_key == "bell:3" and match.timer_deadline is not None
    view = selectors.match_state_view(match, 0)["view"]
    assert view["timer_deadline"] == match.timer_deadline.isoformat()


def test_game_timer_fires_only_when_due_and_only_at_its_version(toy_game, alice_bob, monkeypatch):
    alice, bob = alice_bob
    match = start(alice_bob)
    take(match, alice, 2)
    take(match, bob, 2)
    match.refresh_from_db()
    v = match.version
    assert deadlines.deadlines_process(match_id=match.id, expected_version=v) == 0  # not due yet
    later(monkeypatch, 3)
    assert deadlines.deadlines_process(match_id=match.id, expected_version=v - 1) == 0  # a stale timer
    assert deadlines.deadlines_process(match_id=match.id, expected_version=v) == 1
    assert deadlines.deadlines_process(match_id=match.id, expected_version=v) == 0  # a duplicate
    record = Record.objects.get(match=match, seq=v + 1)
    assert record.type == "expired" and record.actor == "timeout"
    match.refresh_from_db()
    assert match.timer_deadline is None and replay.full_replay(match).pile == 2


def test_per_move_clock_times_out_with_the_default_move(toy_game, alice_bob, monkeypatch):
    match = start(alice_bob, time_control={"per_move_s": 60})
    seat0 = Seat.objects.get(match=match, index=0)
    assert seat0.deadline is not None and Seat.objects.get(match=match, index=1).deadline is None
    assert deadlines.deadlines_process(match_id=match.id) == 0
    later(monkeypatch, 61)
    assert deadlines.deadlines_process(match_id=match.id) == 1
    last = Record.objects.filter(match=match).last()
    assert (last.type, last.actor, last.seat) == ("timeout", "timeout", 0)
    seat0.refresh_from_db()
    assert seat0.deadline is None and seat0.consecutive_timeouts == 1
    assert Seat.objects.get(match=match, index=1).deadline is not None


def test_forfeit_policy_resigns_the_seat(toy_game, alice_bob, monkeypatch):
    match = start(alice_bob, time_control={"per_move_s": 5, "on_timeout": "forfeit"})
    later(monkeypatch, 6)
    deadlines.deadlines_process(match_id=match.id)
    match.refresh_from_db()
    assert match.status == "finished" and match.result["winners"] == [1]
    assert Record.objects.filter(match=match, type="resigned", actor="timeout").count() == 1


def test_bot_takes_the_seat_after_bot_after_timeouts(toy_game, alice_bob, monkeypatch):
    _alice, _bob = alice_bob
    match = start(alice_bob, time_control={"per_move_s": 5, "bot_after": 1}, options={"pile": 30})
    later(monkeypatch, 6)
    deadlines.deadlines_process(match_id=match.id)
    seat0 = Seat.objects.get(match=match, index=0)
    assert seat0.bot == play.TAKEOVER_BOT_LEVEL
    assert Record.objects.filter(match=match, type="bot_took_over", seat=0).exists()


def test_a_human_move_resets_the_timeout_count(toy_game, alice_bob, monkeypatch):
    alice, bob = alice_bob
    match = start(alice_bob, time_control={"per_move_s": 5}, options={"pile": 30})
    later(monkeypatch, 6)
    deadlines.deadlines_process(match_id=match.id)  # seat 0 times out; seat 1's clock starts
    take(match, bob, 1)
    take(match, alice, 1)
    assert Seat.objects.get(match=match, index=0).consecutive_timeouts == 0


def test_bank_clock_charges_time_and_adds_the_increment(toy_game, alice_bob, monkeypatch):
    alice, _ = alice_bob
    match = start(alice_bob, time_control={"bank_s": 100, "increment_s": 10})
    later(monkeypatch, 30)
    take(match, alice, 1)
    seat0 = Seat.objects.get(match=match, index=0)
    assert seat0.deadline is None
    assert 79_000 <= seat0.bank_ms <= 80_000  # 100 s − 30 s + 10 s


def test_no_time_control_means_no_seat_deadlines(toy_game, alice_bob):
    match = start(alice_bob)
    assert not Seat.objects.filter(match=match, deadline__isnull=False).exists()


def test_the_sweep_finds_due_matches(toy_game, alice_bob, monkeypatch):
    match = start(alice_bob, time_control={"per_move_s": 5})
    assert scheduling.due_match_ids() == []
    later(monkeypatch, 6)
    assert scheduling.due_match_ids() == [match.id]
    from games.tasks import deadlines_sweep

    assert deadlines_sweep() == 1
    assert Record.objects.filter(match=match, type="timeout").count() == 1


def test_resigned_match_rates_human_seats(toy_game, alice_bob):
    from accounts.models import Rating

    _alice, bob = alice_bob
    match = start(alice_bob)
    play.match_resign(match_id=match.id, user=bob)
    ratings = {r.user.username: r for r in Rating.objects.filter(game="toy")}
    assert ratings["alice"].mu > ratings["bob"].mu and ratings["alice"].matches == 1


def test_unrated_setup_match_changes_no_rating(toy_game, alice_bob):
    from accounts.models import Rating

    _alice, bob = alice_bob
    match = start(alice_bob, options={"setup": {}})
    play.match_resign(match_id=match.id, user=bob)
    assert not Rating.objects.exists()
    assert Match.objects.get(id=match.id).rated is False
