"""manage.py verify_matches and abort_match (issue 16)."""

from __future__ import annotations

import io
import pickle
import re
import threading

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, connections

from games import replay
from games.models import FinalState, Match, Record
from games.services import lobby, play

pytestmark = pytest.mark.django_db
RECORDS = re.compile(rf"^\s*SELECT\b.*\bFROM\s+\W?{Record._meta.db_table}\b", re.IGNORECASE | re.DOTALL)


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


@pytest.mark.parametrize(
    "planted, problem",
    [(b"garbage", "does not read back"), (None, "final state mismatch")],
)
def test_a_kept_final_state_that_is_not_the_replays_is_reported(matches, planted, problem):
    _, over = matches
    assert FinalState.objects.filter(match_id=over.id, version=over.version).exists()
    if planted is None:  # the state a record earlier, claimed final
        earlier = replay.replay(
            over,
            Record.objects.filter(match=over, seq__lt=over.version).order_by("seq").values_list("type", "seat", "move"),
        )
        planted = pickle.dumps((replay.rules_tag(over), over.version, earlier))
    FinalState.objects.filter(match_id=over.id).update(state=planted)
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_matches", stdout=out)
    assert over.id in out.getvalue() and problem in out.getvalue()


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


@pytest.mark.django_db(transaction=True)
def test_moves_appended_while_a_match_is_verified_are_no_gap_and_a_planted_gap_still_is(toy_game, make_user):
    """Each match is read in one snapshot: a move another connection commits between the read of the
    match and the reads of its records (interposed there, every time) is not a false "seq gap".
    On SQLite as on PostgreSQL (WAL lets the writer commit beside the open read)."""
    ann, ben = make_user("ann"), make_user("ben")
    live = lobby.match_create(user=ann, game="toy", players=2, options={"pile": 50})
    lobby.match_join(match_id=live.id, user=ben)
    gapped = lobby.match_create(user=ann, game="toy", players=2, options={"pile": 50})
    lobby.match_join(match_id=gapped.id, user=ben)
    Record.objects.filter(match_id=gapped.id, seq=2).delete()
    appended: list[int] = []

    def move_from_another_connection() -> None:
        def run() -> None:
            try:
                match = Match.objects.get(id=live.id)
                player = ann if match.awaiting == [0] else ben
                play.move_submit(
                    match_id=live.id, move={"type": "take", "n": 1}, expected_version=match.version, user=player
                )
                appended.append(match.version + 1)
            finally:
                connections.close_all()  # this thread's own connection

        thread = threading.Thread(target=run)
        thread.start()
        thread.join(timeout=30)

    def interpose(execute, sql, params, many, context):
        if RECORDS.search(sql) and live.id in (params or ()) and len(appended) < 5:
            move_from_another_connection()
        return execute(sql, params, many, context)

    out = io.StringIO()
    with connection.execute_wrapper(interpose), pytest.raises(CommandError):
        call_command("verify_matches", stdout=out)
    assert len(appended) >= 2, "a move was appended before each read of the live match's records"
    report = out.getvalue()
    assert live.id not in report, report
    assert f"{gapped.id}" in report and "missing [2]" in report and report.strip().endswith("1 problems")
    assert verify(f"--match={live.id}").strip().endswith("0 problems")
