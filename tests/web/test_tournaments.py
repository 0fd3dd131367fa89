"""Browser test (issue 29): a person creates a tournament in the web client and joins it, three
others join through the API, the first round is played, and the page shows the round's tables and
the standings; the console stays clean."""

from __future__ import annotations

import contextlib
import random

import pytest

from accounts.models import User
from tests.tournaments.conftest import play
from tests.web.conftest import shoot, sign_up
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def test_create_join_and_see_the_standings_after_the_first_round(page, make_user, console):
    sign_up(page, "host")
    page.get_by_role("link", name="Tournaments").click()
    form = page.get_by_role("form", name="Create a tournament")
    form.wait_for()
    form.get_by_role("textbox", name="Name").fill("Friday Swiss")
    form.get_by_label("Game").select_option("enka")
    form.get_by_label("Format").select_option("swiss")
    form.get_by_label("Players per table").fill("2")
    form.get_by_label("Most players").fill("4")
    form.get_by_label("Rounds").fill("2")
    form.get_by_role("button", name="Create tournament").click()
    page.get_by_role("heading", name="Friday Swiss").wait_for()
    page.locator("[data-join]").click()
    page.locator("[data-withdraw]").wait_for()  # entered
    t = Tournament.objects.get(name="Friday Swiss")
    assert t.entrants.filter(user__username="host").exists() and t.game == "enka" and t.rounds == 2
    for name in ("ann", "ben", "cat"):  # the others join through the API's service
        services.join(tournament_id=t.id, user=make_user(name))
    page.reload()
    page.locator("[data-tournament-status='running']").wait_for()
    page.locator("[data-round='1'] [data-table]").nth(1).wait_for()
    page.locator("[data-next-match]").wait_for()
    play(t.id, random.Random(2), lambda execute: contextlib.nullcontext())  # commits run what they queue
    t.refresh_from_db()
    assert t.round == 2  # the first round's end paired the second
    page.reload()
    page.locator("[data-round='2']").wait_for()
    rows = page.locator("[data-standing]")
    assert rows.count() == 4
    points = sorted(float(rows.nth(i).locator("[data-points]").inner_text()) for i in range(4))
    assert points == [0.0, 0.0, 2.0, 2.0]  # two tables of two, 2/0 each
    host = User.objects.get(username="host")
    shown = page.locator("[data-standing='host'] [data-points]").inner_text()
    expected = next(r["points"] for r in services.selectors.standings(t) if r["user_id"] == host.pk)
    assert float(shown) == expected
    shoot(page, "tournament")
    assert not console.errors, console.errors
