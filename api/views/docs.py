"""The API's documentation pages, served offline: no font, script or image from another host."""

from __future__ import annotations

from typing import Any

from drf_spectacular.views import SpectacularRedocView
from rest_framework.request import Request
from rest_framework.response import Response

# ReDoc's bundle (served from drf-spectacular-sidecar) draws Redocly's logo from cdn.redoc.ly in its
# menu; this policy keeps the browser from fetching it, or anything else not from this server.
OFFLINE = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self' 'unsafe-inline' blob:; worker-src 'self' blob:; font-src 'self' data:; connect-src 'self'"
)


class OfflineRedocView(SpectacularRedocView):
    template_name = "api/redoc.html"
    schema = None  # a page about the API, not part of it

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        response = super().get(request, *args, **kwargs)
        response["Content-Security-Policy"] = OFFLINE
        return response
