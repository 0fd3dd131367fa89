"""Registry of rules engines, by game id. Adding a game = adding its module here."""

from __future__ import annotations

from typing import Any

from games.engines.base import Rules

RULES: dict[str, Rules[Any, Any, Any]] = {}


def _register(rules: Rules[Any, Any, Any]) -> None:
    RULES[rules.name] = rules


# One line per game, in catalogue order.
