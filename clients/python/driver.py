"""Play one match of every game with a Python client generated from Tabula's OpenAPI document.

Generated with ``openapi-python-client generate --path openapi.yaml --config clients/python/config.yaml
--meta none --output-path tabula_client`` (see docs/clients.md). Two players register, one creates a
two-seat match (short ones: `SHORT`), the other joins, and each plays the first of its legal moves,
sent unchanged, until the match is over. Only the generated client is used: no cast, no ``Any``,
no model class picked by hand.

    python driver.py http://127.0.0.1:8000 [game ...]
"""

from __future__ import annotations

import sys
import time
import uuid

from tabula_client import AuthenticatedClient, Client
from tabula_client.api.accounts import auth_register
from tabula_client.api.games import games_list
from tabula_client.api.matches import matches_create, matches_join
from tabula_client.api.play import matches_moves_create, matches_state
from tabula_client.models import (
    AuthRegisterInputRequest,
    AuthRegisterOutput,
    EcosState,
    EkkoState,
    EkoState,
    EnkaState,
    Match,
    MatchCreateRequest,
    MatchJoinInputRequest,
    MatchOptions,
    MoveSubmitInputRequest,
    MoveSubmitOutput,
    Problem,
)

State = EkkoState | EnkaState | EkoState | EcosState

#: Options for short matches (still played to their end); any game not listed plays its defaults.
SHORT: dict[str, dict[str, int]] = {
    "ekko": {"target_score": 5},
    "enka": {"max_rounds": 1},
    "eko": {"max_turns": 40},
    "ecos": {"target_score": 3},
}


def register(base_url: str, name: str) -> AuthenticatedClient:
    body = AuthRegisterInputRequest(username=name, password="correct-horse-9")
    answer = auth_register.sync(client=Client(base_url=base_url), body=body)
    if not isinstance(answer, AuthRegisterOutput):
        raise SystemExit(f"register {name}: {answer!r}")
    return AuthenticatedClient(base_url=base_url, token=answer.token, prefix="Token")


def state_of(player: AuthenticatedClient, match_id: str) -> State:
    for _ in range(5):  # a 503 (the database busy a moment) says: try again shortly
        state = matches_state.sync(match_id, client=player)
        if isinstance(state, EkkoState | EnkaState | EkoState | EcosState):
            return state
        if not (isinstance(state, Problem) and state.status == 503):
            break
        time.sleep(1)
    raise SystemExit(f"state of {match_id}: {state!r}")


def play(base_url: str, game: str) -> int:
    """One two-seat match of ``game`` to its end; returns the number of moves played."""
    tag = uuid.uuid4().hex[:8]
    players = [register(base_url, f"ann-{tag}"), register(base_url, f"ben-{tag}")]
    options = MatchOptions.from_dict(SHORT.get(game, {}))
    match = matches_create.sync(client=players[0], body=MatchCreateRequest(game=game, players=2, options=options))
    if not isinstance(match, Match):
        raise SystemExit(f"create a {game} match: {match!r}")
    joined = matches_join.sync(match.id, client=players[1], body=MatchJoinInputRequest())
    if not isinstance(joined, Match):
        raise SystemExit(f"join {match.id}: {joined!r}")
    moves = unavailable = 0
    while True:
        states = [state_of(player, match.id) for player in players]
        if states[0].status.value != "active":
            break
        seat = next((i for i, state in enumerate(states) if state.legal_moves), None)
        if seat is None:
            raise SystemExit(f"{match.id}: no seat can move (a timer is running)")
        state = states[seat]
        body = MoveSubmitInputRequest(move=state.legal_moves[0], expected_version=state.version)
        answer = matches_moves_create.sync(match.id, client=players[seat], body=body)
        if isinstance(answer, Problem) and answer.status == 503 and unavailable < 5:
            unavailable += 1  # the server says: try again shortly (the version guards against a double move)
            time.sleep(1)
            continue
        if not isinstance(answer, MoveSubmitOutput):
            raise SystemExit(f"{match.id}: move {body.to_dict()} refused: {answer!r}")
        moves += 1
    result = states[0].result
    print(f"{game}: {moves} moves, {states[0].status.value}, winners {result.winners if result else None}")
    return moves


def main(argv: list[str]) -> int:
    base_url = argv[1] if len(argv) > 1 else "http://127.0.0.1:8000"
    catalogue = games_list.sync(client=Client(base_url=base_url))  # the catalogue is public: no token
    if not isinstance(catalogue, list):
        raise SystemExit(f"catalogue: {catalogue!r}")
    games = argv[2:] or [g.id for g in catalogue]
    total = sum(play(base_url, game) for game in games)
    print(f"{len(games)} games, {total} moves")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
