#!/usr/bin/env python
"""Django's command-line utility."""

import os
import sys
from pathlib import Path

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
    from django.conf import settings
    from django.core.management import execute_from_command_line

    # An SQLite database (the embedded default's, under var/) needs its folder: the settings name it,
    # they create nothing.
    for database in settings.DATABASES.values():
        if database["ENGINE"].endswith("sqlite3"):
            Path(database["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    execute_from_command_line(sys.argv)
