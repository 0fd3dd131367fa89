"""Section 7: bot latency, from a bot's seat becoming awaited to the bot's record, on the service
exactly as ``make run`` starts it (``bin/run`` itself: migrations, a worker per queue, beat,
and the front, ``python -m front``).

Two brokers: the embedded default (a SQLite file and the ``filesystem://`` broker, both in a
temporary directory) and Redis (``BENCH_BOTS_REDIS_URL``, db 13 by default, flushed before and
after) with PostgreSQL when a server is reachable (else SQLite). For each bot level a human plays
``BENCH_BOT_MOVES`` random legal moves of 2-player EKKO against a bot in seat 1, each time polling
``GET state`` every 20 ms until the human is awaited again. One answer's latency is the bot's
record ``at`` minus the ``at`` of the human's record that made the bot awaited (both server
clocks, from ``GET events``); a bot's second record in a row (EKKO's "play again") is not an
answer. Then the worker processes' CPU time while the service idles for ``BENCH_BOTS_IDLE_S``.

Reported, never asserted (the goal, issue 15: random and greedy within 100 ms p50, strong within
its think budget + 100 ms).
"""

from __future__ import annotations

import contextlib
import os
import random
import statistics
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from bench import infra
from bench.client import Client, expect
from bench.common import heading, median
from bench.infra import Database
from rules.bots import LEVELS, STRONG_SECONDS

MOVES = int(os.environ.get("BENCH_BOT_MOVES", "20"))
IDLE_S = float(os.environ.get("BENCH_BOTS_IDLE_S", "10"))
REDIS = os.environ.get("BENCH_BOTS_REDIS_URL", "redis://127.0.0.1:6379/13")
POLL_S = 0.02
ANSWER_S = 30  # a bot that has not answered by then is reported as missing


def _p90(values: list[float]) -> float:
    """Within the samples (``inclusive``): a short run's p90 never exceeds its max."""
    return statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 else median(values)


def _at(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _group_cpu(pgid: int) -> dict[str, float]:
    """CPU seconds (user + system) of the Celery worker processes in process group ``pgid``, by pid."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[str, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) != pgid:
                continue
            command = (entry / "cmdline").read_bytes().split(b"\0")
            if b"worker" in command and any(part.endswith(b"celery") for part in command):
                found[entry.name] = (int(fields[11]) + int(fields[12])) / tick
    return found


@contextlib.contextmanager
def _service(var_dir: Path, database: Database, redis: str | None) -> Iterator[tuple[str, int]]:
    """``bin/run`` (`bench.infra.service`) on ``var_dir``, on the filesystem broker or on ``redis``;
    yields its base URL and process group."""
    env = {**infra.environment(var_dir, database, "config.settings.dev"), "TABULA_MAX_BOT_MATCHES": "100"}
    env.pop("REDIS_URL", None)  # the embedded variant uses no Redis at all
    with infra.service(env, var_dir / "run.log", redis_url=redis or "") as server:
        assert server.session is not None
        yield server.base, server.session


def _human_awaited(state: dict[str, Any]) -> bool:
    return state["status"] != "active" or (state["you"] in state["awaiting"] and bool(state["legal_moves"]))


def _state(client: Client, token: str, match: str) -> dict[str, Any]:
    return expect(client.get(f"/matches/{match}/state", token=token), 200, "state")


def _wait_for_human(client: Client, token: str, match: str, after: int) -> dict[str, Any] | None:
    """Poll ``GET state`` until the human is awaited at a version past ``after`` (or the match ended)."""
    end = time.monotonic() + ANSWER_S
    while time.monotonic() < end:
        state = _state(client, token, match)
        if state["version"] > after and _human_awaited(state):
            return state
        time.sleep(POLL_S)
    return None


def _records(client: Client, token: str, match: str) -> dict[int, dict[str, Any]]:
    records: dict[int, dict[str, Any]] = {}
    after = 0
    while True:
        page = expect(client.get(f"/matches/{match}/events?after={after}&limit=1000", token=token), 200, "events")
        records.update((r["seq"], r) for r in page)
        if len(page) < 1000:
            return records
        after = page[-1]["seq"]


def _latencies(records: dict[int, dict[str, Any]], triggers: set[int]) -> list[float]:
    """For each version after which the bot was awaited: its next record's time minus that record's
    (a match's version is the seq of its last record)."""
    found = []
    for seq in sorted(triggers):
        before, answer = records.get(seq), records.get(seq + 1)
        if before is None or answer is None or before["actor"] == "bot":
            continue
        if answer["actor"] == "bot" and answer["seat"] == 1:
            found.append(_at(answer["at"]) - _at(before["at"]))
    return found


def _level(client: Client, token: str, level: str, moves: int, gen: random.Random) -> tuple[list[float], int]:
    """``moves`` human moves against a bot of ``level``; returns the answer latencies and how many went missing."""
    latencies: list[float] = []
    missing = played = 0
    while played < moves:
        body = {"game": "ekko", "players": 2, "bots": [{"seat": 1, "level": level}]}
        match = expect(client.post("/matches", body, token=token), 201, "create a bot match")["id"]
        triggers: set[int] = set()
        first = _state(client, token, match)
        if 1 in first["awaiting"]:
            triggers.add(first["version"])
        state: dict[str, Any] | None = first
        while played < moves and state is not None and state["status"] == "active":
            if not _human_awaited(state):
                state = _wait_for_human(client, token, match, state["version"] - 1)
                if state is None:
                    missing += 1
                continue
            move = gen.choice(state["legal_moves"])
            reply = client.post(
                f"/matches/{match}/moves", {"move": move, "expected_version": state["version"]}, token=token
            )
            if reply.status != 201:  # the bot's interrupt landed first: read again
                state = _state(client, token, match)
                continue
            played += 1
            after = reply.json()
            if 1 in after["state"]["awaiting"]:
                triggers.add(after["version"])
                state = _wait_for_human(client, token, match, after["version"])
                if state is None:
                    missing += 1
            else:
                state = after["state"]
        latencies += _latencies(_records(client, token, match), triggers)
        with contextlib.suppress(RuntimeError):
            client.post(f"/matches/{match}/resign", token=token)  # nothing keeps running behind the next one
    return latencies, missing


def _idle_cpu(pgid: int, seconds: float) -> tuple[float, int]:
    time.sleep(2)  # the last task settles
    before = _group_cpu(pgid)
    time.sleep(seconds)
    after = _group_cpu(pgid)
    return sum(after[p] - before[p] for p in after if p in before), len(after)


def _variant(label: str, var_dir: Path, database: Database, redis: str | None) -> None:
    print(f"  {label}", flush=True)
    with _service(var_dir, database, redis) as (base, pgid):
        client = Client(base)
        name = f"botlat{os.getpid()}{var_dir.name[:2]}"
        token = expect(
            client.post("/auth/register", {"username": name, "password": "a-long-passphrase-9"}), 201, "register"
        )["token"]
        gen = random.Random(15)
        _level(client, token, "random", 1, gen)  # warm-up: the workers are connected and have imported everything
        for level in LEVELS:
            latencies, missing = _level(client, token, level, MOVES, gen)
            goal = (
                f"goal p50 ≤ {(STRONG_SECONDS + 0.1) * 1e3:.0f} ms, think budget {STRONG_SECONDS * 1e3:.0f} ms"
                if level == "strong"
                else "goal p50 ≤ 100 ms"
            )
            print(
                f"    {level:7} {len(latencies):3} answers  p50 {median(latencies) * 1e3:7.1f} ms"
                f"  p90 {_p90(latencies) * 1e3:7.1f} ms  max {max(latencies, default=float('nan')) * 1e3:7.1f} ms"
                f"  ({goal}{f'; {missing} unanswered within {ANSWER_S} s' if missing else ''})",
                flush=True,
            )
        client.close()
        cpu, processes = _idle_cpu(pgid, IDLE_S)
        print(
            f"    idle    {processes} worker processes used {cpu:.2f} CPU s in {IDLE_S:.0f} s"
            f" ({cpu / IDLE_S:.1%} of a core)",
            flush=True,
        )


def _redis_ok(url: str) -> str | None:
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
        return None
    except Exception as exc:
        return str(exc) or type(exc).__name__


def _flush(url: str) -> None:
    import redis

    with contextlib.suppress(Exception):
        redis.Redis.from_url(url, socket_connect_timeout=1).flushdb()


def run(tmp: Path) -> None:
    heading(f"7. Bot latency: seat awaited → the bot's record, {MOVES} human moves per level (bin/run)")
    embedded = tmp / "embedded"
    embedded.mkdir(exist_ok=True)
    with infra.sqlite_database(embedded) as database:
        _variant("embedded default (SQLite, filesystem:// broker)", embedded, database, None)
    why = _redis_ok(REDIS)
    if why is not None:
        print(f"  Redis at {REDIS} is not reachable ({why}): the Redis rows are skipped")
        return
    on_redis = tmp / "redis"
    on_redis.mkdir(exist_ok=True)
    with contextlib.ExitStack() as stack:
        server = infra.postgres_server()
        reason = infra.postgres_reachable(server) if server else "no server configured"
        if reason is None and server:
            database = stack.enter_context(infra.postgres_database(server))
        else:
            database = stack.enter_context(infra.sqlite_database(on_redis))
        _flush(REDIS)
        stack.callback(_flush, REDIS)
        note = "" if reason is None else f"; PostgreSQL is not reachable: {reason}"
        _variant(f"Redis ({REDIS}, {database.kind}: {database.label}{note})", on_redis, database, REDIS)
