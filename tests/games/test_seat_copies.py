"""A seat's copies of its match's status, end and privacy (`Seat.match_status`, ``match_finished_at``,
``match_private``) are the match's, whoever wrote what: the services through a match's whole life,
the ORM, raw SQL, a bulk insert, a seat's full save of stale values. The database keeps them
(triggers, games/migrations/0016); a migration that rebuilds either table on SQLite would drop the
triggers, and this fails then. The profile's reads rest on them (`games.sql.profile_matches`)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games.models import Match, Seat
from games.services import lobby, operators, play


def _differing() -> list[tuple[str, int]]:
    """The seats whose copies are not their match's (NULL equal to NULL)."""
    same = "IS NOT DISTINCT FROM" if connection.vendor == "postgresql" else "IS"
    with connection.cursor() as cursor:
        cursor.execute(
            'SELECT s.match_id, s."index" FROM games_seat s JOIN games_match m ON m.id = s.match_id'
            f" WHERE NOT (s.match_status {same} m.status AND s.match_finished_at {same} m.finished_at"
            f" AND s.match_private {same} m.private)"
        )
        return list(cursor.fetchall())


def _copies(match: Match) -> set[tuple[str, object, bool]]:
    return set(Seat.objects.filter(match=match).values_list("match_status", "match_finished_at", "match_private"))


@pytest.mark.django_db
def test_the_services_keep_them_through_a_matchs_life(make_user, toy_game):
    ann, bob, cy = make_user("ann"), make_user("bob"), make_user("cy")
    match = lobby.match_create(user=ann, game="toy", players=2, private=True)
    assert _copies(match) == {("open", None, True)}
    match = lobby.match_join(match_id=match.id, user=bob)
    assert _copies(match) == {("active", None, True)} and not _differing()
    rng = random.Random(3)
    while True:
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            break
        seat = match.awaiting[0]
        user = ann if seat == 0 else bob
        play.move_submit(
            match_id=match.id, user=user, move={"type": "take", "n": rng.choice([1, 2])}, expected_version=match.version
        )
    assert match.status == Match.Status.FINISHED and match.finished_at is not None
    assert _copies(match) == {("finished", match.finished_at, True)} and not _differing()

    left = lobby.match_create(user=cy, game="toy", players=2)  # everyone leaves: aborted
    lobby.match_leave(match_id=left.id, user=cy)
    left.refresh_from_db()
    assert left.status == Match.Status.ABORTED and _copies(left) == {("aborted", left.finished_at, False)}

    stopped = lobby.match_create(user=ann, game="toy", players=2)
    lobby.match_join(match_id=stopped.id, user=cy)
    operators.match_abort(match_id=stopped.id, reason="test")
    stopped.refresh_from_db()
    assert _copies(stopped) == {("aborted", stopped.finished_at, False)}
    assert not _differing()


@pytest.mark.django_db
def test_any_writer_keeps_them(make_user, toy_game):
    ann, bob = make_user("ann"), make_user("bob")
    match = lobby.match_create(user=ann, game="toy", players=2)
    lobby.match_join(match_id=match.id, user=bob)
    stale = Seat.objects.get(match=match, index=0)  # read while active

    ended = timezone.now() - timedelta(days=1)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, finished_at=ended)  # the ORM
    assert _copies(match) == {("finished", ended, False)}
    with connection.cursor() as cursor:  # an operator's SQL
        cursor.execute("UPDATE games_match SET private = %s WHERE id = %s", [True, match.pk])
    assert _copies(match) == {("finished", ended, True)}

    stale.resigned = True
    stale.save()  # a full save sends the stale copies ("active", None, False): the match's stay
    assert _copies(match) == {("finished", ended, True)}
    assert Seat.objects.get(pk=stale.pk).resigned

    match.refresh_from_db()
    match.private = False
    match.save()  # the ORM's full save
    assert _copies(match) == {("finished", ended, False)}

    other = lobby.match_create(user=ann, game="toy", players=3)
    Seat.objects.filter(match=other).delete()
    Seat.objects.bulk_create(  # a bulk load that says otherwise
        [
            Seat(match=other, index=i, match_created_at=other.created_at, match_status="finished", match_private=True)
            for i in range(3)
        ]
    )
    assert _copies(other) == {("open", None, False)}
    assert not _differing()


@pytest.mark.postgresql
@pytest.mark.django_db
def test_a_move_that_changes_no_status_writes_no_seat(make_user, toy_game):
    """Every move writes the match's status unchanged: the trigger's condition keeps that from
    touching the seats. A mark left in their copies (behind the seat trigger's back) stays through a
    move, and goes when the match ends."""
    ann, bob = make_user("ann"), make_user("bob")
    match = lobby.match_create(user=ann, game="toy", players=2, options={"pile": 3})
    match = lobby.match_join(match_id=match.id, user=bob)
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no deferred check pending: the table may be altered
        cursor.execute("ALTER TABLE games_seat DISABLE TRIGGER games_seat_reads_its_match")
        cursor.execute("UPDATE games_seat SET match_status = 'marked' WHERE match_id = %s", [match.pk])
        cursor.execute("ALTER TABLE games_seat ENABLE TRIGGER games_seat_reads_its_match")
    match.refresh_from_db()
    user = ann if match.awaiting[0] == 0 else bob
    play.move_submit(match_id=match.id, user=user, move={"type": "take", "n": 1}, expected_version=match.version)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and {c[0] for c in _copies(match)} == {"marked"}
    user = ann if match.awaiting[0] == 0 else bob
    play.move_submit(match_id=match.id, user=user, move={"type": "take", "n": 2}, expected_version=match.version)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and _copies(match) == {("finished", match.finished_at, False)}
