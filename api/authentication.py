"""Token authentication: ``Authorization: Token <key>`` (platform.md); ``Bearer <key>`` also works."""

from __future__ import annotations

from rest_framework.authentication import TokenAuthentication


class BearerOrTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):  # type: ignore[no-untyped-def]
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if header[:7].lower() == "bearer ":
            request.META["HTTP_AUTHORIZATION"] = "Token " + header[7:]
        return super().authenticate(request)
