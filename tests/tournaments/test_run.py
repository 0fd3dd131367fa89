"""Tournaments that run themselves: start when full, pair each round when the last one ends, score,
finish; byes, withdrawals, adjudication past a round's deadline, no-show bans, private tables."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from core.errors import ApplicationError
from games.models import Match, Record, Seat
from notify.models import Notification
from tournaments import pairing, selectors, services
from tournaments.models import Ban, Entrant, Round, Table, Tournament

pytestmark = pytest.mark.django_db


def _join_all(t, users):
    for u in users:
        services.join(tournament_id=t.id, user=u)
    t.refresh_from_db()
    return t


def test_round_robin_starts_when_full_plays_concurrently_and_finishes(players, create, play_round):
    owner, *rest = players(4)
    t = create(owner, max_players=4)
    assert t.status == Tournament.Status.OPEN
    t = _join_all(t, [owner, *rest])
    assert t.status == Tournament.Status.RUNNING
    # concurrent: all three rounds of four players are paired at once, every pair meets once
    assert Round.objects.filter(tournament=t).count() == 3
    met = pairing.met_counts([pairing.Round([tb.entrants]) for tb in Table.objects.filter(round__tournament=t)])
    assert sorted(met.values()) == [1] * 6
    assert Match.objects.filter(tournament=t.id, status=Match.Status.ACTIVE).count() == 6
    # seats: everyone sits first and second as evenly as three matches allow (2/1 or 1/2)
    seats = {row["username"]: row["seats"] for row in selectors.standings(t)}
    assert all(abs(a - b) <= 1 for a, b in seats.values())
    assert play_round(t.id) == 6
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    rows = selectors.standings(t)
    assert [(r["username"], r["points"]) for r in rows] == selectors.standings_from_matches(t)
    assert sum(r["points"] for r in rows) == 6 * 2.0  # each table: 2 for the winner, 0 for the loser
    assert all(r["played"] == 3 for r in rows)
    kinds = set(Notification.objects.filter(user=owner).values_list("type", flat=True))
    assert {"tournament_started", "tournament_paired", "tournament_finished"} <= kinds
    finished = Notification.objects.get(user=owner, type="tournament_finished")
    assert finished.payload["rank"] == next(r["rank"] for r in rows if r["username"] == owner.username)


def test_swiss_pairs_each_round_after_the_last_ends_with_a_bye_for_the_odd_one(players, create, play_round):
    users = players(5)
    t = create(users[0], format="swiss", max_players=5, rounds=3, bye_points=1)
    t = _join_all(t, users)
    rng = random.Random(3)
    for number in (1, 2, 3):
        assert t.round == number
        r = Round.objects.get(tournament=t, number=number)
        assert r.tables.count() == 2 and r.byes.count() == 1
        play_round(t.id, rng)
        t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    byes = [b.entrant_id for r in Round.objects.filter(tournament=t) for b in r.byes.all()]
    assert len(set(byes)) == 3  # nobody sat out twice while others had not
    rows = selectors.standings(t)
    assert [(r["username"], r["points"]) for r in rows] == selectors.standings_from_matches(t)


def test_swiss_avoids_repeats_when_it_can(players, create, play_round):
    users = players(6)
    t = create(users[0], format="swiss", max_players=6, rounds=3)
    t = _join_all(t, users)
    rng = random.Random(11)
    for _ in range(3):
        play_round(t.id, rng)
    t.refresh_from_db()
    met = pairing.met_counts([pairing.Round([tb.entrants]) for tb in Table.objects.filter(round__tournament=t)])
    assert max(met.values()) == 1  # six players, three rounds of pairs: a perfect schedule exists


def test_elimination_bracket_with_byes_to_the_best_seeds(players, create, play_round):
    users = players(6)
    t = create(users[0], format="elimination", max_players=6)
    t = _join_all(t, users)
    first = Round.objects.get(tournament=t, number=1)
    assert first.tables.count() == 2 and first.byes.count() == 2
    seeds = {e.pk: e.seed for e in Entrant.objects.filter(tournament=t)}
    assert sorted(seeds[b.entrant_id] for b in first.byes.all()) == [1, 2]
    rng = random.Random(5)
    while t.status == Tournament.Status.RUNNING:
        play_round(t.id, rng)
        t.refresh_from_db()
    assert t.round == 3  # 6 → 4 → 2 → 1
    rows = selectors.standings(t)
    champion = rows[0]
    final = Table.objects.get(round__tournament=t, round__number=3)
    winner_id = final.ranking[0][0]
    assert champion["username"] == Entrant.objects.get(pk=winner_id).user.username
    assert champion["points"] == 2 + (0 if seeds[winner_id] <= 2 else 1)


def test_join_refusals_and_the_full_tournament(players, create, make_user):
    users = players(2)
    t = create(users[0], max_players=2)
    services.join(tournament_id=t.id, user=users[0])
    with pytest.raises(ApplicationError) as again:
        services.join(tournament_id=t.id, user=users[0])
    assert again.value.code == "already_entered"
    services.join(tournament_id=t.id, user=users[1])  # full: it starts
    late = make_user("late")
    with pytest.raises(ApplicationError) as started:
        services.join(tournament_id=t.id, user=late)
    assert started.value.code == "tournament_started" and started.value.status == 409
    assert Entrant.objects.filter(tournament=t).count() == 2


def test_withdrawing_mid_round_forfeits_the_live_matches(players, create, play_round):
    users = players(4)
    t = _join_all(create(users[0], format="swiss", rounds=2), users)
    quitter = users[3]
    services.withdraw(tournament_id=t.id, user=quitter)
    seat = Seat.objects.get(match__tournament=t.id, user=quitter)
    assert seat.resigned and seat.match.status == Match.Status.FINISHED
    play_round(t.id)
    t.refresh_from_db()
    second = Round.objects.get(tournament=t, number=2)
    paired = {e for tb in second.tables.all() for e in tb.entrants} | {b.entrant_id for b in second.byes.all()}
    assert Entrant.objects.get(tournament=t, user=quitter).pk not in paired
    row = next(r for r in selectors.standings(t) if r["username"] == quitter.username)
    assert row["withdrawn"]


def test_a_round_past_its_deadline_is_adjudicated_and_the_next_paired(players, create):
    users = players(4)
    t = _join_all(create(users[0], format="swiss", rounds=2, options={"pile": 9}), users)
    later = timezone.now() + timedelta(hours=t.round_hours + 1)
    assert t.id in services.due(later)
    services.advance(t.id, later)
    t.refresh_from_db()
    assert t.round == 2
    first = Table.objects.filter(round__tournament=t, round__number=1)
    assert all(tb.adjudicated and tb.finished_at for tb in first)
    for tb in first:
        assert tb.match.status == Match.Status.FINISHED and tb.match.result["reason"] == "adjudicated"
        assert Record.objects.filter(match=tb.match, type=Record.Type.ADJUDICATED).count() == 1


def test_two_advances_pair_the_next_round_once(players, create):
    users = players(4)
    t = _join_all(create(users[0], format="swiss", rounds=3), users)
    Match.objects.filter(tournament=t.id).update(status=Match.Status.ABORTED)  # both tables over at once
    services.advance(t.id)
    services.advance(t.id)
    t.refresh_from_db()
    assert t.round == 2 and Round.objects.filter(tournament=t).count() == 2


def test_a_no_show_is_banned_and_the_ban_doubles(players, create, make_user, django_capture_on_commit_callbacks):
    users = players(2)
    t = _join_all(create(users[0], max_players=2, time_control={"per_move_s": 1}), users)
    match = Match.objects.get(tournament=t.id)
    from games.services import deadlines

    Seat.objects.filter(match=match).update(deadline=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):  # the match's end advances the tournament
        deadlines.deadlines_process(match_id=match.id)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED  # a timeout in a tournament forfeits
    no_show = Seat.objects.get(match=match, resigned=True).user
    ban = Ban.objects.get(user=no_show)
    assert ban.offences == 1
    first = ban.until - timezone.now()
    assert timedelta(hours=23) < first <= timedelta(hours=24)
    with pytest.raises(ApplicationError) as banned:
        services.join(tournament_id=create(make_user("host")).id, user=no_show)
    assert banned.value.code == "tournament_banned"
    services._no_shows(match, [0, 1], timezone.now())  # a second no-show: twice as long
    ban.refresh_from_db()
    assert ban.offences == 2 and ban.until - timezone.now() > timedelta(hours=47)


def test_away_is_disallowed_and_a_timeout_forfeits_by_default(players, create):
    t = create(players(1)[0])
    assert t.time_control["away"] == "disallowed" and t.time_control["on_timeout"] == "forfeit"


def test_a_private_tournaments_tables_are_visible_to_its_entrants_only(players, create, make_user):
    users = players(4)
    t = create(users[0], entry="invite", invite=[u.username for u in users[1:]], format="swiss", rounds=1)
    assert t.private
    t = _join_all(t, users)
    from games import selectors as games

    stranger = make_user("stranger")
    tables = list(Match.objects.filter(tournament=t.id))
    assert len(tables) == 2
    for match in tables:
        assert all(games.match_visible_to(match, u) for u in users)  # entrants see every table
        assert not games.match_visible_to(match, stranger)
    listed = set(games.match_list(user=users[0]).filter(tournament=t.id).values_list("id", flat=True))
    assert listed == {m.id for m in tables}
    assert not games.match_list(user=stranger).filter(tournament=t.id).exists()
    assert not selectors.visible_to(t, stranger)


def test_blocked_pairs_are_kept_apart_in_swiss(players, create):
    from circles import services as circles

    users = players(4)
    circles.block(users[0], users[1].username, "games")
    t = _join_all(create(users[0], format="swiss", rounds=1), users)
    for tb in Table.objects.filter(round__tournament=t):
        names = {Entrant.objects.get(pk=e).user_id for e in tb.entrants}
        assert not {users[0].pk, users[1].pk} <= names


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("table_size", 9),
        ("table_size", "2"),
        ("format", "ladder"),
        ("max_players", 1),
        ("rounds", 3),  # a round robin takes none
        ("points", [1, 2]),
        ("start", "tomorrow"),
        ("entry", "closed"),
        ("invite", ["nobody"]),
        ("conditions", {"min_rating": -1}),
        ("options", {"pile": 99}),
        ("time_control", {"per_move_s": 0}),
        ("name", ""),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_creates_nothing(players, create, field, value):
    user = players(1)[0]
    with pytest.raises(ApplicationError) as bad:
        create(user, **{field: value})
    assert bad.value.status == 400
    assert Tournament.objects.count() == 0
