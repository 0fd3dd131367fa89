"""Tournament notices reach every channel: the inbox and its streams, webhooks, the e-mail digest
(a line per notice) and Web Push (a title, no game content)."""

from __future__ import annotations

import pytest
from django.core import mail

from notify import fanout, preferences, push
from notify import mail as digest
from notify.models import Notification
from tournaments import services

pytestmark = pytest.mark.django_db


def test_pairing_notices_are_mailed_in_the_digest_and_pushed(players, create, settings):
    settings.TABULA_PUBLIC_URL = "https://tabula.example"
    users = players(2)
    for u in users:
        u.email = f"{u.username}@example.com"
        u.save()
    t = create(users[0], max_players=2, name="Spring Cup")
    for u in users:
        services.join(tournament_id=t.id, user=u)
    note = Notification.objects.get(user=users[1], type="tournament_paired")
    assert note.payload["round"] == 1 and note.payload["match"] == note.match_id
    assert fanout.wants("tournament_paired", "x@example.com", {}, True, True) == (True, True, True)
    assert push.payload(note) == {
        "type": "tournament_paired",
        "match": note.match_id,
        "n": note.seq,
        "title": "Your next tournament match is ready",
    }
    mail.outbox.clear()
    assert digest.digest_maybe(users[1].pk, urgent=True)
    body = mail.outbox[0].body
    assert f"Spring Cup: round 1 is paired: https://tabula.example/tournaments/{t.id}" in body
    assert "Spring Cup has started" in body


def test_a_tournament_type_can_be_taken_off_a_channel(players, create):
    prefs = {"channels": {"tournament_paired": ["stream"]}}
    preferences.validate(prefs)  # a registered type
    assert not preferences.wants(prefs, "tournament_paired", "email")
    assert preferences.wants({}, "tournament_finished", "push")
