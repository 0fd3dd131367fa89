"""Browser test (issue 32, play on the board): each game played to the end against a bot by
clicking on the board only, never the move panel. A card, the draw pile, the drawn card, a stack,
a hex or the prompt with one move makes it at once (it carries the move in `data-move`); with
several, a click opens a small menu on the board whose items carry theirs (in Ekö a selected stack
outlines its targets, each target carrying its move)."""

from __future__ import annotations

import json
import random

import pytest

from tests.web.conftest import shoot, sign_up
from tests.web.test_games import create_against_bot

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("game", ["ekko", "enka", "eko", "ecos"])
def test_a_whole_match_played_on_the_board(page, console, game):
    sign_up(page, f"board-{game}")
    create_against_bot(page, game)
    board = page.locator("[data-board]")
    made = 0
    errors: list[str] = []
    rng = random.Random(game)
    stuck = 0  # clicks in a row that found nothing to do: a board that offers no way on fails now
    for _ in range(1500):
        if page.locator("main.match[data-status='finished']").count() or stuck >= 25:
            break
        # a card first (the match moves on), then a menu item, then the rest (the pile, keep, pass)
        cards = board.locator(
            "[data-select^='card:'][data-move]:not([disabled]), .pick-menu [data-move]:not([disabled])"
        )
        direct = cards if cards.count() else board.locator("[data-move]:not([disabled])")
        choice = board.locator("[data-select]:not([data-move]):not([disabled]):not(.selected)")
        try:
            if direct.count():
                one = direct.nth(rng.randrange(direct.count()))
                move = json.loads(one.get_attribute("data-move", timeout=2000))
                assert move["type"]
                one.click(timeout=2000)
                made += 1
                stuck = 0
            elif choice.count():
                # several moves start here: the menu opens on the board (any of them: always the
                # first could select two Ekö stacks in turn for ever)
                choice.nth(rng.randrange(choice.count())).click(timeout=2000)
                board.locator("[data-move]").first.wait_for(timeout=2000)  # or, in Ekö, its targets
                stuck = 0
            else:
                page.wait_for_timeout(100)  # the bot's turn
        except Exception as exc:
            errors.append(str(exc)[:300])
            stuck += 1
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
