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
# The hot path's statements (core/sql.py) are prepared once per connection on PostgreSQL; false
# behind a pooler that cannot keep prepared statements (PgBouncer in transaction mode before 1.21).
TABULA_DB_PREPARED = env_bool("TABULA_DB_PREPARED", True)


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
        db["OPTIONS"] = {
            **db.get("OPTIONS", {}),
            "connect_timeout": TABULA_DB_CONNECT_TIMEOUT_S,
            "options": f"-c statement_timeout={timeout_ms} -c lock_timeout={timeout_ms}",
            "keepalives": 1,
            "keepalives_idle": 5,
            "keepalives_interval": 2,
            "keepalives_count": 3,
            "tcp_user_timeout": (TABULA_DB_STATEMENT_TIMEOUT_S + 2) * 1000,
        }
    return db


DATABASES = {"default": _database(os.environ.get("DATABASE_URL", DEFAULT_SQLITE))}

_INSTRUMENTED = {
    "core.postgresql": "core.postgresql_metrics",  # the hardening backend (a deadline per query), with metrics
    "django.db.backends.postgresql": "django_prometheus.db.backends.postgresql",
    "django.db.backends.sqlite3": "django_prometheus.db.backends.sqlite3",
}


def instrument_database(databases: dict[str, Any]) -> dict[str, Any]:
    """``databases`` with django-prometheus' wrappers (query counts and latency), for the running service."""
    return {alias: {**db, "ENGINE": _INSTRUMENTED.get(db["ENGINE"], db["ENGINE"])} for alias, db in databases.items()}
