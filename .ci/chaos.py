"""Chaos tests against real PostgreSQL, Redis and Celery workers, on loopback, bounded in time.

    .venv/bin/python .ci/chaos.py      (called by .ci/faults; exits non-zero on any failure)

Everything runs in its own throwaway world: a database ``tabula_chaos_<pid>`` on the local
PostgreSQL server, reached through a TCP proxy this script controls (to make the database hang or
refuse), a private ``redis-server`` on a free port (to restart it empty), and the production
process layout: the front (``python -m front``), one Celery worker per queue (``celery``,
``timers``, ``bots``) and beat. Nothing shared with other processes on the machine is touched.

1. kill -9 the bot worker while bots think: the match still finishes once a new worker starts.
2. Redis restarted empty during play: no record lost or doubled, timers and bots resume.
3. The database hangs, then refuses, then comes back: 503 problem+json with Retry-After within a
   few seconds each, never a hang or an HTML page; then 200 again with no restart.
4. ``CHAOS_STREAMS`` (200) streams opened past every pool and closed: the connections PostgreSQL
   sees stay within the streams' read threads, and the API and ``/readyz`` answer at once after.
5. Under ``make run``'s layout (bin/run, on its embedded default), kill -9 the bots worker: it is
   started again, the front answers throughout, and the bots answer through the new worker.
6. Schemathesis over the whole served schema on the same servers (``.ci/fuzz``; ``CHAOS_FUZZ=0``
   skips it): no 5xx, every error a problem document.

Each scenario asserts on the records: ``seq`` is 1..version with no gap, and a seat's timeouts
are never closer than its clock allows (a deadline fired twice would be).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PY = str(ROOT / ".venv" / "bin" / "python")
PG_SERVER = os.environ.get("CHAOS_POSTGRES", "postgres://postgres@127.0.0.1:5432")
PG_HOST, PG_PORT = "127.0.0.1", 5432
PER_MOVE_S = 2
TOTAL_BUDGET_S = float(os.environ.get("CHAOS_BUDGET_S", "600"))
FUZZ_BUDGET_S = int(os.environ.get("FUZZ_MAX_TIME", "180")) + 120  # schemathesis' own budget, plus loading
STARTED = time.monotonic()


def log(message: str) -> None:
    print(f"[chaos {time.monotonic() - STARTED:6.1f}s] {message}", flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(what: str, predicate: Any, timeout: float, every: float = 0.5) -> Any:
    end = min(time.monotonic() + timeout, STARTED + TOTAL_BUDGET_S)
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


# --- a TCP proxy in front of PostgreSQL that can pass, hang or refuse ----------------------------


class Proxy:
    def __init__(self, target: tuple[str, int]) -> None:
        self.target, self.port, self.mode = target, free_port(), "pass"
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._listener: socket.socket | None = None
        self._lock = threading.Lock()
        self._stop = False
        self._listen()
        threading.Thread(target=self._pump, daemon=True).start()

    def _listen(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        listener.settimeout(0.2)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while not self._stop and self._listener is listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if self.mode == "hang":  # accept, then never answer
                with self._lock:
                    self._pairs.append((client, client))
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=3)
            except OSError:
                client.close()
                continue
            client.setblocking(False)
            upstream.setblocking(False)
            with self._lock:
                self._pairs.append((client, upstream))

    def _pump(self) -> None:
        while not self._stop:
            with self._lock:
                pairs = [(a, b) for a, b in self._pairs if a is not b and a.fileno() >= 0 and b.fileno() >= 0]
            if self.mode != "pass" or not pairs:
                time.sleep(0.05)
                continue
            sel = selectors.DefaultSelector()
            for a, b in pairs:
                sel.register(a, selectors.EVENT_READ, b)
                sel.register(b, selectors.EVENT_READ, a)
            for key, _ in sel.select(0.1):
                src, dst = key.fileobj, key.data
                try:
                    data = src.recv(65536)  # type: ignore[union-attr]
                    if not data:
                        raise OSError("closed")
                    dst.setblocking(True)
                    dst.sendall(data)
                    dst.setblocking(False)
                except OSError:
                    self._drop(src)  # type: ignore[arg-type]
            sel.close()

    def _drop(self, sock: socket.socket) -> None:
        with self._lock:
            for a, b in list(self._pairs):
                if sock in (a, b):
                    self._pairs.remove((a, b))
                    for s in {a, b}:
                        with contextlib.suppress(OSError):
                            s.close()

    def set(self, mode: str) -> None:
        """``pass``; ``hang`` (connections stay open, nothing flows, new ones are accepted and
        ignored); ``refuse`` (every connection reset, the port closed)."""
        self.mode = mode
        if mode == "refuse":
            listener, self._listener = self._listener, None
            if listener is not None:
                listener.close()
            with self._lock:
                pairs, self._pairs = self._pairs, []
            for a, b in pairs:
                for s in {a, b}:
                    with contextlib.suppress(OSError):
                        s.close()
        elif mode == "pass":
            with self._lock:  # connections accepted while hanging were never forwarded: drop them
                hung = [a for a, b in self._pairs if a is b]
                self._pairs = [(a, b) for a, b in self._pairs if a is not b]
            for s in hung:
                s.close()
            if self._listener is None:
                self._listen()

    def close(self) -> None:
        self._stop = True
        self.set("refuse")


# --- processes ----------------------------------------------------------------------------------


class World:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.db = f"tabula_chaos_{os.getpid()}"
        self.proxy = Proxy((PG_HOST, PG_PORT))
        self.redis_port = free_port()
        self.web_port = free_port()
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.dev",
            "DEBUG": "false",
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:{self.proxy.port}/{self.db}",
            "CELERY_BROKER_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "TABULA_VAR_DIR": str(tmp / "var"),
            "TABULA_RATE_LIMITS": "off",
            "TABULA_DB_STATEMENT_TIMEOUT_S": "3",
            "TABULA_DB_CONNECT_TIMEOUT_S": "2",
            "WEB_WORKERS": "2",
            "WEB_THREADS": "4",
            "LOG_LEVEL": "WARNING",
        }

    def psql(self, sql: str, db: str = "postgres") -> str:
        url = f"{PG_SERVER}/{db}"
        done = subprocess.run(["psql", url, "-tA", "-c", sql], capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            raise RuntimeError(done.stderr)
        return done.stdout.strip()

    def start_redis(self) -> None:
        with open(self.tmp / "redis.log", "ab") as out:  # the child keeps its own copy of the descriptor
            self.procs["redis"] = subprocess.Popen(
                [
                    "redis-server",
                    "--port",
                    str(self.redis_port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_for("redis", lambda: _redis_ping(self.redis_port), 20, 0.2)

    def start(self, name: str, *args: str) -> None:
        with open(self.tmp / f"{name}.log", "ab") as out:
            self.procs[name] = subprocess.Popen(
                [PY, *args], cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    def start_worker(self, queue: str) -> None:
        self.start(
            queue,
            *(str(ROOT / ".venv/bin/celery"), "-A", "config", "worker", "-Q", queue, "-n", f"{queue}-{time.time()}@%h"),
            *("--concurrency", "1", "--loglevel", "WARNING", "--without-gossip", "--without-mingle"),
        )

    def kill9(self, name: str) -> None:
        proc = self.procs.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def up(self) -> None:
        self.psql(f'CREATE DATABASE "{self.db}"')
        self.start_redis()
        subprocess.run([PY, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=self.env, check=True)
        self.start("web", "-m", "front", "--host", "127.0.0.1", "--port", str(self.web_port))
        for queue in ("celery", "timers", "bots"):
            self.start_worker(queue)
        self.start(
            "beat",
            str(ROOT / ".venv/bin/celery"),
            "-A",
            "config",
            "beat",
            "--loglevel",
            "WARNING",
            "--schedule",
            str(self.tmp / "beat-schedule"),
        )
        wait_for("web", lambda: self.call("GET", "/api/v1/games")[0] == 200, 60)

    def down(self) -> None:
        for name in list(self.procs):
            proc = self.procs.pop(name)
            with contextlib.suppress(ProcessLookupError):
                if name == "redis":
                    proc.kill()
                else:
                    os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
        self.proxy.close()
        with contextlib.suppress(Exception):
            self.psql(f'DROP DATABASE IF EXISTS "{self.db}" WITH (FORCE)')

    def call(self, method: str, path: str, body: Any = None, token: str | None = None, timeout: float = 30):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.web_port}{path}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Token {token}")
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                raw, status, headers = response.read(), response.status, _titled(response.headers)
        except urllib.error.HTTPError as error:
            raw, status, headers = error.read(), error.code, _titled(error.headers)
        except (urllib.error.URLError, OSError):
            return 0, {}, None, time.monotonic() - started
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = raw[:200]
        return status, headers, parsed, time.monotonic() - started

    # --- the records, read directly from PostgreSQL (not through the proxy) ----------------------

    def records(self, match_id: str) -> list[tuple[int, str, int | None, float]]:
        rows = self.psql(
            "SELECT seq, type, coalesce(seat, -1), extract(epoch from at) FROM games_record r "
            f"JOIN games_match m ON m.id = r.match_id WHERE m.id = '{match_id}' ORDER BY seq",
            self.db,
        )
        out = []
        for line in rows.splitlines():
            seq, kind, seat, at = line.split("|")
            out.append((int(seq), kind, None if seat == "-1" else int(seat), float(at)))
        return out

    def check_records(self, match_id: str) -> str:
        records = self.records(match_id)
        version = int(self.psql(f"SELECT version FROM games_match WHERE id = '{match_id}'", self.db))
        seqs = [r[0] for r in records]
        assert seqs == list(range(1, version + 1)), f"{match_id}: seq has gaps or doubles ({len(seqs)} vs {version})"
        last: dict[int, float] = {}
        for _seq, kind, seat, at in records:
            if kind == "timeout" and seat is not None:
                if seat in last:
                    assert at - last[seat] >= PER_MOVE_S - 0.5, f"{match_id}: seat {seat} timed out twice for one clock"
                last[seat] = at
        timeouts = sum(1 for r in records if r[1] == "timeout")
        return f"{version} records gap-free, {timeouts} timeouts, none doubled"


def _titled(headers: Any) -> dict[str, str]:
    """Header names as `Content-Type`, whatever case the server sent (the front sends them lower-case)."""
    return {name.title(): value for name, value in headers.items()}


def _redis_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


# --- scenarios ----------------------------------------------------------------------------------


def bot_match(world: World, token: str) -> str:
    """A human against a strong bot; the human never moves: after one timeout a bot takes the seat."""
    status, _, body, _ = world.call(
        "POST",
        "/api/v1/matches",
        {
            "game": "ekko",
            "players": 2,
            "options": {"target_score": 1},
            "bots": [{"seat": 1, "level": "strong"}],
            "time_control": {"per_move_s": PER_MOVE_S, "bot_after": 1},
        },
        token,
    )
    assert status == 201, body
    return str(body["id"])


def status_of(world: World, match_id: str, token: str) -> str:
    status, _, body, _ = world.call("GET", f"/api/v1/matches/{match_id}", token=token)
    return str(body.get("status")) if status == 200 and isinstance(body, dict) else ""


def bot_moves(world: World, match_id: str) -> int:
    return int(
        world.psql(f"SELECT count(*) FROM games_record WHERE match_id = '{match_id}' AND actor = 'bot'", world.db)
    )


def scenario_bot_worker_killed(world: World, token: str) -> None:
    log("1. kill -9 the bot worker while bots think")
    match_id = bot_match(world, token)
    wait_for("bots at work", lambda: bot_moves(world, match_id) >= 3, 90)
    world.kill9("bots")
    before = bot_moves(world, match_id)
    log(f"   bot worker killed after {before} bot moves; starting a new one in 3 s")
    time.sleep(3)
    world.start_worker("bots")
    wait_for("the match to finish", lambda: status_of(world, match_id, token) == "finished", 240, 1)
    log(f"   finished with a new worker: {world.check_records(match_id)}")


def scenario_redis_restarted(world: World, token: str) -> None:
    log("2. Redis restarted empty during play")
    match_id = bot_match(world, token)
    wait_for("bots at work", lambda: bot_moves(world, match_id) >= 3, 90)
    world.kill9("redis")
    log("   redis killed; restarting it empty in 3 s")
    time.sleep(3)
    world.start_redis()
    wait_for("the match to finish", lambda: status_of(world, match_id, token) == "finished", 240, 1)
    log(f"   finished after the restart: {world.check_records(match_id)}")


def _expect_503(world: World, token: str, match_id: str, what: str) -> None:
    for _ in range(3):
        status, headers, body, took = world.call("GET", f"/api/v1/matches/{match_id}", token=token, timeout=40)
        assert status == 503, f"{what}: {status} {body!r} after {took:.1f}s"
        assert headers.get("Content-Type", "").startswith("application/problem+json"), headers
        assert body["code"] == "service_unavailable" and int(headers["Retry-After"]) >= 1, body
        assert took < 15, f"{what}: 503 only after {took:.1f}s"
        log(f"   {what}: 503 service_unavailable in {took:.1f}s")


def scenario_database_outage(world: World, token: str) -> None:
    log("3. the database hangs, then refuses, then comes back")
    match_id = bot_match(world, token)
    try:
        world.proxy.set("hang")
        _expect_503(world, token, match_id, "hung database")
        world.proxy.set("refuse")
        _expect_503(world, token, match_id, "refused database")
    finally:
        world.proxy.set("pass")  # the later scenarios need the database, whatever happened here
    took = time.monotonic()
    wait_for("recovery", lambda: world.call("GET", f"/api/v1/matches/{match_id}", token=token)[0] == 200, 60)
    log(f"   recovered {time.monotonic() - took:.1f}s after the database came back")
    wait_for("the match to finish", lambda: status_of(world, match_id, token) == "finished", 240, 1)
    log(f"   the match finished: {world.check_records(match_id)}")


STREAMS = int(os.environ.get("CHAOS_STREAMS", "200"))


def _open_stream(port: int, token: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET /api/v1/me/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {token}\r\n\r\n".encode())
    head = sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    return sock


def scenario_stream_flood(world: World, token: str) -> None:
    log(f"4. {STREAMS} streams opened past every pool, then closed: the API answers at once")

    def held() -> int:
        return int(world.psql(f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{world.db}'"))

    tokens = []
    for i in range((STREAMS + 7) // 8):  # 8 streams per user per process at most
        status, _, body, _ = world.call(
            "POST", "/api/v1/auth/register", {"username": f"viewer{i}", "password": "correct-horse-9x"}
        )
        assert status == 201, body
        tokens.append(body["token"])
    before = held()
    sockets = []
    try:
        for i in range(STREAMS):
            # two front processes share the port: the per-user cap counts in each, so retry a refusal
            for _ in range(10):
                try:
                    sockets.append(_open_stream(world.web_port, tokens[i % len(tokens)]))
                    break
                except AssertionError:
                    time.sleep(0.05)
            else:
                raise AssertionError(f"stream {i} was refused ten times")
        time.sleep(1)
        during = held()
        status = world.call("GET", "/readyz")[0]
        assert status == 200, f"/readyz answered {status} with {STREAMS} streams open"
    finally:
        for sock in sockets:
            sock.close()
    closed = time.monotonic()
    wait_for("the API", lambda: world.call("GET", "/api/v1/me", token=token)[0] == 200, 30, 0.1)
    wait_for("/readyz", lambda: world.call("GET", "/readyz")[0] == 200, 30, 0.1)
    recovered = time.monotonic() - closed
    time.sleep(1)
    after = held()
    log(f"   connections: {before} before, {during} with {len(sockets)} streams open, {after} after")
    log(f"   the API and /readyz answered 200 {recovered:.2f}s after the streams closed")
    assert during - before <= 2 * 2 + 2, f"{during - before} connections for {len(sockets)} streams"


def scenario_run_layout_worker_killed(world: World, token: str) -> None:
    """bin/run (make run's layout, on its embedded default) restarts a worker killed with -9."""
    log("5. make run's layout: kill -9 the bots worker; it is started again and the front keeps serving")
    port = free_port()
    var = world.tmp / "run-var"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL")}
    env |= {"PORT": str(port), "TABULA_VAR_DIR": str(var), "WEB_WORKERS": "1", "RESTART_MAX_S": "2"}
    env |= {"TABULA_RATE_LIMITS": "off", "PROMETHEUS_MULTIPROC_DIR": str(var / "metrics")}
    with open(world.tmp / "bin-run.log", "ab") as out:
        run = subprocess.Popen(
            ["bin/run"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    local = World.__new__(World)  # only its HTTP client, pointed at bin/run's front
    local.web_port = port
    try:
        wait_for("bin/run's front", lambda: local.call("GET", "/livez")[0] == 200, 90)
        pidfile = var / "run" / "bots-worker.pid"
        wait_for("the bots worker", pidfile.exists, 30)
        first = int(pidfile.read_text())
        os.kill(first, signal.SIGKILL)
        killed = time.monotonic()
        assert local.call("GET", "/api/v1/games")[0] == 200, "the front stopped with the worker"
        wait_for("a new bots worker", lambda: pidfile.read_text().strip() not in ("", str(first)), 60)
        log(f"   a new bots worker {time.monotonic() - killed:.1f}s after the kill; the front answered throughout")

        status, _, body, _ = local.call(
            "POST", "/api/v1/auth/register", {"username": "solo", "password": "correct-horse-9x"}
        )
        assert status == 201, body
        solo = body["token"]
        bots = [{"seat": 1, "level": "random"}, {"seat": 2, "level": "random"}]
        status, _, body, _ = local.call("POST", "/api/v1/matches", {"game": "enka", "players": 3, "bots": bots}, solo)
        assert status == 201, body
        match_id = body["id"]
        status, _, body, _ = local.call("GET", f"/api/v1/matches/{match_id}/state", token=solo)
        if status == 200 and 0 in body.get("awaiting", []):  # our turn first: move, so that a bot must answer
            move = {"move": body["legal_moves"][0], "expected_version": body["version"]}
            assert local.call("POST", f"/api/v1/matches/{match_id}/moves", move, solo)[0] == 201

        def a_bot_moved() -> bool:
            status, _, body, _ = local.call("GET", f"/api/v1/matches/{match_id}/events?after=0", token=solo)
            return status == 200 and any(e.get("actor") == "bot" for e in body)

        wait_for("a bot's move through the new worker", a_bot_moved, 60, 0.5)
        log("   the bots answered through the new worker")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGTERM)
        try:
            run.wait(40)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(run.pid, signal.SIGKILL)


class OutOfTime(Exception):
    pass


def _out_of_time(signum: int, frame: object) -> None:
    raise OutOfTime(f"signal {signum}: over the chaos budget, or stopped")


def main() -> int:
    signal.signal(signal.SIGALRM, _out_of_time)
    signal.signal(signal.SIGTERM, _out_of_time)
    signal.alarm(int(TOTAL_BUDGET_S) + 60)  # a hard stop, with everything torn down in `finally`
    if shutil.which("redis-server") is None or shutil.which("psql") is None:
        print("chaos: redis-server and psql are needed", file=sys.stderr)
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="tabula-chaos-"))
    world = World(tmp)
    failed = False
    try:
        world.up()
        status, _, body, _ = world.call(
            "POST", "/api/v1/auth/register", {"username": "chaos", "password": "correct-horse-9x"}
        )
        assert status == 201, body
        token = body["token"]
        scenarios = (
            scenario_bot_worker_killed,
            scenario_redis_restarted,
            scenario_database_outage,
            scenario_stream_flood,
            scenario_run_layout_worker_killed,
        )
        only = {int(n) for n in os.environ.get("CHAOS_ONLY", "").split(",") if n.strip()}  # e.g. CHAOS_ONLY=4,5
        for number, scenario in enumerate(scenarios, 1):
            if only and number not in only:
                continue
            try:
                scenario(world, token)
            except (AssertionError, RuntimeError) as exc:
                failed = True
                log(f"   FAILED: {exc}")
        if os.environ.get("CHAOS_FUZZ", "1") != "0":
            log("6. schemathesis over the served schema, on the same servers (.ci/fuzz)")
            status, _, body, _ = world.call(
                "POST", "/api/v1/auth/register", {"username": "fuzzer", "password": "correct-horse-9x"}
            )
            assert status == 201, body
            base = f"http://127.0.0.1:{world.web_port}"
            fuzz = subprocess.run([str(ROOT / ".ci/fuzz"), base, body["token"]], cwd=ROOT, timeout=FUZZ_BUDGET_S)
            if fuzz.returncode != 0:
                failed = True
                log(f"   FAILED: schemathesis exited with {fuzz.returncode}")
    except (Exception, OutOfTime) as exc:
        failed = True
        log(f"FAILED to run: {exc!r}")
    finally:
        world.down()
        if failed:
            for logfile in sorted(tmp.glob("*.log")):
                tail = logfile.read_text(errors="replace").splitlines()[-15:]
                print(f"--- {logfile.name}\n" + "\n".join(tail))
        shutil.rmtree(tmp, ignore_errors=True)
    log("chaos: FAILED" if failed else "chaos: all scenarios passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
