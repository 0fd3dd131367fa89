"""How long notify keeps what it wrote (docs/operations.md "Retention"), run by the hourly
`notify.tasks.retention_sweep`:

- inbox entries (`me/notifications`, the `me/stream` replay) after ``TABULA_INBOX_RETENTION_DAYS``
  (numbers go on from the user's counter, so a client's ``after`` stays valid);
- webhook and push deliveries that are over (delivered, failed, suppressed) after
  ``TABULA_DELIVERY_RETENTION_DAYS``; a pending one is kept, whatever its age;
- stream tickets once expired.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from core.retention import delete_in_batches
from notify.models import Delivery, Notification, PushDelivery, StreamTicket


def sweep(now: datetime | None = None) -> dict[str, int]:
    """Delete what has outlived its retention; the rows deleted, per kind."""
    now = now or timezone.now()
    deliveries_before = now - timedelta(days=settings.TABULA_DELIVERY_RETENTION_DAYS)
    inbox_before = now - timedelta(days=settings.TABULA_INBOX_RETENTION_DAYS)
    return {
        "webhook_deliveries": delete_in_batches(
            Delivery.objects.exclude(status=Delivery.Status.PENDING).filter(created_at__lt=deliveries_before)
        ),
        "push_deliveries": delete_in_batches(
            PushDelivery.objects.exclude(status=PushDelivery.Status.PENDING).filter(created_at__lt=deliveries_before)
        ),
        # an old entry's deliveries go with it (they are long over: a delivery gives up within days)
        "notifications": delete_in_batches(Notification.objects.filter(created_at__lt=inbox_before)),
        "stream_tickets": delete_in_batches(StreamTicket.objects.filter(expires_at__lt=now)),
    }
