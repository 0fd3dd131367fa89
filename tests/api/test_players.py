"""Players (issue 13): tokens, passwords, usernames, deletion, private matches and invitations,
rematch, spectating, leaderboards, history, statistics and export — through the HTTP stack."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from hypothesis import example, given, settings
from hypothesis import strategies as st

from accounts import usernames
from accounts.models import ApiToken, Rating, User
from games.models import Match
from games.ratings import leaderboard_refresh
from games.services import lobby, play

pytestmark = pytest.mark.django_db
API = "/api/v1"


@pytest.fixture
def people(make_user, api):
    users = {n: make_user(n) for n in ("alice", "bob", "carol", "dave")}
    return users, {n: api(u) for n, u in users.items()}


def finish(winner: User, loser: User, *, private: bool = False) -> Match:
    """A rated two-player toy match that ``loser`` resigns."""
    match = lobby.match_create(user=winner, game="toy", players=2, private=private)
    lobby.match_join(match_id=match.id, user=loser)
    play.match_resign(match_id=match.id, user=loser)
    return Match.objects.get(id=match.id)


# --- tokens, password, deletion -------------------------------------------------------------------


def test_tokens_are_listed_without_keys_created_once_and_revoked_at_once(people):
    _users, c = people
    r = c["alice"].post(f"{API}/me/tokens", {"label": "my bot"}, format="json")
    assert r.status_code == 201
    body = r.json()
    key, token_id = body["key"], body["id"]
    assert body["label"] == "my bot" and body["expires_at"]
    assert not ApiToken.objects.filter(key_hash=key).exists()  # only a hash is kept
    listed = c["alice"].get(f"{API}/me/tokens").json()
    assert {t["label"] for t in listed} >= {"my bot", "sign-in"}
    assert all("key" not in t and "key_hash" not in t for t in listed)
    from rest_framework.test import APIClient

    bot = APIClient()
    bot.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert bot.get(f"{API}/me").json()["username"] == "alice"
    assert ApiToken.objects.get(id=token_id).last_used_at is not None
    assert c["bob"].delete(f"{API}/me/tokens/{token_id}").status_code == 404  # not bob's
    assert c["alice"].delete(f"{API}/me/tokens/{token_id}").status_code == 204
    assert bot.get(f"{API}/me").status_code == 401


def test_expired_token_is_refused(people):
    users, c = people
    ApiToken.objects.filter(user=users["alice"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    r = c["alice"].get(f"{API}/me")
    assert r.status_code == 401 and r.json()["code"] == "authentication_failed"


def test_last_used_is_written_at_most_once_a_minute(people, django_assert_num_queries):
    users, c = people
    c["alice"].get(f"{API}/me")
    token = ApiToken.objects.get(user=users["alice"])
    first = token.last_used_at
    c["alice"].get(f"{API}/me")
    token.refresh_from_db()
    assert token.last_used_at == first


def test_password_change_revokes_every_other_token(people, api):
    users, c = people
    other = api(users["alice"])
    r = c["alice"].post(
        f"{API}/me/password",
        {"current_password": "correct-horse-9", "new_password": "battery-staple-77"},
        format="json",
    )
    assert r.status_code == 204
    assert c["alice"].get(f"{API}/me").status_code == 200  # the token it came with stays
    assert other.get(f"{API}/me").status_code == 401
    bad = c["alice"].post(
        f"{API}/me/password", {"current_password": "wrong-one-1", "new_password": "x-battery-88"}, format="json"
    )
    assert bad.status_code == 400 and "current_password" in bad.json()["errors"]
    login = api().post(f"{API}/auth/token", {"username": "alice", "password": "battery-staple-77"}, format="json")
    assert login.status_code == 200


@pytest.mark.parametrize("name", ["Alice", "ALICE", "аlice", "ＡＬＩＣＥ", "aIice", "al1ce"])
def test_look_alike_usernames_are_taken(people, api, name):
    r = api().post(f"{API}/auth/register", {"username": name, "password": "s3cret-passphrase"}, format="json")
    assert r.status_code == 409, name
    assert r.json()["code"] == "username_taken"


def test_login_is_case_insensitive_and_unknown_names_hash_too(people, api, monkeypatch):
    assert (
        api().post(f"{API}/auth/token", {"username": "ALICE", "password": "correct-horse-9"}, format="json").status_code
        == 200
    )
    calls = []
    real = User.set_password
    monkeypatch.setattr(User, "set_password", lambda self, raw: calls.append(raw) or real(self, raw))
    r = api().post(f"{API}/auth/token", {"username": "nobody", "password": "whatever-1"}, format="json")
    assert r.status_code == 400 and calls == ["whatever-1"]  # the same work as a wrong password


@given(st.text(min_size=1, max_size=12))
@example("Ә")  # CI found it: Cyrillic Ә's prototype is Latin Ə (small ə), ә's is ǝ
@example("β")  # Greek Β's is B, β's none: the skeleton is taken from the capitals
def test_skeleton_is_stable_under_nfkc_and_case(name):
    assert usernames.skeleton(name) == usernames.skeleton(usernames.normalise(name).upper().lower())


@pytest.mark.parametrize(
    ("name", "lookalike"),
    [
        ("ΒΟΒ", "bob"),
        ("βοβ", "bob"),
        ("раypal", "paypal"),
        ("һello", "hello"),
        ("ԁog", "dog"),
        ("ΑΡΡLΕ", "apple"),
        ("rnary", "mary"),
        ("AIice", "alice"),
        ("0scar", "oscar"),
        ("ѕаm", "sam"),
        ("Ꭺmy", "amy"),
    ],
)
def test_look_alikes_in_capitals_and_in_small_letters_share_a_skeleton(name, lookalike):
    assert usernames.skeleton(name) == usernames.skeleton(lookalike)


def test_the_0003_migration_recomputes_skeletons_and_an_earlier_account_keeps_a_shared_one(make_user):
    from importlib import import_module

    from django.apps import apps

    refresh = import_module("accounts.migrations.0003_refresh_skeletons")._refresh
    first, later = make_user("Әlice"), make_user("bob")
    User.objects.filter(pk=first.pk).update(username_skeleton="stale")
    User.objects.filter(pk=later.pk).update(username="әlice", username_skeleton="bob")  # a case variant
    refresh(apps, None)
    first.refresh_from_db()
    later.refresh_from_db()
    assert first.username_skeleton == usernames.skeleton("Әlice") == usernames.skeleton("әlice")
    assert later.username_skeleton is None


def test_delete_me_keeps_finished_matches_with_a_deleted_player(toy_game, people, api):
    users, c = people
    done = finish(users["alice"], users["bob"])
    live = lobby.match_create(user=users["bob"], game="toy", players=3)
    assert c["bob"].delete(f"{API}/me").status_code == 204
    assert c["bob"].get(f"{API}/me").status_code == 401
    bob = User.objects.get(pk=users["bob"].pk)
    assert not bob.is_active and bob.preferences == {} and not ApiToken.objects.filter(user=bob).exists()
    seats = c["alice"].get(f"{API}/matches/{done.id}").json()["seats"]
    assert [s["username"] for s in seats] == ["alice", usernames.DELETED]
    events = c["alice"].get(f"{API}/matches/{done.id}/events").json()
    exported = c["alice"].get(f"{API}/matches/{done.id}/export").json()
    for text in (json.dumps(events), json.dumps(exported)):
        assert '"bob"' not in text and usernames.DELETED in text
    assert Match.objects.get(id=live.id).status == Match.Status.ABORTED
    assert c["alice"].get(f"{API}/users/bob").status_code == 404
    r = api().post(f"{API}/auth/token", {"username": "bob", "password": "correct-horse-9"}, format="json")
    assert r.status_code == 400


# --- private matches, invitations, rematch, spectating --------------------------------------------


def test_a_stranger_gets_404_on_every_read_of_a_private_match(toy_game, people):
    _users, c = people
    r = c["alice"].post(f"{API}/matches", {"game": "toy", "players": 3, "private": True}, format="json")
    mid = r.json()["id"]
    c["bob"].post(f"{API}/matches/{mid}/join", {"code": Match.objects.get(id=mid).invite_code}, format="json")
    missing = c["carol"].get(f"{API}/matches/nope-nope").json()
    paths = ["", "/state", "/events", "/export", "/invitations"]
    for p in paths:
        r = c["carol"].get(f"{API}/matches/{mid}{p}")
        assert r.status_code == 404, p
        assert r.json()["code"] == missing["code"]
    for p, body in [("/join", {}), ("/leave", {}), ("/resign", {}), ("/bots", {}), ("/rematch", {})]:
        assert c["carol"].post(f"{API}/matches/{mid}{p}", body, format="json").status_code == 404, p
    move = {"move": {"type": "take", "n": 1}, "expected_version": 1}
    assert c["carol"].post(f"{API}/matches/{mid}/moves", move, format="json").status_code == 404
    assert mid not in [m["id"] for m in c["carol"].get(f"{API}/matches").json()["results"]]
    assert mid in [m["id"] for m in c["bob"].get(f"{API}/matches").json()["results"]]
    assert c["bob"].get(f"{API}/matches/{mid}/state").status_code == 200
    assert c["carol"].get(f"{API}/users/alice/matches").json()["count"] == 0
    assert c["bob"].get(f"{API}/users/alice/matches").json()["count"] == 1


def test_invitations_reserve_seats_and_can_be_accepted_or_declined(toy_game, people):
    _users, c = people
    r = c["alice"].post(
        f"{API}/matches", {"game": "toy", "players": 3, "private": True, "invite": ["bob", "Carol"]}, format="json"
    )
    assert r.status_code == 201
    mid = r.json()["id"]
    mine = c["bob"].get(f"{API}/me/invitations").json()
    assert [(i["match"]["id"], i["invited_by"], i["seat"]) for i in mine] == [(mid, "alice", 1)]
    assert c["bob"].get(f"{API}/matches/{mid}").status_code == 200  # an invitee sees it
    assert c["dave"].post(f"{API}/matches/{mid}/join", {}, format="json").status_code == 404
    code = c["alice"].get(f"{API}/matches/{mid}/invitations").json()["invite_code"]
    r = c["dave"].post(f"{API}/matches/{mid}/join", {"code": code}, format="json")
    assert r.status_code == 409 and r.json()["code"] == "match_full"  # both free seats are reserved
    assert c["carol"].post(f"{API}/matches/{mid}/decline").status_code == 204
    assert c["carol"].get(f"{API}/matches/{mid}").status_code == 404  # declined: no longer visible
    assert c["dave"].post(f"{API}/invites", {"code": code}, format="json").json()["id"] == mid
    assert c["dave"].post(f"{API}/matches/{mid}/join", {"code": code}, format="json").status_code == 200
    r = c["bob"].post(f"{API}/matches/{mid}/join", {}, format="json")
    assert r.status_code == 200 and r.json()["status"] == "active"
    assert [s["username"] for s in r.json()["seats"]] == ["alice", "bob", "dave"]
    assert c["bob"].get(f"{API}/me/invitations").json() == []


def test_invite_after_creation_and_errors(toy_game, people):
    _users, c = people
    mid = c["alice"].post(f"{API}/matches", {"game": "toy", "players": 2}, format="json").json()["id"]
    assert c["bob"].post(f"{API}/matches/{mid}/invitations", {"username": "carol"}, format="json").status_code == 403
    r = c["alice"].post(f"{API}/matches/{mid}/invitations", {"username": "nobody"}, format="json")
    assert r.status_code == 400
    r = c["alice"].post(f"{API}/matches/{mid}/invitations", {"username": "carol"}, format="json")
    assert r.status_code == 201 and r.json()["seat"] == 1
    r = c["bob"].post(f"{API}/matches/{mid}/join", {}, format="json")
    assert r.status_code == 409  # the seat is carol's
    r = c["alice"].post(f"{API}/matches", {"game": "toy", "players": 2, "invite": ["nobody"]}, format="json")
    assert r.status_code == 400 and "invite" in r.json()["errors"]


def test_notify_invited_is_the_single_hook(toy_game, people, monkeypatch):
    users, _c = people
    sent = []
    monkeypatch.setattr(lobby, "_notify_invited", lambda invitation: sent.append(invitation.user.username))
    with pytest.MonkeyPatch.context():
        from django.test import TestCase

        with TestCase.captureOnCommitCallbacks(execute=True):
            lobby.match_create(user=users["alice"], game="toy", players=3, invite=["bob", "carol"])
    assert sent == ["bob", "carol"]


def test_rematch_rotates_seats_and_invites_the_others(toy_game, people):
    users, c = people
    done = finish(users["alice"], users["bob"])
    assert c["carol"].post(f"{API}/matches/{done.id}/rematch").status_code == 403
    r = c["bob"].post(f"{API}/matches/{done.id}/rematch")
    assert r.status_code == 201
    body = r.json()
    assert body["rematch_of"] == done.id and body["game"] == "toy" and body["status"] == "open"
    assert [s["username"] for s in body["seats"]] == ["bob", None]  # bob moved from seat 1 to seat 0
    assert [i["match"]["id"] for i in c["alice"].get(f"{API}/me/invitations").json()] == [body["id"]]
    assert c["alice"].post(f"{API}/matches/{done.id}/rematch").json()["code"] == "rematch_exists"
    r = c["alice"].post(f"{API}/matches/{body['id']}/join", {}, format="json")
    assert r.json()["status"] == "active" and r.json()["seats"][1]["username"] == "alice"
    live = r.json()["id"]
    assert c["alice"].post(f"{API}/matches/{live}/rematch").json()["code"] == "match_live"


def test_spectate_lists_public_live_matches_of_others(toy_game, people):
    users, c = people
    public = lobby.match_create(user=users["alice"], game="toy", players=2)
    lobby.match_join(match_id=public.id, user=users["bob"])
    hidden = lobby.match_create(user=users["alice"], game="toy", players=2, private=True)
    lobby.match_join(match_id=hidden.id, user=users["bob"])
    lobby.match_create(user=users["alice"], game="toy", players=2)  # open, not live
    ids = [m["id"] for m in c["carol"].get(f"{API}/matches?status=active&spectate=true").json()["results"]]
    assert ids == [public.id]
    assert c["alice"].get(f"{API}/matches?spectate=true").json()["results"] == []  # own matches left out


# --- leaderboards, ratings, history, statistics, export ------------------------------------------


@override_settings(TABULA_PROVISIONAL_GAMES=2)
def test_leaderboard_ranks_pages_and_around(toy_game, people):
    users, c = people
    a, b, cc, d = (users[n] for n in ("alice", "bob", "carol", "dave"))
    for _ in range(2):
        finish(a, b)
        finish(cc, d)
        finish(a, d)
    leaderboard_refresh("toy")
    board = c["bob"].get(f"{API}/leaderboards/toy").json()
    names = [e["username"] for e in board["results"]]
    assert names[0] == "alice" and names[-1] == "dave" and set(names) == {"alice", "bob", "carol", "dave"}
    assert [e["rank"] for e in board["results"]] == [1, 2, 3, 4] and board["next"] is None
    ratings = [e["rating"] for e in board["results"]]
    assert ratings == sorted(ratings, reverse=True)
    first = c["bob"].get(f"{API}/leaderboards/toy?limit=2").json()
    assert len(first["results"]) == 2 and first["next"] == "2"
    second = c["bob"].get(f"{API}/leaderboards/toy?limit=2&cursor={first['next']}").json()
    assert [e["username"] for e in first["results"] + second["results"]] == names
    around = c["bob"].get(f"{API}/leaderboards/toy/around/carol").json()
    assert around["rank"] == names.index("carol") + 1 and not around["provisional"]
    assert c["bob"].get(f"{API}/leaderboards/chess").status_code == 404
    assert c["bob"].get(f"{API}/leaderboards/toy?limit=0").status_code == 400
    history = c["bob"].get(f"{API}/users/alice/ratings/toy").json()
    assert len(history["history"]) == 4 and history["rank"] == 1 and history["games"] == 4
    profile = c["bob"].get(f"{API}/users/alice").json()
    assert profile["ratings"][0]["rank"] == 1 and profile["ratings"][0]["provisional"] is False
    assert profile["stats"]["toy"]["played"] == 4 and profile["stats"]["toy"]["won"] == 4
    assert profile["stats"]["toy"]["longest_streak"] == 4 and profile["stats"]["toy"]["average_placement"] == 1


@override_settings(TABULA_PROVISIONAL_GAMES=3)
def test_provisional_and_inactive_players_are_not_listed(toy_game, people):
    users, c = people
    for _ in range(3):
        finish(users["alice"], users["bob"])
    finish(users["carol"], users["dave"])
    leaderboard_refresh("toy")
    assert {e["username"] for e in c["bob"].get(f"{API}/leaderboards/toy").json()["results"]} == {"alice", "bob"}
    Rating.objects.filter(user=users["bob"]).update(rated_at=timezone.now() - timedelta(days=400))
    leaderboard_refresh("toy")
    assert [e["username"] for e in c["bob"].get(f"{API}/leaderboards/toy").json()["results"]] == ["alice"]
    assert c["bob"].get(f"{API}/leaderboards/toy/around/bob").json() == {
        "rank": None,
        "provisional": False,
        "results": [],
    }


@settings(max_examples=max(settings.default.max_examples // 3, 10))  # each example plays up to 14 matches
@given(st.lists(st.sampled_from(["win", "loss"]), min_size=1, max_size=12))
def test_a_loss_never_raises_the_displayed_rating_or_the_rank(outcomes):
    """Property: whatever came before, a loss leaves bob's displayed rating no higher and his place
    on the board no better."""
    from django.test.utils import setup_test_environment  # noqa: F401  # collected under the db mark

    from rules import RULES
    from tests import toy

    RULES["toy"] = toy.RULES
    try:
        Match.objects.all().delete()
        Rating.objects.all().delete()
        User.objects.filter(username__in=["pa", "pb", "pc"]).delete()
        pa, pb, pc = (User.objects.create_user(n, password="x-long-passw0rd") for n in ("pa", "pb", "pc"))
        finish(pa, pc)
        finish(pc, pa)
        with override_settings(TABULA_PROVISIONAL_GAMES=1):
            for outcome in outcomes:
                before = Rating.objects.filter(user=pb).first()
                leaderboard_refresh("toy")
                rank_before = Rating.objects.filter(user=pb).values_list("rank", flat=True).first()
                if outcome == "win":
                    finish(pb, pa)
                else:
                    finish(pa, pb)
                    after = Rating.objects.get(user=pb)
                    leaderboard_refresh("toy")
                    after.refresh_from_db()
                    if before is not None:
                        assert after.rating <= before.rating + 1e-9
                        if rank_before is not None:
                            assert after.rank is not None and after.rank >= rank_before
    finally:
        RULES.pop("toy", None)


def test_user_matches_filters_and_pages(toy_game, people):
    users, c = people
    finish(users["alice"], users["bob"])
    finish(users["bob"], users["alice"])
    finish(users["alice"], users["carol"])
    lobby.match_create(user=users["alice"], game="toy", players=2)
    r = c["dave"].get(f"{API}/users/alice/matches").json()
    assert r["count"] == 4
    assert c["dave"].get(f"{API}/users/alice/matches?result=won").json()["count"] == 2
    assert c["dave"].get(f"{API}/users/alice/matches?result=lost").json()["count"] == 1
    assert c["dave"].get(f"{API}/users/alice/matches?status=open").json()["count"] == 1
    page = c["dave"].get(f"{API}/users/alice/matches?limit=3").json()
    assert len(page["results"]) == 3 and page["next"] == 3
    created = [m["created_at"] for m in r["results"]]
    assert created == sorted(created, reverse=True)
    assert c["dave"].get(f"{API}/users/alice/matches?result=maybe").status_code == 400
    assert c["dave"].get(f"{API}/users/nobody/matches").status_code == 404


def test_export_streams_public_finished_matches_as_ndjson(toy_game, people):
    users, c = people
    public = finish(users["alice"], users["bob"])
    finish(users["alice"], users["carol"], private=True)
    lobby.match_create(user=users["alice"], game="toy", players=2)
    r = c["dave"].get(f"{API}/users/alice/export?game=toy")
    assert r.status_code == 200 and r["Content-Type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in b"".join(r.streaming_content).splitlines()]
    assert [line["match"] for line in lines] == [public.id]
    assert lines[0]["summary"]["id"] == public.id and lines[0]["records"][0]["type"] == "created"
    assert "seed" in lines[0]


@override_settings(TABULA_RATE_LIMITS_OFF=False, TABULA_RATE_LIMITS={"export": "2/m", "reads": "1000/m"})
def test_export_is_throttled(toy_game, people):
    from django.core.cache import cache

    cache.clear()
    _users, c = people
    codes = [c["dave"].get(f"{API}/users/alice/export").status_code for _ in range(3)]
    assert codes == [200, 200, 429]


def test_login_backoff_counts_case_and_width_variants_as_one_name(people, api, settings):
    from django.core.cache import cache

    cache.clear()
    settings.TABULA_RATE_LIMITS_OFF = False
    settings.TABULA_RATE_LIMITS = dict(settings.TABULA_RATE_LIMIT_DEFAULTS)
    client = api()
    seen = []
    for name in ["alice", "ALICE", "Alice", "ａｌｉｃｅ", "aLiCe", "alice", "ALICE"]:
        r = client.post(f"{API}/auth/token", {"username": name, "password": "nope-nope"}, format="json")
        seen.append(r.status_code)
    assert seen[:5] == [400] * 5 and set(seen[5:]) == {429}


def test_the_clamp_keeps_a_loser_from_rising_whatever_the_model_says(toy_game, people, monkeypatch):
    """Even if the model raised mu − 3σ after a loss, the displayed rating stays where it was."""
    from games import ratings

    users, _c = people
    real = ratings._MODEL

    class Generous:
        mu, sigma = real.mu, real.sigma

        def create_rating(self, *a, **k):
            return real.create_rating(*a, **k)

        def rate(self, teams, ranks):
            out = real.rate(teams, ranks=ranks)
            for (r,) in out:
                r.mu += 5  # everyone "gains"
            return out

    monkeypatch.setattr(ratings, "_MODEL", Generous())
    finish(users["alice"], users["bob"])
    bob, alice = Rating.objects.get(user=users["bob"]), Rating.objects.get(user=users["alice"])
    assert bob.rating <= 1500 + 1e-9 < alice.rating


def test_staff_and_code_holders_see_a_private_match_and_listings_hide_it(toy_game, people, api):
    users, c = people
    match = lobby.match_create(user=users["alice"], game="toy", players=2, private=True)
    staff = User.objects.create_user("staffer", password="correct-horse-9", is_staff=True)
    assert api(staff).get(f"{API}/matches/{match.id}").status_code == 200
    assert c["bob"].get(f"{API}/matches/{match.id}").status_code == 404
    assert c["bob"].get(f"{API}/matches/{match.id}", headers={"Invite-Code": "wrong"}).status_code == 404
    code = {"Invite-Code": match.invite_code}
    for path in ("", "/state", "/events"):
        assert c["bob"].get(f"{API}/matches/{match.id}{path}", headers=code).status_code == 200, path
    assert c["bob"].get(f"{API}/matches/{match.id}?code={match.invite_code}").status_code == 404  # never in a URL
    assert c["bob"].get(f"{API}/matches?player=alice").json()["results"] == []
    assert c["bob"].post(f"{API}/invites", {"code": match.invite_code}, format="json").json()["id"] == match.id
    assert c["bob"].post(f"{API}/invites", {"code": "nope"}, format="json").status_code == 404
    assert c["bob"].post(f"{API}/invites", {}, format="json").status_code == 400
    # a code with non-ASCII characters is a wrong code, not a 500 (schemathesis found the join's)
    assert c["bob"].post(f"{API}/matches/{match.id}/join", {"code": "$¬¿"}, format="json").status_code == 404
    assert c["bob"].get(f"{API}/matches/{match.id}", headers={"Invite-Code": "ünï"}).status_code == 404
    from games.selectors import match_visible_to

    assert match_visible_to(match, users["alice"]) and not match_visible_to(match, users["bob"])
    assert not match_visible_to(match, None, "$¬¿")
    assert not match_visible_to(match, None) and match_visible_to(match, None, match.invite_code)


def test_bearer_tokens_and_the_schema_keep_token_auth(people, api):
    users, _c = people
    from rest_framework.test import APIClient

    from accounts.services import token_for

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token_for(users['alice'])}")
    assert client.get(f"{API}/me").json()["username"] == "alice"
    client.credentials(HTTP_AUTHORIZATION="Token two parts")
    assert client.get(f"{API}/me").status_code == 401
    doc = api().get(f"{API}/schema?format=json").json()
    assert doc["components"]["securitySchemes"]["tokenAuth"]["name"] == "Authorization"


def test_an_account_older_than_the_name_keys_still_signs_in_and_shows(people, api):
    """The migration leaves a later look-alike of an earlier name without keys: it still works."""
    users, c = people
    User.objects.filter(pk=users["dave"].pk).update(username_key=None, username_skeleton=None)
    r = api().post(f"{API}/auth/token", {"username": "dave", "password": "correct-horse-9"}, format="json")
    assert r.status_code == 200
    assert c["alice"].get(f"{API}/users/dave").status_code == 200


def test_the_migration_fills_name_keys_and_hashes_drf_tokens(db):
    import hashlib
    import importlib
    from types import SimpleNamespace

    from django.apps import apps
    from django.db import connection

    migration = importlib.import_module("accounts.migrations.0002_players")
    ann = User.objects.create_user("ann-old", password="correct-horse-9")
    User.objects.filter(pk=ann.pk).update(username_key=None, username_skeleton=None)
    with connection.cursor() as cur:
        cur.execute("CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, user_id bigint, created timestamp)")
        cur.execute("INSERT INTO authtoken_token VALUES (%s, %s, %s)", ["k" * 40, ann.pk, timezone.now()])
    migration._fill(apps, SimpleNamespace(connection=connection))  # it needs only the editor's connection
    ann.refresh_from_db()
    assert ann.username_key == "ann-old" and ann.username_skeleton == usernames.skeleton("ann-old")
    token = ApiToken.objects.get(user=ann, label="migrated")
    assert token.key_hash == hashlib.sha256(b"k" * 40).hexdigest()


def test_a_match_whose_free_seats_are_all_reserved_is_not_joinable_for_others(toy_game, people):
    users, c = people
    reserved = lobby.match_create(user=users["alice"], game="toy", players=2, invite=["bob"])
    open_ = lobby.match_create(user=users["alice"], game="toy", players=3, invite=["bob"])
    ids = [m["id"] for m in c["carol"].get(f"{API}/matches?joinable=true").json()["results"]]
    assert ids == [open_.id]
    ids = {m["id"] for m in c["bob"].get(f"{API}/matches?joinable=true").json()["results"]}
    assert ids == {open_.id, reserved.id}
