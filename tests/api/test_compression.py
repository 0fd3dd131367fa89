"""Answers are gzipped for clients that accept it (issue 32): the API's JSON and the client's page;
event streams are not (gzip would hold events back; see the note at the end), and a weak ETag still answers 304."""

from __future__ import annotations

import gzip
import json

import pytest

from games.services import lobby

API = "/api/v1"
pytestmark = pytest.mark.django_db


def test_json_answers_are_gzipped_for_clients_that_accept_it(client):
    plain = client.get(f"{API}/games")
    zipped = client.get(f"{API}/games", HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert "Content-Encoding" not in plain
    assert zipped["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped["Vary"]
    body = gzip.decompress(zipped.content)
    assert json.loads(body) == plain.json()
    assert len(zipped.content) < len(plain.content) / 2


def test_the_client_page_is_gzipped_too(client):
    answer = client.get("/lobby", HTTP_ACCEPT_ENCODING="gzip")
    assert answer.status_code == 200
    assert gzip.decompress(answer.content).startswith(b"<!")


def test_a_weak_etag_from_a_gzipped_answer_still_answers_304(make_user, api):
    ann = make_user("ann")
    match = lobby.match_create(user=ann, game="enka", players=2, bots=[{"seat": 1, "level": "random"}])
    first = api(ann).get(f"{API}/matches/{match.id}/state", HTTP_ACCEPT_ENCODING="gzip")
    assert first["Content-Encoding"] == "gzip"
    assert first["ETag"].startswith('W/"')
    again = api(ann).get(f"{API}/matches/{match.id}/state", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    other = api(ann).get(f"{API}/matches/{match.id}/state", HTTP_IF_NONE_MATCH='W/"something-else"')
    assert other.status_code == 200


# Event streams are not gzipped: tests/notifications/test_streams.py reads one with httpx, which
# asks for gzip, and checks that no Content-Encoding came back.
