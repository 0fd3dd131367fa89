#!/usr/bin/env python
"""Django's command-line utility."""

import os
import secrets
import sys
from pathlib import Path


def make_secret_key() -> None:
    """Under the dev settings (`make run` migrates through here first), this checkout's own signing key,
    made once in TABULA_VAR_DIR/secret_key, mode 0600 (var/ is never committed); config/settings/dev.py
    reads it unless SECRET_KEY is set."""
    if os.environ["DJANGO_SETTINGS_MODULE"] != "config.settings.dev" or os.environ.get("SECRET_KEY"):
        return
    var = Path(os.environ.get("TABULA_VAR_DIR") or Path(__file__).resolve().parent / "var")
    key_file = var / "secret_key"
    if key_file.is_file() and key_file.stat().st_size:
        return
    var.mkdir(parents=True, exist_ok=True)
    fresh = var / f"secret_key.{os.getpid()}"
    fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_urlsafe(50) + "\n")
    os.replace(fresh, key_file)  # two first runs at once: one key wins whole


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
    make_secret_key()
    from django.conf import settings
    from django.core.management import execute_from_command_line

    # An SQLite database (the embedded default's, under var/) needs its folder: the settings name it,
    # they create nothing.
    for database in settings.DATABASES.values():
        if database["ENGINE"].endswith("sqlite3"):
            Path(database["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    execute_from_command_line(sys.argv)
