"""The settings create nothing on disk; what lives under TABULA_VAR_DIR is made where it is used."""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import config.settings

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(f"config.settings.{m.name}" for m in pkgutil.iter_modules(config.settings.__path__))
# Every settings module imported, then Django set up with each environment's.
_IMPORT_ALL = (
    "import importlib, os, sys, django; from django.conf import settings\n"
    "for name in sys.argv[1:]: importlib.import_module(name)\n"
    "django.setup(); print(len(settings.INSTALLED_APPS))\n"
)


def _embedded_default(var: Path, settings: str) -> dict[str, str]:
    """The environment of the embedded default (SQLite, filesystem broker, file cache and mail) under ``var``."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL"}}
    env.pop("EMAIL_HOST", None)
    return {**env, "DJANGO_SETTINGS_MODULE": settings, "TABULA_VAR_DIR": str(var), "SECRET_KEY": "s" * 50}


def test_every_settings_module_is_known():
    assert {"config.settings.base", "config.settings.dev", "config.settings.test", "config.settings.prod"} <= set(
        MODULES
    )
    assert "config.settings.celery" in MODULES and "config.settings.database" in MODULES


def test_importing_the_settings_creates_no_file_or_folder(tmp_path):
    for settings in ("config.settings.dev", "config.settings.test", "config.settings.prod"):
        var = tmp_path / settings / "var"
        var.parent.mkdir()
        done = subprocess.run(
            [sys.executable, "-c", _IMPORT_ALL, *MODULES],
            cwd=ROOT,
            env=_embedded_default(var, settings),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        created = sorted(str(p.relative_to(var.parent)) for p in var.parent.rglob("*"))
        assert created == [], (settings, created)


def test_manage_py_makes_the_folder_of_the_sqlite_database(tmp_path):
    var = tmp_path / "fresh" / "var"
    done = subprocess.run(
        [sys.executable, "manage.py", "showmigrations", "--plan"],
        cwd=ROOT,
        env=_embedded_default(var, "config.settings.dev"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (var / "tabula.sqlite3").is_file()


def test_beat_makes_the_folder_of_its_schedule_file(tmp_path):
    from celery.utils.imports import symbol_by_name

    from config.celery import Scheduler, app

    assert symbol_by_name(app.conf.beat_scheduler) is Scheduler
    schedule = tmp_path / "fresh" / "var" / "celerybeat-schedule"
    scheduler = Scheduler(app=app, schedule_filename=str(schedule))
    try:
        assert schedule.parent.is_dir() and "entries" in scheduler._store
    finally:
        scheduler.close()


def test_make_run_keeps_no_query_log_unless_asked(tmp_path):
    """DEBUG (which keeps every SQL statement in memory with its parameters) is off under `make run`'s
    settings unless DEBUG=1 asks for it."""
    code = "import django; from django.conf import settings; django.setup(); print(settings.DEBUG)"
    for asked, expected in ((None, "False"), ("1", "True")):
        env = _embedded_default(tmp_path / "var", "config.settings.dev")
        env.pop("DEBUG", None)
        if asked is not None:
            env["DEBUG"] = asked
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == expected


def test_the_file_cache_keeps_replay_snapshots_in_a_folder_of_their_own(tmp_path):
    """On the embedded default, the file cache lists its whole folder to cull (`core.filecache`): the
    replay snapshots (a file per match, `games.replay`) are kept out of the folder the rate limits
    write to, and culled at 2,000; with Redis both caches are the same server."""
    code = (
        "import json, django; from django.conf import settings; django.setup();"
        "print(json.dumps([settings.CACHES['default'], settings.CACHES['replay']]))"
    )
    env = _embedded_default(tmp_path / "var", "config.settings.dev")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    default, replay = json.loads(done.stdout.strip().splitlines()[-1])
    assert default["BACKEND"] == replay["BACKEND"] == "core.filecache.FileCache"
    assert replay["LOCATION"] != default["LOCATION"] and replay["OPTIONS"]["MAX_ENTRIES"] <= 2000
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**env, "REDIS_URL": "redis://127.0.0.1:6379/15"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    default, replay = json.loads(done.stdout.strip().splitlines()[-1])
    assert "redis" in default["BACKEND"] and replay == default
