"""`make run`'s layout (bin/run) survives a dead worker: it is started again and the front keeps
serving (issue 23, item 9). Runs the real bin/run on a SQLite file and the filesystem broker in a
temporary directory, as a newcomer's `make run` would."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.xdist_group("processes")
INHERITED = {"DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}  # make run's defaults instead


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(what: str, ok: Callable[[], object], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ok():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return bool(r.status == 200)
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[int, Path, Path, subprocess.Popen[bytes]]]:
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if key not in INHERITED} | {
        "PORT": str(port),
        "TABULA_VAR_DIR": str(tmp_path / "var"),
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "var" / "metrics"),
        "WEB_WORKERS": "1",
        "BOT_CONCURRENCY": "1",
        "TIMER_CONCURRENCY": "1",
        "RESTART_MAX_S": "2",
        "STOP_GRACE_S": "10",
    }
    log = (tmp_path / "run.log").open("wb")
    process = subprocess.Popen(["bin/run"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait("the front", lambda: _answers(f"http://127.0.0.1:{port}/livez"), 90)
        yield port, tmp_path / "var" / "run", tmp_path / "run.log", process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        log.close()


@pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "celery").exists(), reason="bin/run needs the .venv")
@pytest.mark.skipif(sys.platform != "linux", reason="bin/run is for Linux and macOS shells")
def test_a_killed_worker_is_started_again_and_the_front_keeps_serving(
    service: tuple[int, Path, Path, subprocess.Popen[bytes]],
) -> None:
    port, run, log, process = service
    pidfile = run / "bots-worker.pid"
    _wait("the bots worker", pidfile.exists, 30)
    first = int(pidfile.read_text())
    os.kill(first, signal.SIGKILL)

    assert _answers(f"http://127.0.0.1:{port}/api/v1/games")  # the rest keeps serving
    _wait("a new bots worker", lambda: pidfile.read_text().strip() not in ("", str(first)), 30)
    second = int(pidfile.read_text())
    assert _alive(second) and not _alive(first)
    assert f"bin/run: bots worker (pid {first}) exited with status 137; starting it again" in log.read_text()
    assert process.poll() is None and _answers(f"http://127.0.0.1:{port}/livez")

    process.send_signal(signal.SIGTERM)  # and it still stops as a whole
    assert process.wait(timeout=30) is not None
    _wait("every process to stop", lambda: not _alive(second), 15)


@pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "celery").exists(), reason="bin/run needs the .venv")
def test_a_front_that_cannot_start_stops_the_whole_service(tmp_path: Path) -> None:
    """A port in use is not fixed by starting again: bin/run says so and ends, as before."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if k not in INHERITED}
        env |= {"PORT": str(port), "TABULA_VAR_DIR": str(tmp_path / "var"), "WEB_WORKERS": "1", "STOP_GRACE_S": "10"}
        env["PROMETHEUS_MULTIPROC_DIR"] = str(tmp_path / "var" / "metrics")
        done = subprocess.run(["bin/run"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "bin/run: front (pid" in done.stderr and "failed at start" in done.stderr
