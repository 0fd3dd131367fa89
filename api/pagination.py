"""Pagination for every list endpoint: ``limit``/``offset``, with ``limit`` capped (``TABULA_MAX_PAGE_SIZE``)."""

from __future__ import annotations

from django.conf import settings
from rest_framework.pagination import LimitOffsetPagination


class CappedLimitOffsetPagination(LimitOffsetPagination):
    """DRF's limit/offset pages (``count``, ``next``, ``previous``, ``results``); ``limit`` is cut to the cap."""

    max_limit = settings.TABULA_MAX_PAGE_SIZE
