"""`bench.layers.Chain` (section 10) times every middleware of Django's handler, in order."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler

from bench.layers import Chain
from front.wsgi import environ


@pytest.mark.django_db
def test_the_chain_times_every_middleware_in_order_and_accounts_for_the_whole():
    handler = WSGIHandler()
    chain = Chain(handler)
    assert chain.names == [name.rsplit(".", 1)[-1] for name in settings.MIDDLEWARE]
    scope = {
        "method": "GET",
        "path": "/api/v1/games",
        "query_string": b"",
        "headers": [(b"accept", b"application/json")],
    }
    statuses: list[str] = []
    body = b"".join(handler(environ(scope, b""), lambda status, *_: statuses.append(status)))
    assert statuses[0].startswith("200") and b"ekko" in body
    whole, *own, below = chain.take()
    assert len(own) == len(settings.MIDDLEWARE)
    assert whole > 0 and below > 0 and all(t >= 0 for t in own)
    assert sum(own) + below == pytest.approx(whole)
    assert chain.take() == [0.0] * (len(own) + 2)  # taken: the next request starts from nothing
