"""The document tells the truth: random full matches of every game, every answer validated.

Each game is played to the end through the HTTP stack, with 2 and with 4 players (two people
over the API, bots in the other seats), with and without a seat clock that sometimes runs out.
Every answer (status, content type, headers, body) is validated against the served document by
openapi-core, and so is every move sent. The errors a client can provoke are provoked on the way.
"""

from __future__ import annotations

import os
import random
import uuid
import warnings
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.services import token_for
from games import botplay
from games.models import Match
from games.services import deadlines
from rules import RULES
from tests.api.conformance import Conformance

pytestmark = pytest.mark.django_db

SEED = int(os.environ.get("TABULA_CONFORMANCE_SEED", "11"))
API = "/api/v1"
#: Shorter matches (still played to their end): the suite runs on two shared cores.
SHORT = {
    "ekko": {"target_score": 5, "reaction_window_s": 30},
    "enka": {"max_rounds": 1, "hand_size": 3, "round_move_cap": 80},
    "eko": {"max_turns": 24},
    "ecos": {"target_score": 3},
}

#: What the server sends that an engine's declaration does not say (the engine owner fixes it), by
#: game: a substring of the validator's message. Listed so that the suite stays green meanwhile; an
#: entry that no longer occurs is reported with a warning, to be removed.
KNOWN_ENGINE_MISMATCHES: dict[str, list[str]] = {}  # none now: Ekö's `with: null` is declared (MoveField.nullable)


class Clock:
    """Moves `timezone.now` forward: a seat's clock or the game timer runs out without waiting."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.offset = timedelta()
        real = timezone.now
        monkeypatch.setattr(timezone, "now", lambda: real() + self.offset)

    def advance(self, seconds: float) -> None:
        self.offset += timedelta(seconds=seconds)


def _client(user: Any = None) -> APIClient:
    c = APIClient()
    if user is not None:
        c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return c


def _due_in(match_id: str) -> float:
    """Seconds until the match's next deadline (seat clock or game timer), or None."""
    match = Match.objects.get(id=match_id)
    due = [d for d in [s.deadline for s in match.seats.all() if s.deadline] + [match.timer_deadline] if d is not None]
    if not due:
        return 0.0
    return max(1.0, (min(due) - timezone.now()).total_seconds() + 1)


def _errors_on_the_way(conf: Conformance, people: dict[int, APIClient], mid: str, rng: random.Random) -> None:
    """The errors a client can provoke on a live match, each checked against the document."""
    ann, ben = people[0], people[1]
    state = conf.call(ann, "get", f"{API}/matches/{mid}/state").json()
    etag = conf.call(ann, "get", f"{API}/matches/{mid}/state")["ETag"]
    conf.call(ann, "get", f"{API}/matches/{mid}/state", HTTP_IF_NONE_MATCH=etag)  # 304
    conf.call(APIClient(), "get", f"{API}/matches/{mid}/state")  # a spectator
    conf.call(APIClient(), "get", f"{API}/me")  # 401
    conf.call(APIClient(HTTP_AUTHORIZATION="Token nope"), "get", f"{API}/games")  # 401: a bad token
    conf.call(ann, "get", f"{API}/matches/nope/state")  # 404
    conf.call(ann, "post", f"{API}/matches/{mid}/moves", {"move": {"type": "nope"}, "expected_version": 0})  # 400
    conf.call(ann, "post", f"{API}/matches/{mid}/moves", {"move": {"type": "x"}})  # 400, field errors
    conf.call(ann, "post", f"{API}/matches/{mid}/leave")  # 409: started
    conf.call(ann, "post", f"{API}/matches/{mid}/bots", {})  # 409: started
    conf.call(ann, "get", f"{API}/matches/{mid}/export")  # 409: live
    conf.call(ann, "get", f"{API}/matches/{mid}/events", query={"after": "x"})  # 400
    r = ann.generic("POST", f"{API}/matches/{mid}/moves", "move=x", content_type="text/plain")
    conf.check("post", f"{API}/matches/{mid}/moves", r)  # 415
    r = ann.get(f"{API}/games", HTTP_ACCEPT="text/html")
    conf.check("get", f"{API}/games", r)  # 406
    if state["legal_moves"]:
        stale = {"move": state["legal_moves"][0], "expected_version": state["version"] + 7}
        conf.call(ann, "post", f"{API}/matches/{mid}/moves", stale)  # 409 version_conflict
    other = conf.call(ben, "get", f"{API}/matches/{mid}/state").json()
    if not other["legal_moves"] and state["legal_moves"]:  # 422 not_awaited (or an illegal move)
        conf.call(ben, "post", f"{API}/matches/{mid}/moves", {"move": state["legal_moves"][0], **_v(other)})
    outsider = _client(_user("outsider-" + uuid.uuid4().hex[:8]))
    if state["legal_moves"]:
        conf.call(outsider, "post", f"{API}/matches/{mid}/moves", {"move": state["legal_moves"][0], **_v(state)})


def _v(state: dict[str, Any]) -> dict[str, int]:
    return {"expected_version": state["version"]}


def _user(name: str) -> Any:
    from accounts.models import User

    return User.objects.create_user(username=name, password="correct-horse-9")


def play_random_match(
    conf: Conformance, clock: Clock, rng: random.Random, game: str, players: int, time_control: Any
) -> dict[str, int]:
    rules = RULES[game]
    tag = uuid.uuid4().hex[:8]
    people = {0: _client(_user(f"ann-{tag}")), 1: _client(_user(f"ben-{tag}"))}
    bots = [{"seat": s, "level": "greedy" if s == 2 and game != "ecos" else "random"} for s in range(2, players)]
    body = {"game": game, "players": players, "bots": bots, "time_control": time_control, "options": SHORT[game]}
    created = conf.call(people[0], "post", f"{API}/matches", body)
    assert created.status_code == 201, created.content
    mid = created.json()["id"]
    conf.call(people[1], "post", f"{API}/matches/{mid}/join", {})
    _errors_on_the_way(conf, people, mid, rng)
    counts = {"moves": 0, "timeouts": 0, "bot_turns": 0}
    forced = False  # with a seat clock, one deadline is let run out early (a short match may see none)
    for _ in range(rules.max_moves * 2):
        counts["bot_turns"] += botplay.bots_play(match_id=mid, expected_version=None)
        states = {s: conf.call(c, "get", f"{API}/matches/{mid}/state").json() for s, c in people.items()}
        if states[0]["status"] != "active":
            break
        if rng.random() < 0.02:
            conf.call(rng.choice(list(people.values())), "get", f"{API}/matches/{mid}")
            conf.call(APIClient(), "get", f"{API}/matches/{mid}/state")
        if rng.random() < 0.01:
            conf.call(
                people[0], "get", f"{API}/matches/{mid}/events", query={"after": max(0, states[0]["version"] - 5)}
            )
        movers = [s for s, st in states.items() if st["legal_moves"]]
        # Forced until one deadline has run out: at the first try only a bot's turn may be pending,
        # with no clock running (CI saw a match end with no timeout at all).
        force = bool(time_control) and not forced and counts["moves"] >= 1 and _due_in(mid) > 0
        if not movers or force or (time_control and rng.random() < 0.03):
            clock.advance(_due_in(mid))
            if deadlines.deadlines_process(match_id=mid):
                counts["timeouts"] += 1
                forced = True
            continue
        seat = rng.choice(movers)
        move = rng.choice(states[seat]["legal_moves"])
        body = {"move": move, "expected_version": states[seat]["version"]}
        conf.check_request("post", f"{API}/matches/{mid}/moves", body)
        key = {"HTTP_IDEMPOTENCY_KEY": uuid.uuid4().hex} if rng.random() < 0.05 else {}
        answer = conf.call(people[seat], "post", f"{API}/matches/{mid}/moves", body, **key)
        if key:
            conf.call(people[seat], "post", f"{API}/matches/{mid}/moves", body, **key)  # the same answer again
        assert answer.status_code in (201, 409, 422), answer.content
        counts["moves"] += answer.status_code == 201
    else:
        pytest.fail(f"{game} {players}p did not finish")
    for path in ("", "/state", "/events", "/export"):
        conf.call(people[0], "get", f"{API}/matches/{mid}{path}")
    username = created.json()["created_by"]
    for path in ("/", "/games", f"/games/{game}", "/games/nope", "/me", f"/users/{username}", "/matches"):
        conf.call(people[0], "get", API + path)
    conf.call(people[0], "get", f"{API}/matches", query={"game": game, "mine": "true", "status": "finished"})
    conf.call(people[1], "post", f"{API}/matches/{mid}/resign")  # 409: over
    return counts


CONFIGS = [
    (game, players, tc)
    for game in ("ekko", "enka", "eko", "ecos")
    for players, tc in ((2, None), (4, {"per_move_s": 60, "bot_after": 3}))
]


@pytest.mark.parametrize(("game", "players", "time_control"), CONFIGS, ids=[f"{g}-{p}p" for g, p, _ in CONFIGS])
def test_every_answer_of_a_random_match_validates(game, players, time_control, monkeypatch):
    conf = Conformance()
    rng = random.Random(f"{SEED}-{game}-{players}")
    clock, counts = Clock(monkeypatch), {"moves": 0, "timeouts": 0, "bot_turns": 0}
    # A short match with a dealt seed of its own may end before a deadline could run out (CI saw
    # an EKKO 4-player match end so): up to three matches until each kind of input was seen.
    for _ in range(3):
        for kind, n in play_random_match(conf, clock, rng, game, players, time_control).items():
            counts[kind] += n
        if counts["moves"] and (counts["timeouts"] or not time_control):
            break
    assert counts["moves"] > 0
    assert counts["bot_turns"] > 0 or players == 2
    assert counts["timeouts"] > 0 or not time_control
    known = KNOWN_ENGINE_MISMATCHES.get(game, [])
    unexplained = [p for p in conf.problems if not any(k in p for k in known)]
    for entry in known:
        if not any(entry in p for p in conf.problems):
            warnings.warn(f"KNOWN_ENGINE_MISMATCHES[{game!r}]: {entry!r} no longer occurs: remove it", stacklevel=1)
    assert not unexplained, f"{len(unexplained)} answers do not validate; first:\n" + "\n\n".join(unexplained[:5])
    statuses = {status for (_m, _p, status, _t) in conf.seen}
    assert {200, 201, 304, 400, 401, 404, 406, 409, 415} <= statuses, sorted(statuses)


#: A last move that ends the game in a tie for first place under ``tie_policy: "rematch"``: the
#: result carries the page's ``rematch`` member and the server starts the rematch at once.
TIED_UNDER_REMATCH = {
    "ekko": (
        2,
        {
            "setup": {"dealer": 0, "hands": [[20, 22], [40]], "start": 37, "scores": [7, 10]},
            "target_score": 10,
            "tie_policy": "rematch",
        },
        [(1, {"type": "play", "card": 40}), (0, {"type": "pass"})],
    ),
    "enka": (
        4,
        {
            "setup": {
                "dealer": 0,
                "hands": [["red-9", "red-8", "red-8"], ["blue-9"], ["yellow-9", "yellow-9", "yellow-8"], ["red-0"]],
                "draw_pile": [],
                "start": "blue-4",
                "scores": [480, 100, 300, 100],
            },
            "tie_policy": "rematch",
        },
        [(1, {"type": "play", "card": "blue-9"})],
    ),
}


@pytest.mark.parametrize("game", sorted(TIED_UNDER_REMATCH))
def test_a_tie_that_starts_a_rematch_validates(game):
    players, options, moves = TIED_UNDER_REMATCH[game]
    conf = Conformance()
    tag = uuid.uuid4().hex[:8]
    people = [_client(_user(f"p{i}-{tag}")) for i in range(players)]
    created = conf.call(people[0], "post", f"{API}/matches", {"game": game, "players": players, "options": options})
    assert created.status_code == 201, created.content
    mid = created.json()["id"]
    for client in people[1:]:
        conf.call(client, "post", f"{API}/matches/{mid}/join", {})
    for seat, move in moves:
        version = conf.call(people[seat], "get", f"{API}/matches/{mid}/state").json()["version"]
        body = {"move": move, "expected_version": version}
        conf.check_request("post", f"{API}/matches/{mid}/moves", body)
        answer = conf.call(people[seat], "post", f"{API}/matches/{mid}/moves", body)
        assert answer.status_code == 201, answer.content
    done = conf.call(people[0], "get", f"{API}/matches/{mid}").json()
    assert len(done["result"]["winners"]) > 1 and done["result"]["rematch"] in ("automatic", True)
    for path in ("/state", "/events", "/export"):
        conf.call(people[0], "get", f"{API}/matches/{mid}{path}")
    conf.call(people[0], "get", f"{API}/matches/{done['rematch']}")
    assert not conf.problems, f"{len(conf.problems)} answers do not validate; first:\n" + "\n\n".join(conf.problems[:3])


def test_the_limits_answers_validate(settings, monkeypatch):
    """413, 429 and 503, as a client meets them on POST moves and elsewhere, against the document."""
    from django.core.cache import cache
    from django.db import OperationalError

    from games import selectors

    conf = Conformance()
    tag = uuid.uuid4().hex[:8]
    ann, ben = _client(_user(f"ann-{tag}")), _client(_user(f"ben-{tag}"))
    mid = conf.call(ann, "post", f"{API}/matches", {"game": "ekko", "players": 2}).json()["id"]
    conf.call(ben, "post", f"{API}/matches/{mid}/join", {})
    settings.TABULA_MAX_BODY_BYTES = 1024
    big = '{"move": {"type": "draw"}, "expected_version": 4, "pad": "' + "x" * 2000 + '"}'
    r = ann.generic("POST", f"{API}/matches/{mid}/moves", big, content_type="application/json")
    conf.check("post", f"{API}/matches/{mid}/moves", r)
    settings.TABULA_MAX_BODY_BYTES = 1_000_000
    cache.clear()
    settings.TABULA_RATE_LIMITS_OFF = False
    settings.TABULA_RATE_LIMITS = {**settings.TABULA_RATE_LIMIT_DEFAULTS, "moves": "1/m", "create": "1/m"}
    stale = {"move": {"type": "draw"}, "expected_version": 0}
    for _ in range(2):
        r = conf.call(ann, "post", f"{API}/matches/{mid}/moves", stale)
    for _ in range(2):
        r = conf.call(ann, "post", f"{API}/matches", {"game": "enka", "players": 2})
    settings.TABULA_RATE_LIMITS_OFF = True
    cache.clear()

    def down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(selectors, "match_get", down)
    conf.call(ann, "get", f"{API}/matches/{mid}")
    statuses = sorted({status for (_m, _p, status, _t) in conf.seen})
    assert {413, 429, 503} <= set(statuses), statuses
    assert not conf.problems, f"{len(conf.problems)} answers do not validate; first:\n" + "\n\n".join(conf.problems[:3])
