"""Browser tests of the players' pages: a leaderboard and a profile with its rating chart, and
accepting an invitation from the invitations page."""

from __future__ import annotations

import pytest
from django.test import override_settings

from games.ratings import leaderboard_refresh
from games.services import lobby, play
from tests.web.conftest import shoot, sign_up

pytestmark = pytest.mark.django_db(transaction=True)


@override_settings(TABULA_PROVISIONAL_GAMES=2)
def test_leaderboard_and_profile_with_its_rating_chart(toy_game, page, make_user):
    ann, bob = make_user("ann"), make_user("bob")
    for _ in range(3):
        match = lobby.match_create(user=ann, game="toy", players=2)
        lobby.match_join(match_id=match.id, user=bob)
        play.match_resign(match_id=match.id, user=bob)
    leaderboard_refresh("toy")
    sign_up(page, "cleo")
    page.goto("/leaderboards/toy")
    rows = page.locator("table[data-board=toy] tbody tr")
    rows.nth(1).wait_for()
    assert rows.count() == 2
    assert rows.nth(0).locator("td").nth(1).inner_text() == "ann"
    assert rows.nth(1).locator("td").nth(1).inner_text() == "bob"
    shoot(page, "leaderboard")
    rows.nth(0).get_by_role("link", name="ann").click()
    page.get_by_role("heading", name="ann").wait_for()
    page.locator("svg").first.wait_for()  # the rating-history chart
    assert "#1" in page.locator("section", has=page.get_by_role("heading", name="Ratings")).inner_text()
    stats = page.locator("table[data-stats] tbody tr").first
    assert stats.locator("td").nth(1).inner_text() == "3" and stats.locator("td").nth(2).inner_text() == "3"
    shoot(page, "profile")


def test_accepting_an_invitation_seats_the_person(toy_game, page, make_user):
    dan = make_user("dan")
    sign_up(page, "eve")
    from accounts.models import User

    match = lobby.match_create(user=dan, game="toy", players=2, private=True, invite=["eve"])
    assert User.objects.filter(username="eve").exists()
    page.get_by_role("link", name="Invitations").click()
    item = page.locator(f"[data-invitation='{match.id}']")
    item.wait_for()
    assert "dan" in item.inner_text()
    item.get_by_role("button", name="Accept").click()
    page.wait_for_url(f"**/matches/{match.id}")
    match.refresh_from_db()
    assert match.status == "active"


def test_inviting_by_username_and_joining_by_the_invitation_link(toy_game, new_page, make_user):
    from accounts.models import User
    from games.models import Invitation

    host = new_page()
    sign_up(host, "fay")
    make_user("gus")
    match = lobby.match_create(user=User.objects.get(username="fay"), game="toy", players=3, private=True)
    host.goto(f"/matches/{match.id}")
    form = host.get_by_role("form", name="Invite a player")
    form.get_by_label("Invite by username").fill("gus")
    form.get_by_role("button", name="Invite").click()
    host.get_by_text("gus: pending").wait_for()
    assert Invitation.objects.filter(match=match, user__username="gus", status="pending").exists()
    link = host.locator("code.invite-link").inner_text()
    assert link.endswith(f"/join#{match.invite_code}")  # in the fragment: never sent to the server

    guest = new_page()
    sign_up(guest, "hal")  # neither seated nor invited: the link alone opens the private match
    guest.goto(link)
    guest.get_by_role("button", name="Join this match").click()
    guest.wait_for_url(f"**/matches/{match.id}")
    assert match.seats.filter(user__username="hal").exists()
