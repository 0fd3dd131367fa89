"""The hand-written history pages (`games.sql.summaries_page`, `summaries`, `summaries_count`) answer
exactly what their ORM querysets answer: the same matches in the same order, the same count, the
same loaded fields, creator and rematch; and the endpoints that read them answer as before."""

from __future__ import annotations

from datetime import timedelta
from itertools import cycle

import pytest
from django.db.models import Exists, OuterRef
from django.utils import timezone

from accounts.models import User
from api.pagination import CappedLimitOffsetPagination
from games import selectors
from games import sql as games_sql
from games.models import Match, Seat

LIMITS = (1, 3, 7, 20, 100)
OFFSETS = (0, 1, 5, 13, 28, 29, 30, 31, 40, 2**40)


@pytest.fixture
def history(make_user):
    """Forty matches among four players (alice sits in thirty): every status, public and private,
    some created at the same instant (ties broken by id), one by a deleted account, rematches."""
    alice, bob, carol, dora = (make_user(name) for name in ("alice", "bob", "carol", "dora"))
    dora.deleted_at = timezone.now()
    dora.save(update_fields=["deleted_at"])
    statuses = cycle(Match.Status.values)
    base = timezone.now() - timedelta(days=30)
    matches: list[Match] = []
    for i in range(40):
        status = next(statuses)
        created = base + timedelta(hours=i // 3)  # three at each instant
        over = status in (Match.Status.FINISHED, Match.Status.ABORTED)
        match = Match.objects.create(
            id=f"m{i:03d}x{(i * 7) % 40:02d}",  # ids not in creation order
            game=("ekko", "enka")[i % 2],
            rules_version=1,
            players=3,
            seed=i,
            seed_commitment="c" * 64,
            private=i % 3 == 1,  # every status has private matches
            status=status,
            created_by=(alice, bob, carol, dora)[i % 4],
            created_at=created,
            started_at=created if status != Match.Status.OPEN else None,
            finished_at=created + timedelta(minutes=(i * 37) % 90) if over else None,
            result={"winners": [i % 3]} if status == Match.Status.FINISHED else None,
            rematch_of=matches[-1] if i % 10 == 9 else None,
        )
        matches.append(match)
        others = [bob, carol, dora] if i < 30 else [bob, carol]
        seated = ([alice] if i < 30 else []) + others
        for index, user in enumerate(seated[:3]):
            Seat.objects.create(match=match, index=index, user=user if index < 2 or i % 5 else None)
    return alice, bob, carol


def _same(hand: list[games_sql.ListedMatch], orm: list[Match]) -> None:
    """The rows read by hand hold what the ORM's summary instances hold, value for value and of the
    same types (a page's JSON is built from either)."""
    assert [m.id for m in hand] == [m.id for m in orm]
    for a, b in zip(hand, orm, strict=True):
        mine = {n: getattr(a, n) for n in selectors.SUMMARY_ATTNAMES}
        theirs = {n: getattr(b, n) for n in selectors.SUMMARY_ATTNAMES}
        assert mine == theirs
        assert {n: type(v) for n, v in mine.items()} == {n: type(v) for n, v in theirs.items()}
        assert set(b.get_deferred_fields()).isdisjoint(selectors.SUMMARY_ATTNAMES)
        assert a.creator == b.created_by.public_name
        assert a.rematch == _rematch(b)
        assert a.is_live == b.is_live


def _rematch(match: Match) -> str | None:
    try:
        return match.rematch.id
    except Match.DoesNotExist:
        return None


def _pages_agree(listing: games_sql.Listing, qs) -> None:
    count = qs.count()
    assert count > 7  # more than a page of the smaller limits
    for limit in LIMITS:
        for offset in OFFSETS:
            hand_count, page = games_sql.summaries_page(listing, limit, offset)
            assert hand_count == count, (limit, offset)
            _same(page, list(qs[offset : offset + limit]) if offset < 2**31 else [])
    assert games_sql.summaries_count(listing) == count


@pytest.mark.django_db
def test_my_matches_page_is_the_orm_one(history, django_assert_num_queries):
    alice, bob, _ = history
    for user in (alice, bob):
        _pages_agree(selectors.my_matches(user), selectors.match_list(user=user, mine=True))
    with django_assert_num_queries(1):  # the count comes with the page
        games_sql.summaries_page(selectors.my_matches(alice), 7, 5)
    with django_assert_num_queries(2):  # past the end: no row carries it
        assert games_sql.summaries_page(selectors.my_matches(alice), 7, 31) == (30, [])


@pytest.mark.django_db
@pytest.mark.parametrize("game", [None, "ekko"])
@pytest.mark.parametrize("status", [None, "finished", "open"])
def test_a_users_matches_page_is_the_orm_one(history, game, status):
    alice, bob, carol = history
    for user, viewer in ((alice, alice), (bob, bob), (alice, None)):
        listing = selectors.user_matches_listing(user, viewer, game=game, status=status)
        assert listing is not None
        qs = selectors.user_matches(user, viewer, game=game, status=status)
        count = qs.count()
        for limit in LIMITS:
            for offset in OFFSETS:
                hand_count, page = games_sql.summaries_page(listing, limit, offset)
                assert hand_count == count
                _same(page, list(qs[offset : offset + limit]) if offset < 2**31 else [])
    assert selectors.user_matches_listing(alice, carol) is None  # a stranger: the ORM's visibility rule


@pytest.mark.django_db
def test_anonymous_readers_see_no_private_match(history):
    alice, _, _ = history
    _, page = games_sql.summaries_page(selectors.user_matches_listing(alice, None), 100, 0)
    _, own = games_sql.summaries_page(selectors.user_matches_listing(alice, alice), 100, 0)
    assert page and not any(m.private for m in page)
    assert any(m.private for m in own)


@pytest.mark.django_db
def test_the_profiles_recent_matches_and_active_count_are_the_orm_ones(history, django_assert_num_queries):
    for user in history:
        mine = Match.objects.filter(Exists(Seat.objects.filter(match=OuterRef("pk"), user=user))).filter(private=False)
        active = mine.filter(status=Match.Status.ACTIVE).count()
        orm = selectors.for_summaries(mine).filter(status=Match.Status.FINISHED).order_by("-finished_at", "-id")
        assert active and orm.count() > 3
        for limit in (1, 3, 10, 100):
            with django_assert_num_queries(1):
                count, page = games_sql.profile_matches(user.pk, limit, selectors.SUMMARY_ATTNAMES)
            assert count == active
            _same(page, list(orm[:limit]))
    carol = history[2]
    Match.objects.filter(seats__user=carol, status=Match.Status.FINISHED).update(status=Match.Status.ABORTED)
    carols = Match.objects.filter(seats__user=carol, private=False, status=Match.Status.ACTIVE).count()
    assert carols and games_sql.profile_matches(carol.pk, 10, selectors.SUMMARY_ATTNAMES) == (carols, [])


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    [
        "mine=true",
        "mine=true&limit=7",
        "mine=true&limit=7&offset=7",
        "mine=true&limit=7&offset=28",
        "mine=true&limit=7&offset=30",
        "mine=true&limit=7&offset=31",
        "mine=true&offset=99999999999999999999999",
        "mine=true&limit=1000",
        "mine=true&limit=-3&offset=-1",
        "mine=true&limit=x&offset=y",
        "mine=true&game=ekko&limit=5&offset=2",
        "mine=true&status=finished",
        "mine=true&game=&status=",
        "mine=True&limit=4&offset=4",
    ],
)
def test_my_matches_answer_as_the_orm_path_does(history, api, monkeypatch, query):
    alice, _, _ = history
    client = api(alice)
    hand = client.get(f"/api/v1/matches?{query}")
    monkeypatch.setattr(CappedLimitOffsetPagination, "paginate_read", lambda self, request, read: None)
    orm = client.get(f"/api/v1/matches?{query}")
    assert hand.status_code == orm.status_code == 200
    assert hand.content == orm.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    ["", "limit=7", "limit=7&offset=7", "limit=7&offset=30", "offset=31", "game=ekko&limit=3", "status=finished"],
)
@pytest.mark.parametrize("reader", ["alice", "carol"])
def test_a_users_matches_answer_as_the_orm_path_does(history, api, monkeypatch, query, reader):
    alice, _, carol = history
    client = api({"alice": alice, "carol": carol}[reader])
    hand = client.get(f"/api/v1/users/alice/matches?{query}")
    monkeypatch.setattr(selectors, "user_matches_listing", lambda *args, **kwargs: None)
    orm = client.get(f"/api/v1/users/alice/matches?{query}")
    assert hand.status_code == orm.status_code == 200
    assert hand.content == orm.content


@pytest.mark.django_db
def test_a_pages_seats_come_with_it_as_seats_of_reads_them(history):
    """On PostgreSQL a page's seats come in its own statement, as JSON; they are what `seats_of`
    reads, every field and type (times with and without a fraction of a second, a deleted player, an
    empty seat, a bot, an away one); on SQLite `with_seats` reads them with `seats_of`."""
    alice = history[0]
    at = timezone.now().replace(microsecond=120000)
    Seat.objects.filter(index=0, match__status=Match.Status.ACTIVE).update(
        deadline=at, bank_ms=61_000, consecutive_timeouts=2, bot="greedy", caretaker=True
    )
    Seat.objects.filter(index=1, match__status=Match.Status.ACTIVE).update(
        away_until=at.replace(microsecond=0) + timedelta(days=2), resigned=True
    )
    dora = User.objects.get(username="dora")  # deleted
    Seat.objects.filter(index=2, match__status=Match.Status.FINISHED, user__isnull=False).update(user=dora)
    _, page = games_sql.summaries_page(selectors.my_matches(alice), 100, 0)
    read = games_sql.seats_of([m.id for m in page])
    listed = {m.id: m.listed_seats for m in selectors.with_seats(page)}
    assert listed == read
    seats = [seat for match_seats in read.values() for seat in match_seats]
    assert any(s.deadline == at for s in seats) and any(s.away_until for s in seats)
    assert any(s.username == "deleted player" for s in seats) and any(s.username is None for s in seats)
    assert all(s.deadline is None or s.deadline.utcoffset() == timedelta(0) for s in seats)


@pytest.mark.django_db
def test_mine_alone_builds_no_filter_form(history, api, monkeypatch):
    """``matches?mine=true`` with paging only answers without `MatchFilter` (its form cost more than
    the page's statement); any other spelling or filter still goes through it, to the same page."""
    from api.views import matches as views

    client = api(history[0])
    built = []
    plain = views.MatchFilter.__init__

    def counted(self, *args, **kwargs):
        built.append(1)
        plain(self, *args, **kwargs)

    monkeypatch.setattr(views.MatchFilter, "__init__", counted)
    alone = client.get("/api/v1/matches?mine=true&limit=7&offset=2")
    assert alone.status_code == 200 and not built
    for other in ("mine=True&limit=7&offset=2", "mine=2&limit=7&offset=2&unknown=x"):
        answer = client.get(f"/api/v1/matches?{other}")
        assert built and answer.status_code == 200 and answer.json()["results"] == alone.json()["results"], other
        built.clear()
