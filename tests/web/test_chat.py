"""Browser test (issue 27): two people chat through the page. Ann writes at the table; Ben's page,
open on the same match, shows an unread badge; he opens the chat, the badge clears, he answers,
and Ann's page shows the answer. Then notes, a follow from a profile, and the feed."""

from __future__ import annotations

import pytest

from accounts.models import User
from games.services import lobby
from talk.models import ChatCursor, Note
from tests.web.conftest import shoot, sign_up

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_people_chat_through_the_page_and_the_unread_badge_clears(new_page):
    ann_page, ben_page = new_page(), new_page()
    sign_up(ann_page, "ann")
    sign_up(ben_page, "ben")
    ann, ben = User.objects.get(username="ann"), User.objects.get(username="ben")
    match = lobby.match_create(user=ann, game="enka", players=2)
    lobby.match_join(match_id=match.id, user=ben)
    ann_page.goto(f"/matches/{match.id}")
    ben_page.goto(f"/matches/{match.id}")
    ben_page.locator("[data-chat-toggle]").wait_for()

    ann_page.locator("[data-chat-toggle]").click()
    ann_page.get_by_label("Message").fill("Good luck, Ben!")
    ann_page.get_by_role("button", name="Send").click()
    ann_page.locator(".messages li[data-seq='1']").wait_for()

    badge = ben_page.locator("[data-chat-toggle] [data-unread]")
    badge.wait_for(timeout=20000)  # the match stream's chat event (or the 15 s look)
    assert badge.get_attribute("data-unread") == "1"
    shoot(ben_page, "chat-unread")
    ben_page.locator("[data-chat-toggle]").click()
    ben_page.get_by_text("Good luck, Ben!").wait_for()
    badge.wait_for(state="detached")
    ben_page.get_by_label("Message").fill("Thanks, you too")
    ben_page.get_by_role("button", name="Send").click()
    ann_page.get_by_text("Thanks, you too").wait_for(timeout=20000)
    shoot(ann_page, "chat")
    ben_page.wait_for_function("() => true")
    cursor = ChatCursor.objects.get(user=ben, match=match, channel="table")
    assert cursor.read >= 1 and cursor.notified is False  # read: the next message writes a new inbox entry


def test_notes_a_follow_and_the_feed(page, make_user):
    sign_up(page, "cat")
    cat, dan, eve = User.objects.get(username="cat"), make_user("dan"), make_user("eve")
    match = lobby.match_create(user=cat, game="enka", players=2)
    lobby.match_join(match_id=match.id, user=dan)
    page.goto(f"/matches/{match.id}")
    page.get_by_label("My private notes on this match").fill("dan keeps the wild cards")
    page.get_by_role("button", name="Save notes").click()
    page.get_by_text("Saved").wait_for()
    assert Note.objects.get(user=cat, match=match).text == "dan keeps the wild cards"

    watched = lobby.match_create(user=dan, game="enka", players=2)
    lobby.match_join(match_id=watched.id, user=eve)
    page.goto("/users/dan")
    page.locator("[data-follow]").click()
    page.locator("[data-unfollow]").wait_for()
    page.get_by_role("link", name="Feed").click()
    entry = page.locator(f"[data-feed='started'] a[href='/matches/{watched.id}']")
    entry.wait_for()
    shoot(page, "feed")
