"""Browser test (issue 25): a person sets an absence on the away page and sees it on the match
page, where the others see it too; "I am back" ends it."""

from __future__ import annotations

import pytest

from accounts.models import User
from games.models import Absence, Record
from games.services import lobby
from tests.web.conftest import shoot, sign_up

pytestmark = pytest.mark.django_db(transaction=True)


def test_going_away_freezes_my_clock_and_shows_on_the_match_page(page, make_user):
    sign_up(page, "ann")
    ann, ben = User.objects.get(username="ann"), make_user("ben")
    match = lobby.match_create(user=ann, game="enka", players=2, time_control={"per_move_s": 86400})
    lobby.match_join(match_id=match.id, user=ben)

    page.get_by_role("link", name="Away").click()
    page.get_by_text("You are here").wait_for()
    page.get_by_role("button", name="Go away").click()  # the form proposes three days
    page.get_by_text("You are away until").wait_for()
    assert Absence.objects.filter(user=ann, ended_at__isnull=True).exists()
    assert Record.objects.filter(match=match, type="paused").exists()
    page.get_by_label("Auto-away").check()
    for _ in range(100):  # the page shows the box checked at once; the PATCH lands a moment later
        ann.refresh_from_db()
        if ann.preferences.get("auto_away") is True:
            break
        page.wait_for_timeout(100)
    assert ann.preferences.get("auto_away") is True
    shoot(page, "away")

    page.goto(f"/matches/{match.id}")
    mark = page.locator("[data-away='0']")
    mark.wait_for()
    assert "away until" in mark.inner_text()
    shoot(page, "match-away")

    page.get_by_role("link", name="Away").click()
    page.get_by_role("button", name="I am back").click()
    page.get_by_text("You are here").wait_for()
    assert Record.objects.filter(match=match, type="resumed").exists()
