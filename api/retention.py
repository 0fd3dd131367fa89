"""How long a stored first answer to an ``Idempotency-Key`` is kept (docs/operations.md
"Retention"): ``TABULA_IDEMPOTENCY_RETENTION_H`` hours, then the hourly `api.tasks.retention_sweep`
deletes it and the key is new again. Clients retry within seconds or minutes; a move's
``expected_version`` still refuses a late duplicate after that."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from api.models import IdempotentRequest
from core.retention import delete_in_batches


def sweep(now: datetime | None = None) -> dict[str, int]:
    before = (now or timezone.now()) - timedelta(hours=settings.TABULA_IDEMPOTENCY_RETENTION_H)
    return {"idempotency_keys": delete_in_batches(IdempotentRequest.objects.filter(created_at__lt=before))}
