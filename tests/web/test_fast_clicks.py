"""Browser test (issue 32, no stale moves): a person clicks the moves as fast as the page lets them
against a bot that answers at once. Every button is disabled from the click until the next state
shows; a conflict with the bot is handled by showing the board as it is, without a word; no console
error, no error note."""

from __future__ import annotations

import pytest

from tests.web.conftest import sign_up
from tests.web.test_games import create_against_bot

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("game", ["enka", "ekko"])
def test_clicking_as_fast_as_the_page_allows(page, console, game):
    sign_up(page, f"quick-{game}")
    create_against_bot(page, game)
    panel = page.locator("[data-panel='moves']")
    clicks = 0
    for _ in range(120):
        if page.locator("main.match[data-status='finished']").count():
            break
        button = panel.locator("button[data-move]:not([disabled])").first
        try:
            button.click(timeout=3000)
        except Exception:
            continue  # the board changed under the pointer, or no move is ours just now
        clicks += 1
        assert page.locator("p.error[role='alert']").count() == 0, page.locator("p.error").all_inner_texts()
    assert clicks >= 3  # a short match (the options of tests/web/test_games.py): a few turns each
    assert not console.errors, console.errors
