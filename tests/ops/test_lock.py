"""The lock files (requirements/, `make lock`) hold what pyproject.toml asks for, every pin with its
hashes, so a fresh machine installs what CI tested (issue 24)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _pins(path: Path) -> dict[str, str]:
    """{name: version} of a lock file, asserting that every pin carries a hash."""
    text = path.read_text()
    pins = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        head = re.match(r"([A-Za-z0-9_.\[\],-]+)==([^ \\\n;]+)", block)
        if head:
            assert "--hash=sha256:" in block, f"{path.name}: {head.group(1)} has no hash"
            pins[re.sub(r"[-_.]+", "-", head.group(1).split("[")[0]).lower()] = head.group(2)
    return pins


def _declared(requirements: list[str]) -> dict[str, str]:
    found = {}
    for requirement in requirements:
        exact = re.match(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?==([^ ;]+)", requirement)
        if exact:
            found[re.sub(r"[-_.]+", "-", exact.group(1)).lower()] = exact.group(3)
    return found


def test_the_locks_pin_what_pyproject_asks_for_with_hashes():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime, dev = _pins(ROOT / "requirements" / "runtime.txt"), _pins(ROOT / "requirements" / "dev.txt")
    for name, version in _declared(project["dependencies"]).items():
        assert runtime.get(name) == version and dev.get(name) == version, (name, version)
    for name, version in _declared(project["optional-dependencies"]["dev"]).items():
        assert dev.get(name) == version and runtime.get(name, version) == version, (name, version)
    assert runtime.items() <= dev.items()  # make test adds to what make run installs, never changes it
    assert "django" in runtime and not {"pytest", "mypy", "ruff", "playwright", "schemathesis"} & set(runtime)
