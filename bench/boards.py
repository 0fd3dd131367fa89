"""Section 5: a leaderboard of 100,000 rated players next to ``GET games``, on the real front.

The board is built in-process (bulk inserts), its ranks stored by ``leaderboard_refresh`` (timed:
the statement that runs after every rated match and hourly), then the front (one process, one thread) answers
``GET leaderboards/{game}`` (the first page, and a page deep in the board by its cursor) and
``GET leaderboards/{game}/around/{username}``, interleaved with ``GET games``.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from bench.client import Client, expect
from bench.common import heading, median, ms, p90
from bench.infra import Database, environment, front, migrate
from bench.reads import SERVER, SETTINGS, setup_django

PLAYERS = 100_000
REQUESTS = 200
WARMUP = 20
GAME = "ekko"


def _build() -> tuple[str, float]:
    from django.utils import timezone

    from accounts import usernames
    from accounts.models import Rating, User
    from accounts.services import token_for
    from games.ratings import displayed, leaderboard_refresh

    rng = random.Random(13)
    users = []
    for i in range(PLAYERS):
        name = f"board-{i}"
        users.append(
            User(
                username=name,
                username_key=usernames.key(name),
                username_skeleton=f"{usernames.skeleton(name)}",
                password="!",
            )
        )
    User.objects.bulk_create(users, batch_size=5000)
    ids = list(User.objects.filter(username__startswith="board-").values_list("id", flat=True))
    now = timezone.now()
    ratings = []
    for uid in ids:
        mu, sigma = rng.gauss(25, 5), rng.uniform(1, 4)
        ratings.append(
            Rating(
                user_id=uid,
                game=GAME,
                mu=mu,
                sigma=sigma,
                matches=rng.randint(10, 200),
                rating=displayed(mu, sigma),
                rated_at=now,
            )
        )
    Rating.objects.bulk_create(ratings, batch_size=5000)
    started = time.perf_counter()
    leaderboard_refresh(GAME)
    refresh = time.perf_counter() - started
    reader = User.objects.get(username="board-0")
    return token_for(reader), refresh


def run(var_dir: Path, database: Database) -> None:
    heading(f"5. Leaderboards: a board of {PLAYERS:,} rated players vs GET games (real server)")
    env = {**environment(var_dir, database, SETTINGS), "TABULA_RATE_LIMITS": "off"}
    migrate(env)
    setup_django(env)
    token, refresh = _build()
    print(f"   database: {database.kind} ({database.label})")
    print(f"   rank refresh (one UPDATE with a window over the whole board): {refresh:.2f} s")
    paths = {
        "board, first page": f"/leaderboards/{GAME}?limit=50",
        "board, page at rank 50,000": f"/leaderboards/{GAME}?limit=50&cursor=50000",
        "around a player": f"/leaderboards/{GAME}/around/board-{PLAYERS // 2}",
    }
    with front(env, var_dir / "boards-server.log", **SERVER) as server:
        client = Client(server.base)
        against_games(client, token, paths, WARMUP, REQUESTS)
        client.close()


def against_games(
    client: Client, token: str, paths: dict[str, str], warmup: int, requests: int, goal: str = ""
) -> None:
    """A row per path: its p50 and p90 and its p50 over ``GET games``'s, each request of the path
    followed by one of ``GET games`` (the machine's noise falls on both), after ``warmup`` rounds."""
    for _ in range(warmup):
        expect(client.get("/games", token=token), 200, "GET games")
        for path in paths.values():
            expect(client.get(path, token=token), 200, path)
    print(f"   {'request':28} {'p50':>9} {'p90':>9} {'games p50':>10} {'ratio':>7}{goal}")
    for label, path in paths.items():
        times, games = [], []
        for _ in range(requests):
            times.append(expect_seconds(client, path, token))
            games.append(expect_seconds(client, "/games", token))
        ratio = median(times) / median(games)
        print(
            f"   {label:28} {ms(median(times)):>9} {ms(p90(times)):>9} {ms(median(games)):>10} {ratio:>6.2f}×",
            flush=True,
        )


def expect_seconds(client: Client, path: str, token: str) -> float:
    reply = client.get(path, token=token)
    if reply.status != 200:
        raise RuntimeError(f"{path}: HTTP {reply.status} {reply.body[:200]!r}")
    return reply.seconds
