"""Trace one accepted ``POST /api/v1/matches/{id}/moves``: which project modules run, and how often
the request comes back to a module it had left.

    .venv/bin/python bench/trace_move.py [--key] [--list]

Through Django's test client on a throwaway SQLite database (test settings, tasks inline), a
2-player EKKO match is created and joined, one move is made (imports and caches warm up), then the
next move is traced with ``sys.setprofile``. Every Python call and return is attributed to the module
of the frame that runs next; only the project's packages count, the rest (Django, DRF, the standard
library) is transparent. Consecutive events in one module collapse into one visit. Reported:

- modules: the project modules with at least one function executed;
- returns to a module already visited: calls into a module visited before (never the immediately
  previous one: consecutive calls in one module collapse); and the same counted over calls and
  returns together (a callee returning to its caller is a re-entry too).

The match's seed is fixed (``--seed``, by replacing ``secrets.randbits`` in this process), so the
deal, and with it the traced move, is the same on every run and before and after a change.

``--key`` sends an ``Idempotency-Key``; ``--list`` prints the modules in first-visit order with their
visit counts. Nothing is asserted; the figures depend on the code, not on the machine.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # the project root, not bench/

PROJECT = ("rules", "core", "games", "notify", "accounts", "api", "config", "web")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--key", action="store_true", help="send the move with an Idempotency-Key")
    parser.add_argument("--list", action="store_true", help="list the modules in first-visit order")
    parser.add_argument("--seed", type=int, default=22, help="the match's seed (the deal decides the moves)")
    return parser.parse_args()


def _project(module: str | None) -> bool:
    return module is not None and module.split(".")[0] in PROJECT


class Tracer:
    def __init__(self) -> None:
        self.visits: list[str] = []
        self.calls: list[str] = []  # the module of each call into project code, consecutive repeats collapsed

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            module = frame.f_globals.get("__name__")
        elif event == "return":
            back = frame.f_back
            module = back.f_globals.get("__name__") if back is not None else None
        else:  # c_call, c_return, c_exception: C code runs in no module of ours
            return
        if not _project(module):
            return
        if not self.visits or self.visits[-1] != module:
            self.visits.append(str(module))
        if event == "call" and (not self.calls or self.calls[-1] != module):
            self.calls.append(str(module))

    def modules(self) -> list[str]:
        return list(dict.fromkeys(self.visits))

    @staticmethod
    def returns(visits: list[str]) -> int:
        seen: set[str] = set()
        count = 0
        for module in visits:
            count += module in seen
            seen.add(module)
        return count


def _move(match_id: str, seat_clients: dict[int, Any], key: str | None) -> Callable[[], Any]:
    """The awaited seat's request: its first legal move at the current version."""
    for seat, seat_client in seat_clients.items():
        state = seat_client.get(f"/api/v1/matches/{match_id}/state").json()
        if seat in state["awaiting"] and state["legal_moves"]:
            body = {"move": state["legal_moves"][0], "expected_version": state["version"]}
            headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
            return lambda: seat_client.post(f"/api/v1/matches/{match_id}/moves", body, format="json", **headers)
    raise SystemExit("no seat is awaited")


def main() -> None:
    args = _arguments()
    tmp = Path(tempfile.mkdtemp(prefix="tabula-trace-"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'trace.sqlite3'}"
    os.environ["TABULA_VAR_DIR"] = str(tmp)
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ.pop("REDIS_URL", None)
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from rest_framework.test import APIClient

        from accounts.models import User
        from accounts.services import token_for

        call_command("migrate", verbosity=0)
        seed: int = args.seed
        secrets.randbits = lambda k: seed % (1 << k)  # the match's seed: the same deal every run
        clients = {}
        for seat, name in enumerate(("alice", "bob")):
            user = User.objects.create_user(username=name, password="correct-horse-9")
            clients[seat] = APIClient(HTTP_HOST="127.0.0.1")  # an allowed host
            clients[seat].credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
        created = clients[0].post("/api/v1/matches", {"game": "ekko", "players": 2}, format="json")
        match_id = created.json()["id"]
        assert clients[1].post(f"/api/v1/matches/{match_id}/join", {}, format="json").status_code == 200
        warm = _move(match_id, clients, "warm-up" if args.key else None)
        assert warm().status_code == 201  # imports, caches and compiled statements warm
        send = _move(match_id, clients, "traced" if args.key else None)
        tracer = Tracer()
        sys.setprofile(tracer)
        try:
            response = send()
        finally:
            sys.setprofile(None)
        assert response.status_code == 201, response.content
        modules = tracer.modules()
        print(
            f"one accepted move{' with an Idempotency-Key' if args.key else ''} (seed {args.seed}):"
            f" {len(modules)} project modules;"
            f" {tracer.returns(tracer.calls)} calls into a module already visited (of {len(tracer.calls)} calls"
            f" from one module into another); {tracer.returns(tracer.visits)} re-entries counting returns too"
            f" (of {len(tracer.visits)})"
        )
        if args.list:
            counts = Counter(tracer.visits)
            for module in modules:
                print(f"  {counts[module]:4d}  {module}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
