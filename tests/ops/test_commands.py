"""manage.py verify_matches and abort_match (issue 16)."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from games.models import Match, Record
from games.services import lobby, play

pytestmark = pytest.mark.django_db


@pytest.fixture
def matches(make_user):
    ann, ben = make_user("ann"), make_user("ben")
    live = lobby.match_create(user=ann, game="enka", players=2)
    lobby.match_join(match_id=live.id, user=ben)
    over = lobby.match_create(user=ann, game="ekko", players=2)
    lobby.match_join(match_id=over.id, user=ben)
    play.match_resign(match_id=over.id, user=ben)
    return Match.objects.get(id=live.id), Match.objects.get(id=over.id)


def verify(*args: str) -> str:
    out = io.StringIO()
    call_command("verify_matches", *args, stdout=out)
    return out.getvalue()


def test_sound_logs_verify(matches):
    assert verify().strip().endswith("verified 2 matches: 0 problems")
    assert "verified 1 matches" in verify("--game", "ekko")
    assert "verified 0 matches" in verify("--since", "2999-01-01")


def test_a_gap_in_seq_is_reported(matches):
    live, _ = matches
    Record.objects.filter(match=live, seq=2).delete()
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_matches", stdout=out)
    assert f"{live.id}" in out.getvalue() and "seq gap" in out.getvalue() and "missing [2]" in out.getvalue()


def test_a_stored_outcome_that_the_replay_does_not_give_is_reported(matches):
    _, over = matches
    Match.objects.filter(id=over.id).update(result={**over.result, "winners": [1]})
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_matches", stdout=out)
    assert "outcome mismatch" in out.getvalue()


def test_a_replay_error_is_reported(matches):
    live, _ = matches
    started = Record.objects.get(match=live, type=Record.Type.STARTED)
    Record.objects.filter(match=live, seq__gt=started.seq).delete()
    Record.objects.filter(id=started.id).update(type=Record.Type.MOVE, seat=0, move={"type": "nonsense"})
    Match.objects.filter(id=live.id).update(version=started.seq)
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_matches", f"--match={live.id}", stdout=out)  # an id may start with '-'
    assert "replay error" in out.getvalue()


def test_abort_match_appends_an_aborted_record_through_the_services(matches):
    live, over = matches
    out = io.StringIO()
    call_command("abort_match", "--reason", "stuck", "--", live.id, stdout=out)
    live.refresh_from_db()
    last = Record.objects.filter(match=live).order_by("-seq").first()
    assert live.status == Match.Status.ABORTED and last is not None and last.seq == live.version
    assert last.type == Record.Type.ABORTED and last.data == {"reason": "stuck", "by": "operator"}
    assert live.timer_deadline is None and live.awaiting == []
    with pytest.raises(CommandError, match="match_over"):
        call_command("abort_match", "--", over.id)
    with pytest.raises(CommandError, match="not_found"):
        call_command("abort_match", "nope")
    assert "0 problems" in verify()
