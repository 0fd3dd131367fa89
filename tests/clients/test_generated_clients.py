"""Proof with real generators: clients generated from the served document play every game.

openapi-python-client generates a Python client and openapi-typescript the TypeScript types, from
``GET /api/v1/schema`` of a live server, into a temporary folder. The drivers (clients/python/
driver.py, clients/typescript/driver.ts: the worked example of docs/clients.md) must pass
``mypy --strict`` and ``tsc --strict``, then play one two-seat match of every game to its end,
sending legal moves taken from the state unchanged.

The TypeScript half needs node and the packages of clients/typescript (``npm ci --prefix
clients/typescript``; .ci/clients does it): without them it is skipped, saying so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rules import RULES

pytestmark = pytest.mark.django_db(transaction=True)  # a live server: each test on its own xdist worker

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
BIN = Path(sys.executable).parent
NODE_MODULES = CLIENTS / "typescript" / "node_modules"


def _run(*args: str | Path, cwd: Path, timeout: float = 900) -> str:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(map(str, args))} failed:\n{output[-4000:]}"
    return output


def _served_document(live_server, folder: Path) -> Path:
    import urllib.request

    with urllib.request.urlopen(f"{live_server.url}/api/v1/schema/") as answer:  # our live server
        document = folder / "openapi.yaml"
        document.write_bytes(answer.read())
    return document


def _played_every_game(output: str) -> None:
    print(output)  # the moves per game (pytest -rP shows it)
    for game in RULES:
        assert f"{game}: " in output and "finished" in output, output[-2000:]
    assert f"{len(RULES)} games" in output, output[-2000:]


def test_a_generated_python_client_plays_every_game(live_server, tmp_path):
    document = _served_document(live_server, tmp_path)
    generated = _run(
        BIN / "openapi-python-client",
        "generate",
        "--path",
        document,
        "--config",
        CLIENTS / "python" / "config.yaml",
        "--meta",
        "none",
        "--output-path",
        tmp_path / "tabula_client",
        cwd=tmp_path,
    )
    assert "Warning" not in generated, generated
    shutil.copy(CLIENTS / "python" / "driver.py", tmp_path / "driver.py")
    _run(BIN / "mypy", "--strict", "--no-incremental", "driver.py", cwd=tmp_path)
    _played_every_game(_run(sys.executable, "driver.py", live_server.url, cwd=tmp_path))


def test_a_typescript_client_plays_every_game(live_server, tmp_path):
    node = shutil.which("node")
    if node is None or not (NODE_MODULES / ".bin" / "tsc").exists():
        pytest.skip("node or clients/typescript/node_modules missing: run `npm ci --prefix clients/typescript`")
    document = _served_document(live_server, tmp_path)
    for name in ("driver.ts", "tsconfig.json", "package.json"):
        shutil.copy(CLIENTS / "typescript" / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(NODE_MODULES)
    bins = NODE_MODULES / ".bin"
    _run(bins / "openapi-typescript", document, "--default-non-nullable", "false", "-o", "schema.d.ts", cwd=tmp_path)
    _run(bins / "tsc", "-p", ".", cwd=tmp_path)  # tsconfig.json: "strict": true
    _played_every_game(_run(node, "out/driver.js", live_server.url, cwd=tmp_path))


def test_the_client_guide_shows_the_drivers_that_ci_runs():
    guide = (ROOT / "docs" / "clients.md").read_text()
    for driver in (CLIENTS / "python" / "driver.py", CLIENTS / "typescript" / "driver.ts"):
        assert driver.read_text() in guide, f"docs/clients.md: paste {driver.relative_to(ROOT)} again"
    assert "docs/clients.md" in (ROOT / "README.md").read_text()
