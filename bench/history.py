"""Section 9: history reads at scale (issue 31): 100,000 matches, millions of records, 10,000
players, next to ``GET games``, on the real front.

Two real matches are played first through the services (a finished EKKO match of four, and one
still running); the database is then filled with copies of them (their records, seats moved to
random players, creation times spread over a year), made by the database itself from the templates'
rows (`_copy`), so every copy replays to a real state; every build deals the same two games
(`TEMPLATE_SEED`). The front (one process, one
thread) then answers, as one player who sits in about MATCHES × 4 / PLAYERS of them, the reads a
history page makes, interleaved with ``GET games``: ``users/{name}/matches``, ``matches?mine=true``,
``me/turns``, the profile ``users/{name}``, ``events?after=0`` of a finished match, and ``GET
state`` of a match never read before (cold: the copies were made around the services, so no shared
snapshot exists; the final state the template kept when it ended is copied with it, so a cold read
unpickles it; a second set has it deleted, as a match that ended before final states were kept:
a full replay) and again (warm). It does so twice: without Redis (the embedded
default), then, when a Redis server answers (``BENCH_REDIS_URL``, db 12 by default, flushed), with
it as deployed: token lookups and the summaries of ended matches cached per process
(`accounts.tokencache`, `api.summaries`). ``BENCH_HISTORY_MATCHES`` and ``BENCH_HISTORY_PLAYERS``
scale it.
"""

from __future__ import annotations

import os
import random
import time
from datetime import timedelta
from pathlib import Path
from typing import Any
from unittest import mock

from bench.boards import against_games, expect_seconds
from bench.client import Client
from bench.common import heading, median, ms, p90
from bench.infra import Database, environment, front, migrate
from bench.reads import SERVER, SETTINGS, setup_django

MATCHES = int(os.environ.get("BENCH_HISTORY_MATCHES", "100000"))
PLAYERS = int(os.environ.get("BENCH_HISTORY_PLAYERS", "10000"))
ACTIVE_SHARE = 0.02  # of the copies, still running
REQUESTS = 200
WARMUP = 20
COLD = 20  # matches read cold, each once
REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/12")  # for the second pass, when it answers
BATCH = 5000
COPY_BATCH = 10_000  # copies per statement: progress is printed after each
#: The templates' match seed, so that every build deals and plays the same two games: a new deal
#: each build gave 52 to 105 records a finished match (the events and a cold state read them all),
#: and builds did not compare.
TEMPLATE_SEED = 3  # 79 records a finished match, about the middle of what new deals gave


def _copy(copies: list[tuple[Any, ...]]) -> None:
    """The copies, made by the database from their templates (`_build`): a temporary table names each
    copy's id, template, batch, time and players; then, batch by batch, one ``INSERT … SELECT`` each
    for the matches, their seats, their records and a finished one's final state, every column the
    template's but the copy's own (id, creator, times, players; no invitation code, no rematch link).
    Building millions of model instances in Python and sending them back took 21 minutes for 100,000
    copies."""
    from django.db import connection

    from games.models import FinalState, Match, Record, Seat

    quote = connection.ops.quote_name
    postgres = connection.vendor == "postgresql"
    connection.ensure_connection()
    # On PostgreSQL, psycopg's own cursor: a batch's statements take longer than the service's
    # deadline (`core.postgresql`'s watchdog would sever the connection), and autocommit stands.
    with connection.connection.cursor() if postgres else connection.cursor() as cursor:
        if postgres:
            cursor.execute("SET statement_timeout = 0")
        cursor.execute(
            "CREATE TEMPORARY TABLE bench_copy (id varchar(32) PRIMARY KEY, template varchar(32), batch integer,"
            " at timestamp with time zone, u0 integer, u1 integer, u2 integer, u3 integer)"
        )
        cursor.executemany(
            "INSERT INTO bench_copy VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            [(*c[:3], connection.ops.adapt_datetimefield_value(c[3]), *c[4:]) for c in copies],
        )
        player = 'CASE t."index" WHEN 0 THEN c.u0 WHEN 1 THEN c.u1 WHEN 2 THEN c.u2 ELSE c.u3 END'
        match_own = {"id": "c.id", "created_by_id": "c.u0", "created_at": "c.at", "updated_at": "c.at"}
        statements = [
            _insert_select(Match, {**match_own, "invite_code": "NULL", "rematch_of_id": "NULL"}, quote),
            _insert_select(Seat, {"match_id": "c.id", "user_id": player, "match_created_at": "c.at"}, quote),
            _insert_select(Record, {"match_id": "c.id", "at": "c.at"}, quote),
            # the final state the services kept when the template ended (`games.replay.keep_final`):
            # a copy replays to the same state, so it is the copy's as well
            _insert_select(FinalState, {"match_id": "c.id"}, quote, key="match_id"),
        ]
        batches = copies[-1][2] + 1 if copies else 0
        started = time.perf_counter()
        for batch in range(batches):
            for sql in statements:
                cursor.execute(sql, [batch])
            made = min((batch + 1) * COPY_BATCH, len(copies))
            print(f"   … {made:,} of {len(copies):,} copies made ({time.perf_counter() - started:.0f} s)", flush=True)
        cursor.execute("DROP TABLE bench_copy")


def _insert_select(model: Any, own: dict[str, str], quote: Any, key: str = "") -> str:
    """``INSERT`` into ``model``'s table, for each copy of a batch, of its template's rows (``t``)
    with the columns in ``own`` (by attribute name) the copy's (``c``); a new id where the key is one.
    ``key``: the template's column to join on, when not ``id`` or ``match_id`` as the key says."""
    fields = [f for f in model._meta.concrete_fields if not (f.primary_key and f.attname not in own)]
    values = ", ".join(own.get(f.attname, f"t.{quote(f.column)}") for f in fields)
    key = key or ("id" if model._meta.pk.attname in own else "match_id")
    return (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f in fields)})"
        f" SELECT {values} FROM bench_copy c JOIN {quote(model._meta.db_table)} t ON t.{quote(key)} = c.template"
        " WHERE c.batch = %s"
    )


def _build() -> tuple[str, str, list[str], dict[str, float]]:
    """The players, the two templates and their copies; the reader's username and token, a finished
    match of theirs, matches of theirs to read cold, and the build's timings."""
    from django.utils import timezone

    from accounts import usernames
    from accounts.models import User
    from accounts.services import token_for
    from bench import matches
    from games import tallies
    from games.models import Match
    from games.services.writes import new_match_id as new_id

    timings: dict[str, float] = {}
    started = time.perf_counter()
    people = [
        User(
            username=f"hist-{i}",
            username_key=usernames.key(f"hist-{i}"),
            username_skeleton=usernames.skeleton(f"hist-{i}"),
            password="!",
        )
        for i in range(PLAYERS)
    ]
    User.objects.bulk_create(people, batch_size=BATCH)
    ids = list(User.objects.filter(username__startswith="hist-").order_by("id").values_list("id", flat=True))
    timings["players"] = time.perf_counter() - started

    seated = matches.people(4)
    with mock.patch("secrets.randbits", lambda bits: TEMPLATE_SEED):  # the services' seed for a new match
        finished = matches.build(matches.Spec("ekko", 4, {"target_score": 5}, 10_000), seated, seed=1)
        running = matches.build(matches.Spec("ekko", 4, {"target_score": 100}, 40), seated, seed=2)
    rng = random.Random(31)
    now = timezone.now()
    started = time.perf_counter()
    reader_id = ids[0]
    reader_matches: list[str] = []
    copies: list[tuple[Any, ...]] = []  # (id, template, batch, at, player of seat 0 … 3)
    for made in range(MATCHES):
        template = running.match_id if rng.random() < ACTIVE_SHARE else finished.match_id
        at = now - timedelta(seconds=rng.uniform(0, 365 * 86400))
        users = rng.sample(ids, 4)
        if made < MATCHES // 250 and reader_id not in users:  # the reader sits in a few hundredths more
            users[rng.randrange(4)] = reader_id
        match_id = new_id()
        copies.append((match_id, template, made // COPY_BATCH, at, *users))
        if reader_id in users:
            reader_matches.append(match_id)
    _copy(copies)
    timings["copies"] = time.perf_counter() - started
    started = time.perf_counter()
    tallies.rebuild()  # the copies went around the services, which keep the tallies the profile reads
    timings["tallies"] = time.perf_counter() - started
    reader = User.objects.get(id=reader_id)
    mine = list(Match.objects.filter(id__in=reader_matches, status=Match.Status.FINISHED).values_list("id", flat=True))
    return reader.username, token_for(reader), mine, timings


def _sizes() -> dict[str, int]:
    from django.db import connection

    if connection.vendor != "postgresql":
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, pg_total_relation_size(oid) FROM pg_class WHERE relname IN "
            "('games_record', 'games_match', 'games_seat', 'games_archivedlog')"
        )
        return dict(cursor.fetchall())


def run(var_dir: Path, database: Database) -> None:
    heading(f"9. History at scale: {MATCHES:,} matches, {PLAYERS:,} players vs GET games (real server)")
    env = {**environment(var_dir, database, SETTINGS), "TABULA_RATE_LIMITS": "off"}
    migrate(env)
    setup_django(env)
    from django.db import connection, transaction

    from games.models import FinalState, Match, Record

    username, token, mine, timings = _build()
    _settle()
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL statement_timeout = 0")  # the service's own bound is for requests
        counts = (Match.objects.count(), Record.objects.count())  # millions of rows: no timeout here either
    print(f"   database: {database.kind} ({database.label})")
    print(
        f"   built: {counts[0]:,} matches, {counts[1]:,} records "
        f"(players {timings['players']:.0f} s, copies {timings['copies']:.0f} s, tallies {timings['tallies']:.0f} s); "
        f"the reader {username} sits in {len(mine):,} finished ones"
    )
    for table, size in sorted(_sizes().items()):
        print(f"   {table}: {size / 2**20:,.0f} MB with its indexes")
    some = mine[0]
    paths = {
        "users/{name}/matches": f"/users/{username}/matches",
        "matches?mine=true": "/matches?mine=true",
        "me/turns": "/me/turns",
        "users/{name} (profile)": f"/users/{username}",
        "events?after=0": f"/matches/{some}/events?after=0",
        "state, warm": f"/matches/{some}/state",
    }
    redis_url = REDIS if _redis_answers(REDIS) else ""
    variants: list[tuple[str, dict[str, str]]] = [("no Redis (the embedded default)", {})]
    if redis_url:  # as deployed: the token cache, and with it the cache of ended matches' summaries
        variants.append((f"Redis ({redis_url}): token and summary caches", {"REDIS_URL": redis_url}))
    # Matches read cold with nothing kept: their final states deleted, as a match that ended before
    # final states were kept (or one still running) has none: a full replay, as every cold read was.
    unkept = [mine[1 + (3 + n) * COLD : 1 + (4 + n) * COLD] for n in range(len(variants))]
    FinalState.objects.filter(match_id__in=[m for ids in unkept for m in ids]).delete()
    for n, (label, extra) in enumerate(variants):
        with front({**env, **extra}, var_dir / f"history-server-{n}.log", **SERVER) as server:
            client = Client(server.base)
            print(f"   front: {label}")
            _reads(client, token, paths, mine[1 + n * COLD : 1 + (n + 1) * COLD], unkept[n])
            if n == len(variants) - 1:
                _archived_reads(client, token, mine[1 + len(variants) * COLD : 1 + (len(variants) + 1) * COLD])
            client.close()


def _reads(client: Client, token: str, paths: dict[str, str], cold_ids: list[str], unkept: list[str]) -> None:
    """Each of ``paths`` against ``GET games``, then ``GET state`` of ``cold_ids`` (their final
    states kept) and of ``unkept`` (none kept: replayed), each read once."""
    against_games(client, token, paths, WARMUP, REQUESTS, goal="  (goal: within 2×)")
    for label, ids in (("state, cold", cold_ids), ("state, cold, replayed", unkept)):
        cold, games = [], []
        for match_id in ids:
            cold.append(expect_seconds(client, f"/matches/{match_id}/state", token))
            games.append(expect_seconds(client, "/games", token))
        if cold:
            print(
                f"   {label + ' (' + str(len(cold)) + ')':28} {ms(median(cold)):>9} {ms(p90(cold)):>9} "
                f"{ms(median(games)):>10} {median(cold) / median(games):>6.2f}×"
            )


def _redis_answers(url: str) -> bool:
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=0.5).flushdb()  # no snapshot of an earlier run's
    except Exception:
        return False
    return True


def _settle() -> None:
    """The tables as autovacuum leaves them after a bulk insert: fresh statistics, and on PostgreSQL
    the visibility map set (``VACUUM``), so that an index-only scan (a history page's seats) reads no
    rows from the heap. Only ``ANALYZE`` left every one of the reader's seats to be fetched."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            cursor.execute("ANALYZE")
            return
        cursor.execute("SET statement_timeout = 0")  # outside a transaction: VACUUM can't run in one
        try:
            cursor.execute("VACUUM (ANALYZE)")
        finally:
            cursor.execute("SET statement_timeout = DEFAULT")


def _archive_all() -> tuple[int, float]:
    """Every finished match into its archive row, as the hourly job would over time; then VACUUM FULL
    of the records table, so that its size on disk is what is left (autovacuum would reuse the space
    instead of returning it)."""
    from django.db import connection

    from games import archive
    from games.models import Match

    ids = list(
        Match.objects.filter(status=Match.Status.FINISHED, archived_at__isnull=True).values_list("id", flat=True)
    )
    started = time.perf_counter()
    done = sum(len(archive.archive_many(ids[i : i + 500])) for i in range(0, len(ids), 500))
    took = time.perf_counter() - started
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET statement_timeout = 0")
            cursor.execute("VACUUM FULL games_record")
            cursor.execute("SET statement_timeout = DEFAULT")
    return done, took


def _archived_reads(client: Client, token: str, ids: list[str]) -> None:
    """Issue 30's row: the tables before and after archiving every finished match, then ``GET state``
    (cold) and ``events`` of archived matches against ``GET games``."""
    before = _sizes()
    done, took = _archive_all()
    after = _sizes()
    print(f"   archived {done:,} finished matches in {took:.0f} s ({done / max(took, 1e-9):,.0f}/s)")
    for table in sorted(set(before) | set(after)):
        print(f"   {table}: {before.get(table, 0) / 2**20:,.0f} MB before, {after.get(table, 0) / 2**20:,.0f} MB after")
    cold, events, games = [], [], []
    for match_id in ids:
        cold.append(expect_seconds(client, f"/matches/{match_id}/state", token))
        games.append(expect_seconds(client, "/games", token))
        events.append(expect_seconds(client, f"/matches/{match_id}/events?after=0", token))
        games.append(expect_seconds(client, "/games", token))
    if cold:
        for label, times in ((f"archived state, cold ({len(cold)})", cold), ("archived events?after=0", events)):
            print(
                f"   {label:28} {ms(median(times)):>9} {ms(p90(times)):>9} {ms(median(games)):>10} "
                f"{median(times) / median(games):>6.2f}×"
            )
