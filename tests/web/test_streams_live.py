"""The web client follows the live streams: another seat's move through the API shows on the match
page by itself via `matches/{id}/stream`, and "My games" and the page title follow `me/stream`,
with no polling while the streams are open."""

from __future__ import annotations

import time

import pytest

from accounts.models import User
from tests.web.conftest import sign_up

pytestmark = pytest.mark.django_db(transaction=True)


def _ekko_for_two(api, ann):
    created = api(ann).post(
        "/api/v1/matches", {"game": "ekko", "players": 2, "options": {"first_dealer": 0}}, format="json"
    )
    assert created.status_code == 201, created.json()
    return created.json()["id"]


def _bens_turn(ben, match_id: str) -> dict:
    """Ben's state once he has a move to make or the turn is ann's (a deal may take a moment)."""
    deadline = time.monotonic() + 15
    while True:
        state = ben.get(f"/api/v1/matches/{match_id}/state").json()
        if state["legal_moves"] or 0 in state["awaiting"] or time.monotonic() > deadline:
            return state
        time.sleep(0.2)


def _a_turn(clients, match_id: str) -> tuple[object, dict]:
    """The client awaited first and its state (seat 1 plays first, unless the start card asks the
    dealer for something first)."""
    deadline = time.monotonic() + 15
    while True:
        for client in clients:
            state = client.get(f"/api/v1/matches/{match_id}/state").json()
            if state["legal_moves"]:
                return client, state
        assert time.monotonic() < deadline, "nobody has a move"
        time.sleep(0.2)


def _requests(page) -> list[str]:
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url))
    return seen


def test_the_match_page_follows_the_match_stream(page, make_user, api):
    seen = _requests(page)
    sign_up(page, "ann")
    ann = User.objects.get(username="ann")
    match_id = _ekko_for_two(api, ann)
    ben = api(make_user("ben"))
    assert ben.post(f"/api/v1/matches/{match_id}/join").status_code == 200
    page.goto(f"/matches/{match_id}")
    page.locator("main.match[data-status=active]").wait_for()
    deadline = time.monotonic() + 10
    while not any(f"/matches/{match_id}/stream?ticket=" in u for u in seen) and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert any(f"/matches/{match_id}/stream?ticket=" in u for u in seen), "no EventSource on the match stream"
    assert not any("token" in u.lower() and "ticket" not in u for u in seen if "/stream" in u)
    page.wait_for_timeout(1500)
    before = len([u for u in seen if u.endswith(f"/matches/{match_id}/state")])
    page.wait_for_timeout(3000)  # polling would read the state three times here
    assert len([u for u in seen if u.endswith(f"/matches/{match_id}/state")]) == before, "the page polls"

    mover, state = _a_turn([ben, api(ann)], match_id)
    move = next((m for m in state["legal_moves"] if m["type"] in ("play", "draw")), state["legal_moves"][0])
    r = mover.post(
        f"/api/v1/matches/{match_id}/moves", {"move": move, "expected_version": state["version"]}, format="json"
    )
    assert r.status_code == 201, r.json()
    page.locator(f"main.match[data-version='{r.json()['version']}']").wait_for(timeout=15000)
    if 0 in r.json()["state"]["awaiting"]:
        page.get_by_text("Your turn.").wait_for()


def test_my_games_and_the_title_follow_the_inbox_stream(page, make_user, api):
    seen = _requests(page)
    sign_up(page, "ann")
    ann = User.objects.get(username="ann")
    match_id = _ekko_for_two(api, ann)
    ben = api(make_user("ben"))
    assert ben.post(f"/api/v1/matches/{match_id}/join").status_code == 200
    page.goto("/")
    page.get_by_role("heading", name="My games").wait_for()
    deadline = time.monotonic() + 10
    while not any("/me/stream?ticket=" in u for u in seen) and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert any("/me/stream?ticket=" in u for u in seen), "no EventSource on me/stream"
    assert page.title() == "Tabula"  # seat 1 (ben) plays first
    page.wait_for_timeout(1500)
    listed = len([u for u in seen if "matches?mine=true" in u])
    page.wait_for_timeout(4500)  # the fallback would poll every 4 s
    assert len([u for u in seen if "matches?mine=true" in u]) == listed, "My games polls"

    for _ in range(6):  # ben plays until the turn passes to ann (a draw may leave it with him)
        state = _bens_turn(ben, match_id)
        if 0 in state["awaiting"] or not state["legal_moves"]:
            break
        move = next((m for m in state["legal_moves"] if m["type"] == "play"), state["legal_moves"][0])
        r = ben.post(
            f"/api/v1/matches/{match_id}/moves", {"move": move, "expected_version": state["version"]}, format="json"
        )
        assert r.status_code == 201
    page.wait_for_function("() => document.title === '(1) Tabula'", timeout=15000)
    waiting = page.locator("section", has=page.get_by_role("heading", name="Waiting for you (1)"))
    waiting.locator(f"a[href='/matches/{match_id}']").first.wait_for()
