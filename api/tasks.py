"""The API's periodic task: expiring stored idempotent answers (api/retention.py)."""

from __future__ import annotations

import logging

from celery import shared_task

from api import retention
from core import taskqueue

log = logging.getLogger(__name__)


@shared_task(name=taskqueue.IDEMPOTENCY_RETENTION, ignore_result=True)
def retention_sweep() -> dict[str, int]:
    deleted = retention.sweep()
    if any(deleted.values()):
        log.info("retention: %s", deleted)
    return deleted
