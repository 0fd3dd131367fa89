"""The plain representations (`api.representations`) are the serializers' output, key for key and
byte for byte, for every kind of match; events are what ``EventSerializer`` shows; and a list of
summaries reads its seats in one query whatever the page size (issue 31)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from api.representations import drf_datetime, match_summaries, match_summary
from api.serializers import EventSerializer, MatchSerializer
from games import selectors
from games.models import Match, Seat
from games.services import lobby, play

pytestmark = pytest.mark.django_db


def _render(data: object) -> bytes:
    return JSONRenderer().render(data)


def _same(plain: object, drf: object) -> None:
    """Equal as values (keys in the same order), and the same JSON bytes."""
    assert plain == drf
    if isinstance(plain, dict):
        assert list(plain) == list(drf)  # type: ignore[arg-type]
    assert _render(plain) == _render(drf)


@pytest.fixture
def people(make_user):
    return [make_user(name) for name in ("ann", "ben", "cid", "dot")]


@pytest.fixture
def matches(people):
    """One match of each kind a summary shows differently."""
    ann, ben, cid, dot = people
    made: dict[str, str] = {}
    made["open"] = lobby.match_create(user=ann, game="ekko", players=3).id
    made["private_open"] = lobby.match_create(user=ben, game="enka", players=2, private=True, invite=["cid"]).id

    active = lobby.match_create(user=ann, game="ekko", players=2, time_control={"per_move_s": 3600}).id
    lobby.match_join(match_id=active, user=ben)
    made["active_clock"] = active

    bank = lobby.match_create(user=cid, game="enka", players=2, time_control={"bank_s": 600, "increment_s": 5}).id
    lobby.match_join(match_id=bank, user=dot)
    Seat.objects.filter(match_id=bank, index=1).update(
        away_until=timezone.now() + timedelta(days=1), caretaker=True, bot="greedy", consecutive_timeouts=2
    )
    made["bank_clock_away"] = bank

    finished = lobby.match_create(user=ann, game="ekko", players=2).id
    lobby.match_join(match_id=finished, user=cid)
    play.match_resign(match_id=finished, user=cid)
    made["finished"] = finished
    made["rematch"] = lobby.match_rematch(match_id=finished, user=ann).id

    made["with_bot"] = lobby.match_create(
        user=dot, game="ekko", players=3, bots=[{"seat": 1, "level": "random"}], private=True
    ).id

    table = lobby.match_create(user=ben, game="ekko", players=2).id
    Match.objects.filter(id=table).update(tournament="T-table-1")
    made["tournament_table"] = table

    setup = lobby.match_create(user=cid, game="ekko", players=2).id
    match = Match.objects.get(id=setup)
    Match.objects.filter(id=setup).update(options={**match.options, "setup": {"hands": [[1], [2]]}})
    made["setup_live"] = setup

    whole_second = lobby.match_create(user=dot, game="enka", players=2).id
    Match.objects.filter(id=whole_second).update(created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    made["whole_second"] = whole_second

    deleted = lobby.match_create(user=dot, game="ekko", players=2).id
    lobby.match_join(match_id=deleted, user=ben)
    play.match_resign(match_id=deleted, user=ben)
    lobby.account_delete(dot)  # the creator of this one and of others: "deleted player"
    made["deleted_creator"] = deleted
    return made


def test_every_kind_of_match_is_summarised_as_the_serializer_does(matches):
    kinds = {Match.objects.get(id=mid).status for mid in matches.values()}
    assert kinds >= {"open", "active", "finished"}
    for mid in matches.values():
        match = selectors.match_get(mid)
        _same(match_summary(match), MatchSerializer(match).data)


def test_the_cases_show_what_they_are_meant_to(matches):
    """The fixture really builds what the conformance test claims to cover (else it proves less)."""
    shown = {kind: match_summary(selectors.match_get(mid)) for kind, mid in matches.items()}
    assert shown["active_clock"]["awaiting"] and shown["active_clock"]["deadlines"]["seats"]
    assert shown["active_clock"]["awaited_since"]
    assert shown["bank_clock_away"]["seats"][1]["away_until"].endswith("Z")
    assert shown["bank_clock_away"]["seats"][0]["remaining_ms"] == 600_000
    assert shown["finished"]["result"] and shown["finished"]["seed"] is not None
    assert shown["finished"]["rematch"] == matches["rematch"] == shown["finished"]["rematch"]
    assert shown["rematch"]["rematch_of"] == matches["finished"]
    assert shown["open"]["seed"] is None and shown["private_open"]["private"] is True
    assert [s["bot"] for s in shown["with_bot"]["seats"]][1] == "random"
    assert shown["tournament_table"]["tournament"] == "T-table-1"
    assert shown["setup_live"]["options"]["setup"] == "hidden until the match is over"
    assert shown["whole_second"]["created_at"] == "2026-01-02T03:04:05Z"
    assert shown["deleted_creator"]["created_by"] == "deleted player"


def test_a_page_of_summaries_is_the_serializers_page(matches, people):
    everything = list(Match.objects.order_by("-created_at", "id"))
    assert len(everything) == len(matches)
    drf = MatchSerializer(list(Match.objects.order_by("-created_at", "id")), many=True).data
    _same(match_summaries(everything), drf)


def test_the_lists_narrow_reads_give_the_same_summaries(matches, people, api):
    """The list selectors read only the summary's columns and the page's seats in one statement:
    the answers are still the serializer's, for every list that shows summaries."""
    ann = people[0]
    listed = list(selectors.match_list(user=ann))
    assert len(listed) >= 5
    full = [Match.objects.get(id=m.id) for m in listed]
    _same(match_summaries(listed), MatchSerializer(full, many=True).data)
    own = list(selectors.user_matches(ann, ann))
    _same(match_summaries(own), MatchSerializer([Match.objects.get(id=m.id) for m in own], many=True).data)
    profile = api(ann).get("/api/v1/users/ann").json()["recent_matches"]
    ids = [m["id"] for m in profile]
    assert ids and profile == MatchSerializer([Match.objects.get(id=i) for i in ids], many=True).data


def test_datetimes_render_as_drf_renders_them():
    from rest_framework.fields import DateTimeField

    drf = DateTimeField()
    for value in (
        datetime(2026, 5, 6, 7, 8, 9, 123456, tzinfo=UTC),
        datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC),
        datetime(2026, 5, 6, 7, 8, 9, 5, tzinfo=timezone.get_fixed_timezone(120)),
        None,
    ):
        assert drf_datetime(value) == drf.to_representation(value)
    with timezone.override("Europe/Warsaw"):  # a time zone activated: DRF renders in it, so do we
        value = datetime(2026, 5, 6, 7, 8, 9, 1, tzinfo=UTC)
        assert drf_datetime(value) == DateTimeField().to_representation(value) == "2026-05-06T09:08:09.000001+02:00"


def test_events_are_what_the_event_serializer_shows(matches, people):
    ann, ben, cid, _ = people
    for kind in ("finished", "active_clock"):
        match = selectors.match_get(matches[kind])
        for viewer in (ann, ben, cid, None):
            events = selectors.event_list(match=match, user=viewer)
            assert events
            _same(events, EventSerializer(events, many=True).data)


def test_the_events_answer_is_the_selectors_redacted_list(matches, people, api):
    """``GET events`` answers each caller its own redaction, unchanged by the faster read."""
    ann, ben, cid, _ = people
    mid = matches["active_clock"]
    for viewer in (ann, ben, cid):
        answer = api(viewer).get(f"/api/v1/matches/{mid}/events?after=0")
        assert answer.status_code == 200
        expected = selectors.event_list(match=selectors.match_get(mid), user=viewer)
        assert answer.content == _render(expected)
    hidden = [e for e in api(cid).get(f"/api/v1/matches/{mid}/events").json() if "move" in e["data"]]
    assert hidden == []  # a spectator sees nobody's move


def _queries(client, path: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        answer = client.get(path)
    assert answer.status_code == 200, answer.content
    return len(queries.captured_queries)


@pytest.mark.parametrize(
    "path",
    ["/api/v1/matches?mine=true&limit={n}", "/api/v1/users/ann/matches?limit={n}", "/api/v1/matches?limit={n}"],
)
def test_a_list_reads_the_same_number_of_queries_whatever_its_page_size(people, api, path):
    ann, ben, *_ = people
    for _ in range(7):
        mid = lobby.match_create(user=ann, game="ekko", players=2).id
        lobby.match_join(match_id=mid, user=ben)
    client = api(ann)
    client.get("/api/v1/me")  # the token is read once, then cached: not the list's query
    small, large = _queries(client, path.format(n=2)), _queries(client, path.format(n=7))
    assert len(client.get(path.format(n=7)).json()["results"]) == 7
    assert small == large


def test_the_profile_reads_its_recent_matches_in_a_fixed_number_of_queries(people, api):
    ann, ben, *_ = people
    client = api(ben)
    client.get("/api/v1/me")  # the token is read once, then cached: not the profile's query

    def finish_one() -> None:
        mid = lobby.match_create(user=ann, game="ekko", players=2).id
        lobby.match_join(match_id=mid, user=ben)
        play.match_resign(match_id=mid, user=ben)

    finish_one()
    one = _queries(client, "/api/v1/users/ann")
    for _ in range(5):
        finish_one()
    assert len(client.get("/api/v1/users/ann").json()["recent_matches"]) == 6
    assert _queries(client, "/api/v1/users/ann") == one


def test_the_invitations_list_is_the_serializers(people, api):
    from api.views.players import InvitationSerializer

    ann, ben, *_ = people
    lobby.match_create(user=ann, game="ekko", players=2, invite=["ben"])
    answer = api(ben).get("/api/v1/me/invitations")
    assert answer.status_code == 200 and len(answer.json()) == 1
    drf = InvitationSerializer(selectors.invitation_list(ben), many=True).data
    assert answer.content == _render(drf)


def test_ones_own_history_shows_private_matches_that_others_do_not_see(people, api):
    """``users/{name}/matches`` read by its owner skips the visibility rule (a seat passes it);
    anyone else still gets the rule."""
    ann, _, cid, _ = people
    private = lobby.match_create(user=ann, game="ekko", players=2, private=True).id
    public = lobby.match_create(user=ann, game="ekko", players=2).id
    own = [m["id"] for m in api(ann).get("/api/v1/users/ann/matches").json()["results"]]
    other = [m["id"] for m in api(cid).get("/api/v1/users/ann/matches").json()["results"]]
    anonymous = [m["id"] for m in api().get("/api/v1/users/ann/matches").json().get("results", [])]
    assert own == [public, private] and other == [public] and private not in anonymous


def test_the_profiles_ratings_are_the_serializers(people, api):
    from accounts.models import Rating
    from api.views.accounts import RatingSerializer

    ann = people[0]
    Rating.objects.create(user=ann, game="ekko", mu=27.5, sigma=6.25, matches=12, rating=1612.5, rank=3)
    Rating.objects.create(user=ann, game="enka", mu=25, sigma=8, matches=1)
    answer = api(ann).get("/api/v1/users/ann")
    assert answer.status_code == 200 and len(answer.json()["ratings"]) == 2
    drf = RatingSerializer(ann.ratings.all(), many=True).data
    assert answer.json()["ratings"] == drf
    assert _render(answer.json()["ratings"]) == _render(drf)
