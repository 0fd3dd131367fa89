"""The golden transcripts (tests/golden/README.md): each is rebuilt in memory and must equal its file."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from tests.golden import generate

REGEN = os.environ.get("GOLDEN_REGEN") == "1"


def _compare(path: Path, text: str, regen_hint: str) -> None:
    __tracebackhide__ = True
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: {regen_hint}"
    golden = path.read_text(encoding="utf-8")
    if golden == text:
        return
    diff = list(
        difflib.unified_diff(
            golden.splitlines(), text.splitlines(), f"{path.name} (committed)", f"{path.name} (now)", lineterm=""
        )
    )
    shown = "\n".join(diff[:80]) + (f"\n... ({len(diff) - 80} more diff lines)" if len(diff) > 80 else "")
    pytest.fail(f"{path} differs from the behaviour now (a behaviour change?). If intended: {regen_hint}\n{shown}")


@pytest.mark.parametrize("case", generate.CASES, ids=lambda c: c.name)
def test_engine_golden(case: generate.Case) -> None:
    if REGEN:
        pytest.skip("engine goldens are written by `python -m tests.golden.generate`")
    _compare(case.path, generate.engine_transcript(case), "run .venv/bin/python -m tests.golden.generate --engines")


@pytest.mark.django_db
@pytest.mark.parametrize("game", generate.API_GAMES)
def test_api_golden(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _compare(
        generate.api_path(game),
        generate.api_transcript(game, monkeypatch),
        "run GOLDEN_REGEN=1 .venv/bin/pytest tests/golden -p no:xdist -k api",
    )
