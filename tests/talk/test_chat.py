"""Chat (issue 27, item 1): channels by role and phase, limits, the coalesced inbox entry, the
match version untouched, moderation and the reader's own filters."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from circles import services as circles
from games.models import Match
from games.services import lobby, play
from notify.models import Notification
from talk.models import ChatAction, ChatMessage, Mute

pytestmark = pytest.mark.django_db
API = "/api/v1"


def _table(make_user, players=2, **kwargs: Any) -> tuple[Match, list[Any]]:
    people = [make_user(n) for n in ("ann", "ben", "cyd", "dot")[:players]]
    rated = kwargs.pop("rated", True)
    match = lobby.match_create(user=people[0], game="enka", players=players, **kwargs)
    Match.objects.filter(id=match.id).update(rated=rated)
    for person in people[1:]:
        lobby.match_join(match_id=match.id, user=person)
    match.refresh_from_db()
    return match, people


def _say(api, person, match, text="hello", channel="table", **more) -> Any:
    return api(person).post(f"{API}/matches/{match.id}/chat", {"channel": channel, "text": text, **more}, format="json")


def _read(api, person, match, channel="table", **params) -> Any:
    return api(person).get(f"{API}/matches/{match.id}/chat", {"channel": channel, **params})


def _texts(answer) -> list[str]:
    assert answer.status_code == 200, answer.content
    return [m["text"] for m in answer.json()["messages"]]


def _end(match: Match, by) -> None:
    play.match_resign(match_id=match.id, user=by)
    match.refresh_from_db()
    assert not match.is_live


def test_table_messages_are_numbered_and_never_change_the_version(make_user, api):
    match, (ann, ben) = _table(make_user)
    version = match.version
    first = _say(api, ann, match, "  good luck  ")
    assert first.status_code == 201, first.content
    body = first.json()
    assert (body["seq"], body["channel"], body["seat"], body["author"], body["text"]) == (
        1,
        "table",
        0,
        "ann",
        "good luck",
    )
    assert body["to"] is None and body["hidden"] is False
    assert _say(api, ben, match, "you too").json()["seq"] == 2
    match.refresh_from_db()
    assert match.version == version  # talking can never cause a 409 for someone about to move
    assert _texts(_read(api, ben, match)) == ["good luck", "you too"]
    assert _texts(_read(api, ben, match, after=1)) == ["you too"]


def test_pages_link_to_the_next(make_user, api):
    match, (ann, ben) = _table(make_user)
    for i in range(5):
        _say(api, ann, match, f"m{i}")
    answer = _read(api, ben, match, limit=2)
    assert _texts(answer) == ["m0", "m1"]
    assert "after=2" in answer["Link"] and 'rel="next"' in answer["Link"] and "channel=table" in answer["Link"]
    assert "Link" not in _read(api, ben, match, after=3, limit=2)


@pytest.mark.parametrize(
    ("text", "status"),
    [("", 400), ("   ", 400), ("x" * 1001, 400), ("x" * 1000, 201), ("bell\x07", 400), ("two\nlines", 201)],
)
def test_text_is_one_to_a_thousand_characters_without_control_characters(make_user, api, text, status):
    match, (ann, _) = _table(make_user)
    assert _say(api, ann, match, text).status_code == status
    assert ChatMessage.objects.count() == (1 if status == 201 else 0)


def test_a_spectator_neither_reads_nor_writes_the_table_while_live_and_reads_it_after(make_user, api):
    match, (ann, ben) = _table(make_user)
    eve = make_user("eve")
    _say(api, ann, match, "between us")
    assert _read(api, eve, match).status_code == 403
    assert _say(api, eve, match, "hi").status_code == 403
    _end(match, ben)
    assert _texts(_read(api, eve, match)) == ["between us"]


def test_players_never_see_the_spectators_channel_while_live(make_user, api):
    match, (ann, ben) = _table(make_user)
    eve, fay = make_user("eve"), make_user("fay")
    assert _say(api, eve, match, "ann should play the skip", channel="spectators").status_code == 201
    assert _texts(_read(api, fay, match, channel="spectators")) == ["ann should play the skip"]
    assert _read(api, ann, match, channel="spectators").status_code == 403
    assert _say(api, ann, match, "psst", channel="spectators").status_code == 403
    _end(match, ben)
    assert _texts(_read(api, ann, match, channel="spectators")) == ["ann should play the skip"]  # merged after the end


def test_a_sealed_message_is_its_authors_alone_until_the_end(make_user, api):
    match, (ann, ben) = _table(make_user)
    eve = make_user("eve")
    assert _say(api, ann, match, "I will win in 5", channel="sealed").status_code == 201
    assert _say(api, ben, match, "ann bluffs", channel="sealed").status_code == 201
    assert _texts(_read(api, ann, match, channel="sealed")) == ["I will win in 5"]
    assert _texts(_read(api, ben, match, channel="sealed")) == ["ann bluffs"]
    assert _texts(_read(api, eve, match, channel="sealed")) == []
    assert _say(api, eve, match, "me too", channel="sealed").status_code == 403
    _end(match, ben)
    assert _texts(_read(api, eve, match, channel="sealed")) == ["I will win in 5", "ann bluffs"]
    assert _say(api, ann, match, "late", channel="sealed").status_code == 409


def test_a_private_match_chat_is_a_404_for_a_stranger(make_user, api):
    match, (ann, _) = _table(make_user, private=True)
    _say(api, ann, match, "private")
    stranger = make_user("eve")
    for channel in ("table", "spectators", "sealed"):
        assert _read(api, stranger, match, channel=channel).status_code == 404
    assert _say(api, stranger, match, "hi", channel="spectators").status_code == 404
    assert (
        api(stranger)
        .put(f"{API}/matches/{match.id}/chat/read", {"channel": "table", "seq": 1}, format="json")
        .status_code
        == 404
    )


def test_staff_read_the_table_while_live(make_user, api):
    match, (ann, _) = _table(make_user)
    mod = make_user("mod")
    mod.is_staff = True
    mod.save()
    _say(api, ann, match, "hello")
    assert _texts(_read(api, mod, match)) == ["hello"]


def test_whispers_reach_one_seat_and_are_refused_in_rated_matches_of_three(make_user, api):
    match, (ann, ben, cyd) = _table(make_user, players=3, rated=False)
    assert _say(api, ann, match, "ally?", to=1).status_code == 201
    assert _texts(_read(api, ben, match)) == ["ally?"]
    assert _texts(_read(api, cyd, match)) == []
    assert _say(api, ann, match, "me?", to=0).status_code == 400
    rated, (dan, *_) = _table(make_user_suffix(make_user, "r"), players=3)
    answer = _say(api, dan, rated, "ally?", to=1)
    assert answer.status_code == 409 and answer.json()["code"] == "whispers_not_allowed"


def make_user_suffix(make_user, suffix):
    return lambda name: make_user(f"{name}{suffix}")


def test_one_coalesced_inbox_entry_per_match_until_read(make_user, api):
    match, (ann, ben) = _table(make_user)
    for text in ("one", "two", "three"):
        _say(api, ann, match, text)
    entries = Notification.objects.filter(user=ben, type="chat")
    assert entries.count() == 1
    assert entries.get().payload == {
        "match": match.id,
        "game": "enka",
        "channel": "table",
        "seq": 1,
        "by": "ann",
        "whisper": False,
    }
    assert not Notification.objects.filter(user=ann, type="chat").exists()  # not for one's own words
    assert _read(api, ben, match).json()["read"] == 0
    answer = api(ben).put(f"{API}/matches/{match.id}/chat/read", {"channel": "table", "seq": 3}, format="json")
    assert answer.status_code == 204
    assert _read(api, ben, match).json()["read"] == 3
    _say(api, ann, match, "four")
    assert entries.count() == 2


def test_chat_preferences_filter_what_a_reader_sees(make_user, api):
    match, (ann, ben) = _table(make_user)
    _say(api, ann, match, "from ann")
    _say(api, ben, match, "from ben")
    ben.preferences = {"chat": "off"}
    ben.save()
    assert _texts(_read(api, ben, match)) == ["from ben"]
    ben.preferences = {"chat": "friends"}
    ben.save()
    assert _texts(_read(api, ben, match)) == ["from ben"]
    circles.follow(ann, "ben")
    circles.follow(ben, "ann")
    assert _texts(_read(api, ben, match)) == ["from ann", "from ben"]
    bad = api(ben).patch(f"{API}/me", {"preferences": {"chat": "loud"}}, format="json")
    assert bad.status_code == 400


def test_a_deleted_account_shows_as_deleted_player(make_user, api):
    match, (ann, ben) = _table(make_user)
    _say(api, ann, match, "bye")
    _end(match, ben)
    assert api(ann).delete(f"{API}/me").status_code == 204
    messages = _read(api, ben, match).json()["messages"]
    assert messages[0]["author"] == "deleted player" and messages[0]["text"] == "bye"


def test_report_hide_and_the_audit(make_user, api):
    match, (ann, ben) = _table(make_user)
    mod = make_user("mod")
    mod.is_staff = True
    mod.save()
    _say(api, ann, match, "you idiot")  # the word list flags it for review, nothing more
    assert _texts(_read(api, ben, match)) == ["you idiot"]
    report = api(ben).post(f"{API}/matches/{match.id}/chat/table/1/report", {"reason": "insult"}, format="json")
    assert report.status_code == 202
    assert (
        api(ben).post(f"{API}/matches/{match.id}/chat/table/9/report", {"reason": "x"}, format="json").status_code
        == 404
    )
    queue = api(mod).get(f"{API}/moderation/chat").json()
    assert [(q["match"], q["seq"], q["flagged"], q["reports"]) for q in queue] == [(match.id, 1, True, ["insult"])]
    assert api(ben).get(f"{API}/moderation/chat").status_code == 403
    assert (
        api(ben).post(f"{API}/matches/{match.id}/chat/table/1/hide", {"reason": "x"}, format="json").status_code == 403
    )
    hidden = api(mod).post(f"{API}/matches/{match.id}/chat/table/1/hide", {"reason": "insult"}, format="json")
    assert hidden.status_code == 200 and hidden.json()["hidden"] is True
    seen = _read(api, ben, match).json()["messages"][0]
    assert seen["hidden"] is True and seen["text"] == ""
    assert _read(api, mod, match).json()["messages"][0]["text"] == "you idiot"
    assert list(ChatAction.objects.values_list("action", "reason", "by__username")) == [("hide", "insult", "mod")]
    assert api(mod).get(f"{API}/moderation/chat").json() == []


def test_a_muted_user_may_not_chat_until_the_mute_ends(make_user, api):
    match, (ann, ben) = _table(make_user)
    mod = make_user("mod")
    mod.is_staff = True
    mod.save()
    until = (timezone.now() + timedelta(hours=1)).isoformat()
    made = api(mod).post(
        f"{API}/moderation/mutes",
        {"username": "ann", "until": until, "reason": "spam", "match": match.id},
        format="json",
    )
    assert made.status_code == 201, made.content
    answer = _say(api, ann, match, "hello?")
    assert answer.status_code == 403 and answer.json()["code"] == "muted" and "until" in answer.json()
    assert _say(api, ben, match, "I can").status_code == 201
    assert api(mod).delete(f"{API}/moderation/mutes/{made.json()['id']}").status_code == 204
    assert _say(api, ann, match, "back").status_code == 201
    assert Mute.objects.count() == 1
    assert (
        api(ann)
        .post(f"{API}/moderation/mutes", {"username": "ben", "until": until, "reason": "x"}, format="json")
        .status_code
        == 403
    )


def test_an_unknown_channel_is_a_400(make_user, api):
    match, (ann, _) = _table(make_user)
    assert _read(api, ann, match, channel="lounge").status_code == 400
    assert _say(api, ann, match, "x", channel="lounge").status_code == 400


def test_the_export_merges_every_channel_after_the_end_without_whispers(make_user, api):
    match, (ann, ben, cyd) = _table(make_user, players=3, rated=False)
    eve = make_user("eve")
    _say(api, ann, match, "at the table")
    _say(api, eve, match, "from the stands", channel="spectators")
    _say(api, ben, match, "sealed guess", channel="sealed")
    _say(api, ann, match, "just for ben", to=1)
    assert api(eve).get(f"{API}/matches/{match.id}/export").status_code == 409  # live
    play.match_resign(match_id=match.id, user=ben)
    play.match_resign(match_id=match.id, user=cyd)
    exported = api(eve).get(f"{API}/matches/{match.id}/export").json()["chat"]
    assert [(m["channel"], m["text"]) for m in exported] == [
        ("table", "at the table"),
        ("spectators", "from the stands"),
        ("sealed", "sealed guess"),
    ]


def test_unread_chat_reaches_the_email_digest(make_user, api, django_capture_on_commit_callbacks, settings):
    from django.core import mail
    from django.core.cache import cache

    settings.TABULA_EMAIL_ACTIVE_S = 0
    cache.clear()
    match, (ann, ben) = _table(make_user)
    ben.email = "ben@example.com"
    ben.save()
    cache.set(f"tabula:streaming:{ben.pk}", None)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        _say(api, ann, match, "are you there?")
    bodies = [m.body for m in mail.outbox if "ben@example.com" in m.to]
    assert any("unread messages in enka: " in b and match.id in b for b in bodies), bodies


def test_a_read_mark_beyond_any_number_is_a_400_and_changes_nothing(make_user, api):
    """schemathesis sent seq 705491633029996279: the column is 32 bits, and the answer was a 500."""
    match, (ann, _) = _table(make_user)
    for seq in (2**31, 705491633029996279, -1, "x", True):
        answer = api(ann).put(f"{API}/matches/{match.id}/chat/read", {"channel": "table", "seq": seq}, format="json")
        assert answer.status_code == 400, (seq, answer.content)
    assert _read(api, ann, match).json()["read"] == 0
