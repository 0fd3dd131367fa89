"""A private match is invisible to whoever may not see it, through every read of the API (issue 23).

Every GET path of the committed API document (docs/openapi.yaml) is walked, or declared as walked
elsewhere (the two stream paths, served only by the stream server: tests/notifications/
test_private_streams.py), so that a new endpoint cannot be forgotten: the test fails until it is
added to the walk. A stranger walks the same world with and without private matches between two
other users and must read exactly the same answers, and none of the private ids. The one exception
is the rating itself (`RATING_STATE`): the displayed rating, mu and sigma, the rated-games count,
the rank and the provisional flag include every rated match, private ones too (hiding the count
while showing sigma, which shrinks with each rated game, would hide nothing). What a rating
history shows of a private match (its id, its end and the rating change) is left out.

The seated player, the invitee and staff see the private matches where they may: they prove that
the walk reaches the places where a private match would show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import override_settings

from accounts.models import User
from games.ratings import leaderboard_refresh
from games.services import lobby, play
from notify import webhooks
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db
API = "/api/v1"
DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"
MISSING = "nosuchmatch0000000000"

#: GET paths this test does not walk, and where they are walked instead.
WALKED_ELSEWHERE = {
    "/api/v1/me/stream": "tests/notifications/test_private_streams.py::test_streams_show_a_stranger_no_private_match",
    "/api/v1/matches/{match_id}/stream": (
        "tests/notifications/test_private_streams.py::test_streams_show_a_stranger_no_private_match"
    ),
    # A game's printed words and rules: nothing of any match (and no toy catalogue to walk here).
    "/api/v1/games/{game}/i18n/{language}": (
        "tests/languages/test_i18n.py::test_each_game_serves_its_catalogue_in_three_languages"
    ),
    "/api/v1/games/{game}/rules": "tests/languages/test_i18n.py::test_each_game_serves_its_rules_as_markdown_and_html",
}

#: Paths of the API's URL conf that are not in the API document, and why they name no match.
UNDOCUMENTED = {
    "email/unsubscribe": "the one-click link of a mail: answers a small HTML page, names no match",
    "schema": "the API document itself",
    "docs": "Swagger UI",
    "redoc": "ReDoc",
}

#: The figures of a rating, which count every rated match, private ones too (see the docstring).
RATING_STATE = {"rating", "mu", "sigma", "ordinal", "matches", "games", "rank", "provisional"}

MATCH_PATHS = ["", "/state", "/events", "/export", "/invitations", "/proposals", "/chat", "/notes", "/timeline"]


@dataclass
class World:
    users: dict[str, User]
    public: str  # a finished public match: alice beat bob
    private: dict[str, str] = field(default_factory=dict)  # name -> id
    tournament: str = ""  # a public tournament alice opened


def finish(winner: User, loser: User, *, private: bool) -> str:
    match = lobby.match_create(user=winner, game="toy", players=2, private=private)
    lobby.match_join(match_id=match.id, user=loser)
    play.match_resign(match_id=match.id, user=loser)
    return match.id


def build_world(make_user: Callable[[str], User], *, hooks: bool = True) -> World:
    """alice and bob's public finished match; dave and carol are strangers to it; staff is staff."""
    users = {n: make_user(n) for n in ("alice", "bob", "carol", "dave")}
    users["staff"] = User.objects.create_user("staffer", password="correct-horse-9", is_staff=True)
    for user in users.values() if hooks else ():  # a webhook each: its deliveries are a read that names matches
        webhooks.webhook_create(user=user, url="http://127.0.0.1:9/hook", events=None)
    world = World(users, finish(users["alice"], users["bob"], private=False))
    cup = {"name": "Cup", "game": "toy", "format": "swiss", "table_size": 2, "max_players": 8}
    world.tournament = tournament_services.tournament_create(user=users["alice"], data=cup).id
    leaderboard_refresh("toy")
    return world


def add_private_played(world: World) -> None:
    """A private match alice won against bob, and a private one they are playing (alice to move)."""
    u = world.users
    world.private["finished"] = finish(u["alice"], u["bob"], private=True)
    live = lobby.match_create(user=u["alice"], game="toy", players=2, private=True)
    lobby.match_join(match_id=live.id, user=u["bob"])
    world.private["live"] = live.id
    leaderboard_refresh("toy")


def add_private_invitation(world: World) -> None:
    """A private match alice opened, with a seat reserved for carol."""
    u = world.users
    world.private["open"] = lobby.match_create(
        user=u["alice"], game="toy", players=2, private=True, invite=["carol"]
    ).id


def walk(client: Any, world: World, viewer: str) -> dict[tuple[str, str], tuple[int, Any]]:
    """Every GET path of the API, as ``viewer`` reads it: (template, path) -> (status, body)."""
    hook = world.users[viewer].webhooks.get().pk
    names = ["alice", "bob", "carol", "dave", "staffer"]
    paths: list[tuple[str, str]] = [
        ("/api/v1/", "/"),
        ("/api/v1/games", "/games"),
        ("/api/v1/games/{game}", "/games/toy"),
        ("/api/v1/games/{game}/components", "/games/toy/components"),
        ("/api/v1/leaderboards/{game}", "/leaderboards/toy"),
        ("/api/v1/me", "/me"),
        ("/api/v1/me/away", "/me/away"),
        ("/api/v1/me/invitations", "/me/invitations"),
        ("/api/v1/me/notifications", "/me/notifications"),
        ("/api/v1/me/notifications", "/me/notifications?after=0&limit=500"),
        ("/api/v1/me/tokens", "/me/tokens"),
        ("/api/v1/me/turns", "/me/turns"),
        ("/api/v1/me/webhooks", "/me/webhooks"),
        ("/api/v1/me/webhooks/{webhook_id}/deliveries", f"/me/webhooks/{hook}/deliveries"),
        ("/api/v1/me/following", "/me/following"),
        ("/api/v1/me/followers", "/me/followers"),
        ("/api/v1/me/blocks", "/me/blocks"),
        ("/api/v1/me/feed", "/me/feed"),
        ("/api/v1/me/push-subscriptions", "/me/push-subscriptions"),
        ("/api/v1/push/vapid-public-key", "/push/vapid-public-key"),
        ("/api/v1/moderation/chat", "/moderation/chat"),
        ("/api/v1/moderation/mutes", "/moderation/mutes"),
        ("/api/v1/me/tournaments", "/me/tournaments"),
        ("/api/v1/tournaments", "/tournaments"),
        ("/api/v1/tournaments", "/tournaments?game=toy&status=open"),
        ("/api/v1/tournaments/{tournament_id}", f"/tournaments/{world.tournament}"),
        ("/api/v1/tournaments/{tournament_id}/standings", f"/tournaments/{world.tournament}/standings"),
        ("/api/v1/tournaments/{tournament_id}/rounds/{number}", f"/tournaments/{world.tournament}/rounds/1"),
    ]
    for query in ["", "?game=toy", "?player=alice", "?player=bob", "?mine=true", "?spectate=true", "?joinable=true"]:
        paths.append(("/api/v1/matches", f"/matches{query}"))
    for status in ("open", "active", "finished"):
        paths.append(("/api/v1/matches", f"/matches?status={status}"))
    for suffix in MATCH_PATHS:
        paths.append((f"/api/v1/matches/{{match_id}}{suffix}", f"/matches/{world.public}{suffix}"))
    for query in ("?at=3", "?at=3&seat=1"):  # replay: a past view, another seat's after the end
        paths.append(("/api/v1/matches/{match_id}/state", f"/matches/{world.public}/state{query}"))
    for channel in ("spectators", "sealed"):
        paths.append(("/api/v1/matches/{match_id}/chat", f"/matches/{world.public}/chat?channel={channel}"))
    for name in names:
        paths += [
            ("/api/v1/users/{username}", f"/users/{name}"),
            ("/api/v1/users/{username}/ratings/{game}", f"/users/{name}/ratings/toy"),
            ("/api/v1/users/{username}/export", f"/users/{name}/export"),
            ("/api/v1/users/{username}/export", f"/users/{name}/export?game=toy"),
            ("/api/v1/leaderboards/{game}/around/{username}", f"/leaderboards/toy/around/{name}"),
        ]
        for query in ["", "?game=toy", "?status=open", "?status=active", "?status=finished", "?result=won"]:
            paths.append(("/api/v1/users/{username}/matches", f"/users/{name}/matches{query}"))
        paths.append(("/api/v1/users/{username}/matches", f"/users/{name}/matches?result=lost"))
    out = {}
    for template, path in paths:
        response = client.get(API + path)
        if response.streaming:
            body: Any = b"".join(response.streaming_content).decode()
        elif response["Content-Type"].endswith("json"):
            body = _masked(template, response.json())
        else:
            body = response.content.decode()
        out[(template, path)] = (response.status_code, body)
    return out


def _masked(template: str, body: Any) -> Any:
    """``body`` with the figures of a rating replaced (they include private matches: see the docstring),
    the time a token was last used, and the away balance (it accrues)."""

    def mask(entry: dict[str, Any]) -> dict[str, Any]:
        return {k: ("(rating)" if k in RATING_STATE else v) for k, v in entry.items()}

    if template == "/api/v1/me/tokens":  # written at most once a minute, and a walk may take longer
        return [{**token, "last_used_at": "(time)"} for token in body]
    if template == "/api/v1/me/away":  # the balance grows by the second
        return {**body, "balance_s": "(balance)"}
    if not isinstance(body, dict):
        return body
    if template in ("/api/v1/me", "/api/v1/users/{username}"):
        return {**body, "ratings": [mask(r) for r in body.get("ratings", [])]}
    if template == "/api/v1/users/{username}/ratings/{game}":
        return mask(body)
    if template.startswith("/api/v1/leaderboards/"):
        out = mask(body)
        if "results" in body:
            out["results"] = sorted((mask(r) for r in body["results"]), key=lambda r: r["username"])
        if "next" in body:
            out["next"] = "(rating)"  # a rank
        return out
    return body


def probe_missing(client: Any, match_id: str) -> dict[str, tuple[int, str]]:
    """What each match path answers for ``match_id``, the id replaced by ID."""
    out = {}
    for suffix in MATCH_PATHS:
        r = client.get(f"{API}/matches/{match_id}{suffix}")
        out[suffix] = (r.status_code, r.content.decode().replace(match_id, "ID"))
    return out


def text(snapshot: dict[tuple[str, str], tuple[int, Any]]) -> str:
    return json.dumps(list(snapshot.values()), default=str)


def names_of(snapshot: dict[tuple[str, str], tuple[int, Any]], match_id: str) -> list[str]:
    """The paths whose answer names ``match_id``."""
    return [path for (_t, path), value in snapshot.items() if match_id in json.dumps(value, default=str)]


def _differences(a: dict, b: dict) -> list[str]:
    """The paths whose answers differ (their answers printed, for the failure's message)."""
    paths = [key[1] for key in a if a[key] != b[key]]
    for key in a:
        if a[key] != b[key]:
            print(f"{key[1]}:\n  {a[key]!r}\n  {b[key]!r}")
    return paths


@override_settings(TABULA_PROVISIONAL_GAMES=1)
def test_a_stranger_learns_nothing_of_a_private_match_from_any_endpoint(toy_game, make_user, api):
    world = build_world(make_user)
    c = {name: api(user) for name, user in world.users.items()}
    before = {viewer: walk(c[viewer], world, viewer) for viewer in ("dave", "carol")}
    missing = probe_missing(c["dave"], MISSING)

    add_private_played(world)
    played = {viewer: walk(c[viewer], world, viewer) for viewer in ("dave", "carol", "bob", "staff")}
    add_private_invitation(world)
    invited = {viewer: walk(c[viewer], world, viewer) for viewer in ("dave", "carol")}

    # The stranger: the same answers with and without the private matches, and none of their ids.
    for after in (played["dave"], invited["dave"]):
        assert set(after) == set(before["dave"])
        assert _differences(before["dave"], after) == []
        for match_id in world.private.values():
            assert names_of(after, match_id) == [], match_id
            assert probe_missing(c["dave"], match_id) == missing
    # carol is a stranger to the matches alice and bob played ...
    assert _differences(before["carol"], played["carol"]) == []
    for name in ("finished", "live"):
        assert names_of(invited["carol"], world.private[name]) == []
        assert probe_missing(c["carol"], world.private[name]) == missing
    # ... and sees the one she is invited to, where its invitees see it.
    seen_by_invitee = names_of(invited["carol"], world.private["open"])
    for path in ["/me/invitations", "/me/notifications", "/users/alice/matches", "/matches?player=alice"]:
        assert path in seen_by_invitee, path
    assert probe_missing(c["carol"], world.private["open"]) != missing
    # bob sat in the private matches, staff sees everything: both see the private matches where they show.
    seen_by_player = names_of(played["bob"], world.private["finished"])
    for path in ["/users/alice/ratings/toy", "/users/bob/ratings/toy", "/users/alice/matches", "/me/notifications"]:
        assert path in seen_by_player, path
    assert "/me/turns" in names_of(walk(c["alice"], world, "alice"), world.private["live"])
    assert "/users/alice/ratings/toy" in names_of(played["staff"], world.private["finished"])
    history = dict(played["bob"])[("/api/v1/users/{username}/ratings/{game}", "/users/alice/ratings/toy")][1]
    assert [h["match"] for h in history["history"]] == [world.public, world.private["finished"]]

    # Every GET path of the API document is walked here or declared as walked elsewhere.
    document = yaml.safe_load(DOCUMENT.read_text())
    get_paths = {path for path, operations in document["paths"].items() if "get" in operations}
    walked = {template for template, _path in before["dave"]}
    assert walked.isdisjoint(WALKED_ELSEWHERE)
    assert get_paths == walked | set(WALKED_ELSEWHERE), "walk every new GET path, or say where it is walked"
    root = DOCUMENT.parents[1]
    for where in WALKED_ELSEWHERE.values():
        module, name = where.split("::")
        assert f"def {name}(" in (root / module).read_text(), where


def test_every_path_of_the_url_conf_is_in_the_api_document_or_named_here():
    """So that a view added outside the API document (a plain Django view) cannot escape the walk."""
    from api.urls import urlpatterns

    document = yaml.safe_load(DOCUMENT.read_text())
    for pattern in urlpatterns:
        regex = pattern.pattern.regex.pattern
        path = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", regex).removeprefix("^").removesuffix("$").removesuffix("/?")
        assert f"/api/v1/{path}" in document["paths"] or path in UNDOCUMENTED, path
