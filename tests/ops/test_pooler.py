"""The service through PgBouncer in transaction mode (issue 30, item 2).

A server connection serves another client after every transaction, so nothing may live in the
session: `TABULA_DB_POOLER=transaction` sends no startup options (the timeouts are set on the
role), opens no server-side cursors and prepares nothing. Proven here with Debian's PgBouncer
1.18 on a free port, a pool of 3 server connections and four seats playing one EKKO match at
once from four client connections: every move accepted or refused cleanly, the record log
contiguous and verified by replay, the role's timeouts in force, a queryset `.iterator()` fine."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
pytestmark = pytest.mark.xdist_group("pooler")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _psql(sql: str, database: str = "postgres") -> None:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-qc", sql],
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture
def pooler():
    if not Path(PGBOUNCER).exists() or not shutil.which("psql"):
        pytest.skip("pgbouncer is not installed (.ci/pgbouncer installs it)")
    try:
        _psql("SELECT 1")
    except (subprocess.CalledProcessError, FileNotFoundError):
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    name = f"tabula_pooler_{uuid.uuid4().hex[:8]}"
    # The role carries the timeouts a pooled connection cannot set for itself.
    for sql in (
        f"CREATE ROLE {name} LOGIN",
        f"ALTER ROLE {name} SET statement_timeout = '5s'",
        f"ALTER ROLE {name} SET lock_timeout = '5s'",
        f"CREATE DATABASE {name} OWNER {name}",  # alone: not inside a transaction block
    ):
        _psql(sql)
    home = Path(tempfile.mkdtemp(prefix="tabula-pgbouncer-"))
    port = _free_port()
    (home / "users.txt").write_text(f'"{name}" ""\n')
    (home / "pgbouncer.ini").write_text(
        f"""[databases]
{name} = host=127.0.0.1 port=5432 dbname={name}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {home}/users.txt
pool_mode = transaction
default_pool_size = 3
max_client_conn = 100
logfile = {home}/pgbouncer.log
pidfile = {home}/pgbouncer.pid
"""
    )
    command = [PGBOUNCER, str(home / "pgbouncer.ini")]
    if os.geteuid() == 0:  # pgbouncer refuses to run as root
        shutil.chown(home, "postgres")
        for f in home.iterdir():
            shutil.chown(f, "postgres")
        command = ["runuser", "-u", "postgres", "--", *command]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"postgres://{name}@127.0.0.1:{port}/{name}", home
    finally:
        process.terminate()
        process.wait(timeout=10)
        _psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        _psql(f"DROP ROLE IF EXISTS {name}")
        shutil.rmtree(home, ignore_errors=True)


def test_the_service_plays_through_pgbouncer_in_transaction_mode(pooler):
    url, home = pooler
    env = {**os.environ, "DATABASE_URL": url, "TABULA_DB_POOLER": "transaction"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    env.pop("DATABASE_REPLICA_URL", None)
    run = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("pooler_probe.py"))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = (home / "pgbouncer.log").read_text(errors="replace") if (home / "pgbouncer.log").exists() else ""
    assert run.returncode == 0, run.stderr[-3000:] + "\npgbouncer: " + log[-2000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    print("through pgbouncer:", seen)
    assert seen["statement_timeout"] == "5s" and seen["lock_timeout"] == "5s"  # from the role
    assert seen["accepted"] >= 20 and seen["errors"] == 0, seen
    assert seen["records_contiguous"] and seen["verified"]
    assert seen["version"] == seen["records"] - 1 or seen["version"] == seen["records"], seen
    assert seen["users_by_iterator"] == 4
    assert "prepared statement" not in log and "unsupported startup parameter" not in log
