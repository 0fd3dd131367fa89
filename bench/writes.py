"""Section 3: moves per second through the HTTP API with 50 concurrent 4-player EKKO matches.

200 players register through ``POST auth/register``; each group of four plays one match, driven by
one client thread over its own keep-alive connection: read ``GET state`` as an awaited seat (with
that seat's token), pick one of its legal moves at random, ``POST moves`` with ``expected_version``.
A match that ends is replaced by a new one for the same four players. After a short warm-up, the
``201``s answered within a fixed wall time are counted. The client threads run in this process, on
the same cores as the server.
"""

from __future__ import annotations

import math
import random
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from bench.client import Client, expect
from bench.common import heading, median, ms, p90
from bench.infra import Database, environment, gunicorn, migrate

SETTINGS = "bench.settings"  # config.settings.dev with a fast password hasher (registration only)
SERVER_OPTIONS = ["--workers", "4", "--worker-class", "gthread", "--threads", "8", "--keep-alive", "30"]
MATCHES = 50
PLAYERS = 4
OPTIONS = {"target_score": 100}  # long games: few matches end inside the window
WARMUP_S = 3.0
MEASURE_S = 20.0
SETUP_TIMEOUT_S = 180.0
REFERENCE = 235  # boardgame.io 0.50.2 with its PostgreSQL storage (platform.md)
TARGET = 1.5 * REFERENCE
STRETCH = 1_480  # boardgame.io with its in-memory storage


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
    env = environment(var_dir, database, SETTINGS)
    migrate(env)
    with gunicorn(env, SERVER_OPTIONS, var_dir / "writes-server.log") as server:
        print(f"   database: {database.kind} ({database.label})")
        print(f"   server: gunicorn {server.command}; {SETTINGS} (config.settings.dev + MD5 hasher), DEBUG=false")
        print(f"   clients: {MATCHES} threads in this process, one per match")
        started = time.perf_counter()
        tokens = _register(server.base, MATCHES * PLAYERS)
        print(f"   {len(tokens)} players registered through the API in {time.perf_counter() - started:.1f} s")
        drivers = [Driver(server.base, tokens[i * PLAYERS : (i + 1) * PLAYERS], seed=i) for i in range(MATCHES)]
        window = _drive(drivers)
        _report(drivers, window)


@dataclass(frozen=True)
class Window:
    begin: float  # time.monotonic()
    end: float
    client_cpu: float  # CPU seconds this process (the client threads) used in the window


def _drive(drivers: list[Driver]) -> Window:
    """Run every driver through the warm-up and the measured window."""
    ready = threading.Barrier(len(drivers) + 1)
    stop = threading.Event()
    threads = [threading.Thread(target=d.run, args=(ready, stop), daemon=True) for d in drivers]
    for thread in threads:
        thread.start()
    try:
        ready.wait(timeout=SETUP_TIMEOUT_S)
        time.sleep(WARMUP_S)
        begin, cpu = time.monotonic(), time.process_time()
        time.sleep(MEASURE_S)
        return Window(begin, time.monotonic(), time.process_time() - cpu)
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
        f" GET state p50 {ms(median(reads))}; matches finished and replaced: {replaced}"
    )
    print(
        f"   boardgame.io 0.50.2 on PostgreSQL: {REFERENCE} moves/s → {rate / REFERENCE:.2f}×"
        f" (target 1.5× = {math.ceil(TARGET)} moves/s; stretch {STRETCH:,} = its in-memory storage)"
    )
    if failed or any(d.stuck for d in drivers):
        stuck = sum(d.stuck for d in drivers)
        print(f"   {len(failed)} client threads failed, {stuck} matches abandoned with no legal move")
        for d in failed[:3]:
            print(f"     {type(d.error).__name__}: {d.error}")
