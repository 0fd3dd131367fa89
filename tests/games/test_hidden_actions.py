"""Hidden actions stay hidden everywhere a seat can read: for every game, at every point where a
move whose author is hidden (`Rules.author_hidden`: EKKO's reaction `pass`) could be made by two
different seats, two twin matches (same seed, same moves so far) take it from different seats, and
a third seat must see exactly the same summary, state and events in both (timestamps and ids aside).

Whatever differs would tell that third seat who acted: the timeout count, a clock that stopped, a
field of the summary, a member of the record."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from games import replay
from games.models import Match, Seat
from games.services import deadlines, lobby, play
from rules import RULES

pytestmark = pytest.mark.django_db

_TIME = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)?")
PLAYERS = 4
HIDDEN_POINTS = 4  # hidden moves compared per game (a few suffice; each compares three documents)


def _normal(value: Any, ids: tuple[str, str]) -> Any:
    """The document with timestamps and the two match ids made equal."""
    if isinstance(value, dict):
        return {k: _normal(v, ids) for k, v in value.items() if k not in ("created_at", "updated_at", "at")}
    if isinstance(value, list):
        return [_normal(v, ids) for v in value]
    if isinstance(value, str):
        return _TIME.sub("<time>", value.replace(ids[1], ids[0]))
    return value


def _differences(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            out += _differences(a.get(key), b.get(key), f"{path}.{key}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def _seen(client, match_id: str) -> dict[str, Any]:
    return {
        "summary": client.get(f"/api/v1/matches/{match_id}").json(),
        "state": client.get(f"/api/v1/matches/{match_id}/state").json(),
        "events": client.get(f"/api/v1/matches/{match_id}/events?limit=1000").json(),
    }


def _twins(users, game: str) -> tuple[Match, Match]:
    twins = []
    for _ in range(2):
        match = lobby.match_create(
            user=users[0], game=game, players=PLAYERS, time_control={"per_move_s": 3600, "bot_after": 50}
        )
        twins.append(match)
    Match.objects.filter(id=twins[1].id).update(seed=twins[0].seed, seed_commitment=twins[0].seed_commitment)
    for match in twins:
        for user in users[1:]:
            lobby.match_join(match_id=match.id, user=user)
    return twins[0], twins[1]


def _play(match_id: str, seat: int, move: dict[str, Any]) -> None:
    match = Match.objects.get(id=match_id)
    play.move_submit(match_id=match_id, seat_index=seat, move=move, expected_version=match.version)


@pytest.mark.parametrize("game", sorted(RULES))
def test_a_hidden_action_looks_the_same_whoever_took_it(game, make_user, api):
    rules = RULES[game]
    if not any(rules.author_hidden(m) for m in _sample_moves(rules)):
        pytest.skip(f"{game} has no move whose author is hidden")
    users = [make_user(f"p{i}") for i in range(PLAYERS)]
    clients = [api(u) for u in users]
    a, b = _twins(users, game)
    ids = (a.id, b.id)
    chooser = random.Random(game)
    compared = 0
    swapped: set[int] = set()
    for _ in range(600):
        match = Match.objects.get(id=a.id)
        if match.status != Match.Status.ACTIVE or compared >= HIDDEN_POINTS:
            break
        state = replay.match_state(match)
        legal = {s: rules.legal_moves(state, s) for s in range(PLAYERS)}
        hidden = {s: [m for m in moves if rules.author_hidden(m)] for s, moves in legal.items()}
        takers = [s for s, moves in hidden.items() if moves]
        # Observers: seats that never took a swapped hidden move (their own records differ in order).
        others = [s for s in range(PLAYERS) if s not in takers[:2] and s not in swapped]
        if len(takers) >= 2 and others:
            p, q = takers[0], takers[1]
            swapped |= {p, q}
            Seat.objects.filter(match_id__in=ids).update(consecutive_timeouts=3)  # so a reset would show
            for first, second in ((p, q), (q, p)):  # a: p then q; b: q then p
                _play(a.id, first, rules.dump_move(hidden[first][0]))
                _play(b.id, second, rules.dump_move(hidden[second][0]))
                for x in others:
                    seen_a, seen_b = _seen(clients[x], a.id), _seen(clients[x], b.id)
                    differ = _differences(_normal(seen_a, ids), _normal(seen_b, ids))
                    assert not differ, f"seat {x} can tell who acted: {differ[:5]}"
                compared += 1
                match = Match.objects.get(id=a.id)
                if match.status != Match.Status.ACTIVE:
                    break
                state = replay.match_state(match)
                if not rules.legal_moves(state, second) or not any(
                    rules.author_hidden(m) for m in rules.legal_moves(state, second)
                ):
                    break
            continue
        movers = [s for s in sorted(match.awaiting) if legal[s]]
        if not movers:  # only a game timer is left: let it run out in both
            for twin in (a, b):
                Match.objects.filter(id=twin.id, timer_deadline__isnull=False).update(
                    timer_deadline=match.timer_deadline and match.timer_deadline.replace(year=2000)
                )
                deadlines.deadlines_process(match_id=twin.id)
            continue
        seat = movers[0]
        public = [m for m in legal[seat] if not rules.author_hidden(m)] or legal[seat]
        move = rules.dump_move(chooser.choice(public))
        for twin in (a, b):
            _play(twin.id, seat, move)
    assert compared > 0, f"{game}: no hidden move was reached to compare"


def _sample_moves(rules) -> list[Any]:
    """A few of the game's moves, to tell whether it has any hidden one at all."""
    out = []
    for spec in rules.moves:
        try:
            out.append(rules.parse_move({"type": spec.type}))
        except Exception:
            continue
    return out


@pytest.mark.parametrize("game", sorted(RULES))
def test_a_recorded_moves_hidden_author_is_read_as_the_rules_say(game):
    """`Rules.hides_author_of` (a log's reader: it parses a move only where a game hides authors)
    says of every move of random games what `author_hidden` says of it parsed; the types it alone
    parses (`Rules.author_hidden_types`) are the game's own."""
    rules, chooser = RULES[game], random.Random(game)
    assert rules.author_hidden_types is None or rules.author_hidden_types <= {spec.type for spec in rules.moves}
    seen = {True: 0, False: 0}
    for _ in range(3):
        state, _effects = rules.setup(rules.parse_config({}, 3 if 3 in rules.seats else min(rules.seats)), 7)
        for _step in range(300):
            movers = [s for s in rules.awaiting(state) if rules.legal_moves(state, s)]
            if not movers:
                break
            seat = chooser.choice(sorted(movers))
            for move in rules.legal_moves(state, seat):
                hidden = rules.author_hidden(move)
                assert rules.hides_author_of(rules.dump_move(move)) is hidden, move
                seen[hidden] += 1
            state, _effects = rules.apply(state, seat, chooser.choice(rules.legal_moves(state, seat)))
    assert seen[False] > 0 and (seen[True] > 0) == (game == "ekko")  # EKKO's pass: the one game that hides
