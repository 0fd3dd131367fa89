"""Deleting rows that have outlived their use, a batch at a time (the retention jobs of notify and
api, docs/operations.md "Retention"): short transactions that never hold a large table's locks long,
and a bound on one run so a backlog is worked off over several runs rather than in one long one."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import QuerySet

BATCH = 2000  # rows per DELETE
MAX_BATCHES = 50  # per table per run: 100,000 rows at most


def delete_in_batches(qs: QuerySet[Any], *, batch: int = BATCH, max_batches: int = MAX_BATCHES) -> int:
    """Delete the rows of ``qs`` (and what cascades from them), ``batch`` primary keys per statement;
    the number of ``qs``'s rows deleted."""
    model = qs.model
    done = 0
    for _ in range(max_batches):
        keys = list(qs.order_by("pk").values_list("pk", flat=True)[:batch])
        if not keys:
            break
        with transaction.atomic():
            _, per_model = model.objects.filter(pk__in=keys).delete()
        done += per_model.get(model._meta.label, 0)
        if len(keys) < batch:
            break
    return done
