"""The web client's routes and the one endpoint added for it (``games/{game}/components``)."""

from __future__ import annotations

import pytest

from rules.ecos.cards import CARDS

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path", ["/", "/lobby", "/signin", "/signup", "/matches/abc_DEF-1", "/users/ann", "/leaderboards/ekko"]
)
def test_every_client_route_answers_the_page(client, path):
    r = client.get(path)
    assert r.status_code == 200
    assert r["Content-Type"].startswith("text/html")
    assert b'type="module"' in r.content and b"/static/web/app.js" in r.content


def test_other_paths_keep_the_problem_404(client):
    r = client.get("/no-such-page")
    assert r.status_code == 404 and r.json()["code"] == "not_found"


def test_the_client_modules_are_served(client):
    for name in ("app.js", "api.js", "live.js", "match.js", "games/ekko.js", "vendor/htm-preact-standalone-3.1.1.js"):
        r = client.get(f"/static/web/{name}")
        assert r.status_code == 200, name
        assert "javascript" in r["Content-Type"], name


def test_ecos_components_are_the_printed_cards_and_public(api):
    r = api().get("/api/v1/games/ecos/components")
    assert r.status_code == 200
    cards = r.json()["cards"]
    assert {c["id"] for c in cards} == set(CARDS)
    first = cards[0]
    assert set(first) == {"id", "name", "back", "leaves", "slots", "effects"}
    assert first["slots"] == list(CARDS[first["id"]].slots)


def test_components_of_a_game_without_any_and_of_no_game(api):
    assert api().get("/api/v1/games/ekko/components").json() == {"game": "ekko"}
    r = api().get("/api/v1/games/chess/components/")
    assert r.status_code == 404 and r.json()["code"] == "not_found"
