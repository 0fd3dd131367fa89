"""Behind a local proxy on a unix socket (REMOTE_ADDR is empty) rate limits still tell clients apart
by the address the proxy saw, and trusted proxies count before it."""

from __future__ import annotations

from django.test import RequestFactory

from api.ratelimit import client_address


def _request(remote: str, forwarded: str | None):
    meta = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/api/v1/games", **meta)


def test_a_unix_socket_peer_is_the_last_forwarded_address(settings):
    settings.TABULA_TRUSTED_PROXIES = 0
    assert client_address(_request("", "203.0.113.9")) == "203.0.113.9"
    assert client_address(_request("", "1.2.3.4, 203.0.113.9")) == "203.0.113.9"  # a client's own header is ignored
    assert client_address(_request("198.51.100.1", "1.2.3.4")) == "198.51.100.1"  # TCP: the header is not trusted


def test_trusted_proxies_count_before_the_local_proxy(settings):
    settings.TABULA_TRUSTED_PROXIES = 1
    assert client_address(_request("", "203.0.113.9, 10.0.0.2")) == "203.0.113.9"
    assert client_address(_request("10.0.0.2", "203.0.113.9")) == "203.0.113.9"
    assert client_address(_request("", "")) == "unknown"
