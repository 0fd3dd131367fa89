"""Browser test (issue 32, replay): a finished match is replayed step by step with the keys, the
buttons and the slider; each step shows the server's view of that moment; no console error."""

from __future__ import annotations

import pytest

from accounts.models import User
from games.models import Match
from games.services import play
from tests.notifications.test_leaks import _random_match
from tests.web.conftest import shoot, sign_up

pytestmark = pytest.mark.django_db(transaction=True)


def test_replay_a_match_step_by_step(page, make_user, console):
    sign_up(page, "ann")
    ann, ben = User.objects.get(username="ann"), make_user("ben")
    match = _random_match("enka", [ann, ben], moves=12)
    play.match_resign(match_id=match.id, user=ben)
    match = Match.objects.get(id=match.id)
    page.goto(f"/matches/{match.id}")
    page.locator("[data-replay-link]").click()
    page.locator(f"[data-replay][data-at='{match.version}']").wait_for()
    page.locator(".result").wait_for()  # the last record: the result
    page.locator("[data-scrubber]").fill("1")
    page.locator("[data-replay][data-at='1']").wait_for()
    page.keyboard.press("ArrowRight")
    page.locator("[data-replay][data-at='2']").wait_for()
    page.locator("[data-step='1']").click()
    page.locator("[data-replay][data-at='3']").wait_for()
    page.keyboard.press("ArrowLeft")
    page.locator("[data-replay][data-at='2']").wait_for()
    assert page.url.endswith(f"/matches/{match.id}?at=2")
    started = next(n for n in range(1, match.version + 1) if match.records.get(seq=n).type == "started")
    page.locator("[data-scrubber]").fill(str(started + 2))
    page.locator(f"[data-replay][data-at='{started + 2}']").wait_for()
    page.locator("[data-board], .board *").first.wait_for()
    page.locator("[data-play]").click()
    page.locator(f"[data-replay][data-at='{started + 3}']").wait_for(timeout=5000)  # it steps on by itself
    page.locator("[data-play]").click()
    shoot(page, "replay")
    assert not console.errors, console.errors
