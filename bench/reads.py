"""Section 2: ``GET state`` of long matches next to ``GET games``, against the real front.

Matches are built in-process (`bench.matches`) on the bench database, then the front (`python -m
front`, one process with one thread) serves them, so its per-process state cache is what a read
hits. For each match: the cold first ``GET state`` (this process holds nothing of it: it starts
from the shared snapshot the writes left, `games.replay`, and folds the records after it), then
REQUESTS requests alternating ``GET state`` and ``GET games`` after a warm-up, both as the seat-0
player over one keep-alive connection. Each row is built COPIES times so that the cold read, which can be taken
only once per match and server, is a median too.

EKKO caps ``target_score`` at 100, and random games end long before 5,000 records (about 1,000 at
4 players, 1,500 at 8): the EKKO row asked for 5,000 keeps the longest of several random 8-player
games, finished; the Enka row, at Enka's cap of 10,000 points (issue 10's bounds), is likewise the
longest of several random games (about 4,300 records).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import django

from bench.client import Client, Reply, expect
from bench.common import heading, median, ms, p90, us
from bench.infra import Database, environment, front, migrate

SETTINGS = "config.settings.dev"
SERVER = {"workers": 1, "threads": 1}
REQUESTS = 300  # of each endpoint, per match
WARMUP = 30
READERS = 8  # accounts; a match seats the first `players` of them
COPIES = 3  # matches built per row: the cold first read is a median over them

# (game, players, options, records wanted)
ROWS = (
    ("ekko", 4, {"target_score": 100}, 100),
    ("ekko", 4, {"target_score": 100}, 1_000),
    ("ekko", 8, {"target_score": 100}, 5_000),  # unreachable: the longest random game found
    ("enka", 4, {"target_score": 10_000}, 5_000),  # Enka's cap (issue 10): the longest random game found
)

if TYPE_CHECKING:
    from bench.matches import Built


def setup_django(env: dict[str, str]) -> None:
    """Configure this process like the server (same settings module and database)."""
    for name in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "TABULA_VAR_DIR", "CELERY_BROKER_URL", "DEBUG"):
        os.environ[name] = env[name]
    django.setup()


def run(var_dir: Path, database: Database) -> None:
    heading("2. Reads: GET state of long matches vs GET games (real server)")
    env = environment(var_dir, database, SETTINGS)
    migrate(env)
    setup_django(env)
    from bench import matches

    readers = matches.people(READERS)
    specs = [matches.Spec(*row) for row in ROWS]
    warm = [matches.build(matches.Spec(game, 4, {}, 30), readers, seed=0) for game in sorted({s.game for s in specs})]
    copies = [
        [matches.build(spec, readers, seed=i * COPIES + c + 1) for c in range(COPIES)] for i, spec in enumerate(specs)
    ]
    token = readers[0].token
    with front(env, var_dir / "reads-server.log", **SERVER) as server:
        print(f"   database: {database.kind} ({database.label})")
        print(f"   server: {server.command}; {SETTINGS}, DEBUG=false")
        print(f"   {REQUESTS} requests of each endpoint per match, alternating, as the seat-0 player, after a warm-up;")
        print(
            f"   cold state: the first GET state of a match in this process (from the shared snapshot), "
            f"median of {COPIES} such matches"
        )
        client = Client(server.base)
        for _ in range(WARMUP):
            expect(client.get("/games", token=token), 200, "GET games")
            for built in warm:
                expect(client.get(f"/matches/{built.match_id}/state", token=token), 200, "GET state")
        cold = [median([_get_state(client, b.match_id, token, b.records).seconds for b in same]) for same in copies]
        first = [same[0] for same in copies]
        _table(first, cold, [_measure(client, b, token) for b in first])
        _replay(client, max(first, key=lambda b: b.records), token)
        client.close()


def _replay(client: Client, built: Built, token: str) -> None:
    """Replay (issue 32): stepping through the longest match with ``GET state?at=n`` (n, n + 1, …
    from the middle, as a person scrubbing forward), then jumps to random records, each interleaved
    with ``GET games``. Each process keeps a snapshot every 64 records it folds past."""
    import random

    rng = random.Random(5)
    start = built.records // 2
    rows = {
        "replay step (at=n+1)": [start + i for i in range(REQUESTS)],
        "replay jump (random at)": [rng.randint(1, built.records) for _ in range(REQUESTS)],
    }
    print(f"   replay of the {built.spec.game} {built.spec.players}p match ({built.records:,} records), seat 0:")
    for label, ats in rows.items():
        times, games = [], []
        for at in ats:
            times.append(_seconds(client.get(f"/matches/{built.match_id}/state?at={at}", token=token), label))
            games.append(_seconds(client.get("/games", token=token), "GET games"))
        print(
            f"   {label:24} p50 {ms(median(times)):>9} p90 {ms(p90(times)):>9} games p50 {ms(median(games)):>9}"
            f"  {median(times) / median(games):.2f}× (goal: within 2×)",
            flush=True,
        )


def _get_state(client: Client, match_id: str, token: str, version: int) -> Reply:
    reply = client.get(f"/matches/{match_id}/state", token=token)
    body = expect(reply, 200, "GET state")
    if body["version"] != version:
        raise RuntimeError(f"GET state of {match_id} answered version {body['version']}, not {version}")
    return reply


def _measure(client: Client, built: Built, token: str) -> tuple[list[float], list[float]]:
    """Warm-up, then REQUESTS of GET state and GET games, interleaved so both see the same noise."""
    path = f"/matches/{built.match_id}/state"
    for _ in range(WARMUP):
        expect(client.get(path, token=token), 200, "GET state")
    state, games = [], []
    for _ in range(REQUESTS):
        state.append(_seconds(client.get(path, token=token), "GET state"))
        games.append(_seconds(client.get("/games", token=token), "GET games"))
    return state, games


def _seconds(reply: Reply, what: str) -> float:
    if reply.status != 200:
        raise RuntimeError(f"{what}: HTTP {reply.status} {reply.body[:200]!r}")
    return reply.seconds


def _table(built: list[Built], cold: list[float], measured: list[tuple[list[float], list[float]]]) -> None:
    print(
        f"   {'match':8} {'records':>7} {'status':8} {'replay/rec':>10} {'cold state':>11}"
        f" {'state p50':>10} {'p90':>9} {'games p50':>10} {'state/games':>11}"
    )
    for b, first, (state, games) in zip(built, cold, measured, strict=True):
        spec = b.spec
        label = f"{spec.game} {spec.players}p"
        ratio = median(state) / median(games)
        print(
            f"   {label:8} {b.records:>7,} {b.status:8} {us(b.replay_per_record):>10} {ms(first):>11}"
            f" {ms(median(state)):>10} {ms(p90(state)):>9} {ms(median(games)):>10} {ratio:>10.2f}×",
            flush=True,
        )
    print("   target (bench/README.md): GET state of a 1,000-record match within 2× GET games, flat as matches grow")
    print("   (random games end before 5,000 records at the largest target_score allowed: the ekko 8p row")
    print("    and the enka row, at Enka's cap of 10,000, are each the longest of several random games, finished)")
