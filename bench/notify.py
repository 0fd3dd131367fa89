"""Section 5: notifications, on the `make run` layout (the front, ``python -m front``, and a Celery
worker), once on Redis (pub/sub and a Redis broker) and once on the embedded default (SQLite, the
shared poll, the filesystem broker).

- latency from a move's 201 to the awaited user's ``your_turn`` on their open ``me/stream``
  (p50 / p99 over the moves that hand the turn over);
- ``GET games`` p50 through the front process, alone and while it holds 1,000 open streams;
- webhook delivery latency: from the 201 to a loopback receiver getting the signed POST;
- Web Push latency: from the 201 to a loopback push service getting the encrypted, VAPID-signed
  push of a ``your_turn`` (a third player with a push subscription and no stream open: an open
  stream suppresses pushes, as it does the e-mail digest).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.client import Client, expect
from bench.common import heading, median, ms
from bench.infra import ROOT, Database, environment, free_port, migrate

MOVES = int(os.environ.get("BENCH_NOTIFY_MOVES", "150"))
STREAMS = int(os.environ.get("BENCH_STREAMS", "1000"))
REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/3")


def p99(values: list[float]) -> float:
    if len(values) < 2:
        return median(values)
    return statistics.quantiles(values, n=100)[-1]


def _redis_ok(url: str) -> bool:
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
        return True
    except Exception:
        return False


@contextlib.contextmanager
def _layout(var_dir: Path, env: dict[str, str]) -> Iterator[str]:
    """The front (``python -m front``, one process of 4 threads) and a Celery worker; the front's base URL."""
    env = {**env, "TABULA_STREAMS_PER_USER": str(STREAMS + 10)}
    port = free_port()
    log = (var_dir / "layout.log").open("ab")
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "front", "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
            cwd=ROOT,
            env={**env, "WEB_THREADS": "4"},
            stdout=log,
            stderr=log,
            start_new_session=True,
        ),
        subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "celery", "--pool", "solo"]
            + ["--loglevel", "WARNING"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
            start_new_session=True,
        ),
    ]
    deadline = time.monotonic() + 30
    base = f"http://127.0.0.1:{port}"
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if Client(base, timeout=2).get("/games").status == 200:
                break
        time.sleep(0.2)
    try:
        yield base
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 15)
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)


class Inbox:
    """One open ``me/stream``: (receive time, event, data) as they arrive."""

    def __init__(self, base: str, token: str) -> None:
        self.events: list[tuple[float, str, dict[str, Any]]] = []
        host, port = base.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)))
        self.sock.sendall(
            f"GET /api/v1/me/stream HTTP/1.1\r\nHost: {host}\r\nAuthorization: Token {token}\r\n\r\n".encode()
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buffer = b""
        with contextlib.suppress(OSError):
            while chunk := self.sock.recv(65536):
                now = time.perf_counter()
                buffer += chunk
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    fields = dict(
                        line.split(": ", 1) for line in block.decode(errors="replace").splitlines() if ": " in line
                    )
                    if "data" in fields and "event" in fields:
                        with contextlib.suppress(ValueError):
                            self.events.append((now, fields["event"], json.loads(fields["data"])))


class Receiver:
    def __init__(self) -> None:
        self.got: list[tuple[float, dict[str, Any]]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                outer.got.append((time.perf_counter(), json.loads(body)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def _push_keys() -> dict[str, str]:
    """A browser's subscription keys: a P-256 public key and a 16-byte secret, base64url."""
    import base64

    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    point = (
        ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    )
    encode = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()  # noqa: E731
    return {"p256dh": encode(point), "auth": encode(os.urandom(16))}


class PushService:
    """A loopback push service: it records when each push arrives, and answers 201."""

    def __init__(self) -> None:
        self.got: list[float] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                outer.got.append(time.perf_counter())
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/push/bench"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def _push_latency(api: Client, mover_token: str, pushed_token: str, moves: int) -> list[float]:
    """From each 201 that hands ``pushed_token``'s user the turn to their push's arrival."""
    service = PushService()
    sub = {"endpoint": service.url, "keys": _push_keys()}
    expect(api.post("/me/push-subscriptions", sub, token=pushed_token), 201, "push subscription")
    tokens = [mover_token, pushed_token]
    latency: list[float] = []
    while len(latency) < moves:
        match = expect(api.post("/matches", {"game": "enka", "players": 2}, token=tokens[0]), 201, "create")
        expect(api.post(f"/matches/{match['id']}/join", {}, token=tokens[1]), 200, "join")
        for _ in range(400):
            if len(latency) >= moves:
                break
            states = [expect(api.get(f"/matches/{match['id']}/state", token=t), 200, "state") for t in tokens]
            mover = next((i for i, s in enumerate(states) if s["you"] in s["awaiting"] and s["legal_moves"]), None)
            if mover is None or states[0]["status"] != "active":
                break
            s = states[mover]
            before = len(service.got)
            reply = api.post(
                f"/matches/{match['id']}/moves",
                {"move": s["legal_moves"][0], "expected_version": s["version"]},
                token=tokens[mover],
            )
            t201 = time.perf_counter()
            if reply.status != 201 or mover != 0 or 1 not in reply.json()["state"]["awaiting"]:
                continue
            at = _wait(lambda before=before: service.got[before] if len(service.got) > before else None, timeout=10)
            if at is not None:
                latency.append(max(0.0, at - t201))
    service.server.shutdown()
    return latency


def _wait(predicate: Any, timeout: float = 5.0) -> float | None:
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        found = predicate()
        if found is not None:
            return float(found)
        time.sleep(0.0005)
    return None


async def _hold(base: str, token: str, n: int) -> list[asyncio.StreamWriter]:
    host, port = base.removeprefix("http://").split(":")
    writers: list[asyncio.StreamWriter] = []
    for _ in range(n):
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(f"GET /api/v1/me/stream HTTP/1.1\r\nHost: {host}\r\nAuthorization: Token {token}\r\n\r\n".encode())
        await writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            raise RuntimeError(f"stream {len(writers)}: {status!r}")
        writers.append(writer)
    return writers


def _games_p50(base: str, token: str, n: int = 300) -> float:
    client = Client(base)
    for _ in range(20):
        client.get("/games", token=token)
    times = [client.get("/games", token=token).seconds for _ in range(n)]
    client.close()
    return median(times)


def _variant(var_dir: Path, database: Database, redis: bool) -> dict[str, Any]:
    env = environment(var_dir, database, "config.settings.dev")
    env["TABULA_EMAIL"] = "0"
    env["TABULA_EMAIL_ACTIVE_S"] = "0"  # a player who just moved still gets pushes (the push section)
    if redis:
        env["REDIS_URL"] = REDIS
        env["CELERY_BROKER_URL"] = REDIS
    else:
        for folder in ("queue", "processed", "control"):
            (var_dir / "broker" / folder).mkdir(parents=True, exist_ok=True)
    migrate(env)
    with _layout(var_dir, env) as base:
        api = Client(base)
        users = []
        for name in ("ann", "ben"):
            body = {"username": f"{name}{os.getpid()}", "password": "a-long-passphrase-9"}
            users.append(expect(api.post("/auth/register", body), 201, "register")["token"])
        receiver = Receiver()
        expect(api.post("/me/webhooks", {"url": receiver.url, "events": ["your_turn"]}, token=users[1]), 201, "hook")
        inboxes = [Inbox(base, t) for t in users]
        time.sleep(0.5)
        turn_latency: list[float] = []
        from_sent: list[float] = []  # from the POST being sent: includes the move's own work
        early = 0  # events that arrived before the 201 was read
        hook_latency: list[float] = []
        done = 0
        while done < MOVES:
            match = expect(api.post("/matches", {"game": "enka", "players": 2}, token=users[0]), 201, "create")
            expect(api.post(f"/matches/{match['id']}/join", {}, token=users[1]), 200, "join")
            for _ in range(400):
                if done >= MOVES:
                    break
                states = [expect(api.get(f"/matches/{match['id']}/state", token=t), 200, "state") for t in users]
                mover = next((i for i, s in enumerate(states) if s["you"] in s["awaiting"] and s["legal_moves"]), None)
                if mover is None or states[0]["status"] != "active":
                    break
                s = states[mover]
                sent = time.perf_counter()
                reply = api.post(
                    f"/matches/{match['id']}/moves",
                    {"move": s["legal_moves"][0], "expected_version": s["version"]},
                    token=users[mover],
                )
                t201 = time.perf_counter()
                if reply.status != 201:
                    continue
                after = reply.json()
                other = 1 - mover
                if other not in after["state"]["awaiting"]:
                    continue
                version = after["version"]
                inbox = inboxes[other]

                def arrived(inbox: Inbox = inbox, version: int = version) -> float | None:
                    for at, event, data in reversed(inbox.events):
                        if event == "your_turn" and data["payload"]["version"] == version:
                            return at
                    return None

                got = _wait(arrived)
                if got is not None:
                    turn_latency.append(max(0.0, got - t201))
                    from_sent.append(got - sent)
                    early += got < t201
                if other == 1:

                    def hooked(version: int = version) -> float | None:
                        for at, body in receiver.got:
                            if body["data"]["payload"]["version"] == version:
                                return at
                        return None

                    at = _wait(hooked, timeout=10)
                    if at is not None:
                        hook_latency.append(max(0.0, at - t201))
                done += 1
        body = {"username": f"cyd{os.getpid()}", "password": "a-long-passphrase-9"}
        pushed = expect(api.post("/auth/register", body), 201, "register")["token"]
        push_latency = _push_latency(api, users[0], pushed, max(20, MOVES // 3))
        alone = _games_p50(base, users[0])
        writers = asyncio.run(_hold_and_measure(base, users[0]))
        held, loaded = writers
        return {
            "sent": from_sent,
            "early": early,
            "turn": turn_latency,
            "hook": hook_latency,
            "push": push_latency,
            "games_alone": alone,
            "games_loaded": loaded,
            "held": held,
        }


async def _hold_and_measure(base: str, token: str) -> tuple[int, float]:
    writers = await _hold(base, token, STREAMS)
    loop = asyncio.get_running_loop()
    loaded = await loop.run_in_executor(None, _games_p50, base, token)
    for writer in writers:
        writer.close()
    return len(writers), loaded


def run(var_dir: Path, database: Database) -> None:
    heading("5. Notifications: move → stream latency, 1,000 open streams, webhook and push delivery (make run layout)")
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    variants = [("embedded (SQLite, poll, filesystem broker)", False)]
    if _redis_ok(REDIS):
        variants.insert(0, (f"Redis ({REDIS})", True))
    else:
        print(f"Redis at {REDIS} is not reachable: the Redis row is skipped")
    print(
        f"{'variant':<44} {'your_turn p50':>13} {'p99':>9} {'n':>4}  {'webhook p50':>11} {'p99':>9}"
        f"  {'GET games p50':>13} {'with streams':>13} {'ratio':>6}"
    )
    for label, redis in variants:
        sub = var_dir / ("redis" if redis else "embedded")
        sub.mkdir(parents=True, exist_ok=True)
        own = Database(f"sqlite:///{sub / 'bench.sqlite3'}", "SQLite", "a temporary file")  # one per variant
        r = _variant(sub, own, redis)
        ratio = r["games_loaded"] / r["games_alone"] if r["games_alone"] else float("nan")
        print(
            f"{label:<44} {ms(median(r['turn'])):>13} {ms(p99(r['turn'])):>9} {len(r['turn']):>4}  "
            f"{ms(median(r['hook'])):>11} {ms(p99(r['hook'])):>9}  {ms(r['games_alone']):>13} "
            f"{ms(r['games_loaded']):>13} {ratio:>5.2f}×  ({r['held']} streams held)",
            flush=True,
        )
        print(
            f"{'':<44} from the POST sent: p50 {ms(median(r['sent']))}, p99 {ms(p99(r['sent']))}; "
            f"{r['early']} of {len(r['turn'])} events arrived before the 201 was read (counted as 0)",
            flush=True,
        )
        print(
            f"{'':<44} Web Push (201 → the loopback push service): p50 {ms(median(r['push']))}, "
            f"p99 {ms(p99(r['push']))}, n {len(r['push'])}",
            flush=True,
        )
