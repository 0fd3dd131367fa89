"""Browser tests (issue 32, everyday pieces): sign-up takes an optional e-mail; the start loads no
OpenAPI document; after my move the badge and the title drop at once; a finished match offers a
rematch, which the page opens."""

from __future__ import annotations

import pytest

from accounts.models import User
from games.models import Match
from games.services import lobby, play

pytestmark = pytest.mark.django_db(transaction=True)


def test_sign_up_with_an_e_mail_and_no_schema_download(page):
    seen: list[str] = []
    page.on("request", lambda r: seen.append(r.url))
    page.goto("/signup")
    page.get_by_label("Username").fill("eve")
    page.get_by_label("Password").fill("a-long-passphrase-9")
    page.get_by_label("E-mail").fill("eve@example.com")
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("heading", name="My games").wait_for()
    assert User.objects.get(username="eve").email == "eve@example.com"
    assert not [u for u in seen if "/schema" in u], seen


def test_after_my_move_the_badge_drops_and_a_finished_match_offers_a_rematch(toy_game, page, make_user, console):
    page.goto("/signup")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("a-long-passphrase-9")
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("heading", name="My games").wait_for()
    ann, ben = User.objects.get(username="ann"), make_user("ben")
    match = lobby.match_create(user=ann, game="toy", players=2, options={"pile": 3})
    lobby.match_join(match_id=match.id, user=ben)  # ann (seat 0) to move
    page.goto(f"/matches/{match.id}")
    page.wait_for_function("() => document.title === '(1) Tabula'", timeout=15000)
    page.locator('[data-move=\'{"type":"take","n":1}\']').click()
    page.wait_for_function("() => document.title === 'Tabula'", timeout=5000)  # at once, not at the next look
    match.refresh_from_db()
    play.move_submit(match_id=match.id, move={"type": "take", "n": 2}, expected_version=match.version, user=ben)
    page.locator("[data-rematch]").click()
    page.wait_for_url(lambda url: match.id not in url)
    rematch = Match.objects.get(rematch_of=match)
    assert page.url.endswith(f"/matches/{rematch.id}")
    assert rematch.seats.filter(user=ann).exists()
    assert not console.errors, console.errors


def test_a_visitor_without_an_account_watches_a_public_match_live_and_replays_it(toy_game, page, make_user, console):
    ann, ben = make_user("ann"), make_user("ben")
    match = lobby.match_create(user=ann, game="toy", players=2, options={"pile": 5})
    lobby.match_join(match_id=match.id, user=ben)
    page.goto(f"/matches/{match.id}")
    page.locator("[data-watching]").wait_for()
    assert page.get_by_role("link", name="Sign in").count() >= 1
    assert page.locator("[data-move]").count() == 0  # the public view: no moves offered
    version = int(page.locator("main.match").get_attribute("data-version"))
    match.refresh_from_db()
    play.move_submit(match_id=match.id, move={"type": "take", "n": 1}, expected_version=match.version, user=ann)
    # No account, so no stream ticket: the page polls and shows the move.
    page.wait_for_function(
        f"() => Number(document.querySelector('main.match')?.dataset.version) > {version}", timeout=10000
    )
    page.goto(f"/matches/{match.id}?at=1")
    page.locator("main[data-replay][data-at='1']").wait_for()  # the step shows once its view arrives
    assert not console.errors, console.errors
