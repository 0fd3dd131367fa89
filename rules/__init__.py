"""Registry of rules engines, by game id. Adding a game = adding its module here."""

from __future__ import annotations

from typing import Any

from rules import ecos, ekko, eko, enka
from rules.base import Rules

RULES: dict[str, Rules[Any, Any, Any]] = {m.RULES.name: m.RULES for m in (ekko, enka, eko, ecos)}  # catalogue order
