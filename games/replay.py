"""The only place that turns a match's record log into state: fold the records through the engine.

Each process keeps the latest state of recently used matches, keyed by (match id, version). A read
at a newer version folds only the records it has not seen; a cached state is only ever written after
its records are committed, so it always equals a full replay (``tests/games/test_replay.py``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from threading import Lock
from typing import Any

from django.conf import settings
from django.db import transaction

from games import archive, sql
from games.models import Match, Record
from rules import RULES
from rules.base import INPUT_RECORDS, Expired, Input, Moved, Resigned, Rules, Started, TimedOut, step

ENGINE_RECORDS = INPUT_RECORDS  # the record types that carry a game input; the others are lifecycle

_cache: OrderedDict[str, tuple[int, Any]] = OrderedDict()
_cache_lock = Lock()


class RulesVersionMismatch(RuntimeError):
    """The match was recorded under a ruleset this server no longer replays."""


def rules_for(match: Match) -> Rules[Any, Any, Any]:
    rules = RULES[match.game]
    if rules.version != match.rules_version:
        raise RulesVersionMismatch(f"{match.game} v{match.rules_version} is recorded; this server has v{rules.version}")
    return rules


def input_of(rules: Rules[Any, Any, Any], match: Match, rtype: str, seat: int | None, move: Any) -> Input | None:
    """The game input a stored record carries (None for lifecycle records)."""
    if rtype == Record.Type.STARTED:
        return Started(rules.parse_config(match.options, match.players), match.seed)
    if rtype == Record.Type.MOVE:
        assert seat is not None
        return Moved(seat, rules.parse_move(move))
    if rtype == Record.Type.TIMEOUT:
        assert seat is not None
        return TimedOut(seat)
    if rtype == Record.Type.RESIGNED:
        assert seat is not None
        return Resigned(seat)
    if rtype == Record.Type.EXPIRED:
        return Expired()
    return None


def replay(match: Match, records: Iterable[Sequence[Any]], state: Any = None) -> Any:
    """Fold ``records`` (type, seat, move) onto ``state`` through `step`; None until the match has started.

    An ``undone`` record (an undo or an accepted takeback; its ``move`` column holds ``{"to_seq": k}``)
    sets the state back to the state at ``k``: the span it undoes stays in the log, skipped."""
    rules = rules_for(match)
    for rtype, seat, move in records:
        if rtype == Record.Type.UNDONE:
            state = state_at(match, int(move["to_seq"]))
            continue
        given = input_of(rules, match, rtype, seat, move)
        if given is not None:
            state = step(rules, state, given)[0]
    return state


SNAPSHOT_EVERY = 64  # `state_at` keeps the state after every 64th record it folds past, and the last one asked
SNAPSHOTS = 4096  # snapshots each process keeps, over all matches (least recently used go first)
_snapshots: OrderedDict[tuple[str, int], Any] = OrderedDict()


def state_at(match: Match, seq: int) -> Any:
    """The state after record ``seq`` (an undo, a replay step ``GET state?at=``): folded from the
    nearest snapshot at or before ``seq`` (or the cached latest state, when that is where ``seq``
    is), so stepping through a long match folds a few records a step, not the whole log. Snapshots
    are kept once the reading transaction commits: only committed records ever make one."""
    since, state = _nearest(match, seq)
    if since == seq and since:
        return state
    if match.archived_at is not None:
        rows: Any = [(r.seq, r.type, r.seat, r.move) for r in archive.records(match, after=since, upto=seq)]
    else:
        rows = (
            Record.objects.filter(match_id=match.id, seq__gt=since, seq__lte=seq)
            .order_by("seq")
            .values_list("seq", "type", "seat", "move")
        )
    return _fold(match, seq, since, state, rows)


def state_and_record_at(match: Match, seq: int) -> tuple[Any, Record | None]:
    """`state_at` and record ``seq`` itself (a replay step shows both), in one query: the records
    folded and the one shown come in the same read."""
    since, state = _nearest(match, seq)
    if since == seq and since:
        return state, next(iter(archive.records(match, after=seq - 1, upto=seq)), None)
    rows = archive.records(match, after=since, upto=seq)
    last = rows[-1] if rows and rows[-1].seq == seq else None
    return _fold(match, seq, since, state, [(r.seq, r.type, r.seat, r.move) for r in rows]), last


def _nearest(match: Match, seq: int) -> tuple[int, Any]:
    """The latest state this process holds at or before record ``seq``: (its seq, the state), or (0, None)."""
    since, state = 0, None
    with _cache_lock:
        latest = _cache.get(match.id)
        if latest is not None and latest[0] == seq:
            return latest
        for k in range(seq, max(0, seq - SNAPSHOT_EVERY) - 1, -1):
            if (match.id, k) in _snapshots:
                since, state = k, _snapshots[(match.id, k)]
                _snapshots.move_to_end((match.id, k))
                break
        if since == 0 and latest is not None and latest[0] < seq:
            since, state = latest
    return since, state


def _fold(match: Match, seq: int, since: int, state: Any, rows: Any) -> Any:
    """Records ``(seq, type, seat, move)`` after ``since`` folded onto ``state``; snapshots kept on commit."""
    keep: list[tuple[int, Any]] = []
    for number, *row in rows:
        state = replay(match, [row], state)
        if number % SNAPSHOT_EVERY == 0 or number == seq:
            keep.append((number, state))
    match_id = match.id
    transaction.on_commit(lambda: _snapshot(match_id, keep))
    return state


def _snapshot(match_id: str, states: list[tuple[int, Any]]) -> None:
    with _cache_lock:
        for seq, state in states:
            _snapshots[(match_id, seq)] = state
            _snapshots.move_to_end((match_id, seq))
        while len(_snapshots) > SNAPSHOTS:
            _snapshots.popitem(last=False)


@dataclass(frozen=True)
class Tail:
    """The records to read with a match row: those after the state this process has cached.

    On PostgreSQL ``sql`` is `games.sql.record_tail`, a scalar subquery to add to the SELECT list of
    the statement that reads the match row (its ``params`` go where it stands): the records after
    the cached version, as JSON. `attach` hands them to `match_state`, which then needs no query of
    its own. Elsewhere (SQLite) ``sql`` is empty and `match_state` queries."""

    sql: str
    params: list[Any]
    start: tuple[int, Any]  # the cached (version, state) the records follow

    def attach(self, match: Match, value: list[list[Any]] | None) -> None:
        if self.sql:
            attach_tail(match, self.start, value)


def tail_of(match_id: str) -> Tail:
    """The `Tail` of ``match_id`` from this process's cached state (`games.sql.record_tail`)."""
    start = starting_point(match_id)
    text = sql.record_tail()
    return Tail(text, [start[0]] if text else [], start)


NO_TAIL = Tail("", [], (0, None))  # a match read whose caller does not replay it


def starting_point(match_id: str) -> tuple[int, Any]:
    """The cached (version, state) of a match, or (0, None): where a read of its tail starts."""
    with _cache_lock:
        return _cache.get(match_id) or (0, None)


def attach_tail(match: Match, start: tuple[int, Any], rows: list[list[Any]] | None) -> None:
    """Give ``match`` the records read with it after ``start``, for `match_state`."""
    match._replay_tail = (start, rows or [])  # type: ignore[attr-defined]


def _attached(match: Match) -> tuple[int, Any, list[list[Any]]] | None:
    """The tail read with the match row, used once; None when there is none or it does not lead
    exactly to ``match.version`` (a match changed since it was read)."""
    attached = match.__dict__.pop("_replay_tail", None)
    if attached is None:
        return None
    (since, state), rows = attached
    return (since, state, rows) if since + len(rows) == match.version else None


def match_state(match: Match) -> Any:
    """The state of ``match`` at ``match.version``: the cached prefix plus the records after it
    (read with the match row when it was read with its `Tail`, else queried here)."""
    attached = _attached(match)
    rows: Sequence[Sequence[Any]]
    if attached is not None:
        since, state, rows = attached
        if not rows:
            return state
    else:
        since, state = starting_point(match.id)
        if since > match.version:  # cached past a version read earlier: replay from the start
            since, state = (0, None)
        if since == match.version and since:
            return state
        if match.archived_at is not None:
            rows = [(r.type, r.seat, r.move) for r in archive.records(match, after=since, upto=match.version)]
        else:
            rows = list(
                Record.objects.filter(match_id=match.id, seq__gt=since, seq__lte=match.version)
                .order_by("seq")
                .values_list("type", "seat", "move")
            )
    state = replay(match, rows, state)
    version = match.version
    transaction.on_commit(lambda: remember(match.id, version, state))  # only committed records are cached
    return state


def full_replay(match: Match) -> Any:
    """The state rebuilt from record 1, bypassing the cache (tests and audits)."""
    rows = [(r.type, r.seat, r.move) for r in archive.records(match, upto=match.version)]
    return replay(match, rows)


def remember(match_id: str, version: int, state: Any) -> None:
    """Cache ``state`` as the state at ``version`` (call only for committed records)."""
    with _cache_lock:
        current = _cache.get(match_id)
        if current is not None and current[0] > version:
            return
        _cache[match_id] = (version, state)
        _cache.move_to_end(match_id)
        while len(_cache) > settings.TABULA_STATE_CACHE_SIZE:
            _cache.popitem(last=False)


def forget_all() -> None:
    with _cache_lock:
        _cache.clear()
        _snapshots.clear()
