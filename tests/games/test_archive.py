"""Archival (issue 30, part 4): a finished match's records move into one compressed row, and every
reader of a log answers exactly as before (events for each seat and a visitor, the state and
replay steps, the timeline, the export, the audit)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from games import archive, replay
from games.models import ArchivedLog, Match, Record

pytestmark = pytest.mark.django_db


def _finished_ekko(api, make_user, names=("ann", "ben")):
    users = [make_user(n) for n in names]
    clients = [api(u) for u in users]
    setup = {"dealer": 0, "hands": [[73, 20, 60], [40, 50, 30]], "start": 37}
    made = clients[0].post(
        "/api/v1/matches", {"game": "ekko", "players": 2, "options": {"setup": setup}}, format="json"
    )
    mid = made.json()["id"]
    assert clients[1].post(f"/api/v1/matches/{mid}/join").status_code == 200
    for seat in (1, 0, 1, 0):  # a few moves: whatever each awaited seat may play first
        state = clients[seat].get(f"/api/v1/matches/{mid}/state").json()
        if seat not in state["awaiting"] or not state["legal_moves"]:
            continue
        body = {"move": state["legal_moves"][0], "expected_version": state["version"]}
        assert clients[seat].post(f"/api/v1/matches/{mid}/moves", body, format="json").status_code == 201
    assert clients[0].post(f"/api/v1/matches/{mid}/resign").status_code in (200, 204)
    assert Match.objects.get(id=mid).status == Match.Status.FINISHED
    return mid, clients


def _answers(mid, clients, anonymous):
    version = Match.objects.get(id=mid).version
    out = {}
    for name, c in [("ann", clients[0]), ("ben", clients[1]), ("visitor", anonymous)]:
        out[f"{name} events"] = c.get(f"/api/v1/matches/{mid}/events").content
        out[f"{name} state"] = c.get(f"/api/v1/matches/{mid}/state").content
        out[f"{name} timeline"] = c.get(f"/api/v1/matches/{mid}/timeline").content
        for at in (1, version // 2, version):
            out[f"{name} state at {at}"] = c.get(f"/api/v1/matches/{mid}/state?at={at}").content
    out["export"] = clients[0].get(f"/api/v1/matches/{mid}/export").content
    return out


def test_an_archived_match_reads_exactly_as_before(api, make_user, client):
    mid, clients = _finished_ekko(api, make_user)
    count = Record.objects.filter(match_id=mid).count()
    fields = [f.attname for f in Record._meta.concrete_fields if f.attname != "id"]
    rows = [[getattr(r, f) for f in fields] for r in Record.objects.filter(match_id=mid).order_by("seq")]
    steps = [(r.seq, r.type, r.seat, r.move) for r in Record.objects.filter(match_id=mid).order_by("seq")]
    assert archive.steps(Match.objects.get(id=mid)) == steps
    before = _answers(mid, clients, client)
    assert all(b"problem" not in body for body in before.values())
    Match.objects.filter(id=mid).update(finished_at=timezone.now() - timedelta(days=31))

    assert archive.sweep() == {"archived": 1, "records": count}
    assert Record.objects.filter(match_id=mid).count() == 0  # the hot table lost them
    log = ArchivedLog.objects.get(match_id=mid)
    assert log.count == count and Match.objects.get(id=mid).archived_at is not None
    replay.forget_all()  # states rebuilt from the archive, not remembered
    archive._cache.clear()

    after = _answers(mid, clients, client)
    assert after == before
    unpacked = archive.records(Match.objects.get(id=mid))  # the same records, fields and all
    assert [[getattr(r, f) for f in fields] for r in unpacked] == rows and all(r.id is None for r in unpacked)
    archived = Match.objects.get(id=mid)
    assert archive.steps(archived) == steps  # what a replay folds, without the records
    assert archive.steps(archived, after=2, upto=5) == steps[2:5]
    assert [r.seq for r in archive.records(archived, after=1, upto=6, limit=3)] == [2, 3, 4]
    call_command("verify_matches", match_id=mid)  # the audit replays the archive: no problem
    assert archive.sweep()["archived"] == 0  # once


def test_only_finished_matches_past_the_age_are_archived(api, make_user):
    old, _ = _finished_ekko(api, make_user)
    recent, _ = _finished_ekko(api, make_user, ("cat", "dan"))
    Match.objects.filter(id=old).update(finished_at=timezone.now() - timedelta(days=31))
    live_owner = make_user("eve")
    live = api(live_owner).post("/api/v1/matches", {"game": "ekko", "players": 2}, format="json").json()["id"]
    Match.objects.filter(id=live).update(created_at=timezone.now() - timedelta(days=90))
    assert archive.due() == [old]
    assert archive.archive(live) is False and archive.archive(recent) is True  # `archive` itself checks status
    assert Record.objects.filter(match_id=live).exists()


def test_a_log_with_a_gap_is_left_for_the_audit(api, make_user):
    mid, _ = _finished_ekko(api, make_user)
    Record.objects.filter(match_id=mid, seq=2).delete()
    assert archive.archive(mid) is False
    assert not ArchivedLog.objects.filter(match_id=mid).exists() and Record.objects.filter(match_id=mid).exists()
