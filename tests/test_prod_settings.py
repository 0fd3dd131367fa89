"""`config.settings.prod` passes `manage.py check --deploy` with the documented variables, and pins DEBUG off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The browser tests' conftest sets DJANGO_ALLOW_ASYNC_UNSAFE in this process (Playwright's sync API
# runs an event loop); a deployment never has it, and `check --deploy` rightly refuses it.
_OURS = {"DJANGO_ALLOW_ASYNC_UNSAFE"}


def _environ() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in _OURS}


def _check(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {
        **_environ(),
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
        **_environ(),
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


def _setting(module: str, expression: str, extra: dict[str, str] | None = None) -> str:
    """``expression`` evaluated in settings ``module``, in a process of its own."""
    env = {k: v for k, v in _environ().items() if k != "TABULA_RATE_LIMITS"}
    env |= {"SECRET_KEY": "a-long-random-production-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz", **(extra or {})}
    code = f"import {module} as s; print({expression})"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_development_has_development_rate_limits_and_production_keeps_its_own():
    """20 registrations an hour per address locked a developer trying the web client out (issue 24)."""
    assert _setting("config.settings.prod", "s.TABULA_RATE_LIMITS['register_ip']") == "20/h"
    assert _setting("config.settings.dev", "s.TABULA_RATE_LIMITS['register_ip']") == "1000/h"
    assert _setting("config.settings.dev", "s.TABULA_RATE_LIMITS['moves']") == "600/m"  # the same scopes
    overridden = _setting(
        "config.settings.dev", "s.TABULA_RATE_LIMITS['register_ip']", {"TABULA_RATE_LIMITS": "register_ip=5/h"}
    )
    assert overridden == "5/h"


def test_production_trusts_no_address_for_metrics():
    assert _setting("config.settings.prod", "s.TABULA_METRICS_ALLOW") == "[]"
    assert _setting("config.settings.dev", "s.TABULA_METRICS_ALLOW") == "['127.0.0.0/8', '::1/128']"
