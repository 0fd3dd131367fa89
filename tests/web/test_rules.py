"""Browser test (issue 32, rules in the client): a newcomer finds the rules from the lobby and from a
match, reads each game's page (sections, card pictures, the glossary), with no console error."""

from __future__ import annotations

import pytest

from tests.web.conftest import shoot, sign_up
from tests.web.test_games import create_against_bot

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_newcomer_reads_the_rules_of_every_game(page, console):
    sign_up(page, "newbie")
    page.goto("/lobby")
    page.get_by_role("link", name="How to play").click()
    page.get_by_role("heading", name="How to play").wait_for()
    for game, name in (("ekko", "EKKO"), ("enka", "Enka"), ("eko", "Ekö"), ("ecos", "Ecos")):
        page.goto("/rules")
        page.get_by_role("link", name=name, exact=True).click()
        page.locator(f"[data-rules='{game}']").wait_for()
        headings = page.locator("[data-rules] h2").all_inner_texts()
        assert len(headings) >= 4 and "Words in the log" in headings, headings
        assert page.locator(".glossary dt").count() >= 4
        shoot(page, f"rules-{game}")
    page.goto("/rules/enka")
    page.locator("[data-rules='enka']").wait_for()  # the page comes from GET games/enka/rules
    assert page.locator(".enka-card").count() >= 6  # the cards drawn as on the board
    page.goto("/rules/chess")
    page.get_by_text("No such game").wait_for()
    create_against_bot(page, "ekko")
    page.locator("[data-rules-link]").click()
    page.locator("[data-rules='ekko']").wait_for()
    assert not console.errors, console.errors
