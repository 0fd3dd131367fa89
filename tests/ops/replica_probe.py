"""Run by tests/ops/test_replica.py in a process of its own, against a real primary and its
streaming replica (DATABASE_URL, DATABASE_REPLICA_URL): migrates, pauses the replica's replay,
writes, reads, resumes; prints what each read saw, as JSON."""

from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

from accounts.models import User  # noqa: E402
from accounts.services import token_for  # noqa: E402


def scalar(alias: str, sql: str) -> object:
    with connections[alias].cursor() as c:
        c.execute(sql)
        return c.fetchone()[0]


def caught_up(deadline_s: float = 30.0) -> float:
    """Seconds until the replica has replayed everything the primary wrote so far."""
    target = scalar("default", "SELECT pg_current_wal_lsn()::text")
    started = time.monotonic()
    while time.monotonic() - started < deadline_s:
        if scalar("replica", f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn"):
            return time.monotonic() - started
        time.sleep(0.05)
    raise SystemExit("the replica did not catch up")


def read(client: Client, path: str) -> dict[str, object]:
    answer = client.get(path)
    return {"status": answer.status_code, "from": answer.get("X-Tabula-Read-From", "primary"), "body": answer.json()}


setup_test_environment()  # the test client's host is allowed, mails stay in memory
call_command("migrate", verbosity=0)
ann = User.objects.create_user(username="ann", password="correct-horse-9")
bob = User.objects.create_user(username="bob", password="correct-horse-9")
ann_client, bob_client = Client(), Client()
ann_client.defaults["HTTP_AUTHORIZATION"] = f"Token {token_for(ann)}"
bob_client.defaults["HTTP_AUTHORIZATION"] = f"Token {token_for(bob)}"
out: dict[str, object] = {"first_catch_up_s": caught_up()}

scalar("replica", "SELECT pg_wal_replay_pause()::text")
out["paused"] = scalar("replica", "SELECT pg_is_wal_replay_paused()")
changed = ann_client.patch("/api/v1/me", {"display_name": "Ann Two"}, content_type="application/json")
out["write"] = {"status": changed.status_code, "body": changed.content.decode()[:500]}
out["writer_reads"] = read(ann_client, "/api/v1/users/ann")  # pinned: the primary
out["other_reads"] = read(bob_client, "/api/v1/users/ann")  # the paused replica: the old name
out["other_state_like"] = {"from": bob_client.get("/api/v1/me").get("X-Tabula-Read-From", "primary")}

scalar("replica", "SELECT pg_wal_replay_resume()::text")
out["resumed_catch_up_s"] = caught_up()
out["other_reads_after"] = read(bob_client, "/api/v1/users/ann")
print(json.dumps(out))
