"""Probes and metrics for operators: ``/livez``, ``/readyz``, ``/metrics`` (outside /api/v1/).

Plain Django views: no DRF authentication, throttling or content negotiation on the probe path.
Rate limits must exempt these three paths; django-structlog's request lines for them are dropped
below warning level (`config.logs`).
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from api.exceptions import PROBLEM, problem

_migrations_applied = False  # once true, true for the life of the process (the code cannot change)


@require_GET
def livez(request: HttpRequest) -> HttpResponse:
    """The process answers. No I/O."""
    return JsonResponse({"status": "ok"})


def _check_database() -> None:
    try:
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        connections.close_all()  # this thread's connections: the pool thread may not come back


def _check_migrations() -> None:
    global _migrations_applied
    if _migrations_applied:
        return
    try:
        connection = connections[DEFAULT_DB_ALIAS]
        executor = MigrationExecutor(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    finally:
        connections.close_all()
    if plan:
        raise RuntimeError(f"{len(plan)} migrations are not applied")
    _migrations_applied = True


def _check_broker() -> None:
    with current_app.connection_for_read() as conn:
        conn.ensure_connection(max_retries=1, timeout=settings.TABULA_READY_TIMEOUT_S)  # type: ignore[arg-type]


def _check_cache() -> None:
    cache.set("tabula:readyz", "1", timeout=10)
    if cache.get("tabula:readyz") != "1":
        raise RuntimeError("the cache does not keep a value")


CHECKS: dict[str, Callable[[], None]] = {
    "database": _check_database,
    "migrations": _check_migrations,
    "broker": _check_broker,
    "cache": _check_cache,
}


def run_checks(timeout_s: float) -> dict[str, str]:
    """Every check at once, each within ``timeout_s``: {"name": "ok" | "timeout" | "error: <kind>"}."""
    pool = ThreadPoolExecutor(max_workers=len(CHECKS), thread_name_prefix="readyz")
    try:
        futures = {name: pool.submit(check) for name, check in CHECKS.items()}
        results: dict[str, str] = {}
        for name, future in futures.items():
            try:
                future.result(timeout=timeout_s)
                results[name] = "ok"
            except FutureTimeout:
                results[name] = "timeout"
            except Exception as exc:
                results[name] = f"error: {type(exc).__name__}"
        return results
    finally:
        pool.shutdown(wait=False, cancel_futures=True)  # a hung check must not hold the answer


@require_GET
def readyz(request: HttpRequest) -> HttpResponse:
    """The database answers, migrations are applied, the broker and the cache answer."""
    results = run_checks(settings.TABULA_READY_TIMEOUT_S)
    failing = [name for name, result in results.items() if result != "ok"]
    if not failing:
        return JsonResponse({"status": "ok", "checks": results})
    body = problem(
        503, "not_ready", "Not ready", f"Failing checks: {', '.join(failing)}.", checks=results, failing=failing
    )
    return JsonResponse(body, status=503, content_type=PROBLEM, headers={"Retry-After": "5"})


# --- /metrics ------------------------------------------------------------------------------------


class QueueDepthCollector(Collector):
    """Messages waiting in each Celery queue, read from the broker at scrape time."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "tabula_celery_queue_length", "Messages waiting in a Celery queue.", labels=["queue"]
        )
        try:
            with current_app.connection_for_read() as conn:
                conn.ensure_connection(max_retries=1, timeout=settings.TABULA_READY_TIMEOUT_S)  # type: ignore[arg-type]
                channel: Any = conn.default_channel
                for queue in settings.TABULA_METRICS_QUEUES:
                    try:
                        count = channel.queue_declare(queue=queue, passive=True).message_count
                    except Exception:  # a queue nobody declared yet holds nothing
                        count = 0
                        channel = conn.channel()
                    family.add_metric([queue], float(count))
        except Exception:
            pass  # the broker is down: /readyz says so; the scrape still answers
        yield family


def _allowed_address(address: str) -> bool:
    """The TCP peer is in ``TABULA_METRICS_ALLOW`` (loopback only by default)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    networks = (ipaddress.ip_network(n, strict=False) for n in settings.TABULA_METRICS_ALLOW)
    return any(ip.version == network.version and ip in network for network in networks)


def _authorized(request: HttpRequest) -> bool:
    token = settings.TABULA_METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return True
    return _allowed_address(request.META.get("REMOTE_ADDR", ""))


def registry() -> Any:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        fresh = CollectorRegistry()
        multiprocess.MultiProcessCollector(fresh)
    else:
        fresh = CollectorRegistry()
        fresh.register(_Everything())
    fresh.register(QueueDepthCollector())
    return fresh


class _Everything(Collector):
    """The process's default registry (one process: `make test`, `manage.py runserver`)."""

    def collect(self) -> Iterator[Any]:
        yield from REGISTRY.collect()


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus text: every process's metrics (multiprocess mode) and the queue depths."""
    if not _authorized(request):
        detail = "Scrape with the metrics token (TABULA_METRICS_TOKEN) or from an address in TABULA_METRICS_ALLOW."
        body = problem(403, "forbidden", "Forbidden", detail)
        return JsonResponse(body, status=403, content_type=PROBLEM)
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)
