"""Token authentication: ``Authorization: Token <key>`` (platform.md); ``Bearer <key>`` also works."""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import TokenAuthentication
from rest_framework.request import Request

from accounts.models import User


class BearerOrTokenAuthentication(TokenAuthentication):
    def authenticate(self, request: Request) -> Any:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if header[:7].lower() == "bearer ":
            request.META["HTTP_AUTHORIZATION"] = "Token " + header[7:]
        return super().authenticate(request)


def caller(request: Request) -> User:
    """The signed-in user of a view that requires one (DRF's ``IsAuthenticated`` ran first)."""
    user = request.user
    assert isinstance(user, User), "the view requires authentication"
    return user


def viewer(request: Request) -> User | None:
    """The signed-in user, or None for an anonymous reader."""
    user = request.user
    return user if isinstance(user, User) else None
