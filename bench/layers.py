"""Section 10: the request path, layer by layer (issue 31). Where the time of ``GET state`` and
``POST moves`` goes: each middleware's own time, DRF around the view, the view itself.

In a child process configured like the write section's server (``bench.settings``: the dev
settings, the access log on, PostgreSQL, Redis for the token cache and the streams when it answers),
a 4-player EKKO match is played through Django's WSGI handler: the awaited seat reads ``GET state``
and sends one of its legal moves at random (``POST moves`` with ``expected_version``), as the write
load does, with the headers its client sends (gzip accepted), each request built as the front builds
it (`front.wsgi.environ`). In every request each middleware's ``get_response`` (the rest of the chain
below it) is timed, so a layer's own time is the time inside it less the time below it, measured in
the same request (Django's exception wrapper around each layer included). DRF's
``initialize_request``, ``initial`` (authentication, permissions, throttles, negotiation),
``finalize_response`` and the rendering are timed apart from the view method.

One thread, no HTTP, no thread hand-off, nothing else in flight: each layer's own cost, not its
share under load (section 3 and the peer comparison measure that).

    .venv/bin/python bench/run.py --only layers
"""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import heading, median
from bench.infra import ROOT, Database, _tail, environment, migrate

SETTINGS = "bench.settings"
REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")
MOVES = int(os.environ.get("BENCH_LAYERS_MOVES", "500"))  # measured, after the warm-up
WARMUP = 40
HEADERS = [  # what the load clients send (Node's fetch; section 3's client sends fewer)
    (b"accept", b"application/json"),
    (b"accept-encoding", b"gzip, deflate"),
    (b"accept-language", b"*"),
    (b"user-agent", b"node"),
    (b"sec-fetch-mode", b"cors"),
]


def run(var_dir: Path, database: Database) -> None:
    heading("10. Request path, layer by layer (in-process, one thread: GET state and POST moves, EKKO of 4)")
    env = environment(var_dir, database, SETTINGS) | {"LOG_LEVEL": "INFO"}
    from bench.writes import _redis_answers

    redis_url = REDIS if _redis_answers(REDIS) else ""
    if redis_url:
        env |= {"CELERY_BROKER_URL": redis_url, "REDIS_URL": redis_url}
    migrate(env)
    print(f"   database: {database.kind} ({database.label}); Redis: {redis_url or 'none (filesystem broker)'}")
    print(f"   {MOVES} moves after {WARMUP} unmeasured; the access log goes to a file, as a terminal's would")
    log = var_dir / "layers.log"
    with open(log, "ab") as out:
        done = subprocess.run([sys.executable, "-m", "bench.layers"], cwd=ROOT, env=env, stderr=out, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"bench.layers ended with status {done.returncode}:\n{_tail(log)}")


# --- the child ------------------------------------------------------------------------------------


class Timer:
    """Seconds spent inside wrapped callables, per request (`wrap`), reset by `take`."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}

    def wrap(self, owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.spent[label] = self.spent.get(label, 0.0) + time.perf_counter() - started

        setattr(owner, name, timed)

    def take(self) -> dict[str, float]:
        spent, self.spent = self.spent, {}
        return spent


class Table:
    """A match of four played through any handler; the timings of each variant's moves."""

    def __init__(self, call: Callable[..., tuple[int, bytes]]) -> None:
        self.call = call
        self.rng = random.Random(1)
        self.tokens = [self._register(i) for i in range(4)]
        self._new_match()

    def _register(self, i: int) -> str:
        name = f"layers-{os.getpid()}-{i}"
        body = {"username": name, "password": f"pw-{name}-long-enough"}
        return str(_json(self._expect(self.call("POST", "/auth/register", None, body), 201))["token"])

    @staticmethod
    def _expect(reply: tuple[int, bytes], *statuses: int) -> bytes:
        if reply[0] not in statuses:
            raise RuntimeError(f"HTTP {reply[0]}: {reply[1][:300]!r}")
        return reply[1]

    def _new_match(self) -> None:
        body = {"game": "ekko", "players": 4, "options": {"target_score": 100}}
        self.match = _json(self._expect(self.call("POST", "/matches", self.tokens[0], body), 201))["id"]
        for token in self.tokens[1:]:
            self._expect(self.call("POST", f"/matches/{self.match}/join", token, {}), 200, 201)
        self.seats = {}
        for token in self.tokens:
            state = _json(self._expect(self.call("GET", f"/matches/{self.match}/state", token), 200))
            self.seats[state["you"]] = token

    def move(self, handler: Any, before: Callable[[], Any] = lambda: None) -> tuple[float, float] | None:
        """One move by the first awaited seat with a legal move, its two requests through
        ``handler`` (``before`` called just ahead of them): their seconds (None when the match
        ended and a new one began)."""
        state = _json(self._expect(self.call("GET", f"/matches/{self.match}/state", self.tokens[0]), 200))
        if state["status"] != "active":
            self._new_match()
            return None
        for seat in state["awaiting"]:
            token = self.seats[seat]
            before()
            started = time.perf_counter()
            mine = _json(self._expect(self.call("GET", f"/matches/{self.match}/state", token, handler=handler), 200))
            read = time.perf_counter()
            legal = mine.get("legal_moves") or []
            if not legal:
                continue
            body = {"move": self.rng.choice(legal), "expected_version": mine["version"]}
            self._expect(self.call("POST", f"/matches/{self.match}/moves", token, body, handler=handler), 201)
            return read - started, time.perf_counter() - read
        return None


def _json(body: bytes) -> Any:
    return json.loads(gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body)


class Chain:
    """Django's handler with each middleware's own time measured in every request: each layer's
    ``get_response`` (the rest of the chain below it) is timed, so a layer's own time is the time
    inside it less the time below it (Django's exception wrapper around each layer included)."""

    def __init__(self, handler: Any) -> None:
        self.names: list[str] = []
        self.below: list[float] = []
        self.whole = 0.0
        layer = handler._middleware_chain.__wrapped__  # convert_exception_to_response's functools.wraps
        while hasattr(layer, "get_response"):
            index = len(self.names)
            self.names.append(type(layer).__name__)
            self.below.append(0.0)
            layer.get_response = self._timed(layer.get_response, index)
            layer = getattr(layer.get_response.__wrapped__, "__wrapped__", None)
        self._chain = handler._middleware_chain
        handler._middleware_chain = self._outer

    def _timed(self, below: Callable[[Any], Any], index: int) -> Callable[[Any], Any]:
        def timed(request: Any) -> Any:
            started = time.perf_counter()
            try:
                return below(request)
            finally:
                self.below[index] += time.perf_counter() - started

        timed.__wrapped__ = below  # type: ignore[attr-defined]
        return timed

    def _outer(self, request: Any) -> Any:
        started = time.perf_counter()
        try:
            return self._chain(request)
        finally:
            self.whole += time.perf_counter() - started

    def take(self) -> list[float]:
        """The seconds of the last requests since the previous `take`: the chain, each layer's own,
        and what is below the last layer (the view's part of Django's handler)."""
        inside = [self.whole, *self.below]
        own = [inside[i] - inside[i + 1] for i in range(len(self.names))]
        taken = [self.whole, *own, self.below[-1]]
        self.whole, self.below = 0.0, [0.0] * len(self.names)
        return taken


def main() -> None:
    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler
    from django.template.response import SimpleTemplateResponse
    from rest_framework.views import APIView

    from api.views.matches import MatchStateApi, MoveSubmitApi
    from front.wsgi import environ

    timer = Timer()
    for name in ("initialize_request", "initial", "finalize_response"):
        timer.wrap(APIView, name, "drf")
    timer.wrap(SimpleTemplateResponse, "render", "drf")  # DRF's Response renders here (the renderer)
    timer.wrap(MatchStateApi, "get", "view")
    timer.wrap(MoveSubmitApi, "post", "view")
    handler = WSGIHandler()
    chain = Chain(handler)

    def call(method: str, path: str, token: str | None, body: Any = None, handler: Any = handler) -> tuple[int, bytes]:
        headers = list(HEADERS)
        if token:
            headers.append((b"authorization", f"Token {token}".encode()))
        raw = b""
        if body is not None:
            raw = json.dumps(body).encode()
            headers += [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
        scope = {"method": method, "path": "/api/v1" + path, "query_string": b"", "headers": headers}
        started: list[str] = []
        result = handler(environ(scope, raw), lambda status, *_: started.append(status))
        try:
            return int(started[0][:3]), b"".join(result)
        finally:
            result.close()

    pending: list[tuple[float, list[float], dict[str, float]]] = []

    def timed_call(
        method: str, path: str, token: str | None, body: Any = None, handler: Any = None
    ) -> tuple[int, bytes]:
        started = time.perf_counter()
        reply = call(method, path, token, body)
        if handler is not None:  # one of the move's two measured requests
            pending.append((time.perf_counter() - started, chain.take(), timer.take()))
        return reply

    def before() -> None:
        pending.clear()
        chain.take()
        timer.take()

    seconds: list[float] = []
    layers: list[list[float]] = []
    parts: list[dict[str, float]] = []
    table = Table(timed_call)
    for _ in range(WARMUP):
        table.move(None)
    while len(seconds) < 2 * MOVES:
        if table.move(True, before=before) is not None:
            for spent, layer, part in pending:  # GET state, then POST moves
                seconds.append(spent)
                layers.append(layer)
                parts.append(part)
    _report(chain.names, seconds, layers, parts)


def _report(names: list[str], seconds: list[float], layers: list[list[float]], parts: list[dict[str, float]]) -> None:
    gets, posts = slice(0, None, 2), slice(1, None, 2)

    def row(label: str, values: list[float]) -> None:
        get, post = median(values[gets]), median(values[posts])
        print(f"   {label:52} {get * 1000:>9.3f} {post * 1000:>10.3f} {(get + post) * 1000:>8.3f}")

    print(f"   {'where the time goes':52} {'GET state':>9} {'POST moves':>10} {'a move':>8}  (ms, medians)")
    row("the request, from the WSGI call to its last byte", seconds)
    row(f"the middleware, {len(names)} layers, each its own time:", [sum(t[1:-1]) for t in layers])
    for i, name in enumerate(names):
        row(f"  {name}", [t[1 + i] for t in layers])
    row("below the middleware: URL resolving, the view", [t[-1] for t in layers])
    row("  DRF around the view: request, initial, response, render", [p.get("drf", 0.0) for p in parts])
    row("  the view method: services, SQL, the state", [p.get("view", 0.0) for p in parts])
    row("outside the chain: the WSGI request and response", [s - t[0] for s, t in zip(seconds, layers, strict=True)])


if __name__ == "__main__":
    main()
