"""Worker isolation: does a 2-second clock fire on time while one user's strong bots play flat out?

One user runs ``BOT_MATCHES`` EKKO matches of strong bots against each other (the human seat times
out once and a strong bot takes it over); another user plays a match with a 2-second clock and
never moves, so every turn of theirs ends in a timeout. For each timeout the lateness is the
`timeout` record's time minus the deadline the summary showed. Two layouts, each on a private
Redis broker (the filesystem broker when ``redis-server`` is missing) and the run's database:

* isolated (bin/run's): one worker per queue (``timers``, ``bots`` at lower priority, ``celery``);
* shared (the layout before): one worker on every queue, as many processes in all.

Reported, never asserted: the p95 and the worst lateness for each.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

from bench import infra
from bench.client import Client, expect
from bench.common import heading
from bench.infra import Database

BOT_MATCHES = 4
SAMPLES = 15
WAIT_S = 150


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _at(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@contextlib.contextmanager
def _processes(env: dict[str, str], layout: str, log: Path):
    celery = str(infra.ROOT / ".venv" / "bin" / "celery")
    if layout == "isolated":
        commands = [
            [celery, "-A", "config", "worker", "-Q", "timers", "-n", "timers@%h", "--concurrency", "1"],
            ["nice", "-n", "10", celery, "-A", "config", "worker", "-Q", "bots", "-n", "bots@%h", "--concurrency", "2"],
            [celery, "-A", "config", "worker", "-Q", "celery", "-n", "celery@%h", "--concurrency", "1"],
        ]
    else:
        commands = [
            [celery, "-A", "config", "worker", "-Q", "timers,bots,celery", "-n", "all@%h", "--concurrency", "4"]
        ]
    commands.append([celery, "-A", "config", "beat", "--schedule", str(log.parent / f"beat-{layout}")])
    procs = []
    with open(log, "ab") as out:
        for command in commands:
            procs.append(
                subprocess.Popen(
                    [*command, "--loglevel", "WARNING"],
                    cwd=infra.ROOT,
                    env=env,
                    stdout=out,
                    stderr=out,
                    start_new_session=True,
                )
            )
    try:
        time.sleep(6)  # workers connect
        yield
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def _measure(base: str, layout: str) -> list[float]:
    client = Client(base)
    stamp = f"{layout[:3]}{int(time.time()) % 100000}"
    tokens = []
    for name in ("flood", "clock"):
        reply = client.post("/auth/register", {"username": f"{name}{stamp}", "password": "correct-horse-9x"})
        tokens.append(expect(reply, 201, "register")["token"])
    flood, clock = tokens
    for _ in range(BOT_MATCHES):
        body = {
            "game": "ekko",
            "players": 4,
            "bots": [{"seat": s, "level": "strong"} for s in (1, 2, 3)],
            "time_control": {"per_move_s": 1, "bot_after": 1},
        }
        expect(client.post("/matches", body, token=flood), 201, "a bot match")
    time.sleep(5)  # the bots are at it
    body = {"game": "ekko", "players": 2, "bots": [{"seat": 1, "level": "greedy"}], "time_control": {"per_move_s": 2}}
    match = expect(client.post("/matches", body, token=clock), 201, "the clocked match")["id"]
    late: list[float] = []
    seen_seq = 0
    end = time.monotonic() + WAIT_S
    deadline = None
    while len(late) < SAMPLES and time.monotonic() < end:
        summary = expect(client.get(f"/matches/{match}", token=clock), 200, "summary")
        if summary["status"] != "active":
            break
        seat = summary["seats"][0]
        if seat["deadline"]:
            deadline = _at(seat["deadline"])
        events = expect(client.get(f"/matches/{match}/events?after={seen_seq}", token=clock), 200, "events")
        for event in events:
            seen_seq = event["seq"]
            if event["type"] == "timeout" and event["seat"] == 0 and deadline is not None:
                late.append(_at(event["at"]) - deadline)
                deadline = None
        time.sleep(0.2)
    client.close()
    return late


def _stop_matches(env: dict[str, str]) -> None:
    code = "from games.models import Match; Match.objects.filter(status='active').update(status='aborted')"
    subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c", code], cwd=infra.ROOT, env=env, check=True)


def run(tmp: Path, database: Database) -> None:
    heading(f"Worker isolation: a 2 s clock beside {BOT_MATCHES} matches of strong bots ({database.label})")
    redis = None
    broker = "filesystem://"
    if shutil.which("redis-server"):
        port = infra.free_port()
        redis = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        broker = f"redis://127.0.0.1:{port}/0"
        time.sleep(1)
    try:
        for layout in ("isolated", "shared"):
            var = tmp / f"isolation-{layout}"
            var.mkdir(exist_ok=True)
            env = infra.environment(var, database, "config.settings.dev")
            env.update(
                {
                    "CELERY_BROKER_URL": broker,
                    "TABULA_RATE_LIMITS": "off",
                    "TABULA_MAX_BOT_MATCHES": "100",
                    "TABULA_MAX_OPEN_MATCHES": "100",
                }
            )
            infra.migrate(env)
            log = var / "workers.log"
            with (
                infra.front(env, var / "web.log", workers=2) as server,
                _processes(env, layout, log),
            ):
                late = _measure(server.base, layout)
            _stop_matches(env)  # the next layout starts from a quiet table
            if late:
                print(
                    f"  {layout:9} {len(late):3} timeouts: lateness p95 {_p95(late):6.2f} s, "
                    f"worst {max(late):6.2f} s  (goal: p95 within 1 s)",
                    flush=True,
                )
            else:
                print(f"  {layout:9} no timeout observed within {WAIT_S} s", flush=True)
    finally:
        if redis is not None:
            redis.kill()
            redis.wait()
