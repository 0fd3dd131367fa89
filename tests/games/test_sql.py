"""The precompiled hot-path reads (`core.sql`) answer exactly what their ORM twins answer."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.forms.models import model_to_dict
from django.utils import timezone

from accounts import services as accounts
from accounts import sql as accounts_sql
from accounts.models import ApiToken
from core import sql
from core.errors import NotFound
from games import replay, selectors
from games import sql as games_sql
from games.models import Match, Seat
from games.services import lobby, play, writes
from notify import fanout, inbox
from notify import sql as notify_sql
from notify.models import InboxCounter, PushSubscription, Webhook


def _fields(instance) -> dict:
    """Every concrete field's value, by attribute name (what from_db was given)."""
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


@pytest.fixture
def match(make_user):
    alice, bob = make_user("alice"), make_user("bob")
    created = lobby.match_create(
        user=alice,
        game="ekko",
        players=2,
        options={"target_score": 30},
        time_control={"per_move_s": 3600, "on_timeout": "default_move"},
    )
    lobby.match_join(match_id=created.id, user=bob)
    return Match.objects.get(id=created.id)


@pytest.mark.django_db
def test_a_locked_match_and_its_seats_are_the_orm_ones(match):
    locked = writes.lock(match.id)
    assert _fields(locked) == _fields(Match.objects.get(id=match.id))
    assert isinstance(locked.options, dict) and locked.awaiting == match.awaiting  # JSON decoded, not text
    assert locked.started_at is not None and locked.started_at.tzinfo is not None
    seats = writes.seats_of(locked)
    assert [_fields(s) for s in seats] == [_fields(s) for s in Seat.objects.filter(match=match).order_by("index")]
    assert any(s.deadline is not None for s in seats)  # a running clock: an aware datetime, as the ORM gives it


@pytest.mark.django_db
def test_the_match_and_its_seats_read_in_one_locking_query(match, django_assert_num_queries):
    with django_assert_num_queries(1):
        locked, seats = writes.locked(match.id)
    assert _fields(locked) == _fields(Match.objects.get(id=match.id))
    assert [_fields(s) for s in seats] == [_fields(s) for s in Seat.objects.filter(match=match).order_by("index")]
    Seat.objects.filter(match=match).delete()
    alone, none = writes.locked(match.id)  # no seat: the match still, and no half-built seat
    assert alone.id == match.id and none == []
    with pytest.raises(NotFound):
        writes.locked("no-such-match")


@pytest.mark.django_db
def test_a_token_and_its_user_are_the_orm_ones(make_user):
    carol = make_user("carol")
    carol.preferences = {"email_your_turn": False, "theme": "dark"}
    carol.save()
    token, key = accounts.token_create(carol, label="laptop")
    found = accounts_sql.token_with_user(accounts.token_hash(key))
    assert found is not None
    orm = ApiToken.objects.select_related("user").get(pk=token.pk)
    assert _fields(found) == _fields(orm)
    assert model_to_dict(found.user) == model_to_dict(orm.user)
    assert found.user.preferences == {"email_your_turn": False, "theme": "dark"}
    assert found.user.check_password("correct-horse-9")
    assert accounts_sql.token_with_user(accounts.token_hash(key + "x")) is None


@pytest.mark.django_db
def test_authentication_still_refuses_expired_and_revoked_tokens(make_user):
    dave = make_user("dave")
    token, key = accounts.token_create(dave)
    assert accounts.token_authenticate(key) is not None
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert accounts.token_authenticate(key) is None
    token2, key2 = accounts.token_create(dave)
    accounts.token_revoke(dave, token2.pk)
    assert accounts.token_authenticate(key2) is None


@pytest.mark.django_db
def test_the_state_read_names_the_callers_seat(match, make_user):
    alice, bob = (s.user for s in Seat.objects.filter(match=match).order_by("index").select_related("user"))
    for user, seat in ((alice, 0), (bob, 1), (make_user("eve"), None), (None, None)):
        read = selectors.match_with_seat_of(match.id, user)
        assert read.caller_seat == seat
        assert _fields(read) == _fields(Match.objects.get(id=match.id))


@pytest.mark.django_db
def test_inbox_numbers_count_up_from_one_per_user(make_user):
    frank, gina = make_user("frank"), make_user("gina")
    seqs = [inbox.notify(frank, "invited", {"n": i}).seq for i in range(3)]
    assert seqs == [1, 2, 3]
    assert inbox.notify(gina, "invited", {}).seq == 1
    assert InboxCounter.objects.get(user=frank).last == 3


@pytest.mark.django_db
def test_delivery_preferences_read_in_one_query(make_user, django_assert_num_queries):
    hank = make_user("hank")
    with django_assert_num_queries(1):
        assert fanout._wants(hank.pk, "your_turn") == (False, False, False)  # no address, webhook, push
    hank.email, hank.preferences = "hank@example.com", {}
    hank.save()
    Webhook.objects.create(
        id="wh-hank", user=hank, url="https://example.com/hook", secret="whsec_" + "A" * 32, active=True
    )
    PushSubscription.objects.create(user=hank, endpoint="https://push.example.com/1", p256dh="x", auth="y")
    assert fanout._wants(hank.pk, "your_turn") == (True, True, True)
    assert fanout._wants(hank.pk, "match_started") == (True, False, False)  # neither mailed nor pushed by default
    hank.preferences = {"email_your_turn": False, "channels": {"your_turn": ["stream", "push"]}}
    hank.save()
    assert fanout._wants(hank.pk, "your_turn") == (False, False, True)
    Webhook.objects.filter(user=hank).update(active=False)
    PushSubscription.objects.filter(user=hank).delete()
    assert fanout._wants(hank.pk, "your_turn") == (False, False, False)
    assert fanout._wants(10**9, "your_turn") == (False, False, False)  # a user that is gone


def test_the_columns_follow_the_model():
    assert sql.width(Match) == len(Match._meta.concrete_fields)
    assert sql.columns(Seat, "s").count(",") == len(Seat._meta.concrete_fields) - 1


@pytest.mark.django_db
def test_an_inserted_record_reads_back_as_written(match):
    from games.models import Record

    written = sql.insert(
        Record(
            match=match,
            seq=match.version + 1,
            type="move",
            seat=1,
            actor="player",
            move={"type": "draw"},
            effects=[{"kind": "drew", "data": {"seat": 1}, "to": [1]}],
            data={},
            at=timezone.now(),
        )
    )
    assert written.pk is not None and not written._state.adding
    assert _fields(Record.objects.get(pk=written.pk)) == _fields(written)


@pytest.mark.django_db
def test_an_update_writes_the_named_fields_only(match):
    row = writes.lock(match.id)
    row.version, row.awaiting, row.options = 99, [1], {"target_score": 1}
    sql.update(row, ["version", "awaiting"])
    again = Match.objects.get(id=match.id)
    assert (again.version, again.awaiting, again.options) == (99, [1], match.options)
    with pytest.raises(AssertionError):
        sql.update(row, ["no_such_field"])


@pytest.mark.django_db
def test_an_inbox_entry_is_numbered_written_and_its_delivery_read_at_once(make_user, django_assert_num_queries):
    """PostgreSQL: one statement numbers the entry, writes it and reads what `fanout._wants` would
    read after the commit; SQLite: the number and the entry (the preferences come after the commit)."""
    from django.db import connection

    from notify.models import Notification

    ivy = make_user("ivy")
    ivy.email, ivy.preferences = "ivy@example.com", {"email_your_turn": True}
    ivy.save()
    Webhook.objects.create(
        id="wh-ivy", user=ivy, url="https://example.com/hook", secret="whsec_" + "B" * 32, active=True
    )
    inbox.notify(ivy, "invited", {"n": 0})
    postgres = connection.vendor == "postgresql"
    with django_assert_num_queries(1 if postgres else 2):
        note = inbox.notify(ivy, "your_turn", {"n": 1})
    stored = Notification.objects.get(pk=note.pk)
    assert (stored.seq, stored.type, stored.payload, stored.user_id) == (2, "your_turn", {"n": 1}, ivy.pk)
    assert _fields(stored) == _fields(note)
    assert InboxCounter.objects.get(user=ivy).last == 2
    if postgres:
        for type in ("your_turn", "invited"):
            entry = Notification(user_id=ivy.pk, type=type, payload={}, created_at=timezone.now())
            assert fanout.wants(type, *notify_sql.insert_numbered(entry)) == fanout._wants(ivy.pk, type)
        ivy.preferences = {"email_your_turn": False}
        ivy.save()
        Webhook.objects.filter(user=ivy).update(active=False)
        entry = Notification(user_id=ivy.pk, type="your_turn", payload={}, created_at=timezone.now())
        wants = fanout.wants("your_turn", *notify_sql.insert_numbered(entry))
        assert wants == fanout._wants(ivy.pk, "your_turn") == (False, False, False)


@pytest.mark.django_db
def test_a_move_is_written_in_three_statements_on_postgresql(make_user):
    """The lock and the seats, the record and the match row, the next player's inbox entry and its
    delivery preferences: one statement each on PostgreSQL; SQLite makes five. A move that hands a
    person the turn reads one more: the records since their last move (`since_your_last`)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.models import Record

    alice, bob = make_user("alma"), make_user("boris")
    created = lobby.match_create(user=alice, game="ekko", players=2, options={"target_score": 30})
    lobby.match_join(match_id=created.id, user=bob)
    match = Match.objects.get(id=created.id)
    seat = match.awaiting[0]
    mover = alice if seat == 0 else bob
    state = replay.match_state(match)
    move = replay.rules_for(match).legal_moves(state, seat)[0]
    move = replay.rules_for(match).dump_move(move)
    replay.remember(match.id, match.version, state)  # as the commit before this move did
    from notify.models import Notification

    entries = Notification.objects.count()
    with CaptureQueriesContext(connection) as queries:
        played = play.move_submit(match_id=match.id, move=move, expected_version=match.version, user=mover)
    statements = [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]  # the test's transaction
    # Most deals hand the turn on, so the next player gets an inbox entry; in some (EKKO §1.3.3: the
    # start card a multiple of 11) the mover plays again and no entry is written.
    notified = Notification.objects.count() - entries
    assert notified in (0, 1)
    postgres = connection.vendor == "postgresql"
    assert len(statements) == (2 + 2 * notified if postgres else 3 + 3 * notified), statements
    stored = Match.objects.get(id=match.id)
    assert stored.version == played.match.version == match.version + 1
    record = Record.objects.get(match=match, seq=stored.version)
    assert (record.type, record.seat, record.move) == ("move", seat, move)
    assert list(stored.awaiting) == list(played.match.awaiting)


def _played_match(make_user, moves: int) -> Match:
    """A 2-player EKKO match after ``moves`` moves, every commit's state forgotten by this process."""
    alice, bob = make_user("amos"), make_user("bea")
    created = lobby.match_create(user=alice, game="ekko", players=2, options={"target_score": 30})
    lobby.match_join(match_id=created.id, user=bob)
    for _ in range(moves):
        match = Match.objects.get(id=created.id)
        seat = match.awaiting[0]
        state = replay.full_replay(match)
        rules = replay.rules_for(match)
        move = rules.dump_move(rules.legal_moves(state, seat)[0])
        play.move_submit(match_id=match.id, move=move, expected_version=match.version, user=alice if seat == 0 else bob)
    replay.forget_all()
    return Match.objects.get(id=created.id)


@pytest.mark.django_db
@pytest.mark.parametrize("cached", ["none", "stale", "current"])
def test_a_state_read_is_one_statement_on_postgresql_whatever_the_cache(make_user, cached):
    """`GET state` reads the match, the caller's seat and the records its cached state lacks in one
    statement on PostgreSQL, and the state is the full replay's: with nothing cached, an older
    version cached (another process served the last move), or the current one."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    match = _played_match(make_user, 6)
    rules = replay.rules_for(match)
    if cached == "stale":
        old = Match.objects.get(id=match.id)
        old.version -= 3
        replay.remember(match.id, old.version, replay.full_replay(old))
    elif cached == "current":
        replay.remember(match.id, match.version, replay.full_replay(match))
    viewer = match.created_by
    with CaptureQueriesContext(connection) as queries:
        read = selectors.match_with_seat_of(match.id, viewer)
        view = selectors.match_state_view(read, read.caller_seat)
    postgres = connection.vendor == "postgresql"
    awaited = read.caller_seat in read.awaiting  # then `since_your_last`: one statement more
    assert len(queries.captured_queries) == (1 if postgres or cached == "current" else 2) + awaited
    expected = selectors.state_payload(match, rules, replay.full_replay(match), read.caller_seat)
    assert view == expected and read.caller_seat == 0


@pytest.mark.django_db
def test_a_move_after_another_process_moved_reads_its_records_with_the_lock(make_user):
    """The records this process's cache lacks come with the lock on PostgreSQL: no query for them."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    match = _played_match(make_user, 3)  # nothing cached here: the last moves were "elsewhere"
    seat = match.awaiting[0]
    rules = replay.rules_for(match)
    move = rules.dump_move(rules.legal_moves(replay.full_replay(match), seat)[0])
    mover = match.created_by if seat == 0 else Seat.objects.get(match=match, index=seat).user
    with CaptureQueriesContext(connection) as queries:
        played = play.move_submit(match_id=match.id, move=move, expected_version=match.version, user=mover)
    statements = [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]
    reads = [s for s in statements if s.startswith("SELECT")]
    summary = [s for s in reads if s.startswith("WITH own AS")]  # `since_your_last` of the next seat
    reads = [s for s in reads if s not in summary]
    record_reads = [s for s in reads if 'FROM "games_record"' in s and not s.startswith('SELECT m."id"')]
    assert len(summary) <= 1
    if connection.vendor == "postgresql":
        assert len(reads) == 1 and not record_reads, statements  # the lock brought the records
    else:
        assert len(record_reads) == 1, statements  # SQLite queries them after the lock
    stored = Match.objects.get(id=match.id)
    assert _canon(rules, played.state) == _canon(rules, replay.full_replay(stored))


def _canon(rules, state) -> str:
    import json

    return json.dumps(rules.dump_state(state), sort_keys=True)


@pytest.mark.django_db
@pytest.mark.postgresql  # SQLite runs the plain cursor
def test_the_hot_statements_are_prepared_on_postgresql(settings):
    """`core.sql` statements are parsed and planned once per connection (prepared), still logged
    with their text; with TABULA_DB_PREPARED off they are not prepared; Django's own never are."""
    from django.db import connection

    def prepared() -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            return [row[0] for row in cursor.fetchall()]

    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assert sql.fetch("SELECT %s::int + 41", [1]) == [(42,)]
        assert sql.fetch("SELECT %s::int + 41", [2]) == [(43,)]
    assert [q["sql"] for q in queries.captured_queries] == ["SELECT 1::int + 41", "SELECT 2::int + 41"]
    assert prepared().count("SELECT $1::int + 41") == 1
    Match.objects.filter(id="x").exists()  # an ORM query: client-side binding, never prepared
    assert not [text for text in prepared() if "games_match" in text]
    settings.TABULA_DB_PREPARED = False
    assert sql.fetch("SELECT %s::int + 40", [2]) == [(42,)]
    assert "SELECT $1::int + 40" not in prepared()


@pytest.mark.django_db
def test_only_a_lock_that_replays_reads_the_records(match):
    """An invitation or a rematch locks the match without folding its state: the lock reads no
    records then (a finished match's whole log); a move's lock does, on PostgreSQL."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    replay.forget_all()
    with CaptureQueriesContext(connection) as queries:
        writes.locked(match.id)
        writes.locked(match.id, replaying=True)
    plain, replaying = (q["sql"] for q in queries.captured_queries)
    assert "games_record" not in plain
    assert ("games_record" in replaying) == (connection.vendor == "postgresql")


@pytest.mark.django_db
def test_the_seats_of_a_page_are_the_orm_ones_with_their_players_names(match, make_user, django_assert_num_queries):
    other = lobby.match_create(user=make_user("dora"), game="ekko", players=3, bots=[{"seat": 2, "level": "random"}])
    bob = Seat.objects.get(match=match, index=1).user
    bob.deleted_at = timezone.now()
    bob.save(update_fields=["deleted_at"])
    ids = [match.id, other.id, "no-such-match"]
    with django_assert_num_queries(1):
        read = games_sql.seats_of(ids)
    assert set(read) == {match.id, other.id}
    for mid in (match.id, other.id):
        orm = [
            games_sql.ListedSeat(
                s.match_id,
                s.index,
                s.user.public_name if s.user else None,
                s.bot,
                s.resigned,
                s.deadline,
                s.bank_ms,
                s.consecutive_timeouts,
                s.away_until,
                s.caretaker,
            )
            for s in Seat.objects.filter(match_id=mid).select_related("user").order_by("index")
        ]
        assert read[mid] == orm
    assert [s.username for s in read[match.id]] == ["alice", "deleted player"]
    assert [s.username for s in read[other.id]] == ["dora", None, None]  # an empty seat and a bot's
    assert any(s.deadline is not None and s.deadline.tzinfo is not None for s in read[match.id])
    assert games_sql.seats_of([]) == {}


@pytest.mark.django_db
def test_deleted_players_are_found_in_one_statement(match, django_assert_num_queries):
    assert games_sql.deleted_in(match.id, match.created_by_id) == (set(), False)
    bob = Seat.objects.get(match=match, index=1).user
    bob.deleted_at = timezone.now()
    bob.save(update_fields=["deleted_at"])
    with django_assert_num_queries(1):
        assert games_sql.deleted_in(match.id, match.created_by_id) == ({1}, False)
    assert games_sql.deleted_in(match.id, bob.pk) == ({1}, True)


@pytest.mark.django_db
def test_events_read_the_deleted_players_with_the_match_on_postgresql(match, make_user, django_assert_num_queries):
    """``GET events`` reads the match, the caller's seat and the deleted players in one statement on
    PostgreSQL (`games.sql.deleted_tail`), as `deleted_in` answers; elsewhere `deleted_in` asks."""
    from django.db import connection

    from games import selectors

    postgres = connection.vendor == "postgresql"
    alice = Seat.objects.get(match=match, index=0).user
    for deleted in ([], [1], [0, 1]):
        for index in deleted:
            user = Seat.objects.get(match=match, index=index).user
            user.deleted_at = timezone.now()
            user.save(update_fields=["deleted_at"])
        with django_assert_num_queries(1):
            read = selectors.match_and_seat_of(match.id, alice)
        assert read.caller_seat == 0
        want = games_sql.deleted_in(match.id, match.created_by_id)
        assert want == (
            {*deleted},
            match.created_by_id in {Seat.objects.get(match=match, index=i).user_id for i in deleted},
        )
        assert (read.deleted_players == want) if postgres else not hasattr(read, "deleted_players")
        with django_assert_num_queries(1 if postgres else 2):  # the log page (and, elsewhere, `deleted_in`)
            events = selectors.event_list(match=read, user=alice)
        assert events == selectors.event_list(match=selectors.match_get(match.id), user=alice)  # `deleted_in`'s way


@pytest.mark.django_db
@pytest.mark.parametrize("after,limit", [(0, 500), (0, 2), (3, 2), (0, 1), (10**6, 5)])
def test_events_read_their_page_with_the_match_on_postgresql(match, after, limit, django_assert_num_queries):
    """``GET events`` reads the page with the match on PostgreSQL (``archive.log_tail``): the records
    `archive.log` reads alone, in the same order and values; ``event_list`` then asks nothing more
    (elsewhere it reads the page itself). Another page than the one read is read as before."""
    from django.db import connection

    from games import archive, selectors

    postgres = connection.vendor == "postgresql"
    alice = Seat.objects.get(match=match, index=0).user
    with django_assert_num_queries(1):
        read = selectors.match_and_seat_of(match.id, alice, page=(after, limit))
    alone = archive.log(match, after=after, limit=limit)
    assert (read.log_page == ((after, limit), alone)) if postgres else not hasattr(read, "log_page")
    if after == 0:
        assert alone  # the match has records: the comparison above compared some
    with django_assert_num_queries(0 if postgres else 1 + bool(alone)):  # elsewhere: the page, `deleted_in`
        events = selectors.event_list(match=read, user=alice, after=after, limit=limit)
    assert events == selectors.event_list(match=selectors.match_get(match.id), user=alice, after=after, limit=limit)
    later = archive.log(match, after=after + 1, limit=limit)
    with django_assert_num_queries(1 if postgres else 1 + bool(later)):  # another page: read on its own
        other = selectors.event_list(match=read, user=alice, after=after + 1, limit=limit)
    assert other == selectors.event_list(match=selectors.match_get(match.id), user=alice, after=after + 1, limit=limit)


def _waiting_by_the_orm(user) -> list[tuple[Any, ...]]:
    return list(
        Seat.objects.filter(user=user, match__status=Match.Status.ACTIVE, resigned=False, bot="").values_list(
            "index",
            "deadline",
            "match_id",
            "match__game",
            "match__version",
            "match__awaiting",
            "match__timer_deadline",
            "match__updated_at",
        )
    )


def _waiting(user_id: int) -> list[tuple[Any, ...]]:
    """`games_sql.waiting_seats`'s rows in `_waiting_by_the_orm`'s columns (in match id and seat order)."""
    return [
        (s.index, s.deadline, m.id, m.game, m.version, m.awaiting, m.timer_deadline, m.updated_at)
        for s, m in games_sql.waiting_seats(user_id)
    ]


@pytest.mark.django_db
def test_the_waiting_seats_are_the_orm_ones(match, make_user):
    """The statement finds the active seats by the seat's copy of its match's status: it must agree
    with the ORM, which reads the match's own, for every kind of seat a player may have."""
    alice, bob = match.created_by, Seat.objects.get(match=match, index=1).user
    carol, dave = make_user("carol"), make_user("dave")
    private = lobby.match_create(user=alice, game="ekko", players=2, options={"target_score": 30}, private=True)
    lobby.match_join(match_id=private.id, user=carol)
    lobby.match_create(user=alice, game="ekko", players=2)  # open: not yet anyone's turn
    finished = lobby.match_create(user=dave, game="ekko", players=2)
    lobby.match_join(match_id=finished.id, user=alice)
    play.match_resign(match_id=finished.id, user=alice)  # she resigned, and so it ended
    three = lobby.match_create(user=carol, game="ekko", players=3, options={"target_score": 30})
    lobby.match_join(match_id=three.id, user=alice)
    lobby.match_join(match_id=three.id, user=dave)
    play.match_resign(match_id=three.id, user=alice)  # she resigned; it goes on without her
    with_bot = lobby.match_create(user=dave, game="ekko", players=2, bots=[{"seat": 1, "level": "random"}])
    assert Match.objects.get(id=with_bot.id).status == Match.Status.ACTIVE
    assert Match.objects.get(id=three.id).status == Match.Status.ACTIVE
    for user in (alice, bob, carol, dave):
        assert _waiting(user.pk) == sorted(_waiting_by_the_orm(user), key=lambda row: (row[2], row[0]))
    assert {m for _, _, m, *_ in _waiting(alice.pk)} == {match.id, private.id}
    assert {m for _, _, m, *_ in _waiting(dave.pk)} == {three.id, with_bot.id}
    assert isinstance(games_sql.waiting_seats(alice.pk)[0][1].awaiting, list)


@pytest.mark.django_db
@pytest.mark.parametrize(("after", "upto", "limit"), [(0, None, None), (2, None, 3), (1, 4, None), (0, 3, 2)])
def test_a_live_log_reads_as_the_orm_reads_it(match, after, upto, limit):
    from games import archive
    from games.models import Record

    query = Record.objects.filter(match_id=match.id, seq__gt=after)
    if upto is not None:
        query = query.filter(seq__lte=upto)
    orm = list(query.order_by("seq")[:limit] if limit is not None else query.order_by("seq"))
    read = archive.records(match, after=after, upto=upto, limit=limit)
    assert orm and [_fields(r) for r in read] == [_fields(r) for r in orm]


def test_the_records_since_a_seats_own_move_are_the_orm_ones(make_user):
    """`since_your_last`'s statement answers what the ORM's query with the seat's latest move or
    timeout as a subquery answers, for every seat and every end, a cap below the count included."""
    from django.db.models import Subquery
    from django.db.models.functions import Coalesce

    from games import sql as games_sql
    from games.models import Record

    match = _played_match(make_user, 9)
    checked = 0
    for seat in range(match.players):
        for end in range(1, match.version + 2):
            for cap in (3, 20):
                own = (
                    Record.objects.filter(match=match, seat=seat, seq__lt=end, type__in=("move", "timeout"))
                    .order_by("-seq")
                    .values("seq")[:1]
                )
                expected = list(
                    Record.objects.filter(match=match, seq__lt=end, seq__gt=Coalesce(Subquery(own), 0))
                    .annotate(own=Coalesce(Subquery(own), 0))
                    .order_by("-seq")[:cap]
                )
                found, own_seq = games_sql.records_since_own(match.id, seat, end, cap)
                assert [_fields(r) for r in found] == [_fields(r) for r in expected], (seat, end, cap)
                if expected:
                    assert own_seq == expected[0].own
                    checked += 1
                assert all(isinstance(r.effects, list) for r in found)  # JSON decoded, as the ORM gives it
    assert checked > match.players  # most ends have records after some seat's move


@pytest.mark.django_db
def test_away_is_the_orm_answer(make_user):
    """A move asks whether its player is away: an open absence, not an ended one, not someone else's."""
    from games import sql as games_sql
    from games.models import Absence

    ada, bo = make_user("ada"), make_user("bo")
    now = timezone.now()
    assert games_sql.is_away(ada.pk) is False
    Absence.objects.create(user=ada, started_at=now, until=now + timedelta(hours=1), ended_at=now)
    assert games_sql.is_away(ada.pk) is False
    Absence.objects.create(user=ada, started_at=now, until=now + timedelta(hours=2))
    assert games_sql.is_away(ada.pk) is True and games_sql.is_away(bo.pk) is False
    for user in (ada, bo):
        assert games_sql.is_away(user.pk) == Absence.objects.filter(user=user, ended_at__isnull=True).exists()


@pytest.mark.django_db
def test_a_log_read_for_events_has_the_records_values(make_user):
    """`archive.log` (no model instances) gives each record's values as the ORM reads them: JSON
    decoded, times aware, in order, after and limit applied."""
    from games import archive
    from games.models import Record

    match = _played_match(make_user, 7)
    fields = ("seq", "type", "seat", "actor", "move", "effects", "data", "at")
    for after, limit in ((0, None), (3, None), (2, 4), (match.version, None)):
        expected = Record.objects.filter(match=match, seq__gt=after).order_by("seq")
        expected = list(expected[:limit] if limit is not None else expected)
        found = archive.log(match, after=after, limit=limit)
        assert [tuple(getattr(r, f) for f in fields) for r in found] == [
            tuple(getattr(r, f) for f in fields) for r in expected
        ], (after, limit)
    found = archive.log(match)
    assert found[-1].at.tzinfo is not None and isinstance(found[0].data, dict) and isinstance(found[-1].effects, list)
    assert any(r.move for r in found)


NAMES = ("Ada", "ada", "ADA", "Bert", "bert", "Cleo", "Dora", "nobody", "ada-x")


def _named_accounts(make_user: Any) -> list[Any]:
    """Accounts whose names collide: Ada; an older keyless account named exactly "ADA" (made first,
    so with a smaller id); keyless Bert; deleted Cleo; deactivated Dora. Read back fresh."""
    from accounts.models import User

    shadow = make_user("ada-x")
    ada = make_user("Ada")
    keyless = make_user("Bert")
    User.objects.filter(pk=keyless.pk).update(username_key=None)  # older than the keys
    gone = make_user("Cleo")
    User.objects.filter(pk=gone.pk).update(deleted_at=timezone.now())
    idle = make_user("Dora")
    User.objects.filter(pk=idle.pk).update(is_active=False)
    User.objects.filter(pk=shadow.pk).update(username="ADA", username_key=None)  # exact "ADA", no key
    return [User.objects.get(pk=u.pk) for u in (shadow, ada, keyless, gone, idle)]


@pytest.mark.django_db
def test_an_account_by_name_is_the_orm_answer(make_user):
    """`by_name` in one statement answers what the ORM's two queries answered: by normalised key
    first, else the exact name (an account without a key), active and not deleted, by id."""
    from accounts import usernames
    from accounts.models import User

    def orm(username: str) -> User | None:
        active = User.objects.filter(is_active=True, deleted_at__isnull=True)
        key = usernames.key(username)
        return active.filter(username_key=key).first() or active.filter(username=username).first()

    _, ada, keyless, _, _ = _named_accounts(make_user)
    for name in NAMES:
        found, expected = accounts_sql.active_by_name(usernames.key(name), name), orm(name)
        assert (found and found.pk) == (expected and expected.pk), name
        if expected is not None:
            assert _fields(found) == _fields(expected)
    assert accounts.by_name("ADA").pk == ada.pk  # the key wins over an exact name
    assert accounts.by_name("Bert").pk == keyless.pk and accounts.by_name("Cleo") is None


@pytest.mark.django_db
def test_an_account_reading_its_own_name_is_found_without_a_query(make_user, django_assert_num_queries):
    """`by_name(name, viewer)` answers what the lookup answers, for every viewer and name (itself by
    another case, a keyless account, a deleted or deactivated one, a stranger); the viewer itself,
    when its key is the name's, without a query."""
    viewers = _named_accounts(make_user)
    for viewer in viewers:
        for name in NAMES:
            expected = accounts.by_name(name)
            found = accounts.by_name(name, viewer)
            assert (found and found.pk) == (expected and expected.pk), (viewer.username, name)
    own = viewers[1]  # Ada
    with django_assert_num_queries(0):
        assert accounts.by_name("ada", own) is own
    with django_assert_num_queries(1):  # "ADA" the keyless shadow reads is Ada's by key: looked up
        assert accounts.by_name("ADA", viewers[0]).pk == own.pk


@pytest.mark.django_db
def test_a_log_read_keeps_every_json_value_time_and_key_order(make_user):
    """The log read in one JSON document (PostgreSQL) gives back what the columns hold: floats,
    big integers, text beyond ASCII, nulls, jsonb's order of keys, and times with and without a
    fraction of a second; the rendered events are the same bytes as from the ORM's records."""
    import json
    from datetime import UTC, datetime

    from games import archive
    from games.models import Record

    match = _played_match(make_user, 3)
    odd = {"zeta": 1.0, "a": [1e-7, 2**53 + 1, -0.5], "ünï": "Grüße 🎲", "n": None, "nested": {"b": 2, "aa": True}}
    at_whole = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    at_fraction = datetime(2026, 1, 2, 3, 4, 5, 120000, tzinfo=UTC)
    for n, at in enumerate((at_whole, at_fraction), start=match.version + 1):
        Record.objects.create(
            match=match, seq=n, type="paused", seat=None, actor="system", move=odd, effects=[odd], data=odd, at=at
        )
    fields = ("seq", "type", "seat", "actor", "move", "effects", "data", "at")
    expected = list(Record.objects.filter(match=match).order_by("seq"))
    found = archive.log(match)
    assert [tuple(getattr(r, f) for f in fields) for r in found] == [
        tuple(getattr(r, f) for f in fields) for r in expected
    ]
    for a, b in zip(found, expected, strict=True):
        assert json.dumps([a.move, a.effects, a.data]) == json.dumps([b.move, b.effects, b.data])  # key order too
        assert a.at.isoformat() == b.at.isoformat()
    assert found[-2].at == at_whole and found[-1].at == at_fraction


@pytest.mark.django_db
def test_a_profiles_tallies_and_ratings_are_the_orm_ones(make_user):
    """`games.sql.tallies_of` and `accounts.sql.ratings_of` (a profile reads both on every read)
    answer the ORM's rows, values and order: tallies by when their game was first finished (ties:
    the match id), ratings by game; another player's never."""
    from datetime import UTC, datetime

    from accounts import sql as accounts_sql
    from accounts.models import Rating
    from games.models import Tally

    ada, bo = make_user("ada"), make_user("bo")
    first = datetime(2026, 3, 1, tzinfo=UTC)
    for n, (game, at, match_id) in enumerate(
        [("enka", first, "b"), ("ekko", first, "a"), ("eko", datetime(2026, 1, 1, tzinfo=UTC), "z"), ("ecos", None, "")]
    ):
        Tally.objects.create(
            user=ada, game=game, played=n + 1, score_sum=n / 3, first_finished_at=at, first_match_id=match_id
        )
        Rating.objects.create(user=ada, game=game, mu=20 + n, sigma=7 - n, matches=n, rating=1500 + n, rank=n or None)
    Tally.objects.create(user=bo, game="ekko", played=9)
    Rating.objects.create(user=bo, game="ekko", mu=25, sigma=8)

    tallies = games_sql.tallies_of(ada.pk)
    expected = list(Tally.objects.filter(user=ada).order_by("first_finished_at", "first_match_id"))
    assert [t.game for t in tallies] == [t.game for t in expected]
    assert [model_to_dict(t) for t in tallies] == [model_to_dict(t) for t in expected]
    ratings = accounts_sql.ratings_of(ada.pk)
    assert [model_to_dict(r) for r in ratings] == [model_to_dict(r) for r in ada.ratings.all()]
    assert [r.game for r in ratings] == ["ecos", "ekko", "eko", "enka"]
    assert games_sql.tallies_of(bo.pk)[0].played == 9 and len(accounts_sql.ratings_of(bo.pk)) == 1

    # A profile reads both with its matches in one round trip: the same rows as each alone.
    reads = games_sql.profile_reads(ada.pk, 10, selectors.SUMMARY_ATTNAMES)
    assert [model_to_dict(t) for t in reads.tallies] == [model_to_dict(t) for t in tallies]
    assert [model_to_dict(r) for r in reads.ratings] == [model_to_dict(r) for r in ratings]
    assert (reads.active, reads.recent) == games_sql.profile_matches(ada.pk, 10, selectors.SUMMARY_ATTNAMES)
    assert games_sql.profile_reads(bo.pk, 10, selectors.SUMMARY_ATTNAMES).tallies[0].played == 9


@pytest.mark.django_db
@pytest.mark.parametrize("span", [0, 1, 5])
def test_a_leaderboard_around_a_player_is_the_orm_answer(make_user, span):
    """`accounts.sql.around` in one statement answers what the ORM's two queries answered (the
    player's rating by normalised name among active users, then the ranks either side): for a
    player at the top, in the middle, at the bottom, not listed, without a rating, deactivated,
    and a name of another case."""
    from accounts import selectors as account_selectors
    from accounts import usernames
    from accounts.models import Rating, User

    players = [make_user(f"Rank{i}") for i in range(12)]
    for i, user in enumerate(players[:10]):
        Rating.objects.create(user=user, game="ekko", mu=25, sigma=8, rating=2000 - i, matches=i, rank=i + 1)
    Rating.objects.create(user=players[10], game="ekko", mu=25, sigma=8, matches=1, rank=None)  # rated, not listed
    Rating.objects.create(user=players[3], game="enka", mu=25, sigma=8, rank=1)  # another board
    User.objects.filter(pk=players[9].pk).update(is_active=False)

    def orm(username: str) -> tuple[int | None, int, list[tuple[Any, ...]]] | None:
        key = usernames.key(username)
        mine = Rating.objects.filter(game="ekko", user__username_key=key, user__is_active=True).first()
        if mine is None:
            return None
        if mine.rank is None:
            return mine.rank, mine.matches, []
        rows = Rating.objects.filter(game="ekko", rank__gte=max(1, mine.rank - span), rank__lte=mine.rank + span)
        return (
            mine.rank,
            mine.matches,
            list(rows.order_by("rank").values_list("rank", "rating", "matches", "user__username")),
        )

    for name in ("Rank0", "rank4", "RANK8", "Rank9", "Rank10", "Rank11", "nobody"):
        assert accounts_sql.around("ekko", usernames.key(name), span) == orm(name), name
    near = account_selectors.leaderboard_around("ekko", "Rank0", span=span)
    assert near is not None and near.rank == 1 and near.provisional  # no rated game yet
    assert [entry[0] for entry in near.entries] == list(range(1, 2 + span))
