"""Golden transcripts: seeded games whose every input, effect and state summary is pinned as text.

Regenerate every golden file (engine transcripts, then the API transcripts through pytest)::

    .venv/bin/python -m tests.golden.generate             # engines (no Django) + API (runs pytest)
    .venv/bin/python -m tests.golden.generate --engines   # engine transcripts only
    GOLDEN_REGEN=1 .venv/bin/pytest tests/golden -p no:xdist -k api   # API transcripts only (needs the DB)

``tests/golden/test_golden.py`` rebuilds each transcript in memory and fails with a diff when it
differs from the committed file. A diff after a "behaviour unchanged" refactor is a behaviour change.

Engine transcripts drive a game only through the `Rules` record: ``parse_config({}, players)``,
``setup(config, seed)``, then inputs chosen by `choose_input` from a seeded `random.Random`.
Everything written is canonical JSON (sorted keys), so nothing depends on dict or set order.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import secrets
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules import RULES
from rules.base import Effect, Expired, Input, Moved, Resigned, Rules, RulesError, TimedOut, fallback, step

HERE = Path(__file__).resolve().parent
ENGINE_DIR = HERE / "engines"
API_DIR = HERE / "api"
HASH_EVERY = 25  # inputs between state/view hash lines


@dataclass(frozen=True)
class Case:
    game: str
    players: int
    seed: int  # the engine seed, and (offset) the input-selection RNG seed
    cap: int  # inputs written in full; a longer game is truncated there (and the file says so)

    @property
    def name(self) -> str:
        return f"{self.game}-{self.players}p"

    @property
    def path(self) -> Path:
        return ENGINE_DIR / f"{self.name}.txt"


SILENT_CAP = 5000  # after the truncation the game is played on silently, to its end, up to this many inputs
SILENT_HASH_EVERY = 100  # … writing only a state hash this often, then the outcome and the final hashes

CASES = (  # caps keep each file under ~50 KB
    Case("ekko", 2, 1001, 180),
    Case("ekko", 4, 1002, 180),
    Case("enka", 2, 2001, 160),
    Case("enka", 4, 2002, 160),
    Case("eko", 2, 3001, 160),
    Case("eko", 3, 3002, 160),
    Case("ecos", 2, 4001, 80),
    Case("ecos", 4, 4002, 80),
)


def canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def sha(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


# --- input selection ------------------------------------------------------------------------

_KIND = {Moved: "move", TimedOut: "timeout", Resigned: "resign", Expired: "expire"}


def describe(given: Input) -> tuple[str, int | None, Any]:
    """(kind, seat, move) of an input, as the transcript writes it."""
    return _KIND[type(given)], getattr(given, "seat", None), getattr(given, "move", None)


def choose_input(
    rules: Rules[Any, Any, Any], state: Any, players: int, rnd: random.Random, n: int, resigned: bool
) -> Input:
    """The next input of a seeded game, drawn from ``rnd`` in a fixed order of calls.

    When no awaited seat has a legal move: `fallback` (the game timer's expiry if one runs, else a
    timeout of the lowest awaited seat). Otherwise: rarely one resignation of an awaited seat
    (never early: from input 60 with more than 2 players, 400 with 2); ~3% a timeout of an awaited
    seat; ~21% the expiry of a running game timer (EKKO's reaction window); else a random legal
    move of a random awaited seat that has one, or, one time in five, of any seat that has one (so
    interrupts of non-awaited seats, EKKO mirror / Enka jump-in, are played).
    """
    forced = fallback(rules, state)
    if forced is not None:
        return forced
    awaiting = sorted(rules.awaiting(state))
    movers = [s for s in range(players) if rules.legal_moves(state, s)]
    awaited_movers = [s for s in movers if s in awaiting]
    timed = rules.timer(state) is not None and rules.expire is not None
    roll = rnd.random()
    resign_from = 60 if players > 2 else 400
    if not resigned and n >= resign_from and roll < 0.01:
        return Resigned(rnd.choice(awaiting))
    if roll < 0.04:
        return TimedOut(rnd.choice(awaiting))
    if timed and roll < 0.25:
        return Expired()
    seat = rnd.choice(awaited_movers if rnd.random() < 0.8 else movers)
    moves = rules.legal_moves(state, seat)
    return Moved(seat, moves[rnd.randrange(len(moves))])


def do_input(rules: Rules[Any, Any, Any], state: Any, given: Input) -> tuple[Any, tuple[Effect, ...]]:
    return step(rules, state, given)


# --- the engine transcript ------------------------------------------------------------------


def _effect_lines(effects: tuple[Effect, ...]) -> list[str]:
    out = []
    for effect in effects:
        j = effect.to_json()
        audience = "all" if j["to"] is None else ",".join(map(str, j["to"]))
        out.append(f"  fx @{audience} {canon(j)}")
    return out


def _summary(rules: Rules[Any, Any, Any], state: Any, players: int) -> list[str]:
    legal = " ".join(f"{s}:{len(rules.legal_moves(state, s))}" for s in range(players))
    lines = [f"  awaiting={canon(sorted(rules.awaiting(state)))} legal={legal}"]
    outcome = rules.outcome(state)
    if outcome is not None:
        lines.append(f"  outcome {canon(outcome.to_json())}")
    return lines


def _hashes(rules: Rules[Any, Any, Any], state: Any, players: int) -> str:
    parts = [f"state={sha(rules.dump_state(state))}"]
    parts += [f"view{s}={sha(rules.view(state, s, None))}" for s in range(players)]
    parts.append(f"spectator={sha(rules.view(state, None, None))}")
    return "  sha256 " + " ".join(parts)


def engine_transcript(case: Case) -> str:
    rules = RULES[case.game]
    rnd = random.Random(f"golden:{case.name}:{case.seed}")
    config = rules.parse_config({}, case.players)
    state, effects = rules.setup(config, case.seed)
    lines = [
        f"# golden transcript: {rules.name} (rules version {rules.version}), {case.players} players, seed {case.seed}",
        f"# regenerate: .venv/bin/python -m tests.golden.generate --engines (at most {case.cap} inputs)",
        "#0 start",
        *_effect_lines(effects),
        *_summary(rules, state, case.players),
        _hashes(rules, state, case.players),
    ]
    resigned = False
    n = 0
    while rules.awaiting(state) and n < case.cap:
        n += 1
        inp = choose_input(rules, state, case.players, rnd, n, resigned)
        kind, seat, move = describe(inp)
        head = f"#{n} {kind}" + ("" if seat is None else f" seat={seat}")
        if kind == "move":
            head += f" {canon(rules.dump_move(move))}"
        lines.append(head)
        try:
            state, effects = do_input(rules, state, inp)
        except RulesError as exc:  # a bug in the engine, pinned rather than hidden
            lines.append(f"  ! {type(exc).__name__} code={exc.code} reason={exc.reason} {exc.message}")
            continue
        resigned = resigned or kind == "resign"
        lines += _effect_lines(effects)
        lines += _summary(rules, state, case.players)
        if n % HASH_EVERY == 0:
            lines.append(_hashes(rules, state, case.players))
    if rules.awaiting(state):
        lines.append(
            f"# truncated: the game is not over after {n} inputs (the cap); it is played on with the same"
            f" input choice, writing only a state hash every {SILENT_HASH_EVERY} inputs"
        )
        while rules.awaiting(state) and n < SILENT_CAP:
            n += 1
            inp = choose_input(rules, state, case.players, rnd, n, resigned)
            try:
                state, _ = do_input(rules, state, inp)
            except RulesError as exc:
                kind, seat, _ = describe(inp)
                lines.append(f"#{n} {kind} seat={seat} ! {type(exc).__name__} code={exc.code} {exc.message}")
                continue
            resigned = resigned or isinstance(inp, Resigned)
            if n % SILENT_HASH_EVERY == 0:
                lines.append(f"#{n} sha256 state={sha(rules.dump_state(state))}")
    lines.append(f"# {'game over' if not rules.awaiting(state) else 'still not over (silent cap)'} after {n} inputs")
    outcome = rules.outcome(state)
    lines.append(f"outcome {canon(None if outcome is None else outcome.to_json())}")
    lines.append(_hashes(rules, state, case.players).strip())
    return "\n".join(lines) + "\n"


# --- the API transcript (needs Django and the test database: run under pytest) --------------

API_GAMES = ("ekko", "enka", "eko", "ecos")
API_SEED = 20240611  # the match seed, patched in where `games.services.lobby.match_create` draws it
API_MOVES = 60  # moves played at most (each awaited seat's first legal move, as the README does)
_ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
_SHOWN_HEADERS = ("Content-Type", "ETag")


class _Recorder:
    """Writes each response: what was asked, the status, some headers and the body, volatile values masked.

    Bodies are written in full where asked (and always for an error); others as the SHA-256 (first
    16 hex digits) of the masked body, which still pins it byte for byte without bloating the file.
    """

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.masks: dict[str, str] = {}

    def mask(self, text: str) -> str:
        for value, label in sorted(self.masks.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(value, label)
        return _ISO_TIME.sub("<time>", text)

    def __call__(self, label: str, response: Any, *, full: bool = False) -> Any:
        body = response.content.decode()
        masked = self.mask(_canonical(body))
        headers = "".join(f" {h}={response.headers[h]}" for h in _SHOWN_HEADERS if h in response.headers)
        head = self.mask(f"{label} -> {response.status_code}{headers}")
        if full or response.status_code >= 400:
            self.lines += [head, f"  {masked}"]
        else:
            self.lines.append(f"{head} body={hashlib.sha256(masked.encode()).hexdigest()[:16]}/{len(masked)}")
        return json.loads(body) if body else None


def _canonical(body: str) -> str:
    """A JSON body with its keys sorted: PostgreSQL's jsonb keeps keys in its own order, SQLite in
    the order written, and the order of an object's members means nothing to a client."""
    try:
        return json.dumps(json.loads(body), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except ValueError:
        return body


def api_transcript(game: str, monkeypatch: Any) -> str:
    """A 2-player ``game`` match through the test client, as text. Call inside a pytest ``db`` test.

    ann creates, ben joins, cat watches; then each round each player reads its state and, when
    awaited, sends its first legal move (the README's curl session), up to `API_MOVES` moves. Once,
    early: a stale ``expected_version`` (409), a move of the seat not awaited (422), a payload that
    is no move (400), and an Idempotency-Key replay.
    """
    import types

    from rest_framework.test import APIClient

    from accounts.models import User
    from accounts.services import token_for
    from games.services import lobby, play

    fixed = types.SimpleNamespace(randbits=lambda k: API_SEED, token_urlsafe=secrets.token_urlsafe)
    monkeypatch.setattr(lobby, "secrets", fixed)  # the match's seed, and a tie's rematch's
    monkeypatch.setattr(play, "secrets", fixed)
    rec = _Recorder()
    names = ("ann", "ben", "cat")
    clients = []
    for name in names:
        user = User.objects.create_user(username=name, password=f"{name}-long-passphrase")
        token = token_for(user)
        rec.masks[token] = f"<token:{name}>"
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        clients.append(client)
    ann, ben, cat = clients
    rec.lines.append(f"# API golden: a 2-player {game} match, seed {API_SEED}, at most {API_MOVES} moves")
    rec.lines.append("# regenerate: GOLDEN_REGEN=1 .venv/bin/pytest tests/golden -p no:xdist -k api")
    rec.lines.append("# body=<first 16 hex digits of the SHA-256 of the masked body>/<its length>")
    response = ann.post("/api/v1/matches", {"game": game, "players": 2}, format="json")
    mid = response.json()["id"]
    rec.masks[mid] = "<match>"
    rec(f"POST matches ann {game}", response, full=True)
    base = f"/api/v1/matches/{mid}"
    rec("POST join ben", ben.post(f"{base}/join", {}, format="json"), full=True)
    rec("GET state cat (spectator)", cat.get(f"{base}/state"))
    rec("GET state anonymous", APIClient().get(f"{base}/state"))

    def post_move(who: int, move: Any, version: int, label: str, **headers: str) -> Any:
        body = {"move": move, "expected_version": version}
        response = clients[who].post(f"{base}/moves", body, format="json", headers=headers)
        return rec(f"POST move {names[who]} {label}", response)

    moves, rounds, status = 0, 0, "active"
    stale_done = not_awaited_done = False
    while moves < API_MOVES and status == "active":
        rounds += 1
        for who in (0, 1):
            if moves >= API_MOVES:
                break
            state = rec(f"GET state {names[who]}", clients[who].get(f"{base}/state"), full=rounds == 1)
            status = state["status"]
            if status != "active" or state["you"] not in state["awaiting"] or not state["legal_moves"]:
                continue
            move, version = state["legal_moves"][0], state["version"]
            if not not_awaited_done and moves >= 2 and 1 - who not in state["awaiting"]:
                not_awaited_done = True
                post_move(1 - who, move, version, "(not awaited)")
            if not stale_done and moves >= 2:
                stale_done = True
                post_move(who, move, version - 1, "(stale expected_version)")
                post_move(who, {"type": "no-such-move"}, version, "(not a move)")
                post_move(who, move, version, canon(move), **{"Idempotency-Key": "golden-1"})
                post_move(who, move, version, "(the same Idempotency-Key again)", **{"Idempotency-Key": "golden-1"})
                post_move(who, move, version, "(the same body without the key: stale now)")
            else:
                post_move(who, move, version, canon(move))
            moves += 1
    rec.lines.append(f"# {moves} moves played in {rounds} rounds; the match is {status}")
    response = ann.get(f"{base}/state")
    final = rec("GET state ann", response, full=True)
    etag = response.headers["ETag"]
    rec("GET state ann If-None-Match", ann.get(f"{base}/state", headers={"If-None-Match": etag}))
    rec("GET state ben", ben.get(f"{base}/state"))
    rec("GET state cat (spectator)", cat.get(f"{base}/state"))
    rec("GET events ann after=0", ann.get(f"{base}/events", {"after": 0}))
    rec("GET events ben after=0", ben.get(f"{base}/events", {"after": 0}))
    rec("GET events cat after=0", cat.get(f"{base}/events", {"after": 0}))
    after = max(0, final["version"] - 4)
    rec(f"GET events ben after={after}", ben.get(f"{base}/events", {"after": after}), full=True)
    rec("GET match ann", ann.get(base), full=True)
    return "\n".join(rec.lines) + "\n"


def api_path(game: str) -> Path:
    return API_DIR / f"{game}.txt"


def write_engines() -> None:
    ENGINE_DIR.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        text = engine_transcript(case)
        case.path.write_text(text, encoding="utf-8")
        print(f"wrote {case.path.relative_to(HERE.parent.parent)} ({len(text.encode())} bytes)")


def main(argv: list[str]) -> int:
    write_engines()
    if "--engines" in argv:
        return 0
    import os
    import subprocess

    env = {**os.environ, "GOLDEN_REGEN": "1"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", str(HERE / "test_golden.py"), "-k", "api"]
    return subprocess.call(cmd, env=env, cwd=HERE.parent.parent)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
