"""The embedded default's filesystem broker is polled often enough for a bot to answer within 100 ms
(issue 15): kombu's own default, 1 s, made every bot answer about a second late under `make run`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What a worker of `make run` gets: the transport kombu builds from the settings, not just the setting.
_PROBE = (
    "import json; from config.celery import app; transport = app.connection_for_read().transport; "
    "print(json.dumps([type(transport).__module__, transport.polling_interval]))"
)


def _worker_transport(tmp_path: Path, **extra: str) -> tuple[str, float | None]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.dev",
        "TABULA_VAR_DIR": str(tmp_path),
        "CELERY_BROKER_URL": "filesystem://",
        **extra,
    }
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
    )
    module, interval = json.loads(done.stdout.strip().splitlines()[-1])
    return module, interval


def test_filesystem_broker_is_polled_every_50_ms(tmp_path):
    module, interval = _worker_transport(tmp_path)
    assert module == "core.broker"
    assert interval == 0.05


def test_filesystem_broker_poll_follows_tabula_broker_poll_s(tmp_path):
    assert _worker_transport(tmp_path, TABULA_BROKER_POLL_S="0.2") == ("core.broker", 0.2)
