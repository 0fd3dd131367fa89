"""Rate limits per scope, counted in the shared cache (Redis, or a file cache every local process sees).

Each scope is ``<count>/<period>`` (``TABULA_RATE_LIMITS``), counted per user or per client
address in fixed windows: one atomic ``incr`` per request on Redis, no database query. A spent
scope answers ``429 rate_limited`` with an integer ``Retry-After`` (the seconds until the window
turns); every answer on a limited scope carries the IETF draft's fields
(draft-ietf-httpapi-ratelimit-headers): ``RateLimit-Policy: "moves";q=600;w=60`` and
``RateLimit: "moves";r=598;t=41``. If the cache itself fails, requests are let through (logged):
a limiter must not take the API down with it.

`ScopedRateLimit` is DRF's throttle for every view; logins and registrations are limited by the
views themselves (`login_attempt`), per address and per username, with a growing backoff after
repeated failures for one username.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from accounts import usernames
from api.exceptions import PROBLEM, RateLimited, problem

log = logging.getLogger(__name__)

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_RATE = re.compile(r"^(\d+)/(\d*)([smhd])$")
HEADERS_ATTR = "_tabula_ratelimit_headers"


@dataclass(frozen=True)
class Rate:
    count: int
    period: int

    @classmethod
    def parse(cls, text: str) -> Rate:
        """``"600/m"``, ``"20/h"``, ``"5/10s"``."""
        found = _RATE.match(text.strip())
        if found is None:
            raise ValueError(f"not a rate: {text!r} (want <count>/<period>, period in s, m, h or d)")
        count, multiple, unit = found.groups()
        return cls(int(count), int(multiple or 1) * _PERIODS[unit])


@dataclass(frozen=True)
class Usage:
    scope: str
    rate: Rate
    used: int
    reset: int  # seconds until the window turns

    @property
    def allowed(self) -> bool:
        return self.used <= self.rate.count

    def headers(self) -> dict[str, str]:
        remaining = max(0, self.rate.count - self.used)
        return {
            "RateLimit-Policy": f'"{self.scope}";q={self.rate.count};w={self.rate.period}',
            "RateLimit": f'"{self.scope}";r={remaining};t={self.reset}',
        }

    def refuse(self) -> RateLimited:
        headers = self.headers()
        headers["Retry-After"] = str(max(1, self.reset))
        return RateLimited(max(1, self.reset), self.scope, headers)


def enabled() -> bool:
    return not settings.TABULA_RATE_LIMITS_OFF


def rate_of(scope: str) -> Rate:
    return Rate.parse(settings.TABULA_RATE_LIMITS[scope])


def hit(scope: str, who: str, *, cost: int = 1) -> Usage | None:
    """Count one request of ``who`` on ``scope``; None when limits are off or the cache failed."""
    if not enabled():
        return None
    rate = rate_of(scope)
    now = time.time()
    window = int(now // rate.period)
    key = f"rl:{scope}:{who}:{window}"
    reset = max(1, math.ceil((window + 1) * rate.period - now))
    try:
        used = cost if cache.add(key, cost, timeout=rate.period + 1) else cache.incr(key, cost)
    except ValueError:  # the key expired between add and incr
        cache.add(key, cost, timeout=rate.period + 1)
        used = cost
    except Exception:
        log.exception("rate-limit store failed: letting %s through", scope)
        return None
    return Usage(scope, rate, used, reset)


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or behind ``TABULA_TRUSTED_PROXIES`` proxies the address the outermost one saw.

    Behind a unix socket REMOTE_ADDR is empty: only a local process can connect there (a proxy on
    the same machine), and the last ``X-Forwarded-For`` entry is the peer it saw, which then stands
    for REMOTE_ADDR; the trusted proxies are counted in the chain before it. The front (front/app.py)
    gives the TCP peer.
    """
    chain = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if a.strip()]
    remote = str(request.META.get("REMOTE_ADDR") or "")
    if not remote and chain:
        remote = chain.pop()
    proxies = settings.TABULA_TRUSTED_PROXIES
    if proxies > 0 and len(chain) >= proxies:
        return chain[-proxies]
    return remote or "unknown"


def _remember_headers(request: HttpRequest | Request, usage: Usage) -> None:
    raw = request._request if isinstance(request, Request) else request
    setattr(raw, HEADERS_ATTR, usage.headers())


def check(request: HttpRequest | Request, scope: str, who: str) -> None:
    """Count the request; raise `RateLimited` (429) once the scope is spent."""
    usage = hit(scope, who)
    if usage is None:
        return
    _remember_headers(request, usage)
    if not usage.allowed:
        raise usage.refuse()


# --- logins: per address, per username, and a backoff after failures ------------------------------


def _username_key(username: str) -> str:
    """One key per account name as sign-in resolves it (NFKC, case-folded): ``ＡＬＩＣＥ`` counts as ``alice``."""
    return usernames.key(username)[:150].encode("utf-8", "replace").hex()  # any bytes make a safe cache key


def login_attempt(request: Request, username: str) -> None:
    """Before checking a password: the address's and the username's budgets, and any backoff."""
    check(request, "login_ip", client_address(request))
    if not enabled():
        return
    who = _username_key(username)
    try:
        until = cache.get(f"rl:login_locked:{who}")
    except Exception:
        log.exception("rate-limit store failed: no login backoff")
        until = None
    if until is not None and until > time.time():
        wait = max(1, math.ceil(until - time.time()))
        rate = rate_of("login_user")
        raise Usage("login_user", rate, rate.count + 1, wait).refuse()
    check(request, "login_user", who)


def login_failed(username: str) -> None:
    """One more failure in a row: from ``TABULA_LOGIN_BACKOFF_AFTER`` on, lock for 2, 4, 8… seconds."""
    if not enabled():
        return
    who = _username_key(username)
    key = f"rl:login_failures:{who}"
    try:
        first = cache.add(key, 1, timeout=settings.TABULA_LOGIN_BACKOFF_MAX_S * 2)
        failures = 1 if first else cache.incr(key)
        over = failures - settings.TABULA_LOGIN_BACKOFF_AFTER
        if over >= 0:
            wait = min(2 ** (over + 1), settings.TABULA_LOGIN_BACKOFF_MAX_S)
            cache.set(f"rl:login_locked:{who}", time.time() + wait, timeout=wait + 1)
    except Exception:
        log.exception("rate-limit store failed: login failure not counted")


def login_succeeded(username: str) -> None:
    if enabled():
        try:
            cache.delete(f"rl:login_failures:{_username_key(username)}")
        except Exception:
            log.exception("rate-limit store failed")


# --- every other view ---------------------------------------------------------------------------


class ScopedRateLimit(BaseThrottle):
    """DRF's throttle hook, for signed-in callers: the view's scope for the method, per user.

    A view names its scopes in ``rate_scopes`` (``{"POST": "moves"}``); otherwise reads are
    ``reads`` and writes ``writes``. Anonymous requests without ``Authorization`` were counted by
    `RateLimitMiddleware`; one whose ``Authorization`` names no scheme we know (``Basic …``) is
    anonymous all the same and is counted here, on ``anon``.
    """

    def allow_request(self, request: Request, view: Any) -> bool:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            if request.META.get("HTTP_AUTHORIZATION"):
                check(request, "anon", client_address(request))
            return True
        scopes: dict[str, str] = getattr(view, "rate_scopes", {})
        method = request.method or "GET"
        scope = scopes.get(method) or ("reads" if method in ("GET", "HEAD", "OPTIONS") else "writes")
        check(request, scope, str(user.pk))
        return True


class RateLimitMiddleware:
    """Anonymous API requests (no ``Authorization``), per client address, before any view runs; and
    the ``RateLimit-Policy`` / ``RateLimit`` fields the limiter computed, on every response."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/") and not request.META.get("HTTP_AUTHORIZATION"):
            try:
                check(request, "anon", client_address(request))
            except RateLimited as refused:
                return refused_response(refused)
        response = self.get_response(request)
        headers: dict[str, str] | None = getattr(request, HEADERS_ATTR, None)
        if headers:
            for name, value in headers.items():
                if name not in response:
                    response[name] = value
        return response


def token_refused(request: Request) -> None:
    """A token that authenticates nobody: counted on the address's ``anon`` budget (429 once spent),
    so guessing keys costs what any anonymous request does."""
    check(request, "anon", client_address(request))


def refused_response(refused: RateLimited) -> HttpResponse:
    body = problem(429, "rate_limited", _("Too many requests"), str(refused.detail))
    response = JsonResponse(body, status=429, content_type=PROBLEM)
    for name, value in refused.headers.items():
        response[name] = value
    return response
