"""`make bench`: engine costs, read latency and write throughput, measured in one run on one machine.

    .venv/bin/python bench/run.py [--only engines|reads|writes|isolation|boards|notify|bots ...]

1. Engines: apply cost per record, ``legal_moves`` and a whole random game, in-process
   (`bench.engines`).
2. Reads: ``GET state`` of long matches next to ``GET games`` on the real front (``python -m front``)
   (`bench.reads`, matches built by `bench.matches`).
3. Writes: moves per second through the API with 50 concurrent 4-player EKKO matches
   (`bench.writes`), on PostgreSQL when a server is reachable, else on SQLite.
4. Isolation: how late a 2-second clock fires while one user's strong bots play flat out, with
   a worker per queue and with one shared worker (`bench.isolation`).
5. Leaderboards: pages and ``around`` of a 100,000-player board next to ``GET games`` (`bench.boards`).
6. Notifications: move → ``your_turn`` stream latency, ``GET games`` with 1,000 open streams,
   webhook delivery latency, on Redis and on the embedded default (`bench.notify`).
7. Bots: from a bot's seat becoming awaited to its answer, per level, on the embedded default and
   on Redis, with the service started by ``bin/run`` itself; the workers' idle CPU (`bench.botlatency`).
8. Tournaments: a 12-player Ekö round robin and a 20-player Enka Swiss played to the end by bots,
   each round paired by the tournament itself; pairing time per round, final standings
   (`bench.tournaments`).
9. History at scale: 100,000 matches and millions of records; a player's history reads
   (``users/{name}/matches``, ``matches?mine=true``, ``me/turns``, the profile, ``events``,
   ``GET state`` cold and warm) next to ``GET games`` (`bench.history`).
10. Request path: what each middleware, DRF and the view cost alone for ``GET state`` and ``POST
   moves``, in-process (`bench.layers`).

Speed is reported, never asserted. The developer's ``var/`` is never touched: sections 2 and 3 use a
temporary directory and a throwaway database (a SQLite file in that directory, or, when
``DATABASE_URL`` names PostgreSQL, a database created on that server), all removed on exit, also on
Ctrl-C. Section 3 uses DATABASE_URL's PostgreSQL server, else BENCH_POSTGRES_URL, else
postgres://postgres@127.0.0.1:5432.
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # the project root, not bench/: no module here may shadow the standard library

from bench import engines, infra  # noqa: E402
from bench.infra import Database  # noqa: E402

SECTIONS = ("engines", "reads", "writes", "isolation", "boards", "notify", "bots", "tournaments", "history", "layers")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=SECTIONS, action="append", help="run only this section (repeatable)")
    return parser.parse_args()


def _interrupt(signum: int, frame: object) -> NoReturn:
    raise KeyboardInterrupt


def _header() -> None:
    print(
        f"Tabula bench  {time.strftime('%Y-%m-%d %H:%M')}  Python {platform.python_version()}"
        f"  {platform.system()} {platform.machine()}  {os.cpu_count()} CPUs"
        f"  load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    print("Medians and ratios from this one run; nothing is asserted.")


def _read_database(stack: ExitStack, tmp: Path) -> Database:
    configured = os.environ.get("DATABASE_URL", "")
    if infra.is_postgres(configured):
        return stack.enter_context(infra.postgres_database(configured))
    return stack.enter_context(infra.sqlite_database(tmp))


def _write_database(stack: ExitStack, tmp: Path, reads: Database | None) -> Database:
    """PostgreSQL when reachable (the read database when it already is), else SQLite."""
    if reads is not None and reads.kind == "PostgreSQL":
        return reads
    server = infra.postgres_server()
    why = infra.postgres_reachable(server) if server else "no server configured"
    if why is None and server:
        return stack.enter_context(infra.postgres_database(server))
    fallback = reads or stack.enter_context(infra.sqlite_database(tmp))
    return replace(fallback, label=f"{fallback.label}; PostgreSQL is not reachable: {why}")


def main() -> int:
    args = _arguments()
    sections = args.only or SECTIONS
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even when started with SIGINT ignored
    signal.signal(signal.SIGTERM, _interrupt)
    started = time.perf_counter()
    _header()
    try:
        if "engines" in sections:
            engines.run()
        with ExitStack() as stack:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tabula-bench-")))
            reads_db = None
            if "reads" in sections:
                from bench import reads

                reads_db = _read_database(stack, tmp)
                reads.run(tmp, reads_db)
            if "writes" in sections:
                from bench import writes

                writes.run(tmp, _write_database(stack, tmp, reads_db))
            if "isolation" in sections:
                from bench import isolation

                isolation.run(tmp, reads_db or stack.enter_context(infra.sqlite_database(tmp)))
            if "boards" in sections:
                from bench import boards

                boards.run(tmp, reads_db or _read_database(stack, tmp))
            if "notify" in sections:
                from bench import notify

                (tmp / "notify").mkdir(exist_ok=True)
                notify.run(tmp / "notify", infra.Database("", "SQLite", "one temporary file per variant"))
            if "bots" in sections:
                from bench import botlatency

                (tmp / "bots").mkdir(exist_ok=True)
                botlatency.run(tmp / "bots")
            if "tournaments" in sections:
                from bench import tournaments

                (tmp / "tournaments").mkdir(exist_ok=True)
                tournaments.run(tmp / "tournaments", reads_db or _read_database(stack, tmp))
            if "history" in sections:
                from bench import history

                (tmp / "history").mkdir(exist_ok=True)
                history.run(tmp / "history", _write_database(stack, tmp, None))
            if "layers" in sections:
                from bench import layers

                (tmp / "layers").mkdir(exist_ok=True)
                layers.run(tmp / "layers", _write_database(stack, tmp, None))
    except KeyboardInterrupt:
        print("\ninterrupted: servers stopped, bench database and temporary files removed", file=sys.stderr)
        return 130
    print(f"\nbench finished in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
