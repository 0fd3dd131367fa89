"""A DRF answer's view and Request are freed by reference counting once it is rendered
(`api.release`): no ring is left for the garbage collector, and the answer is the same."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.views import APIView

from games.services import lobby, play

API = "/api/v1"

pytestmark = pytest.mark.django_db


@pytest.fixture
def kept(monkeypatch) -> Iterator[list[weakref.ref[Any]]]:
    """Weak references to each view and DRF Request a request makes; the collector off meanwhile,
    so only reference counting can free them."""
    refs: list[weakref.ref[Any]] = []
    plain = APIView.initial

    def initial(self: APIView, request: Any, *args: Any, **kwargs: Any) -> None:
        refs.extend((weakref.ref(self), weakref.ref(request)))
        plain(self, request, *args, **kwargs)

    monkeypatch.setattr(APIView, "initial", initial)
    gc.collect()
    gc.disable()
    try:
        yield refs
    finally:
        gc.enable()


@pytest.fixture
def ended(make_user):
    ann, ben = make_user("ann"), make_user("ben")
    match = lobby.match_create(user=ann, game="ekko", players=2)
    lobby.match_join(match_id=match.id, user=ben)
    play.match_resign(match_id=match.id, user=ben)
    return match.id, ann


@pytest.mark.parametrize(
    "path", ["/games", "/matches/{id}/events?after=0", "/matches/{id}/state", "/matches/nope/state"]
)
def test_a_view_and_its_request_are_freed_when_the_answer_is(ended, api, kept, path):
    match_id, ann = ended
    response = api(ann).get(API + path.format(id=match_id))
    assert response.status_code in (200, 404)
    assert response.json()  # the answer is whole
    assert len(kept) == 2
    del response
    assert [ref() for ref in kept] == [None, None]


def test_a_write_and_its_problem_document_are_freed_too(ended, api, kept):
    match_id, ann = ended
    response = api(ann).post(f"{API}/matches/{match_id}/moves", {"move": {}, "expected_version": 0}, format="json")
    assert response.status_code in (400, 409, 422) and response["Content-Type"] == "application/problem+json"
    del response
    assert [ref() for ref in kept] == [None, None]
