"""Browser test (issue 32, play on the board): EKKO and Enka played to the end against a bot by
clicking on the board only, never the move panel: a card, the draw pile or the drawn card with one
move makes it at once (it carries the move in `data-move`); with several a click opens a small menu
on the board whose items carry theirs."""

from __future__ import annotations

import json

import pytest

from tests.web.conftest import shoot, sign_up
from tests.web.test_games import create_against_bot

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("game", ["ekko", "enka"])
def test_a_whole_match_played_on_the_board(page, console, game):
    sign_up(page, f"board-{game}")
    create_against_bot(page, game)
    board = page.locator("[data-board]")
    made = 0
    errors: list[str] = []
    for _ in range(1500):
        if page.locator("main.match[data-status='finished']").count():
            break
        # a card first (the match moves on), then a menu item, then the rest (the pile, keep, pass)
        cards = board.locator(
            "[data-select^='card:'][data-move]:not([disabled]), .pick-menu [data-move]:not([disabled])"
        )
        direct = cards if cards.count() else board.locator("[data-move]:not([disabled])")
        choice = board.locator("[data-select]:not([data-move]):not([disabled]):not(.selected)")
        try:
            if direct.count():
                move = json.loads(direct.first.get_attribute("data-move"))
                assert move["type"]
                direct.first.click(timeout=2000)
                made += 1
            elif choice.count():
                choice.first.click(timeout=2000)  # several moves start here: the menu opens on the board
                board.locator(".pick-menu [data-move]").first.wait_for(timeout=2000)
            else:
                page.wait_for_timeout(100)  # the bot's turn
        except Exception as exc:
            errors.append(str(exc)[:300])
            continue  # the board changed under the pointer (the bot moved): look again
    panel = page.locator("[data-panel='moves'] [data-move]").evaluate_all("els => els.map(e => e.dataset.move)")
    on_board = board.locator("[data-move], [data-select]").evaluate_all(
        "els => els.map(e => e.outerHTML.slice(0, 120))"
    )
    assert page.locator("main.match[data-status='finished']").count(), (panel, on_board, errors[-3:])
    assert made > 0
    assert page.locator("[data-result]").count() == 1
    shoot(page, f"board-{game}")
    assert not console.errors, console.errors
