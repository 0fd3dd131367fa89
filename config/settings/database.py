"""Database: PostgreSQL in production (DATABASE_URL=postgres://…), SQLite under var/ by default; clean failure."""

from __future__ import annotations

import os
from typing import Any

import dj_database_url

from config.settings.env import VAR_DIR, env_bool

DEFAULT_SQLITE = f"sqlite:///{VAR_DIR / 'tabula.sqlite3'}"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Clean failure: a database that is down, refusing or hung answers 503 within a few seconds.
TABULA_DB_CONNECT_TIMEOUT_S = int(os.environ.get("TABULA_DB_CONNECT_TIMEOUT_S", "3"))
TABULA_DB_STATEMENT_TIMEOUT_S = int(os.environ.get("TABULA_DB_STATEMENT_TIMEOUT_S", "5"))
TABULA_RETRY_AFTER_S = 5  # the Retry-After of that 503
# Behind a pooler in transaction mode (TABULA_DB_POOLER=transaction: PgBouncer, issue 30) a server
# connection serves another client after each transaction, so nothing may live in the session: no
# startup `options` (statement_timeout and lock_timeout are set on the role instead:
# docs/operations.md "A connection pooler"), no server-side cursors, no prepared statements.
TABULA_DB_POOLER = os.environ.get("TABULA_DB_POOLER", "").strip().lower()
if TABULA_DB_POOLER not in ("", "transaction"):
    raise ValueError(f"TABULA_DB_POOLER must be empty or 'transaction', not {TABULA_DB_POOLER!r}")
# The hot path's statements (core/sql.py) are prepared once per connection on PostgreSQL; false
# behind a pooler that cannot keep prepared statements (PgBouncer in transaction mode before 1.21).
TABULA_DB_PREPARED = env_bool("TABULA_DB_PREPARED", True) and not TABULA_DB_POOLER


def _database(url: str) -> dict[str, Any]:
    db: dict[str, Any] = dict(
        dj_database_url.parse(url, conn_max_age=int(os.environ.get("CONN_MAX_AGE", "600")), conn_health_checks=True)
    )
    if db["ENGINE"] == "django.db.backends.sqlite3":
        # WAL lets readers run beside the one writer; IMMEDIATE takes the write lock up front, so two
        # racing writers queue instead of failing on lock upgrade.
        db["OPTIONS"] = {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    elif db["ENGINE"] == "django.db.backends.postgresql":
        db["ENGINE"] = "core.postgresql"  # PostgreSQL with a client-side query deadline
        timeout_ms = TABULA_DB_STATEMENT_TIMEOUT_S * 1000
        session = (
            {} if TABULA_DB_POOLER else {"options": f"-c statement_timeout={timeout_ms} -c lock_timeout={timeout_ms}"}
        )
        if TABULA_DB_POOLER:
            db["DISABLE_SERVER_SIDE_CURSORS"] = True  # a cursor would outlive its transaction's server
        db["OPTIONS"] = {
            **db.get("OPTIONS", {}),
            "connect_timeout": TABULA_DB_CONNECT_TIMEOUT_S,
            **session,
            "keepalives": 1,
            "keepalives_idle": 5,
            "keepalives_interval": 2,
            "keepalives_count": 3,
            "tcp_user_timeout": (TABULA_DB_STATEMENT_TIMEOUT_S + 2) * 1000,
        }
    return db


DATABASES = {"default": _database(os.environ.get("DATABASE_URL", DEFAULT_SQLITE))}

# A streaming replica of the primary (issue 30, core/replicas.py): lag-tolerant reads go there, and
# a caller who wrote reads the primary for TABULA_REPLICA_PIN_S seconds (more than the replica's lag).
if os.environ.get("DATABASE_REPLICA_URL"):
    DATABASES["replica"] = _database(os.environ["DATABASE_REPLICA_URL"])
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
DATABASE_ROUTERS = ["core.replicas.ReplicaRouter"]
TABULA_REPLICA_PIN_S = int(os.environ.get("TABULA_REPLICA_PIN_S", "15"))
TABULA_REPLICA_PATHS = [
    r"/api/v1/leaderboards(/|$)",
    r"/api/v1/users/[^/]+/?$",
    r"/api/v1/users/[^/]+/(matches|export|ratings)(/|$)",
    r"/api/v1/matches/?$",
    r"/api/v1/games(/|$)",
]

_INSTRUMENTED = {
    "core.postgresql": "core.postgresql_metrics",  # the hardening backend (a deadline per query), with metrics
    "django.db.backends.postgresql": "django_prometheus.db.backends.postgresql",
    "django.db.backends.sqlite3": "django_prometheus.db.backends.sqlite3",
}


def instrument_database(databases: dict[str, Any]) -> dict[str, Any]:
    """``databases`` with django-prometheus' wrappers (query counts and latency), for the running service."""
    return {alias: {**db, "ENGINE": _INSTRUMENTED.get(db["ENGINE"], db["ENGINE"])} for alias, db in databases.items()}
