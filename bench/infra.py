"""What the bench runs against: a throwaway database and the real front (`python -m front`).

Nothing here touches the developer's ``var/``: every process gets ``TABULA_VAR_DIR`` pointing at the
run's temporary directory (so the filesystem broker and static files live there too) and a
``DATABASE_URL`` of its own: a SQLite file in that directory, or a database created for the run on
a PostgreSQL server and dropped afterwards. Every context manager here undoes what it did, also on
Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/postgres"
SERVER_START_S = 180  # a loaded machine: seven processes import Django at once


@dataclass(frozen=True)
class Database:
    url: str  # a DATABASE_URL
    kind: str  # "SQLite" or "PostgreSQL"
    label: str  # where it is, for the report


def is_postgres(url: str) -> bool:
    return url.split(":", 1)[0] in {"postgres", "postgresql", "pgsql"}


def with_database_name(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))


def postgres_server() -> str | None:
    """The PostgreSQL server to use: DATABASE_URL's, else BENCH_POSTGRES_URL or the local default."""
    configured = os.environ.get("DATABASE_URL", "")
    if is_postgres(configured):
        return configured
    return os.environ.get("BENCH_POSTGRES_URL", DEFAULT_POSTGRES)


def postgres_reachable(url: str) -> str | None:
    """None when a maintenance connection to ``url``'s server works, else why not."""
    import psycopg

    try:
        with psycopg.connect(with_database_name(url, "postgres"), connect_timeout=3):
            return None
    except psycopg.Error as exc:
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


@contextmanager
def sqlite_database(directory: Path) -> Iterator[Database]:
    path = directory / "bench.sqlite3"
    try:
        yield Database(f"sqlite:///{path}", "SQLite", f"temporary file {path}")
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)


@contextmanager
def postgres_database(server_url: str) -> Iterator[Database]:
    """A database created for this run (``tabula_bench_<pid>``, or ``BENCH_DATABASE_NAME``) on
    ``server_url``'s server, then dropped."""
    import psycopg
    from psycopg import sql

    name = os.environ.get("BENCH_DATABASE_NAME") or f"tabula_bench_{os.getpid()}"
    admin = with_database_name(server_url, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    host = urlsplit(server_url).hostname or "localhost"
    try:
        yield Database(with_database_name(server_url, name), "PostgreSQL", f"database {name} on {host}")
    finally:
        _close_django_connections()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def _close_django_connections() -> None:
    """Let go of this process's connections to a database about to be dropped."""
    if "django.db" not in sys.modules:
        return
    from django.conf import settings
    from django.db import connections

    if settings.configured:
        connections.close_all()


def environment(var_dir: Path, database: Database, settings: str) -> dict[str, str]:
    """The environment of every Django process of the run (this one included)."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": settings,
        "DATABASE_URL": database.url,
        "TABULA_VAR_DIR": str(var_dir),
        "CELERY_BROKER_URL": "filesystem://",
        "DEBUG": "false",
        "LOG_LEVEL": "WARNING",
        "TABULA_RATE_LIMITS": "off",  # load tests on a private machine (docs/operations.md): read limits would end them
        "PYTHONPATH": str(ROOT),
    }


def migrate(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "--verbosity", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )


def free_port() -> int:
    """A free port: any, or one in ``BENCH_PORTS`` (``first-last``) when set (a machine shared by several runs)."""
    first, _, last = os.environ.get("BENCH_PORTS", "").partition("-")
    if not first:
        candidates = [0]
    else:  # each call starts after the port the last one handed out, which may not be bound yet
        ports = list(range(int(first), int(last or first) + 1))
        start = (ports.index(_handed[-1]) + 1) if _handed and _handed[-1] in ports else 0
        candidates = ports[start:] + ports[:start]
    for port in candidates:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            _handed.append(int(sock.getsockname()[1]))
            return _handed[-1]
    raise RuntimeError(f"no free port in BENCH_PORTS={os.environ['BENCH_PORTS']}")


_handed: list[int] = []


@dataclass(frozen=True)
class Server:
    base: str  # http://127.0.0.1:PORT
    command: str  # how it was started, for the report
    session: int | None = None  # the session id of every process serving (`cpu_seconds`)


@contextmanager
def front(env: dict[str, str], log: Path, workers: int = 1, threads: int = 8) -> Iterator[Server]:
    """The front as `make run` and docker/compose.yaml start it (``python -m front``), alone, with
    ``workers`` processes of ``threads`` threads, on a free port; stopped on exit."""
    port = free_port()
    command = [sys.executable, "-m", "front", "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)]
    env = {**env, "WEB_THREADS": str(threads)}
    with open(log, "ab") as out:
        # A session of its own: Ctrl-C reaches only us, and we stop the server in order.
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out, start_new_session=True)
    try:
        _wait_until_serving(proc, port, log)
        yield Server(
            f"http://127.0.0.1:{port}", f"python -m front, {workers} process(es) × {threads} thread(s)", proc.pid
        )
    finally:
        _stop(proc)


def _wait_until_serving(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}:\n{_tail(log)}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"GET /api/v1/games HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                if sock.recv(16).startswith(b"HTTP/"):
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the server did not answer within {SERVER_START_S} s:\n{_tail(log)}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the server's own session: its master and workers
            proc.wait()


def _tail(log: Path, lines: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


@contextmanager
def service(env: dict[str, str], log: Path, redis_url: str = "") -> Iterator[Server]:
    """The whole service as `make run` starts it (``bin/run``: workers, beat and the front,
    ``python -m front``, which serves every request itself) on a free port, with this run's database and var dir; with
    ``redis_url``, on Redis as broker and for the streams. Stopped, every process, on exit."""
    port = free_port()
    var_dir = Path(env["TABULA_VAR_DIR"])
    run_env = {
        **env,
        "PORT": str(port),
        "PROMETHEUS_MULTIPROC_DIR": str(var_dir / "metrics"),
        "TABULA_RATE_LIMITS": "off",  # a load test on a private machine (docs/operations.md)
    }
    if redis_url:
        run_env |= {"CELERY_BROKER_URL": redis_url, "REDIS_URL": redis_url}
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            ["bin/run"], cwd=ROOT, env=run_env, stdout=out, stderr=out, stdin=subprocess.DEVNULL, start_new_session=True
        )
    try:
        _wait_until_serving(proc, port, log)
        yield Server(f"http://127.0.0.1:{port}", "bin/run (make run)", session=proc.pid)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # bin/run and everything it started: one session
            with suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=20)
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def cpu_seconds(session: int | None = None) -> dict[str, float]:
    """CPU seconds used so far by the processes of one session (``bin/run``'s), by program, and by
    every PostgreSQL backend on this machine (``postgres``)."""
    ticks = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                name, rest = f.read().rsplit(")", 1)
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = rest.split()
        used = (int(fields[11]) + int(fields[12])) / ticks
        if name.endswith("(postgres"):
            out["postgres"] = out.get("postgres", 0.0) + used
        elif session is not None and int(fields[3]) == session:
            program = "front" if "-m front" in cmdline else "celery" if "celery" in cmdline else "other"
            if program == "other" and "multiprocessing" in cmdline:
                program = "front"  # the front's worker processes (uvicorn spawns them)
            out[program] = out.get(program, 0.0) + used
    return out
