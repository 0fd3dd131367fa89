"""Fixtures of the games' tests."""

from __future__ import annotations

import pytest

from games import replay


@pytest.fixture
def folded(monkeypatch):
    """Counts the records `replay.replay` folds (every fold of `games.replay` goes through it)."""
    count = [0]
    plain = replay.replay

    def counting(match, records, state=None):
        records = list(records)
        count[0] += len(records)
        return plain(match, records, state)

    monkeypatch.setattr(replay, "replay", counting)
    return count
