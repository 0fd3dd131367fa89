"""Signing keys (issue 23 item 10): `make run` signs with a key of its checkout's own, made on first
run under var/ (mode 0600, never committed); production refuses to start without SECRET_KEY, with a
message that says so; `check --deploy` flags the published development key and short keys."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import override_settings

from core.checks import DEVELOPMENT_SECRET_KEY, check_secret_key

ROOT = Path(__file__).resolve().parents[1]
_PRINT_KEY = "from django.conf import settings; print(settings.SECRET_KEY)"


def _env(var: Path, settings: str, **extra: str) -> dict[str, str]:
    drop = {"SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "EMAIL_HOST", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return {**env, "DJANGO_SETTINGS_MODULE": settings, "TABULA_VAR_DIR": str(var), **extra}


def _manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_first_run_makes_a_private_key_of_the_checkouts_own_and_keeps_it(tmp_path):
    var = tmp_path / "var"
    env = _env(var, "config.settings.dev")
    first = _manage(env, "shell", "-c", _PRINT_KEY)
    assert first.returncode == 0, first.stderr
    key_file = var / "secret_key"
    key = key_file.read_text().strip()
    assert len(key) >= 50 and key != DEVELOPMENT_SECRET_KEY
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert first.stdout.split()[-1] == key  # the settings sign with it
    again = _manage(env, "shell", "-c", _PRINT_KEY)
    assert again.stdout.split()[-1] == key and key_file.read_text().strip() == key  # kept, not remade


def test_an_explicit_secret_key_wins_and_makes_no_file(tmp_path):
    var = tmp_path / "var"
    done = _manage(_env(var, "config.settings.dev", SECRET_KEY="k" * 60), "shell", "-c", _PRINT_KEY)
    assert done.stdout.split()[-1] == "k" * 60, done.stderr
    assert not (var / "secret_key").exists()


def test_var_is_never_committed():
    done = subprocess.run(["git", "check-ignore", "-q", "var/secret_key"], cwd=ROOT)
    assert done.returncode == 0


def test_production_without_secret_key_refuses_to_start_with_a_clear_message(tmp_path):
    done = _manage(_env(tmp_path / "var", "config.settings.prod"), "check")
    assert done.returncode != 0
    assert "ImproperlyConfigured: SECRET_KEY is not set" in done.stderr
    assert "KeyError" not in done.stderr


@pytest.mark.parametrize("key", [DEVELOPMENT_SECRET_KEY, "short-but-random-Zq8", "x" * 49])
def test_check_deploy_flags_the_published_or_a_short_key(key):
    with override_settings(SECRET_KEY=key):
        messages = check_secret_key()
    assert [m.id for m in messages] == ["tabula.W001"]


def test_a_long_random_key_passes():
    with override_settings(SECRET_KEY="a-long-random-production-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz"):
        assert check_secret_key() == []


def test_manage_py_check_deploy_reports_the_published_key(tmp_path):
    env = _env(tmp_path / "var", "config.settings.prod", SECRET_KEY=DEVELOPMENT_SECRET_KEY, ALLOWED_HOSTS="x.example")
    done = _manage(env, "check", "--deploy", "--tag", "security")
    assert "tabula.W001" in done.stdout + done.stderr
