"""Browser tests (issue 28): the settings page sets channels, quiet hours and the digest; the app is
installable (a manifest, a service worker that registers at the root); the match page shows what
happened since one's last move."""

from __future__ import annotations

import pytest

from accounts.models import User
from games.services import lobby, play
from tests.web.conftest import shoot, sign_up

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_settings_page_sets_channels_quiet_hours_and_the_digest(page):
    sign_up(page, "ann")
    page.get_by_role("link", name="Settings").click()
    page.get_by_role("heading", name="Which notices go where").wait_for()
    box = page.locator("[data-channel='chat:push']")
    assert box.is_checked()
    box.uncheck()
    page.get_by_role("status").filter(has_text="Saved").wait_for()
    page.get_by_label("From").fill("22:00")
    page.get_by_label("to", exact=True).fill("07:30")
    page.get_by_role("button", name="Set quiet hours").click()
    page.locator("[data-quiet]").wait_for()
    page.locator("select[name='email_digest']").select_option("daily")
    page.locator("select[name='email_digest_hour']").wait_for()
    shoot(page, "settings")
    prefs = User.objects.get(username="ann").preferences
    assert "push" not in prefs["channels"]["chat"]
    assert prefs["quiet_hours"] == {"start": "22:00", "end": "07:30"} and prefs["timezone"]
    assert prefs["email_digest"] == "daily"


def test_the_app_is_installable_and_its_service_worker_registers(page):
    sign_up(page, "ben")
    manifest = page.request.get("/manifest.webmanifest")
    assert manifest.ok and manifest.json()["start_url"] == "/" and manifest.json()["icons"]
    worker = page.request.get("/sw.js")
    assert worker.ok and worker.headers["service-worker-allowed"] == "/"
    scope = page.evaluate("navigator.serviceWorker.register('/sw.js', {scope: '/'}).then((r) => r.scope)")
    assert scope.endswith("/")


def test_the_match_page_shows_what_happened_since_my_last_move(page, make_user):
    sign_up(page, "cat")
    cat, dan = User.objects.get(username="cat"), make_user("dan")
    match = lobby.match_create(user=cat, game="enka", players=2)
    lobby.match_join(match_id=match.id, user=dan)
    match.refresh_from_db()
    from games import replay

    cat_moved, last = False, None
    for _ in range(30):  # until cat has moved, then dan, and the match waits for cat again
        match.refresh_from_db()
        seat = match.awaiting[0]
        mover = match.seats.get(index=seat).user
        if mover == cat and cat_moved and last == dan:
            break
        rules = replay.rules_for(match)
        move = rules.dump_move(rules.legal_moves(replay.match_state(match), seat)[0])
        play.move_submit(match_id=match.id, user=mover, move=move, expected_version=match.version)
        cat_moved, last = cat_moved or mover == cat, mover
    match.refresh_from_db()
    assert match.seats.get(index=match.awaiting[0]).user == cat and last == dan  # dan moved since cat's move
    page.goto(f"/matches/{match.id}")
    page.locator("[data-since] li").first.wait_for()
    shoot(page, "since-your-last")


def test_the_account_settings_e_mail_tokens_password_blocks_and_deleting(page, make_user):
    """Issue 32's settings page: everything about the account in one place, each change stored."""
    from accounts.models import ApiToken
    from circles import services as circles

    make_user("troll")
    sign_up(page, "cat")
    cat = User.objects.get(username="cat")
    circles.block(cat, "troll", "all")
    page.goto("/settings")

    page.get_by_label("E-mail", exact=True).fill("cat@example.org")
    page.get_by_role("button", name="Save e-mail").click()
    page.locator("[data-email-saved]").wait_for()
    assert User.objects.get(username="cat").email == "cat@example.org"

    before = ApiToken.objects.filter(user=cat).count()
    page.get_by_label("Label").fill("my script")
    page.get_by_role("button", name="Create a token").click()
    key = page.locator("[data-new-token] code").inner_text()
    assert len(key) >= 20 and ApiToken.objects.filter(user=cat).count() == before + 1
    made = ApiToken.objects.get(user=cat, label="my script")
    page.locator(f"[data-token='{made.id}'] button", has_text="Revoke").click()
    page.locator(f"[data-token='{made.id}']").wait_for(state="detached")
    assert not ApiToken.objects.filter(pk=made.pk).exists()

    page.get_by_label("Current password").fill("a-long-passphrase-9")
    page.get_by_label("New password").fill("another-passphrase-7")
    page.get_by_role("button", name="Change password").click()
    page.locator("[data-password-changed]").wait_for()
    assert User.objects.get(username="cat").check_password("another-passphrase-7")

    page.locator("[data-blocked='troll']").get_by_role("button", name="Unblock").click()
    page.get_by_text("Nobody. Block a player from their profile.").wait_for()

    delete = page.get_by_role("button", name="Delete my account")
    assert delete.is_disabled()  # until the username is typed
    page.get_by_label("Type your username to confirm").fill("cat")
    delete.click()
    page.get_by_role("link", name="Sign in").first.wait_for()
    assert User.objects.get(pk=cat.pk).deleted_at is not None
