"""Token authentication: ``Authorization: Token <key>`` (docs/api.md); ``Bearer <key>`` also works.

Keys are ``accounts.models.ApiToken``: only their hash is stored, they expire, and a revoked one
stops working at once (every request looks the hash up, from this process's cache when Redis says
nothing changed since: `accounts.tokencache`; ``last_used`` is written at most once a minute).
"""

from __future__ import annotations

from typing import Any

from django.utils import translation
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from accounts.models import ApiToken, User
from accounts.services import token_authenticate
from api import ratelimit


class BearerOrTokenAuthentication(BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in (b"token", b"bearer"):
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Invalid token header: one key, no spaces.")
        try:
            key = parts[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed("Invalid token header: the key is not text.") from None
        found = token_authenticate(key)
        if found is None:
            ratelimit.token_refused(request)  # 429 instead, once the address's anonymous budget is spent
            raise exceptions.AuthenticationFailed("Invalid or expired token.")
        # A member's answers speak their stored language, whatever the client's Accept-Language says
        # (issue 33); LocaleMiddleware names it in Content-Language on the way out.
        translation.activate(found[0].language)
        request._request.LANGUAGE_CODE = found[0].language
        return found

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


def caller(request: Request) -> User:
    """The signed-in user of a view that requires one (DRF's ``IsAuthenticated`` ran first)."""
    user = request.user
    assert isinstance(user, User), "the view requires authentication"
    return user


def viewer(request: Request) -> User | None:
    """The signed-in user, or None for an anonymous reader."""
    user = request.user
    return user if isinstance(user, User) else None


def current_token(request: Request) -> Any:
    """The ApiToken the request came with (None under session authentication)."""
    return request.auth if isinstance(request.auth, ApiToken) else None
