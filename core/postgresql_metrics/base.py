"""`core.postgresql` (a client-side deadline on every query) with django-prometheus' query metrics.

The running service's settings (dev, prod) name this backend through
`config.settings.base.instrument_database`; tests keep the plain one.
"""

from __future__ import annotations

from typing import Any

from django_prometheus.db.common import DatabaseWrapperMixin, ExportingCursorWrapper  # type: ignore[import-untyped]

from core.postgresql import base


class DatabaseWrapper(DatabaseWrapperMixin, base.DatabaseWrapper):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.preparing_cursor_class = ExportingCursorWrapper(base.PreparingCursor, self.alias, self.vendor)

    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        params["cursor_factory"] = ExportingCursorWrapper(params["cursor_factory"], self.alias, self.vendor)
        return params

    def create_cursor(self, name: Any = None) -> Any:
        # psycopg already makes instrumented cursors (cursor_factory above); the mixin's own
        # create_cursor does not fit psycopg 3.
        return base.DatabaseWrapper.create_cursor(self, name=name)
