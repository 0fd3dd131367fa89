"""`config.settings.prod` passes `manage.py check --deploy` with the documented variables, and pins DEBUG off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _check(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {
        # tests/web/conftest.py sets DJANGO_ALLOW_ASYNC_UNSAFE for Playwright's loop in this process;
        # production never has it (the deploy check refuses it: async.E001).
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_SETTINGS_MODULE": "config.settings.prod",
        "SECRET_KEY": "a-long-random-production-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz",
        "ALLOWED_HOSTS": "tabula.example",
        "SECURE_PROXY_SSL_HEADER": "HTTP_X_FORWARDED_PROTO",
        "SECURE_HSTS_PRELOAD": "true",
        "DEBUG": "true",  # ignored: production pins DEBUG off
        **extra,
    }
    args = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_check_deploy_is_clean_with_the_documented_variables():
    done = _check({})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_prod_pins_debug_off_and_takes_hsts_from_the_environment():
    code = "from django.conf import settings as s; print(s.DEBUG, s.SECURE_HSTS_SECONDS, s.SECURE_PROXY_SSL_HEADER)"
    env = {
        # tests/web/conftest.py sets DJANGO_ALLOW_ASYNC_UNSAFE for Playwright's loop in this process;
        # production never has it (the deploy check refuses it: async.E001).
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_SETTINGS_MODULE": "config.settings.prod",
        "SECRET_KEY": "x" * 60,
        "DEBUG": "true",
        "SECURE_HSTS_SECONDS": "600",
        "SECURE_PROXY_SSL_HEADER": "HTTP_X_FORWARDED_PROTO",
    }
    out = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout.split() == ["False", "600", "('HTTP_X_FORWARDED_PROTO',", "'https')"], out.stderr
