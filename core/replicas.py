"""Reads that may lag go to a read replica (issue 30): a database router and the middleware that
decides, per request, whether its reads may.

With ``DATABASE_REPLICA_URL`` set (a streaming replica of ``DATABASE_URL``), a ``GET`` or ``HEAD``
whose path matches one of ``TABULA_REPLICA_PATHS`` (leaderboards, profiles, a player's history and
export, the match lists, the game catalogue) reads from the replica: its ORM queries do, outside
any transaction. Everything else reads the primary: ``GET state``, the moves, the streams, every
write and every read inside a transaction, and the precompiled statements of `core.sql`.

A caller never reads past their own write: every write request (any other method answered below
500) pins its caller to the primary for ``TABULA_REPLICA_PIN_S`` seconds, in the shared cache
(Redis in production), so a replica that lags less than that shows them what they did. The caller
is their credentials (the hash of the Authorization header), else their address.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from contextvars import ContextVar
from functools import cache
from typing import Any

from django.conf import settings
from django.core.cache import cache as shared_cache
from django.db import connections
from django.http import HttpRequest, HttpResponse

REPLICA = "replica"
_may_lag: ContextVar[bool] = ContextVar("tabula_replica_reads", default=False)
_SAFE = ("GET", "HEAD")


@cache
def _paths() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in settings.TABULA_REPLICA_PATHS) or r"(?!)")


def configured() -> bool:
    return REPLICA in settings.DATABASES


def _caller(request: HttpRequest) -> str:
    auth = request.META.get("HTTP_AUTHORIZATION", "")
    if auth:
        return "t:" + hashlib.sha256(auth.encode()).hexdigest()[:32]
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")[-1].strip()
    return "a:" + (forwarded or str(request.META.get("REMOTE_ADDR") or "unknown"))


def _pin_key(caller: str) -> str:
    return f"tabula:replica-pin:{caller}"


class ReplicaReadsMiddleware:
    """Marks a request's reads as lag-tolerant, or pins its caller to the primary after a write."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not configured():
            return self.get_response(request)
        caller = _caller(request)
        if request.method not in _SAFE:
            response = self.get_response(request)
            if response.status_code < 500:
                shared_cache.set(_pin_key(caller), 1, timeout=settings.TABULA_REPLICA_PIN_S)
            return response
        lag_ok = bool(_paths().match(request.path)) and not shared_cache.get(_pin_key(caller))
        token = _may_lag.set(lag_ok)
        try:
            response = self.get_response(request)
        finally:
            _may_lag.reset(token)
        if lag_ok:
            response["X-Tabula-Read-From"] = REPLICA  # for operators and the tests: where this was read
        return response


class ReplicaRouter:
    """Lag-tolerant reads to the replica; all else to the primary (``default``)."""

    def db_for_read(self, model: Any, **hints: Any) -> str | None:
        if _may_lag.get() and configured() and not connections["default"].in_atomic_block:
            return REPLICA
        return "default"

    def db_for_write(self, model: Any, **hints: Any) -> str | None:
        return "default"

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        return True  # one database, two copies

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        return db == "default"  # the replica follows the primary's WAL
