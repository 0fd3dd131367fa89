"""Run by tests/ops/test_pooler.py in a process of its own, through PgBouncer in transaction mode
(DATABASE_URL at the pooler, TABULA_DB_POOLER=transaction): migrates a fresh database, then four
seats play one EKKO match at once, each from its own thread and so its own client connection,
over a pool of fewer server connections; prints what it saw, as JSON."""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

from accounts.models import User  # noqa: E402
from accounts.services import token_for  # noqa: E402
from games.models import Match, Record  # noqa: E402

setup_test_environment()
call_command("migrate", verbosity=0)
out: dict[str, object] = {}
with connection.cursor() as c:
    c.execute("SHOW statement_timeout")
    out["statement_timeout"] = c.fetchone()[0]
    c.execute("SHOW lock_timeout")
    out["lock_timeout"] = c.fetchone()[0]

names = ["ann", "ben", "cat", "dan"]
clients = []
for name in names:
    user = User.objects.create_user(username=name, password="correct-horse-9")
    client = Client()
    client.defaults["HTTP_AUTHORIZATION"] = f"Token {token_for(user)}"
    clients.append(client)
made = clients[0].post("/api/v1/matches", {"game": "ekko", "players": 4}, content_type="application/json")
assert made.status_code == 201, made.content
mid = made.json()["id"]
for client in clients[1:]:
    assert client.post(f"/api/v1/matches/{mid}/join").status_code == 200

counts = {"accepted": 0, "refused": 0, "errors": 0}
statuses: dict[int, int] = {}
lock = threading.Lock()
stop_at = time.monotonic() + 90


def seat(client: Client, rng: random.Random) -> None:
    try:
        while time.monotonic() < stop_at:
            state = client.get(f"/api/v1/matches/{mid}/state").json()
            if state.get("status") != "active" or counts["accepted"] >= 120:
                return
            moves = state.get("legal_moves") or []
            if not moves:
                time.sleep(0.01)
                continue
            body = {"move": rng.choice(moves), "expected_version": state["version"]}
            answer = client.post(f"/api/v1/matches/{mid}/moves", body, content_type="application/json")
            with lock:
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
                if answer.status_code == 201:
                    counts["accepted"] += 1
                elif answer.status_code in (409, 422):
                    counts["refused"] += 1  # a race lost to another seat: the client re-reads
                else:
                    counts["errors"] += 1
    finally:
        connections.close_all()


threads = [threading.Thread(target=seat, args=(c, random.Random(i))) for i, c in enumerate(clients)]
for t in threads:
    t.start()
for t in threads:
    t.join()

match = Match.objects.get(id=mid)
seqs = list(Record.objects.filter(match_id=mid).order_by("seq").values_list("seq", flat=True))
out.update(counts)
out["statuses"] = {str(k): v for k, v in sorted(statuses.items())}
out["version"] = match.version
out["records_contiguous"] = seqs == list(range(seqs[0], seqs[0] + len(seqs))) if seqs else False
out["records"] = len(seqs)
out["users_by_iterator"] = sum(1 for _ in User.objects.order_by("pk").iterator(chunk_size=2))
call_command("verify_matches", match_id=mid)
out["verified"] = True
print(json.dumps(out))
