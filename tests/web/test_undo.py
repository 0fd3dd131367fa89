"""Browser test (issue 26): on an open board (Ekö) a person moves, sees "Undo my last move", takes it
back through the page, and the move is offered again."""

from __future__ import annotations

import pytest

from accounts.models import User
from games.models import Record
from games.services import lobby
from tests.web.conftest import shoot, sign_up

pytestmark = pytest.mark.django_db(transaction=True)


def test_undo_through_the_page(page, make_user):
    sign_up(page, "ann")
    ann, ben = User.objects.get(username="ann"), make_user("ben")
    match = lobby.match_create(user=ann, game="eko", players=2, options={"takebacks": "own_input"})
    lobby.match_join(match_id=match.id, user=ben)
    page.goto(f"/matches/{match.id}")
    first = page.locator("[data-move]").first
    first.wait_for()
    move = first.get_attribute("data-move")
    first.click()
    undo = page.locator("[data-undo]")
    undo.wait_for()
    shoot(page, "undo")
    undo.click()
    page.locator(f"[data-move='{move}']").first.wait_for()
    assert Record.objects.filter(match=match, type="undone").count() == 1
    assert page.locator("[data-undo]").count() == 0
    page.locator("section.log").get_by_text("took the last move back").wait_for()
