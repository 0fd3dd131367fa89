"""Pagination for every list endpoint: ``limit``/``offset``, with ``limit`` capped (``TABULA_MAX_PAGE_SIZE``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

T = TypeVar("T")


class CappedLimitOffsetPagination(LimitOffsetPagination):
    """DRF's limit/offset pages (``count``, ``next``, ``previous``, ``results``); ``limit`` is cut to the cap."""

    max_limit = settings.TABULA_MAX_PAGE_SIZE

    def paginate_read(self, request: Request, read: Callable[[int, int], tuple[int, list[T]]]) -> list[T] | None:
        """``paginate_queryset`` for a page read by hand: ``read(limit, offset)`` answers the count
        and the page at once (`games.sql.summaries_page`), where DRF asks a queryset for its count
        and then for a slice. The same state is left for ``get_paginated_response`` (the same
        ``count``, ``next`` and ``previous``); None when pages are off (no ``limit``), as DRF."""
        self.request = request
        limit = self.get_limit(request)
        if limit is None:
            return None
        self.limit = limit
        self.offset = self.get_offset(request)
        self.count, page = read(self.limit, self.offset)
        if self.count > self.limit and self.template is not None:
            self.display_page_controls = True
        if self.count == 0 or self.offset > self.count:
            return []
        return page
