"""Fixtures of the API's tests."""

from __future__ import annotations

import pytest
import redis

from accounts import tokencache

REDIS = "redis://127.0.0.1:6379/13"


@pytest.fixture
def cache_on(settings):
    """The token cache on, with its Redis (`accounts.tokencache`), as deployed; the test settings
    leave it off. Skipped without a Redis server."""
    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=0.5).ping()
    except redis.RedisError:
        pytest.skip("no Redis server at 127.0.0.1:6379")
    settings.TABULA_TOKEN_CACHE, settings.REDIS_URL = True, REDIS
    tokencache._client, tokencache._down_until = None, 0.0
    tokencache.clear()
    yield
    tokencache.clear()
    tokencache._client = None
