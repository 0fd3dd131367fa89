"""Faults from issue 10 inside the platform: a lost bot task in a match with humans, the hidden pass
and the timeout count, the read-only admin, the bounds on options and clocks."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core import taskqueue
from core.errors import InvalidRequest
from games import scheduling
from games.models import Match, Record, Seat
from games.services import lobby, play

pytestmark = pytest.mark.django_db


def _idle(match_id: str) -> None:
    Match.objects.filter(id=match_id).update(updated_at=timezone.now() - timedelta(seconds=60))


def test_the_sweep_wakes_a_bot_whose_task_was_lost_in_a_match_with_a_human(
    toy_game, make_user, monkeypatch, django_capture_on_commit_callbacks
):
    human = make_user("human")
    match = lobby.match_create(user=human, game="toy", players=2, bots=[{"seat": 1, "level": "random"}])
    dropped = []
    monkeypatch.setattr(taskqueue, "send", lambda name, args, countdown=0.0: dropped.append(name))
    with django_capture_on_commit_callbacks(execute=True):
        play.move_submit(match_id=match.id, user=human, move={"type": "take", "n": 1}, expected_version=match.version)
    match.refresh_from_db()
    assert dropped == [taskqueue.BOTS_PLAY] and match.awaiting == [1]  # the bot's turn, its task lost
    assert scheduling.bot_match_ids() == []  # not idle yet
    _idle(match.id)
    assert scheduling.bot_match_ids() == [match.id]
    monkeypatch.undo()
    from games import tasks

    with django_capture_on_commit_callbacks(execute=True):
        tasks.deadlines_sweep()
    match.refresh_from_db()
    assert match.version > 5 and 1 not in match.awaiting
    assert Record.objects.filter(match=match, actor="bot", type="move").exists()


def test_the_sweep_leaves_matches_waiting_for_a_human(toy_game, make_user):
    human = make_user("human")
    match = lobby.match_create(user=human, game="toy", players=2)
    lobby.bot_add(match_id=match.id, user=human, seat=1, level="random")
    match.refresh_from_db()
    assert match.awaiting == [0]
    _idle(match.id)
    assert scheduling.bot_match_ids() == []  # the toy's bot holds no interrupt while the human thinks


def test_a_hidden_pass_does_not_reset_the_public_timeout_count(make_user):
    """EKKO's reaction `pass` hides who passed: the seat's consecutive_timeouts must not tell."""
    from rules import RULES
    from rules.ekko import Pass

    rules = RULES["ekko"]
    assert rules.author_hidden(Pass())
    ann, bob, cy = make_user("ann"), make_user("bob"), make_user("cy")
    match = lobby.match_create(user=ann, game="ekko", players=3, time_control={"per_move_s": 60})
    lobby.match_join(match_id=match.id, user=bob)
    lobby.match_join(match_id=match.id, user=cy)
    Seat.objects.filter(match=match).update(consecutive_timeouts=2)
    from games import replay

    for _ in range(400):  # play public moves until a reaction window opens, then pass in it
        match.refresh_from_db()
        if match.status != "active":
            pytest.skip("no reaction window in this deal")
        state = replay.match_state(match)
        passer = next((s for s in match.awaiting if Pass() in rules.legal_moves(state, s)), None)
        if passer is not None:
            break
        seat = match.awaiting[0]
        move = rules.legal_moves(state, seat)[0]
        Seat.objects.filter(match=match).update(consecutive_timeouts=2)
        play.move_submit(match_id=match.id, seat_index=seat, move=rules.dump_move(move), expected_version=match.version)
    else:
        pytest.skip("no reaction window reached")
    Seat.objects.filter(match=match).update(consecutive_timeouts=2)
    play.move_submit(match_id=match.id, seat_index=passer, move={"type": "pass"}, expected_version=match.version)
    assert list(Seat.objects.filter(match=match).values_list("consecutive_timeouts", flat=True)) == [2, 2, 2]


@pytest.mark.parametrize(
    "time_control",
    [{"per_move_s": 10**30}, {"per_move_s": 366 * 86400}, {"bank_s": 10**15}, {"bank_s": 60, "increment_s": 10**9}],
)
def test_clocks_are_bounded_by_a_year(make_user, time_control):
    with pytest.raises(InvalidRequest):
        lobby.match_create(user=make_user(), game="ekko", players=2, time_control=time_control)


def test_integer_options_are_bounded(make_user):
    with pytest.raises(InvalidRequest):
        lobby.match_create(
            user=make_user(), game="ekko", players=2, options={"reaction_window_s": 10**12}, bots=[{"seat": 1}]
        )


def test_quotas_cap_open_matches_and_live_matches_with_bots(make_user, settings):
    from games.errors import QuotaExceeded

    settings.TABULA_MAX_OPEN_MATCHES, settings.TABULA_MAX_BOT_MATCHES = 2, 1
    ann = make_user()
    for _ in range(2):
        lobby.match_create(user=ann, game="ekko", players=3)
    with pytest.raises(QuotaExceeded):
        lobby.match_create(user=ann, game="ekko", players=3)
    lobby.match_create(user=ann, game="ekko", players=2, bots=[{"seat": 1}])  # starts: not open
    with pytest.raises(QuotaExceeded) as refused:
        lobby.match_create(user=ann, game="ekko", players=2, bots=[{"seat": 1}])
    assert refused.value.code == "quota_exceeded" and refused.value.extra == {"limit": 1}


def test_the_admin_is_read_only_and_aborts_through_a_record(make_user, client):
    from django.contrib.admin.sites import site

    from games.admin import MatchAdmin, RecordAdmin, SeatAdmin

    admin_user = make_user("root")
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    match = lobby.match_create(user=admin_user, game="ekko", players=2, bots=[{"seat": 1}])

    class Request:
        user = admin_user

    for model_admin in (MatchAdmin(Match, site), RecordAdmin(Record, site), SeatAdmin(Seat, site)):
        assert not model_admin.has_change_permission(Request(), match)  # type: ignore[arg-type]
        assert not model_admin.has_add_permission(Request())  # type: ignore[arg-type]
        assert not model_admin.has_delete_permission(Request(), match)  # type: ignore[arg-type]
    client.force_login(admin_user)
    page = client.get(f"/admin/games/match/{match.id}/change/")
    assert page.status_code == 200 and b'name="options"' not in page.content  # shown, not editable
    r = client.post(f"/admin/games/match/{match.id}/change/", {"status": "finished", "options": '{"target_score": 1}'})
    assert r.status_code == 403
    match.refresh_from_db()
    assert match.status == "active" and match.options == {}
    r = client.post("/admin/games/match/", {"action": "abort", "_selected_action": [match.id]})
    assert r.status_code == 302
    match.refresh_from_db()
    assert match.status == "aborted"
    last = Record.objects.filter(match=match).order_by("-seq").first()
    assert last is not None and last.type == "aborted" and last.data["by"] == "root"
    assert list(Record.objects.filter(match=match).values_list("seq", flat=True)) == list(range(1, match.version + 1))
