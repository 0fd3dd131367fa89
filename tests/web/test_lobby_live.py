"""The lobby, joining a match someone else created, and a page that updates by itself when
another seat moves through the API."""

from __future__ import annotations

import pytest

from accounts.models import User
from tests.web.conftest import sign_up

pytestmark = pytest.mark.django_db(transaction=True)


def test_another_seats_move_through_the_api_shows_without_reloading(page, make_user, api):
    sign_up(page, "ann")
    page.goto("/lobby")
    form = page.get_by_role("form", name="Create a match")
    form.get_by_label("Game", exact=True).select_option("ekko")
    form.get_by_label("Seat 2").select_option("")  # open for a person
    page.locator("#opt-first_dealer").fill("0")  # so seat 1, the other person, moves first
    form.get_by_role("button", name="Create match").click()
    page.wait_for_url("**/matches/*")
    match_id = page.url.rsplit("/", 1)[-1]
    page.get_by_text("Share this link").wait_for()

    ben = api(make_user("ben"))
    assert ben.post(f"/api/v1/matches/{match_id}/join").status_code == 200
    page.locator("main.match[data-status=active]").wait_for()  # the start shows by itself

    state = ben.get(f"/api/v1/matches/{match_id}/state").json()
    # A start card that is a multiple of 11 (8 in 98) has the dealer, ann, play once more before
    # the turn passes to ben (rules §1.3.3); ann plays through the API until it does.
    ann = api(User.objects.get(username="ann"))
    for _ in range(5):
        if state["awaiting"] != [0]:
            break
        mine = ann.get(f"/api/v1/matches/{match_id}/state").json()
        r = ann.post(
            f"/api/v1/matches/{match_id}/moves",
            {"move": mine["legal_moves"][0], "expected_version": mine["version"]},
            format="json",
        )
        assert r.status_code == 201, r.json()
        state = ben.get(f"/api/v1/matches/{match_id}/state").json()
    assert state["awaiting"] == [1]
    move = next((m for m in state["legal_moves"] if m["type"] == "play"), None) or next(
        m for m in state["legal_moves"] if m["type"] == "draw"
    )
    r = ben.post(
        f"/api/v1/matches/{match_id}/moves", {"move": move, "expected_version": state["version"]}, format="json"
    )
    assert r.status_code == 201, r.json()
    new_version = r.json()["version"]

    page.locator(f"main.match[data-version='{new_version}']").wait_for()
    page.locator(".log li", has_text="ben ").first.wait_for()
    if 0 in r.json()["state"]["awaiting"]:  # a draw may leave the turn with ben
        page.get_by_text("Your turn.").wait_for()
        assert page.locator("button[data-move]").count() > 0


def test_the_lobby_lists_open_matches_by_game_and_a_person_joins_one(page, make_user, api):
    bea = api(make_user("bea"))
    for game in ("enka", "ekko"):
        r = bea.post("/api/v1/matches", {"game": game, "players": 2}, format="json")
        assert r.status_code == 201
        if game == "enka":
            enka_id = r.json()["id"]

    sign_up(page, "carl")
    page.goto("/lobby")
    rows = page.locator("section", has=page.get_by_role("heading", name="Open matches")).locator(".match-row")
    rows.nth(1).wait_for()
    assert rows.count() == 2
    page.get_by_label("Filter by game").select_option("enka")
    page.wait_for_function("() => document.querySelectorAll('.lobby .match-row').length === 1")
    assert "Enka" in rows.first.inner_text() and "bea" in rows.first.inner_text()
    rows.first.get_by_role("button", name="Join").click()
    page.wait_for_url(f"**/matches/{enka_id}")
    page.locator("main.match[data-status=active]").wait_for()
    assert bea.get(f"/api/v1/matches/{enka_id}").json()["seats"][1]["username"] == "carl"

    # My games lists it, and a reload of the match page keeps it (the address is the match).
    page.reload()
    page.locator("main.match.game-enka").wait_for()
    page.get_by_role("link", name="My games").click()
    page.get_by_role("heading", name="My games").wait_for()
    page.locator(".match-row", has_text="Enka").first.wait_for()


def test_sign_out_and_sign_in_again_through_the_forms(page, console):
    console.allowed.add(400)  # the wrong password, shown to the person
    sign_up(page, "dora")
    page.get_by_role("button", name="Sign out").click()
    page.get_by_role("heading", name="Sign in").wait_for()
    assert page.evaluate("localStorage.getItem('tabula.token')") is None
    page.get_by_label("Username").fill("dora")
    page.get_by_label("Password").fill("wrong password")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("alert").wait_for()
    page.get_by_label("Password").fill("a-long-passphrase-9")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="My games").wait_for()
    assert "token" not in page.url.lower()
