"""Paths and the environment readers every settings module uses.

No settings module creates a file or a folder: what lives under VAR_DIR is made where it is used
(bin/run and manage.py the SQLite database's folder, core/broker.py the broker's when it connects,
config/celery.py beat's, collectstatic STATIC_ROOT, Django the file cache's and the mail folder).
"""

from __future__ import annotations

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("TABULA_VAR_DIR", BASE_DIR / "var"))  # the embedded default's files


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]
