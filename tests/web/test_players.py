"""Browser tests of the players' pages: a leaderboard and a profile with its rating chart, and
accepting an invitation from the invitations page."""

from __future__ import annotations

import pytest
from django.test import override_settings

from accounts.services import leaderboard_refresh
from games import services
from tests.web.conftest import sign_up

pytestmark = pytest.mark.django_db(transaction=True)


@override_settings(TABULA_PROVISIONAL_GAMES=2)
def test_leaderboard_and_profile_with_its_rating_chart(page, make_user, toy_game):
    ann, bob = make_user("ann"), make_user("bob")
    for _ in range(3):
        match = services.match_create(user=ann, game="toy", players=2)
        services.match_join(match_id=match.id, user=bob)
        services.match_resign(match_id=match.id, user=bob)
    leaderboard_refresh("toy")
    sign_up(page, "cleo")
    page.goto("/leaderboards/toy")
    rows = page.locator("table[data-board=toy] tbody tr")
    rows.nth(1).wait_for()
    assert rows.count() == 2
    assert rows.nth(0).locator("td").nth(1).inner_text() == "ann"
    assert rows.nth(1).locator("td").nth(1).inner_text() == "bob"
    rows.nth(0).get_by_role("link", name="ann").click()
    page.get_by_role("heading", name="ann").wait_for()
    page.locator("svg").first.wait_for()  # the rating-history chart
    assert "#1" in page.locator("section", has=page.get_by_role("heading", name="Ratings")).inner_text()
    stats = page.locator("table[data-stats] tbody tr").first
    assert stats.locator("td").nth(1).inner_text() == "3" and stats.locator("td").nth(2).inner_text() == "3"


def test_accepting_an_invitation_seats_the_person(page, make_user, toy_game):
    dan = make_user("dan")
    sign_up(page, "eve")
    from accounts.models import User

    match = services.match_create(user=dan, game="toy", players=2, private=True, invite=["eve"])
    assert User.objects.filter(username="eve").exists()
    page.get_by_role("link", name="Invitations").click()
    item = page.locator(f"[data-invitation='{match.id}']")
    item.wait_for()
    assert "dan" in item.inner_text()
    item.get_by_role("button", name="Accept").click()
    page.wait_for_url(f"**/matches/{match.id}")
    match.refresh_from_db()
    assert match.status == "active"
