"""The production process layout, without containers: docker/compose.yaml's commands and environment.

Reads docker/compose.yaml, resolves each service's environment the way compose does (``${VAR:-x}``,
``${VAR:?msg}``), points the container addresses at loopback (PostgreSQL and Redis on 127.0.0.1, a
fresh database, a Redis db of its own, a free port per listener, a directory per container), and
starts every app service through ``docker/entrypoint.sh`` with the service's own ``command``, plus
nginx with docker/nginx/default.conf.template when an nginx binary can be found or unpacked.

Then, through it:
  smoke   a full match against bots through the proxy, a seat clock that runs out, health, metrics,
          request ids, CORS, and `manage.py verify_matches` / `abort_match`;
  scale   two web processes and two workers per game queue against one PostgreSQL and Redis: matches
          played through both web processes alternately (same ETag from both, no stale state), and
          every timer fired once (timer metrics summed over the workers = timeout records).

Usage: .venv/bin/python .ci/prodlayout.py [smoke] [scale]   (both by default; loopback only;
every process it starts is stopped at the end, by its process group id). On a machine shared with
other runs: SMOKE_PORTS=first-last (the ports to listen on), SMOKE_DB (the database to create and
drop), SMOKE_REDIS_DB (the Redis database to empty; default 12).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker" / "compose.yaml"
NGINX_TEMPLATE = ROOT / "docker" / "nginx" / "default.conf.template"
VENV_BIN = ROOT / ".venv" / "bin"
PG = os.environ.get("SMOKE_PG", "postgres://postgres@127.0.0.1:5432")
REDIS_DB = int(os.environ.get("SMOKE_REDIS_DB", "12"))
BUDGET_S = float(os.environ.get("SMOKE_BUDGET_S", "420"))  # the whole run, both scenarios
T0 = time.monotonic()


def say(*parts: object) -> None:
    print(f"[prodlayout {time.monotonic() - T0:6.1f}s]", *parts, flush=True)


def left() -> float:
    return BUDGET_S - (time.monotonic() - T0)


def wait_for(what: str, ok: Callable[[], Any], timeout: float, every: float = 0.25) -> Any:
    deadline = time.monotonic() + min(timeout, max(left(), 1.0))
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = ok()
            if last:
                return last
        except Exception as exc:
            last = exc
        time.sleep(every)
    raise SystemExit(f"timed out waiting for {what} (last: {last!r})")


def free_port() -> int:
    """A free loopback port: any, or the next free one in ``SMOKE_PORTS`` (``first-last``) when set."""
    first, _, last = os.environ.get("SMOKE_PORTS", "").partition("-")
    candidates = [0]
    if first:
        ports = list(range(int(first), int(last or first) + 1))
        start = ports.index(_handed[-1]) + 1 if _handed and _handed[-1] in ports else 0
        candidates = ports[start:] + ports[:start]
    for port in candidates:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            _handed.append(int(s.getsockname()[1]))
            return _handed[-1]
    raise SystemExit(f"no free port in SMOKE_PORTS={os.environ.get('SMOKE_PORTS')}")


_handed: list[int] = []  # the ports handed out, not all bound yet


# --- compose ---------------------------------------------------------------------------------------

_VAR = re.compile(r"\$\{(\w+)(?::([-?])([^}]*))?\}")


def interpolate(value: str, env: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        name, op, arg = m.group(1), m.group(2), m.group(3) or ""
        if env.get(name):
            return env[name]
        if op == "?":
            raise SystemExit(f"compose needs {name}: {arg}")
        return arg if op == "-" else ""

    return _VAR.sub(one, value)


def load_compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def service_env(service: dict[str, Any], outer: dict[str, str]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {k: interpolate(str(v), outer) for k, v in env.items()}


# --- processes -------------------------------------------------------------------------------------


class Layout:
    def __init__(self, dbname: str) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="tabula-prodlayout-"))
        self.dbname = dbname
        self.procs: list[tuple[str, subprocess.Popen[bytes], Path]] = []
        self.web: list[str] = []  # base URLs of the web services (the front, `python -m front`)
        self.worker_metrics: list[str] = []
        self.proxy: str | None = None
        self.outer = {
            "SECRET_KEY": "ci-" + os.urandom(16).hex(),
            "TABULA_METRICS_TOKEN": "ci-" + os.urandom(16).hex(),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "LOG_LEVEL": "INFO",
        }
        self.compose = load_compose()

    def localize(self, name: str, env: dict[str, str], instance: str) -> tuple[dict[str, str], Path]:
        """The container's addresses and paths, on this machine."""
        home = self.tmp / instance
        home.mkdir(parents=True, exist_ok=True)
        env = dict(env)
        if "DATABASE_URL" in env:
            env["DATABASE_URL"] = f"{PG}/{self.dbname}"
        if "CELERY_BROKER_URL" in env:
            env["CELERY_BROKER_URL"] = f"redis://127.0.0.1:6379/{REDIS_DB}"
        if "TABULA_VAR_DIR" in env:
            env["TABULA_VAR_DIR"] = str(home / "var")
        if "PROMETHEUS_MULTIPROC_DIR" in env:
            env["PROMETHEUS_MULTIPROC_DIR"] = str(home / "metrics")
        if "WEB_PORT" in env:
            env["WEB_PORT"] = str(free_port())
            env["WEB_HOST"] = "127.0.0.1"
        if "TABULA_WORKER_METRICS_PORT" in env:
            env["TABULA_WORKER_METRICS_PORT"] = str(free_port())
            env["TABULA_WORKER_METRICS_ADDR"] = "127.0.0.1"
        if env.get("WEB_WORKERS"):
            env["WEB_WORKERS"] = "2"  # two cores shared by the whole layout
        full = {
            "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(home),
            "PYTHONUNBUFFERED": "1",
            **{k: v for k, v in env.items() if v != ""},
        }
        return full, home

    def start(self, name: str, instance: str | None = None) -> dict[str, str]:
        service = self.compose["services"][name]
        instance = instance or name
        env, home = self.localize(name, service_env(service, self.outer), instance)
        command = [str(c).replace("/app/var", env.get("TABULA_VAR_DIR", "/app/var")) for c in service["command"]]
        log = home / "log.jsonl"
        say(f"start {instance}: docker/entrypoint.sh {' '.join(command)}")
        proc = subprocess.Popen(
            [str(ROOT / "docker" / "entrypoint.sh"), *command],
            cwd=ROOT,
            env=env,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped by id at the end
        )
        self.procs.append((instance, proc, log))
        if "WEB_PORT" in env:
            self.web.append(f"http://127.0.0.1:{env['WEB_PORT']}")
        if "TABULA_WORKER_METRICS_PORT" in env:
            self.worker_metrics.append(f"http://127.0.0.1:{env['TABULA_WORKER_METRICS_PORT']}/metrics")
        return env

    def run_once(self, name: str) -> None:
        service = self.compose["services"][name]
        env, _ = self.localize(name, service_env(service, self.outer), name)
        say(f"run {name}: docker/entrypoint.sh {' '.join(service['command'])}")
        subprocess.run([str(ROOT / "docker" / "entrypoint.sh"), *service["command"]], cwd=ROOT, env=env, check=True)

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        """A management command in the web service's environment (`docker compose run web django-admin …`)."""
        env, _ = self.localize("web", service_env(self.compose["services"]["web"], self.outer), "manage")
        return subprocess.run(
            [str(ROOT / "docker" / "entrypoint.sh"), "django-admin", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=max(left(), 30),
        )

    def start_proxy(self) -> None:
        nginx = find_nginx(self.tmp)
        if nginx is None:
            say("no nginx binary could be found or unpacked: the smoke talks to the front directly")
            return
        service = self.compose["services"]["proxy"]
        port = free_port()
        env = service_env(service, self.outer)
        env["TABULA_WEB_UPSTREAM"] = self.web[0].removeprefix("http://")
        env["NGINX_PORT"] = f"127.0.0.1:{port}"
        rendered = interpolate(NGINX_TEMPLATE.read_text(), env)  # as the image's envsubst does
        home = self.tmp / "proxy"
        for d in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (home / "temp" / d).mkdir(parents=True, exist_ok=True)
        (home / "default.conf").write_text(rendered)
        (home / "nginx.conf").write_text(
            f"worker_processes 1;\npid {home}/nginx.pid;\nerror_log stderr warn;\ndaemon off;\n"
            "events { worker_connections 256; }\n"
            f"http {{\n  access_log off;\n  client_body_temp_path {home}/temp/client_body;\n"
            f"  proxy_temp_path {home}/temp/proxy;\n  fastcgi_temp_path {home}/temp/fastcgi;\n"
            f"  uwsgi_temp_path {home}/temp/uwsgi;\n  scgi_temp_path {home}/temp/scgi;\n"
            f"  include {home}/default.conf;\n}}\n"
        )
        log = home / "log.txt"
        say(f"start proxy: nginx -c {home}/nginx.conf (docker/nginx/default.conf.template) on :{port}")
        proc = subprocess.Popen(
            [nginx, "-p", str(home), "-e", "stderr", "-c", str(home / "nginx.conf")],
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.procs.append(("proxy", proc, log))
        self.proxy = f"http://127.0.0.1:{port}"

    def check_alive(self) -> None:
        for name, proc, log in self.procs:
            if proc.poll() is not None:
                raise SystemExit(f"{name} exited with {proc.returncode}:\n{tail(log)}")

    def stop(self) -> None:
        for _name, proc, _ in reversed(self.procs):
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for name, proc, _ in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                say(f"{name} did not stop: killing its process group")
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)

    def logs(self) -> dict[str, str]:
        return {name: log.read_text(errors="replace") for name, _, log in self.procs}


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def find_nginx(tmp: Path) -> str | None:
    """nginx on PATH, or the Debian package unpacked (not installed: no service is started)."""
    found = shutil.which("nginx") or (os.path.exists("/usr/sbin/nginx") and "/usr/sbin/nginx") or None
    if found:
        return found
    if os.environ.get("SMOKE_NO_NGINX_DOWNLOAD"):
        return None
    try:
        subprocess.run(["apt-get", "download", "nginx"], cwd=tmp, check=True, capture_output=True, timeout=120)
        deb = next(tmp.glob("nginx_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp / "nginx-root")], check=True, timeout=60)
        binary = tmp / "nginx-root" / "usr" / "sbin" / "nginx"
        subprocess.run([str(binary), "-v"], check=True, capture_output=True, timeout=10)
        return str(binary)
    except Exception as exc:
        say(f"could not unpack nginx ({exc!r})")
        return None


# --- HTTP --------------------------------------------------------------------------------------------


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        return json.loads(self.body)


def http(
    method: str, url: str, body: Any = None, token: str | None = None, headers: dict[str, str] | None = None
) -> Answer:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Host", "localhost")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Token {token}")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return Answer(r.status, {k.lower(): v for k, v in r.headers.items()}, r.read())
    except urllib.error.HTTPError as e:
        return Answer(e.code, {k.lower(): v for k, v in e.headers.items()}, e.read())


def expect(answer: Answer, status: int, what: str) -> Answer:
    if answer.status != status:
        raise SystemExit(f"{what}: expected {status}, got {answer.status}: {answer.body[:400]!r}")
    return answer


def register(base: str, name: str) -> str:
    r = http("POST", f"{base}/api/v1/auth/register", {"username": name, "password": "a-long-passphrase-9"})
    return str(expect(r, 201, f"register {name}").json()["token"])


def scrape(url: str, token: str | None = None) -> dict[str, float]:
    """Prometheus text as {"name{labels}": value}."""
    req = urllib.request.Request(url)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=30) as r:
        text = r.read().decode()
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def assert_status(url: str, status: int, what: str) -> None:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            got = r.status
    except urllib.error.HTTPError as error:
        got = error.code
    assert got == status, f"{what}: {got}, not {status}"


def total(samples: dict[str, float], name: str) -> float:
    return sum(v for k, v in samples.items() if k == name or k.startswith(name + "{"))


# --- scenarios ---------------------------------------------------------------------------------------


def play_to_the_end(bases: list[str], tokens: list[str], match_id: str, limit_s: float) -> dict[str, Any]:
    """Each human seat plays its first legal move when awaited; ``bases`` are used in turn, per request."""
    deadline = time.monotonic() + min(limit_s, left())
    turn = 0
    while time.monotonic() < deadline:
        for token in tokens:
            base = bases[turn % len(bases)]
            turn += 1
            state = expect(http("GET", f"{base}/api/v1/matches/{match_id}/state", token=token), 200, "state").json()
            if state["status"] != "active":
                return state
            if state["you"] in state["awaiting"] and state["legal_moves"]:
                other = bases[turn % len(bases)]
                turn += 1
                body = {"move": state["legal_moves"][0], "expected_version": state["version"]}
                r = http("POST", f"{other}/api/v1/matches/{match_id}/moves", body, token=token)
                if r.status not in (201, 409):  # 409: a bot's interrupt or a timer landed first
                    raise SystemExit(f"move refused with {r.status}: {r.body[:300]!r}")
        time.sleep(0.05)
    raise SystemExit(f"match {match_id} did not finish in time")


def smoke(layout: Layout) -> None:
    base = layout.proxy or layout.web[0]
    say(f"smoke through {base}")
    live = expect(http("GET", f"{base}/livez"), 200, "livez")
    assert live.json() == {"status": "ok"}, live.body
    ready = expect(http("GET", f"{base}/readyz"), 200, "readyz").json()
    assert set(ready["checks"]) >= {"database", "migrations", "broker", "cache"}, ready
    echoed = http("GET", f"{base}/livez", headers={"X-Request-ID": "smoke-req-1"})
    assert echoed.headers.get("x-request-id") == "smoke-req-1", echoed.headers
    if layout.proxy:
        expect(http("GET", f"{layout.proxy}/metrics"), 404, "metrics through the proxy")
    preflight = http(
        "OPTIONS",
        f"{base}/api/v1/matches",
        headers={"Origin": "https://app.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status == 200 and preflight.headers.get("access-control-allow-origin"), preflight.headers

    ann = register(base, "smoke_ann")
    created = http(
        "POST",
        f"{base}/api/v1/matches",
        {"game": "enka", "players": 3, "options": {"max_rounds": 1}, "bots": [{"seat": 1}, {"seat": 2}]},
        token=ann,
        headers={"X-Request-ID": "smoke-create"},
    )
    match_id = expect(created, 201, "create a match against bots").json()["id"]
    stream_check(base, ann, match_id)
    final = play_to_the_end([base], [ann], match_id, limit_s=150)
    assert final["status"] == "finished" and final.get("result"), final
    say(f"match {match_id} against bots finished at version {final['version']}")

    # a seat clock that runs out: ben never moves, the timer fires through the timers worker
    ben = register(base, "smoke_ben")
    timed = http(
        "POST",
        f"{base}/api/v1/matches",
        {"game": "enka", "players": 2, "bots": [{"seat": 1}], "time_control": {"per_move_s": 1}},
        token=ben,
    )
    timed_id = expect(timed, 201, "create a timed match").json()["id"]

    def timed_out() -> bool:
        events = expect(http("GET", f"{base}/api/v1/matches/{timed_id}/events", token=ben), 200, "events").json()
        return any(e["type"] == "timeout" for e in events)

    wait_for("a timeout record", timed_out, timeout=60)
    say(f"match {timed_id}: the seat clock ran out and a timeout was recorded")

    assert_status(layout.web[0] + "/metrics", 403, "a scrape without the token")
    web_metrics = scrape(layout.web[0] + "/metrics", layout.outer["TABULA_METRICS_TOKEN"])
    assert total(web_metrics, "tabula_moves_accepted_total") >= 1, "no accepted move in the web metrics"
    assert total(web_metrics, "django_http_requests_total_by_method_total") >= 1, "no request metrics"
    assert any(k.startswith("tabula_celery_queue_length{") for k in web_metrics), "no queue depth"
    assert any(k.startswith("django_db_execute_total") for k in web_metrics), "no database metrics"

    def worker_saw_bots_and_timers() -> bool:
        merged: dict[str, float] = {}
        for url in layout.worker_metrics:
            for k, v in scrape(url).items():
                merged[k] = merged.get(k, 0) + v
        return (
            total(merged, "tabula_bot_decision_seconds_count") >= 1 and total(merged, "tabula_timers_fired_total") >= 1
        )

    wait_for("bot and timer metrics from the workers", worker_saw_bots_and_timers, timeout=30)

    aborted = layout.manage("abort_match", "--reason", "smoke test", "--", timed_id)  # an id may start with "-"
    assert aborted.returncode == 0, aborted.stderr
    state = expect(http("GET", f"{base}/api/v1/matches/{timed_id}", token=ben), 200, "match").json()
    assert state["status"] == "aborted", state
    verified = layout.manage("verify_matches")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    say("smoke passed:", verified.stdout.strip().splitlines()[-1] if verified.stdout.strip() else "")


def stream_check(base: str, token: str, match_id: str) -> None:
    """The inbox stream through the proxy (nginx passes it unbuffered to the front): the match's start arrives."""
    import http.client
    from urllib.parse import urlsplit

    where = urlsplit(base)
    conn = http.client.HTTPConnection(where.hostname or "127.0.0.1", where.port or 80, timeout=10)
    conn.request("GET", "/api/v1/me/stream?after=0", headers={"Authorization": f"Token {token}", "Host": "localhost"})
    response = conn.getresponse()
    assert response.status == 200 and response.getheader("content-type", "").startswith("text/event-stream")
    seen = b""
    deadline = time.monotonic() + 10
    while b"event: match_started" not in seen and time.monotonic() < deadline:
        seen += response.read1(4096)
    conn.close()
    assert b"event: match_started" in seen and match_id.encode() in seen, seen[:300]
    say("stream: the inbox stream delivered match_started through", base)


def scale(layout: Layout) -> None:
    a, b = layout.web[0], layout.web[1]
    say(f"scale: two web processes {a} and {b}, {len(layout.worker_metrics)} workers")
    tokens = [register(a, "scale_ann"), register(b, "scale_ben")]
    matches = []
    for i in range(2):
        created = http("POST", f"{a if i % 2 else b}/api/v1/matches", {"game": "enka", "players": 2}, token=tokens[0])
        mid = expect(created, 201, "create").json()["id"]
        expect(http("POST", f"{b if i % 2 else a}/api/v1/matches/{mid}/join", {}, token=tokens[1]), 200, "join")
        matches.append(mid)
    for mid in matches:
        for token in tokens:  # the same state, the same ETag from both processes
            ra = expect(http("GET", f"{a}/api/v1/matches/{mid}/state", token=token), 200, "state on a")
            rb = expect(http("GET", f"{b}/api/v1/matches/{mid}/state", token=token), 200, "state on b")
            assert ra.headers["etag"] == rb.headers["etag"], (ra.headers["etag"], rb.headers["etag"])
            not_modified = http(
                "GET", f"{b}/api/v1/matches/{mid}/state", token=token, headers={"If-None-Match": ra.headers["etag"]}
            )
            assert not_modified.status == 304, not_modified.status
    # moves alternate between the processes; each read sees the other's last write (no stale cache)
    for mid in matches:
        for _ in range(12):
            moved = False
            for i, token in enumerate(tokens):
                state = expect(http("GET", f"{(a, b)[i]}/api/v1/matches/{mid}/state", token=token), 200, "s").json()
                if state["status"] != "active":
                    break
                if state["you"] in state["awaiting"] and state["legal_moves"]:
                    body = {"move": state["legal_moves"][0], "expected_version": state["version"]}
                    r = expect(http("POST", f"{(b, a)[i]}/api/v1/matches/{mid}/moves", body, token=token), 201, "move")
                    version = r.json()["version"]
                    after = expect(http("GET", f"{(a, b)[i]}/api/v1/matches/{mid}/state", token=token), 200, "s").json()
                    assert after["version"] >= version, f"stale state: {after['version']} < {version}"
                    moved = True
            if not moved:
                break
    say("scale: moves through both processes agree")

    # timers with two workers on the timers queue: every deadline fires once
    timed = []
    for i in range(3):
        created = http(
            "POST",
            f"{(a, b)[i % 2]}/api/v1/matches",
            {"game": "enka", "players": 2, "time_control": {"per_move_s": 1}},
            token=tokens[0],
        )
        mid = expect(created, 201, "create timed").json()["id"]
        expect(http("POST", f"{(b, a)[i % 2]}/api/v1/matches/{mid}/join", {}, token=tokens[1]), 200, "join timed")
        timed.append(mid)

    def timeouts(mid: str) -> list[dict[str, Any]]:
        events = expect(http("GET", f"{a}/api/v1/matches/{mid}/events", token=tokens[0]), 200, "events").json()
        return [e for e in events if e["type"] in ("timeout", "expired")]

    wait_for("three timeouts in each timed match", lambda: all(len(timeouts(m)) >= 3 for m in timed), timeout=90)
    for mid in timed:
        aborted = layout.manage("abort_match", "--reason", "scale test over", "--", mid)  # an id may start with "-"
        assert aborted.returncode == 0, aborted.stderr
    time.sleep(1.0)  # the last timer's metric is counted after its commit
    records = sum(len(timeouts(m)) for m in timed)
    for mid in timed:
        per_seat: dict[Any, list[int]] = {}
        for e in timeouts(mid):
            per_seat.setdefault(e.get("seat"), []).append(e["seq"])
        for seat, seqs in per_seat.items():
            assert len(seqs) == len(set(seqs)), (mid, seat, seqs)
    fired: dict[str, float] = {}
    for url in layout.worker_metrics:
        for k, v in scrape(url).items():
            fired[k] = fired.get(k, 0) + v
    fired_total = total(fired, "tabula_timers_fired_total")
    import psycopg

    with psycopg.connect(f"{PG}/{layout.dbname}") as conn:
        row = conn.execute("SELECT count(*) FROM games_record WHERE type IN ('timeout', 'expired')").fetchone()
    in_db = int(row[0]) if row else 0
    assert fired_total == in_db, f"{in_db} timeout records in all, but {fired_total} timers fired"
    say(f"scale: {records} timeout records here, {in_db} in all, {fired_total:.0f} timers fired: each once")
    verified = layout.manage("verify_matches")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def ready(url: str) -> Callable[[], bool]:
    return lambda: http("GET", f"{url}/readyz").status == 200


def main(argv: list[str]) -> int:
    scenarios = argv or ["smoke", "scale"]

    def stopped(*_: object) -> None:
        sys.exit("stopped (SIGTERM): cleaning up")

    signal.signal(signal.SIGTERM, stopped)  # `timeout` in CI
    dbname = os.environ.get("SMOKE_DB") or f"tabula_prodlayout_{os.getpid()}"
    import psycopg
    import redis

    redis.Redis(host="127.0.0.1", port=6379, db=REDIS_DB).flushdb()
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{dbname}"')
    layout = Layout(dbname)
    ok = False
    try:
        layout.run_once("migrate")
        layout.start("web")
        if "scale" in scenarios:
            layout.start("web", "web-2")
        workers = [n for n in layout.compose["services"] if n.startswith("worker-")]
        for name in workers:
            layout.start(name)
            if "scale" in scenarios and name != "worker-celery":
                layout.start(name, f"{name}-2")
        layout.start("beat")
        for url in layout.web:
            wait_for(f"{url}/readyz", ready(url), timeout=90)
        wait_for(
            "the workers' metrics servers",
            lambda: all(urllib.request.urlopen(u, timeout=5).status == 200 for u in layout.worker_metrics),
            timeout=90,
        )
        layout.start_proxy()
        if layout.proxy:
            wait_for("the proxy", lambda: http("GET", f"{layout.proxy}/livez").status == 200, timeout=30)
        layout.check_alive()
        if "smoke" in scenarios:
            smoke(layout)
        if "scale" in scenarios:
            scale(layout)
        layout.check_alive()
        ok = True
    finally:
        layout.stop()
        if not ok:
            for name, text in layout.logs().items():
                print(f"----- {name} (last lines) -----\n" + "\n".join(text.splitlines()[-30:]), flush=True)
        logs = layout.logs()
        with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        redis.Redis(host="127.0.0.1", port=6379, db=REDIS_DB).flushdb()
        shutil.rmtree(layout.tmp, ignore_errors=True)
    check_logs(logs)
    say("passed:", ", ".join(scenarios))
    return 0


CELERY_SAYS = {"worker: Warm shutdown (MainProcess)", "worker: Cold shutdown (MainProcess)"}  # printed, not logged


def check_logs(logs: dict[str, str]) -> None:
    """Production logs are JSON lines, and request lines carry a request id."""
    bad = []
    for name, text in logs.items():
        if name == "proxy":
            continue
        for line in text.splitlines():
            if not line.strip():
                continue
            if line.strip() in CELERY_SAYS:
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                bad.append(f"{name}: {line[:200]}")
                continue
            if entry.get("event") == "request_finished" and not entry.get("request_id"):
                bad.append(f"{name}: request line without a request id: {line[:200]}")
    if bad:
        per: dict[str, list[str]] = {}
        for line in bad:
            per.setdefault(line.partition(":")[0], []).append(line)
        sample = [line for lines in per.values() for line in lines[:5]]
        counts = ", ".join(f"{name}: {len(lines)}" for name, lines in per.items())
        raise SystemExit(f"log lines that are not structured ({counts}):\n" + "\n".join(sample))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
