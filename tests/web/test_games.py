"""Each game, in a real browser: sign up through the page, create a match against a bot in the
lobby, and play it to the end by clicking move buttons until the result shows."""

from __future__ import annotations

import json

import pytest

from tests.web.conftest import shoot, sign_up

pytestmark = pytest.mark.django_db(transaction=True)

# Options that keep a whole match short: one round, one turn, one point.
SHORT = {
    "ekko": {"target_score": "1"},
    "enka": {"max_rounds": "1", "hand_size": "3"},
    "eko": {"max_turns": "4", "layout": "standard"},
    "ecos": {"target_score": "1"},
}


def create_against_bot(page, game: str) -> str:
    page.goto("/lobby")
    form = page.get_by_role("form", name="Create a match")
    form.get_by_label("Game", exact=True).select_option(game)
    form.get_by_label("Seat 2").select_option("random")
    for name, value in SHORT[game].items():
        field = page.locator(f"#opt-{name}")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    page.get_by_role("button", name="Create match").click()
    page.wait_for_url("**/matches/*")
    page.locator("main.match").wait_for()
    return page.url.rsplit("/", 1)[-1]


def choose(page, prefer: tuple[str, ...]):
    buttons = page.locator("[data-panel='moves'] button[data-move]:not([disabled])")
    count = buttons.count()
    if not count:
        return None
    moves = [json.loads(buttons.nth(i).get_attribute("data-move")) for i in range(count)]
    for kind in prefer:
        for i, m in enumerate(moves):
            if m["type"] == kind:
                return buttons.nth(i)
    return buttons.first


def play_to_end(page, prefer: tuple[str, ...] = (), limit: int = 600, shot: str | None = None) -> dict:
    match = page.locator("main.match")
    for n in range(limit):
        if page.locator("[data-result]").count():
            break
        if shot and n == 3:
            shoot(page, shot)
        button = choose(page, prefer) if page.locator(".your-turn").count() else None
        if button is None:
            page.wait_for_timeout(250)
            continue
        version = match.get_attribute("data-version")
        button.click()
        page.wait_for_function(
            "v => { const m = document.querySelector('main.match');"
            " return !m || m.dataset.version !== v || document.querySelector('.error'); }",
            arg=version,
        )
        if page.locator(".error").count():
            # A bot moved between our read and our click: the page says so and refreshes; go on.
            text = page.locator(".error").inner_text()
            assert "moved first" in text or "no longer on top" in text, text
            page.locator(".error").get_by_role("button", name="Dismiss").click()
    result = page.locator("[data-result]")
    result.wait_for()
    return json.loads(result.get_attribute("data-result"))


@pytest.mark.parametrize(
    ("game", "prefer"),
    [
        ("ekko", ("play", "mirror", "draw", "pass")),
        ("enka", ("play", "play_drawn", "jump_in")),
        ("eko", ("move", "construct", "end_actions", "reinforce", "emperor_swap")),
        ("ecos", ()),
    ],
)
def test_a_person_plays_a_whole_match_against_a_bot(page, game, prefer):
    sign_up(page, f"player-{game}")
    create_against_bot(page, game)
    result = play_to_end(page, prefer, shot=game)
    assert result["reason"]
    assert page.locator("[data-result]").inner_text().startswith("Result")


def test_selecting_an_eko_stack_outlines_its_legal_targets_and_a_click_moves(page):
    sign_up(page, "selector")
    create_against_bot(page, "eko")
    match = page.locator("main.match")
    # the blind Emperor swap first: keep the layout
    page.locator("[data-panel='moves'] button[data-move*='emperor_swap'][data-move*='null']").click()
    page.locator("[data-panel='moves'] button[data-move*='\"move\"']").first.wait_for()
    move = json.loads(
        page.locator("[data-panel='moves'] button[data-move*='\"move\"']").first.get_attribute("data-move")
    )
    page.locator(f".hex[data-space='{move['from']}']").click()
    targets = page.locator(".hex.target")
    assert targets.count() > 0
    assert page.locator("button.move.hl").count() >= targets.count()
    version = match.get_attribute("data-version")
    page.locator(f".hex.target[data-space='{move['to']}']").focus()
    page.keyboard.press("Enter")  # the board is keyboard-operable too
    page.wait_for_function("v => document.querySelector('main.match').dataset.version !== v", arg=version)
    assert page.locator(".error").count() == 0


@pytest.mark.parametrize("game", ["ecos", "eko"])
def test_on_a_phone_the_move_panel_is_in_reach_without_scrolling_past_the_board(new_page, game):
    from tests.web.conftest import PHONE

    page = new_page(PHONE)
    sign_up(page, f"phone-{game}")
    create_against_bot(page, game)
    page.locator(".your-turn").wait_for()
    page.locator("[data-panel='moves'] button[data-move]:not([disabled])").first.wait_for()
    page.evaluate("window.scrollTo(0, 0)")
    board = page.locator("[data-board]").bounding_box()
    button = page.locator("[data-panel='moves'] button[data-move]").first.bounding_box()
    assert board is not None and button is not None
    assert board["height"] > PHONE["height"] / 2  # a tall board: without the sticky panel it would push it away
    assert button["y"] >= 0 and button["y"] + button["height"] <= PHONE["height"], (board, button)
