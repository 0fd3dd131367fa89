"""The tallies a public profile reads (`games.tallies`) answer what folding the player's finished
public matches answered (`selectors.user_stats` over their rows, the oracle): counted as each match
ends, rebuilt from the rows, through the services' endings, and in the profile's bytes."""

from __future__ import annotations

import json
import random
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, connections, transaction
from django.utils import timezone

from accounts.models import User
from games import selectors, tallies
from games import sql as games_sql
from games.models import Match, Seat, Tally
from games.selectors import FinishedRow
from games.services import lobby, play

API = "/api/v1"
GAMES = ("ekko", "enka", "toy")
SCORES = (0, 1, 3, 10, -2, 0.1, 0.7, 2.675, 1.005, None, "n/a", True)  # a string, a None: no score


def _rows(user: User) -> list[FinishedRow]:
    """The oracle's rows: the user's finished public matches, as the profile read them before the
    tallies (by the ORM, oldest finished first, ties by match id)."""
    return list(
        Seat.objects.filter(user=user, match__status=Match.Status.FINISHED, match__private=False)
        .order_by("match__finished_at", "match_id")
        .values_list("match__game", "index", "match__result")
    )


def _folded(user: User) -> tuple[dict[str, int], dict[str, dict[str, Any]]]:
    """The profile's counts of finished matches and its statistics, folded from every row."""
    rows = _rows(user)
    won = sum(1 for _, index, result in rows if index in (result or {}).get("winners", []))
    return {"played": len(rows), "won": won}, selectors.user_stats(user, rows=rows)


def _from_tallies(user: User) -> tuple[dict[str, int], dict[str, dict[str, Any]]]:
    _, counts, _, stats, _ = selectors.user_profile(user.username)
    return {"played": counts["played"], "won": counts["won"]}, stats


def _assert_profile_is_the_fold(user: User) -> None:
    counts, stats = _from_tallies(user)
    assert (counts, stats) == _folded(user)
    assert json.dumps(stats) == json.dumps(_folded(user)[1])  # the games in the same order, each's keys too


def _result(rng: random.Random, players: int) -> dict[str, Any] | None:
    """A result of any shape a match may end with: a win, a shared win, a draw of one group (with
    or without winners), winners with no ranking, an empty result or none; scores of any kind."""
    seats = list(range(players))
    rng.shuffle(seats)
    kind = rng.choice(("win", "win", "win", "shared", "draw", "unranked", "empty", "none"))
    if kind == "none":
        return None
    if kind == "empty":
        return {}
    if kind == "draw":
        result: dict[str, Any] = {"winners": rng.choice(([], sorted(seats))), "ranking": [sorted(seats)]}
    elif kind == "unranked":
        result = {"winners": [seats[0]]}
    else:
        first, rest = (seats[:2], seats[2:]) if kind == "shared" else (seats[:1], seats[1:])
        ranking = [sorted(first)]
        while rest:
            take = rng.randint(1, len(rest))
            ranking.append(sorted(rest[:take]))
            rest = rest[take:]
        result = {"winners": sorted(first), "ranking": ranking}
    if rng.random() < 0.7:
        result["scores"] = [rng.choice(SCORES) for _ in range(rng.randint(0, players))]
    return result


def _build(rng: random.Random, people: list[User], n: int) -> list[Match]:
    """``n`` matches among ``people``, most finished (some aborted or still running, some private),
    in several games, some with a bot seat or a caretaker bot in a player's seat; their finish
    times in an order of their own (a few at the same instant), unrelated to their ids."""
    base = timezone.now() - timedelta(days=10)
    matches = []
    for i in range(n):
        players = rng.randint(2, 4)
        users: list[User | None] = list(rng.sample(people, players))
        if rng.random() < 0.2:
            users[rng.randrange(1, players)] = None  # a bot's seat
        status = rng.choice((Match.Status.FINISHED,) * 8 + (Match.Status.ABORTED, Match.Status.ACTIVE))
        match = Match.objects.create(
            id=f"t{rng.randrange(10**8):08d}{i:03d}",
            game=rng.choice(GAMES),
            rules_version=1,
            players=players,
            seed=i,
            seed_commitment="c" * 64,
            private=rng.random() < 0.15,
            status=status,
            created_by=next(u for u in users if u is not None),
            finished_at=base + timedelta(minutes=rng.randrange(n)) if status != Match.Status.ACTIVE else None,
            result=_result(rng, players) if status == Match.Status.FINISHED else None,
        )
        caretaken = rng.random() < 0.1
        for index, user in enumerate(users):
            bot = "greedy" if user is None or (caretaken and index == 0) else ""
            Seat.objects.create(match=match, index=index, user=user, bot=bot, caretaker=bot != "" and user is not None)
        matches.append(match)
    return matches


def _end_all(matches: list[Match]) -> None:
    """Count each match as it would have been counted when it ended: in the order they finished."""
    for match in sorted(matches, key=lambda m: (m.finished_at or timezone.now(), m.id)):
        counted = tallies.tally_update(match)
        assert counted == (match.status == Match.Status.FINISHED and not match.private)


@pytest.fixture
def people(make_user) -> list[User]:
    return [make_user(name) for name in ("ann", "ben", "cyd", "dot", "eve")]


def _snapshot() -> list[tuple[Any, ...]]:
    fields = [f.attname for f in Tally._meta.concrete_fields if f.attname != "id"]
    return sorted(Tally.objects.values_list(*fields))


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_tallies_counted_as_matches_end_are_the_fold_of_every_row(people, seed):
    matches = _build(random.Random(seed), people, 80)
    _end_all(matches)
    # every case the fold has: no result, an empty one, one with no ranking, private, bot seats
    results = [m.result for m in matches if m.status == Match.Status.FINISHED]
    assert None in results and {} in results and any(r and "ranking" not in r for r in results)
    assert any(m.private and m.status == Match.Status.FINISHED for m in matches)
    assert Seat.objects.filter(user=None).exists() and Seat.objects.filter(caretaker=True).exists()
    games = [stats for user in people for stats in _from_tallies(user)[1].values()]
    assert any(s["drawn"] for s in games) and any(s["lost"] for s in games)
    assert any(s["average_score"] is not None and s["average_score"] % 1 for s in games)
    assert any(s["longest_streak"] >= 2 for s in games)
    for user in people:
        _assert_profile_is_the_fold(user)


@pytest.mark.django_db
def test_the_games_are_listed_in_the_order_each_was_first_finished_ties_by_match_id(people):
    ann, ben = people[:2]
    at = timezone.now() - timedelta(days=1)
    made = []
    for match_id, game, when in (("b2", "ekko", at), ("a1", "enka", at), ("c3", "toy", at - timedelta(hours=1))):
        match = Match.objects.create(
            id=match_id,
            game=game,
            rules_version=1,
            players=2,
            seed=0,
            seed_commitment="c" * 64,
            status=Match.Status.FINISHED,
            created_by=ann,
            finished_at=when,
            result={"winners": [0], "ranking": [[0], [1]]},
        )
        Seat.objects.create(match=match, index=0, user=ann)
        Seat.objects.create(match=match, index=1, user=ben)
        made.append(match)
    for match in made:  # counted out of their order: the order shown is the matches'
        tallies.tally_update(match)
    assert list(_from_tallies(ann)[1]) == ["toy", "enka", "ekko"]  # neither the names' order nor the counting's
    _assert_profile_is_the_fold(ann)


@pytest.mark.django_db
def test_a_rebuild_writes_what_the_matches_endings_counted(people):
    _end_all(_build(random.Random(7), people, 60))
    counted = _snapshot()
    assert len(counted) > 5
    ann, ben = people[:2]
    Tally.objects.filter(user=ann).update(played=999, longest_streak=0)  # ann's wrong
    Tally.objects.filter(user=ben).delete()  # ben's gone
    assert tallies.rebuild([ann.pk]) == Tally.objects.filter(user=ann).count()
    assert [t for t in _snapshot() if t[0] == ann.pk] == [t for t in counted if t[0] == ann.pk]
    assert not Tally.objects.filter(user=ben).exists()  # only ann's were rebuilt
    assert tallies.rebuild() == len(counted)
    assert _snapshot() == counted


@pytest.mark.django_db
def test_the_command_rebuilds_after_an_operator_deletes_matches(people, capsys):
    _end_all(_build(random.Random(8), people, 50))
    ann = people[0]
    mine = Match.objects.filter(seats__user=ann, status=Match.Status.FINISHED, private=False)
    mine.filter(pk__in=list(mine.values_list("pk", flat=True)[:5])).delete()
    assert _from_tallies(ann) != _folded(ann)  # the tallies still count the deleted ones
    call_command("tallies_rebuild", "ann")
    assert "rebuilt" in capsys.readouterr().out
    _assert_profile_is_the_fold(ann)
    call_command("tallies_rebuild")
    for user in people:
        _assert_profile_is_the_fold(user)


# --- the services' endings -------------------------------------------------------------------------


def _table(people: list[User], game: str = "enka") -> Match:
    match = lobby.match_create(user=people[0], game=game, players=len(people))
    for person in people[1:]:
        lobby.match_join(match_id=match.id, user=person)
    return Match.objects.get(id=match.id)


def _agree(api, people: list[User], match: Match, **body: Any) -> None:
    pid = api(people[0]).post(f"{API}/matches/{match.id}/proposals", body, format="json").json()["id"]
    for person in people[1:]:
        assert api(person).put(f"{API}/matches/{match.id}/proposals/{pid}/vote", {"accept": True}, format="json")


@pytest.mark.django_db
def test_a_draw_and_a_concession_by_agreement_are_counted(people, api):
    three = people[:3]
    _agree(api, three, _table(three), kind="draw")
    _agree(api, three, _table(three), kind="concede_to", seat=2)
    assert Match.objects.filter(status=Match.Status.FINISHED).count() == 2
    by_user = {t.user_id: t for t in Tally.objects.filter(game="enka")}
    assert set(by_user) == {p.pk for p in three}
    assert by_user[three[2].pk].won == 1 and by_user[three[0].pk].drawn == 1 and by_user[three[0].pk].lost == 1
    assert all(t.played == 2 for t in by_user.values())
    for user in three:
        _assert_profile_is_the_fold(user)


@pytest.mark.django_db
def test_a_cancelled_match_is_not_counted(people, api):
    two = people[:2]
    match = _table(two)
    _agree(api, two, match, kind="cancel")
    assert Match.objects.get(id=match.id).status == Match.Status.ABORTED
    assert not Tally.objects.exists()


@pytest.mark.django_db
def test_a_match_won_by_play_is_counted_and_a_private_one_is_not(toy_game, people):
    ann, ben = people[:2]
    play.match_resign(match_id=_table([ann, ben], game="toy").id, user=ben)
    private = _table([ann, ben], game="toy")
    Match.objects.filter(id=private.id).update(private=True)
    play.match_resign(match_id=private.id, user=ann)
    assert Match.objects.filter(status=Match.Status.FINISHED).count() == 2
    tally = Tally.objects.get(user=ann, game="toy")
    assert (tally.played, tally.won, tally.current_streak) == (1, 1, 1)
    assert Tally.objects.get(user=ben, game="toy").lost == 1
    for user in (ann, ben):
        _assert_profile_is_the_fold(user)


@pytest.mark.django_db
def test_a_bots_seat_has_no_tally(toy_game, people):
    ann = people[0]
    match = lobby.match_create(user=ann, game="toy", players=2, bots=[{"seat": 1, "level": "random"}])
    play.match_resign(match_id=match.id, user=ann)
    assert Match.objects.get(id=match.id).status == Match.Status.FINISHED
    assert list(Tally.objects.values_list("user_id", "played", "lost")) == [(ann.pk, 1, 1)]


# --- the profile's bytes ---------------------------------------------------------------------------


def _profile_by_folding(username: str, viewer: Any = None, stamps: bool = False) -> Any:
    """`selectors.user_profile` as it was: every finished public match folded on each read (the
    player looked up by name, whoever reads). The summary cache is off here: no stamps asked."""
    assert not stamps
    user = selectors.user_get(username)
    rows = _rows(user)
    active, recent = games_sql.profile_matches(user.pk, selectors.PROFILE_RECENT, selectors.SUMMARY_ATTNAMES)
    counts = {
        "played": len(rows),
        "active": active,
        "won": sum(1 for _, index, result in rows if index in (result or {}).get("winners", [])),
    }
    return user, counts, recent, selectors.user_stats(user, rows=rows), list(user.ratings.all())


@pytest.mark.django_db
def test_the_profile_answers_the_bytes_it_answered_by_folding(people, api, monkeypatch):
    _end_all(_build(random.Random(9), people, 60))
    client = api(people[1])
    answers = {user.username: client.get(f"{API}/users/{user.username}") for user in people}
    monkeypatch.setattr(selectors, "user_profile", _profile_by_folding)
    for username, answer in answers.items():
        folded = client.get(f"{API}/users/{username}")
        assert answer.status_code == folded.status_code == 200
        assert answer.json()["stats"] and answer.content == folded.content


# --- two matches of one player ending at once ------------------------------------------------------


def _finished_with_ann(people: list[User], i: int) -> Match:
    """A finished public match of ann's (seat 1 on odd ``i``, the winner's) against another player."""
    ann, other = people[0], people[1 + i % 3]
    match = Match.objects.create(
        id=f"race{i}",
        game="toy",
        rules_version=1,
        players=2,
        seed=i,
        seed_commitment="c" * 64,
        status=Match.Status.FINISHED,
        created_by=ann,
        finished_at=timezone.now() + timedelta(seconds=i),
        result={"winners": [1], "ranking": [[1], [0]]},
    )
    Seat.objects.create(match=match, index=i % 2, user=ann)
    Seat.objects.create(match=match, index=1 - i % 2, user=other)
    return match


def _someone_waits_for_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
            " WHERE NOT l.granted AND a.datname = current_database()"
        )
        return bool(cursor.fetchone()[0])


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgresql  # row locks are PostgreSQL's (SQLite writes one transaction at a time)
@pytest.mark.parametrize("earlier", [0, 1], ids=["ann-s-first-of-the-game", "ann-has-a-tally"])
def test_two_matches_of_a_player_ending_at_once_are_both_counted(people, earlier):
    """The first ending holds its transaction open while the second counts: the second waits for it
    (on ann's tally, or on making it), then counts on what the first wrote (had it read ann's tally
    before waiting, one match would be lost)."""
    for i in range(earlier):
        with transaction.atomic():  # as a match's end is
            tallies.tally_update(_finished_with_ann(people, 10 + i))
    first, second = _finished_with_ann(people, 0), _finished_with_ann(people, 1)
    counted, release, failures = threading.Event(), threading.Event(), []

    def end(match: Match, hold: bool) -> None:
        try:
            with transaction.atomic():
                tallies.tally_update(match)
                if hold:
                    counted.set()
                    release.wait(timeout=30)
        except BaseException as exc:  # reported below
            failures.append(exc)
            counted.set()
        finally:
            connections.close_all()

    holder = threading.Thread(target=end, args=(first, True))
    holder.start()
    assert counted.wait(timeout=30) and not failures, failures
    waiter = threading.Thread(target=end, args=(second, False))
    waiter.start()
    for _ in range(3000):  # until it waits (or, were it not to wait, has ended)
        if _someone_waits_for_a_lock() or not waiter.is_alive():
            break
        time.sleep(0.01)
    release.set()
    holder.join(timeout=30)
    waiter.join(timeout=30)
    assert not failures, failures
    tally = Tally.objects.get(user=people[0], game="toy")
    assert (tally.played, tally.won, tally.lost) == (2 + earlier, 1, 1 + earlier)  # ann won race1 only
    _assert_profile_is_the_fold(people[0])
