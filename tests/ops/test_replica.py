"""A real streaming replica (issue 30, item 3): `core.replicas` sends lag-tolerant reads to it,
and a caller who wrote reads the primary. Proven with the replica's replay paused
(``pg_wal_replay_pause()``): another member reads the old profile from the replica, the writer
their new one from the primary, and once replay resumes everyone reads the new one.

The test makes its own primary (initdb, with replication allowed on loopback) and replica
(pg_basebackup -R) as the ``postgres`` user, on free ports, and runs the service's code in a
process of its own against them (`replica_probe.py`)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path("/usr/lib/postgresql/15/bin")
pytestmark = pytest.mark.xdist_group("replica")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres(*argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    command = list(argv)
    if os.geteuid() == 0:
        command = ["runuser", "-u", "postgres", "--", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if check and done.returncode:
        raise RuntimeError(f"{argv[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done


def _pg_ctl(data: Path, port: int, home: Path, *options: str) -> None:
    opts = " ".join((f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={home}", *options))
    _as_postgres(str(BIN / "pg_ctl"), "-D", str(data), "-o", opts, "-l", f"{data}.log", "-w", "start")


@pytest.fixture
def primary_and_replica():
    if not (BIN / "initdb").exists() or not shutil.which("runuser"):
        pytest.skip("PostgreSQL's server binaries are not installed")
    home = Path(tempfile.mkdtemp(prefix="tabula-replica-"))  # not under pytest's root-only folder
    if os.geteuid() == 0:
        shutil.chown(home, "postgres")
    primary, replica = home / "primary", home / "replica"
    p1, p2 = _free_port(), _free_port()
    _as_postgres(str(BIN / "initdb"), "-D", str(primary), "-A", "trust", "-U", "postgres", "--no-sync")
    started = []
    try:
        opts = (
            f"-p {p1} -c listen_addresses=127.0.0.1 -c unix_socket_directories={home} -c wal_level=replica -c fsync=off"
        )
        _as_postgres(
            str(BIN / "pg_ctl"), "-D", str(primary), "-o", opts, "-l", str(home / "primary.log"), "-w", "start"
        )
        started.append(primary)
        _as_postgres(str(BIN / "createdb"), "-h", "127.0.0.1", "-p", str(p1), "-U", "postgres", "tabula")
        _as_postgres(
            str(BIN / "pg_basebackup"),
            "-h",
            "127.0.0.1",
            "-p",
            str(p1),
            "-U",
            "postgres",
            "-D",
            str(replica),
            "-R",
            "--checkpoint=fast",  # a spread checkpoint made the copy wait a minute and more
            "--no-sync",
        )
        opts = f"-p {p2} -c listen_addresses=127.0.0.1 -c unix_socket_directories={home} -c hot_standby=on -c fsync=off"
        _as_postgres(
            str(BIN / "pg_ctl"), "-D", str(replica), "-o", opts, "-l", str(home / "replica.log"), "-w", "start"
        )
        started.append(replica)
        yield f"postgres://postgres@127.0.0.1:{p1}/tabula", f"postgres://postgres@127.0.0.1:{p2}/tabula"
    finally:
        for data in reversed(started):
            _as_postgres(str(BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop", check=False)
        shutil.rmtree(home, ignore_errors=True)


def test_lag_tolerant_reads_go_to_the_replica_and_a_writer_reads_their_own_write(primary_and_replica):
    primary, replica = primary_and_replica
    env = {
        **os.environ,
        "DATABASE_URL": primary,
        "DATABASE_REPLICA_URL": replica,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
    }
    run = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("replica_probe.py"))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["paused"] is True and seen["write"]["status"] == 200, seen["write"]
    # The writer is pinned to the primary: their own change, at once.
    assert seen["writer_reads"]["from"] == "primary"
    assert seen["writer_reads"]["body"]["display_name"] == "Ann Two"
    # Another member's profile read went to the paused replica: the name before the change.
    assert seen["other_reads"]["from"] == "replica" and seen["other_reads"]["status"] == 200
    assert seen["other_reads"]["body"]["display_name"] != "Ann Two"
    # A read that is not lag-tolerant (the caller's own `me`) stays on the primary.
    assert seen["other_state_like"]["from"] == "primary"
    # Replay resumed: the replica caught up and shows the change.
    assert seen["other_reads_after"]["from"] == "replica"
    assert seen["other_reads_after"]["body"]["display_name"] == "Ann Two"
