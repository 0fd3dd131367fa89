"""Section 3: moves per second through the HTTP API with 50 concurrent 4-player EKKO matches.

The server is the whole service as `make run` starts it (``bin/run``: the front, ``python -m
front``, which serves every request itself, the Celery workers and beat), on PostgreSQL, with Redis
as broker and for the streams when a Redis server answers (``BENCH_REDIS_URL``, default
redis://127.0.0.1:6379/14), else the filesystem broker. The one setting changed is the password
hasher (`bench.settings`), which only registration uses.

200 players register through ``POST auth/register``; each group of four plays one match, driven by
one client thread over its own keep-alive connection: read ``GET state`` as an awaited seat (with
that seat's token), pick one of its legal moves at random, ``POST moves`` with ``expected_version``.
A match that ends is replaced by a new one for the same four players. After a short warm-up, the
``201``s answered within a fixed wall time are counted. The client threads run in this process, on
the same cores as the server.
"""

from __future__ import annotations

import os
import random
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from bench.client import Client, expect
from bench.common import heading, median, ms, p90
from bench.infra import Database, cpu_seconds, environment, service

SETTINGS = "bench.settings"  # config.settings.dev with a fast password hasher (registration only)
REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
MATCHES = 50
PLAYERS = 4
OPTIONS = {"target_score": 100}  # long games: few matches end inside the window
WARMUP_S = 3.0
MEASURE_S = 20.0
SETUP_TIMEOUT_S = 180.0
# boardgame.io 0.50.2 with its PostgreSQL storage (issue 15; the peer comparison, run outside the repository)
REFERENCE = 373


@dataclass
class Driver:
    """One match and the thread that plays it."""

    base: str
    tokens: list[str]
    seed: int
    match_id: str = ""
    posts: list[tuple[float, int, float]] = field(default_factory=list)  # (answered at, status, seconds)
    reads: list[tuple[float, float]] = field(default_factory=list)  # GET state: (answered at, seconds)
    matches: int = 0
    stuck: int = 0
    error: BaseException | None = None

    def run(self, ready: threading.Barrier, stop: threading.Event) -> None:
        client = Client(self.base)
        rng = random.Random(self.seed)
        try:
            awaiting = self._new_match(client)
            ready.wait(timeout=SETUP_TIMEOUT_S)
            while not stop.is_set():
                awaiting = self._step(client, rng, awaiting)
        except threading.BrokenBarrierError:
            pass
        except Exception as exc:
            self.error = exc
            ready.abort()
        finally:
            client.close()

    def _new_match(self, client: Client) -> list[int]:
        """Create a match as seat 0 and let the three others join; the awaited seats."""
        body = {"game": "ekko", "players": PLAYERS, "options": OPTIONS}
        created = expect(client.post("/matches", body, token=self.tokens[0]), 201, "POST matches")
        self.match_id, self.matches = created["id"], self.matches + 1
        for token in self.tokens[1:]:
            expect(client.post(f"/matches/{self.match_id}/join", token=token), 200, "POST join")
        state = expect(client.get(f"/matches/{self.match_id}/state", token=self.tokens[0]), 200, "GET state")
        return state["awaiting"]

    def _step(self, client: Client, rng: random.Random, awaiting: list[int]) -> list[int]:
        """One move by an awaited seat; the seats awaited next."""
        if not awaiting:  # the last move ended the game
            return self._new_match(client)
        for seat in rng.sample(awaiting, len(awaiting)):
            reply = client.get(f"/matches/{self.match_id}/state", token=self.tokens[seat])
            self.reads.append((time.monotonic(), reply.seconds))
            state = expect(reply, 200, "GET state")
            if state["status"] != "active":
                return self._new_match(client)
            if state["legal_moves"]:
                break
        else:  # only a timeout or the game timer could go on: not this benchmark's business
            self.stuck += 1
            return self._new_match(client)
        move = rng.choice(state["legal_moves"])
        payload = {"move": move, "expected_version": state["version"]}
        reply = client.post(f"/matches/{self.match_id}/moves", payload, token=self.tokens[seat])
        self.posts.append((time.monotonic(), reply.status, reply.seconds))
        if reply.status == 201:
            return reply.json()["state"]["awaiting"]
        if reply.status == 409:
            return state["awaiting"]
        raise RuntimeError(f"POST moves: HTTP {reply.status} {reply.body[:300]!r}")


def _register(base: str, count: int) -> list[str]:
    """``count`` players through ``POST auth/register``; their tokens."""

    def one(i: int) -> str:
        client = Client(base)
        try:
            body = {"username": f"bench-player-{i}", "password": secrets.token_urlsafe(18)}
            return expect(client.post("/auth/register", body), 201, "POST auth/register")["token"]
        finally:
            client.close()

    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(one, range(count)))


def run(var_dir: Path, database: Database) -> None:
    heading(f"3. Writes: moves/s through the HTTP API, {MATCHES} concurrent {PLAYERS}-player EKKO matches")
    env = environment(var_dir, database, SETTINGS) | {"LOG_LEVEL": "INFO"}  # an access line per request, as deployed
    redis_url = REDIS if _redis_answers(REDIS) else ""
    with service(env, var_dir / "writes-server.log", redis_url=redis_url) as server:
        print(f"   database: {database.kind} ({database.label}); broker: {redis_url or 'filesystem://'}")
        print(
            f"   server: {server.command}, {SETTINGS} (config.settings.dev + MD5 hasher), DEBUG off,"
            " access log on, rate limits off"
        )
        print(f"   clients: {MATCHES} threads in this process, one per match")
        started = time.perf_counter()
        tokens = _register(server.base, MATCHES * PLAYERS)
        print(f"   {len(tokens)} players registered through the API in {time.perf_counter() - started:.1f} s")
        drivers = [Driver(server.base, tokens[i * PLAYERS : (i + 1) * PLAYERS], seed=i) for i in range(MATCHES)]
        window = _drive(drivers, server.session)
        _report(drivers, window)


def _redis_answers(url: str) -> bool:
    try:
        import redis

        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        client.flushdb()  # the bench's own database number
        return True
    except Exception:
        return False


@dataclass(frozen=True)
class Window:
    begin: float  # time.monotonic()
    end: float
    client_cpu: float  # CPU seconds this process (the client threads) used in the window
    server_cpu: dict[str, float]  # CPU seconds per program of the service (and PostgreSQL) in the window


def _drive(drivers: list[Driver], session: int | None) -> Window:
    """Run every driver through the warm-up and the measured window."""
    ready = threading.Barrier(len(drivers) + 1)
    stop = threading.Event()
    threads = [threading.Thread(target=d.run, args=(ready, stop), daemon=True) for d in drivers]
    for thread in threads:
        thread.start()
    try:
        ready.wait(timeout=SETUP_TIMEOUT_S)
        time.sleep(WARMUP_S)
        begin, cpu, server = time.monotonic(), time.process_time(), cpu_seconds(session)
        time.sleep(MEASURE_S)
        after = cpu_seconds(session)
        used = {name: after[name] - server.get(name, 0.0) for name in after}
        return Window(begin, time.monotonic(), time.process_time() - cpu, used)
    except threading.BrokenBarrierError:
        errors = [d.error for d in drivers if d.error is not None]
        raise RuntimeError(f"setting up the matches failed: {errors[:1]}") from None
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)


def _report(drivers: list[Driver], window: Window) -> None:
    begin, end = window.begin, window.end
    inside = [(status, seconds) for d in drivers for at, status, seconds in d.posts if begin <= at < end]
    accepted = [seconds for status, seconds in inside if status == 201]
    conflicts = sum(1 for status, _ in inside if status == 409)
    rate = len(accepted) / (end - begin)
    reads = [seconds for d in drivers for at, seconds in d.reads if begin <= at < end]
    failed = [d for d in drivers if d.error is not None]
    replaced = sum(d.matches - 1 for d in drivers)
    print(
        f"   each move: GET state as an awaited seat + POST moves with expected_version; options {OPTIONS};"
        f" {WARMUP_S:.0f} s warm-up, then {MEASURE_S:.0f} s counted (client threads: {window.client_cpu:.1f} CPU-s)"
    )
    print(f"   moves/s: {rate:.1f}  ({len(accepted)} × 201 in {end - begin:.0f} s; 409: {conflicts})")
    print(
        f"   under load: POST moves p50 {ms(median(accepted))}, p90 {ms(p90(accepted))};"
        f" GET state p50 {ms(median(reads))}, p90 {ms(p90(reads))}; matches finished and replaced: {replaced}"
    )
    if accepted:
        per_move = {name: 1000 * used / len(accepted) for name, used in sorted(window.server_cpu.items()) if used}
        service_ms = sum(v for k, v in per_move.items() if k != "postgres")
        parts = ", ".join(f"{name} {value:.2f}" for name, value in per_move.items())
        print(f"   server CPU per move: {service_ms:.2f} ms in the service ({parts} ms; postgres: every backend)")
    print(
        f"   boardgame.io 0.50.2 on PostgreSQL did {REFERENCE} moves/s on a quiet machine (issue 15):"
        f" {rate / REFERENCE:.2f}× of that (target 1.5×); the peer comparison, run outside the repository,"
        " measures both in one run"
    )
    if failed or any(d.stuck for d in drivers):
        stuck = sum(d.stuck for d in drivers)
        print(f"   {len(failed)} client threads failed, {stuck} matches abandoned with no legal move")
        for d in failed[:3]:
            print(f"     {type(d.error).__name__}: {d.error}")
