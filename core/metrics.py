"""Tabula's own Prometheus metrics (beside django-prometheus' request and database ones).

Labels are closed sets only: a game id, a refusal code, an actor, a timer kind, a bot level, a queue.
Never a user, a match or a raw path. Under gunicorn and Celery the values live in
``PROMETHEUS_MULTIPROC_DIR`` (multiprocess mode); ``docs/operations.md`` says what each one means.
Recording is a few dictionary look-ups and an mmap write: cheap enough for the move path.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
_LATE = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0)

MOVES_ACCEPTED = Counter(
    "tabula_moves_accepted", "Moves accepted and recorded, by game and actor (player, bot).", ["game", "actor"]
)
MOVES_REFUSED = Counter(
    "tabula_moves_refused",
    "Moves refused, by game and refusal code (version_conflict, illegal_move…).",
    ["game", "code"],
)
MOVE_SECONDS = Histogram(
    "tabula_move_seconds", "Time to apply one move in the service: lock, replay, step, insert.", ["game"], buckets=_FAST
)
TIMERS_FIRED = Counter(
    "tabula_timers_fired",
    "Deadlines applied: kind is game_timer or seat_clock; source is task (its own countdown) or sweep.",
    ["kind", "source"],
)
TIMER_LATENESS = Histogram(
    "tabula_timer_lateness_seconds", "How far behind its deadline a timer was applied.", ["kind"], buckets=_LATE
)
BOT_DECISION_SECONDS = Histogram(
    "tabula_bot_decision_seconds", "Time a bot took to choose a move, by level.", ["level"], buckets=_FAST
)
OPEN_STREAMS = Gauge(
    "tabula_open_streams", "Event streams held open (set by the stream server).", multiprocess_mode="livesum"
)

UNKNOWN_GAME = "unknown"


def move_accepted(game: str, actor: str, seconds: float) -> None:
    MOVES_ACCEPTED.labels(game, actor).inc()
    MOVE_SECONDS.labels(game).observe(seconds)


def move_refused(game: str, code: str) -> None:
    MOVES_REFUSED.labels(game, code).inc()


def timer_fired(kind: str, source: str, lateness_s: float) -> None:
    TIMERS_FIRED.labels(kind, source).inc()
    TIMER_LATENESS.labels(kind).observe(max(0.0, lateness_s))
