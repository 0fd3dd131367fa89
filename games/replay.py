"""The only place that turns a match's record log into state: fold the records through the engine.

Each process keeps the latest state of recently used matches, keyed by (match id, version). A read
at a newer version folds only the records it has not seen; a cached state is only ever written after
its records are committed, so it always equals a full replay (``tests/games/test_replay.py``).

All processes share one more snapshot per match, in Django's cache ``replay`` (Redis, or a file
cache of its own on the embedded default): the state at some version, written on commit when a
remembered version crosses a multiple of SNAPSHOT_EVERY, when a match ends (its final state), when
a read folded that many records, and when a read folded a finished match (its snapshot expired).
A process that has nothing of a match (a new one, another worker, a long match) folds at most
SNAPSHOT_EVERY records on top of it, not the whole log (``tests/games/test_replay_shared.py``). The
state after record k is a function of the first k records alone (an undo only adds a record), so a
snapshot never goes stale; it is used only for a match of the rules version it was folded under.
The cache is an accelerator: when it fails, reads replay from the records, and writes are skipped.

A match that ends keeps the state it ended in, in the database (`keep_final`, `FinalState`), in the
transaction that ends it: a finished match read when no process and no shared snapshot holds it any
more (a history page opened weeks later) is unpickled, not replayed; on PostgreSQL it comes with
the match row, in place of its records (``tests/games/test_final_state.py``).
"""

from __future__ import annotations

import base64
import logging
import pickle
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from threading import Lock
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import transaction

from games import archive, sql
from games.models import FinalState, Match, Record
from rules import RULES
from rules.base import INPUT_RECORDS, Expired, Input, Moved, Resigned, Rules, Started, TimedOut, step

ENGINE_RECORDS = INPUT_RECORDS  # the record types that carry a game input; the others are lifecycle

_cache: OrderedDict[str, tuple[int, Any]] = OrderedDict()
_cache_lock = Lock()
_rules_of: OrderedDict[str, str] = OrderedDict()  # match id → `rules_tag`, for `remember` (given an id only)
SHARED_BACKOFF_S = 30.0  # after the shared cache failed, this process replays without it this long
_shared_off_until = [0.0]  # time.monotonic() until which the shared cache is not tried
_shared_warned = [False]  # an outage's first failure is a warning, the others debug
log = logging.getLogger(__name__)


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
    return _fold(match, seq, since, state, archive.steps(match, after=since, upto=seq))


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
    """The latest state at or before record ``seq`` this process holds, or the shared snapshot when
    that is further along and this process would fold more than SNAPSHOT_EVERY records: (its seq,
    the state), or (0, None)."""
    _learn(match)
    since, state = _held(match, seq)
    if seq - since > SNAPSHOT_EVERY:
        shared = _shared_for(match, seq)
        if shared is not None and shared[0] > since:
            return shared
    return since, state


def _held(match: Match, seq: int) -> tuple[int, Any]:
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
    tag: str = ""  # the `rules_tag` of the shared snapshot ``start`` is; "" when this process holds it
    asked: bool = False  # the shared cache was asked, and ``start`` is what it answered (or nothing)
    final: bool = False  # ``sql`` answers the match's final state in place of its records, when it has one

    def attach(self, match: Match, value: list[list[Any]] | dict[str, str] | None) -> None:
        if not self.sql:
            return
        if self.final:
            match._final_asked = True  # type: ignore[attr-defined]
            if isinstance(value, dict):  # `games.sql.record_tail`: the final state, not the records
                final = _final_of(base64.b64decode(value["final"]), match)
                if final is not None:
                    attach_tail(match, final, [], rules_tag(match), asked=True)
                    return
        rows = None if isinstance(value, dict) else value  # a final state that failed: no records came
        attach_tail(match, self.start, rows, self.tag, asked=self.asked)


def tail_of(match_id: str) -> Tail:
    """The `Tail` of ``match_id`` from this process's cached state (`games.sql.record_tail`), or,
    when this process holds none, from the shared snapshot: the match row is not read yet, so its
    rules version is checked once it is (`_attached`)."""
    start, tag = starting_point(match_id), ""
    text = sql.record_tail()
    asked = bool(text) and start[0] == 0
    if asked:
        shared = _shared_get(match_id)
        if shared is not None:
            tag, start = shared[0], (shared[1], shared[2])
        else:  # nothing anywhere but the database: the final state, when the match has one
            return Tail(sql.record_tail(final=True), [0], start, "", True, True)
    return Tail(text, [start[0]] if text else [], start, tag, asked)


NO_TAIL = Tail("", [], (0, None))  # a match read whose caller does not replay it


def starting_point(match_id: str) -> tuple[int, Any]:
    """The cached (version, state) of a match, or (0, None): where a read of its tail starts."""
    with _cache_lock:
        return _cache.get(match_id) or (0, None)


def attach_tail(
    match: Match, start: tuple[int, Any], rows: list[list[Any]] | None, tag: str = "", *, asked: bool = False
) -> None:
    """Give ``match`` the records read with it after ``start``, for `match_state` (``tag``: the
    `rules_tag` of the shared snapshot ``start`` is, "" for this process's own state; ``asked``:
    the shared cache was asked for ``start`` already)."""
    match._replay_tail = (start, rows or [], tag, asked)  # type: ignore[attr-defined]


def _attached(match: Match) -> tuple[int, Any, list[list[Any]], bool, bool] | None:
    """The tail read with the match row, used once, whether its start is a shared snapshot, and
    whether the shared cache was asked for it; None when there is none, it does not lead exactly to
    ``match.version`` (a match changed since it was read), or it starts from a snapshot of another
    rules version."""
    attached = match.__dict__.pop("_replay_tail", None)
    if attached is None:
        return None
    (since, state), rows, tag, asked = attached
    if tag and tag != rules_tag(match):
        return None
    return (since, state, rows, bool(tag), asked) if since + len(rows) == match.version else None


def match_state(match: Match) -> Any:
    """The state of ``match`` at ``match.version``: the cached prefix (this process's, else the
    shared snapshot) plus the records after it (read with the match row when it was read with its
    `Tail`, else queried here)."""
    _learn(match)
    attached = _attached(match)
    rows: Sequence[Sequence[Any]]
    if attached is not None:
        since, state, rows, shared, asked = attached
        if len(rows) > SNAPSHOT_EVERY and not shared and not asked:  # this process's state is far behind
            since, state, rows, shared = _closer(match, since, state, rows)
    else:
        since, state, shared = _start(match)
        if since == match.version and since and not shared:
            return state
        rows = [] if since == match.version else _rows_after(match, since)
    if not rows and not shared:
        return state
    state = replay(match, rows, state)
    match_id, version = match.id, match.version
    share = len(rows) >= SNAPSHOT_EVERY or (bool(rows) and not match.is_live)  # a finished match: its last state
    transaction.on_commit(lambda: _remember(match_id, version, state, share))  # only committed records are cached
    return state


def _start(match: Match) -> tuple[int, Any, bool]:
    """Where `match_state` folds from when no tail came with the row: this process's cached state,
    or the shared snapshot (True) when that is further along and this process would fold more
    than SNAPSHOT_EVERY records (it holds nothing of the match, or an old state)."""
    since, state = starting_point(match.id)
    if since > match.version:  # cached past a version read earlier: replay from the start
        since, state = (0, None)
    if since < match.version and not match.is_live and not match.__dict__.pop("_final_asked", False):
        final = _final_of(sql.final_state(match.id, match.version), match)
        if final is not None:
            return final[0], final[1], True
    if match.version - since > SNAPSHOT_EVERY:
        shared = _shared_for(match, match.version)
        if shared is not None and shared[0] > since:
            return shared[0], shared[1], True
    return since, state, False


def _closer(match: Match, since: int, state: Any, rows: list[list[Any]]) -> tuple[int, Any, list[list[Any]], bool]:
    """A tail read with the row that is longer than SNAPSHOT_EVERY: folded from the shared
    snapshot instead, when that is within it (True), skipping the records before it."""
    shared = _shared_for(match, match.version)
    if shared is None or shared[0] <= since:
        return since, state, rows, False
    return shared[0], shared[1], rows[shared[0] - since :], True


def _rows_after(match: Match, since: int) -> list[Sequence[Any]]:
    """The records ``(type, seat, move)`` after ``since`` up to ``match.version``."""
    return [step[1:] for step in archive.steps(match, after=since, upto=match.version)]


def keep_final(match: Match, state: Any) -> None:
    """Store ``state``, the state ``match`` ended in at ``match.version``, with it (`FinalState`):
    call in the transaction that ends the match, so that it commits with the last record."""
    blob = pickle.dumps((rules_tag(match), match.version, state), protocol=pickle.HIGHEST_PROTOCOL)
    FinalState.objects.bulk_create(
        [FinalState(match_id=match.id, version=match.version, state=blob)],
        update_conflicts=True,
        unique_fields=["match"],
        update_fields=["version", "state"],
    )


def kept_final(match: Match) -> tuple[bool, tuple[int, Any] | None]:
    """For the audit: whether ``match`` keeps a final state at its version, and (version, state)
    when that reads back as the match's (`_final_of`)."""
    blob = sql.final_state(match.id, match.version)
    return blob is not None, _final_of(blob, match)


def _final_of(blob: bytes | memoryview | None, match: Match) -> tuple[int, Any] | None:
    """(version, state) of a stored final state when it is ``match``'s at its version and rules;
    None when there is none, or it is of other rules, or it does not read back (replay instead)."""
    if blob is None:
        return None
    try:
        value = pickle.loads(blob)
    except Exception as exc:  # a state this code can no longer unpickle: say so, never what it holds
        log.warning("match %s: its final state does not read back (%s); replaying", match.id, type(exc).__name__)
        return None
    if not (isinstance(value, tuple) and len(value) == 3) or value[:2] != (rules_tag(match), match.version):
        return None
    return value[1], value[2]


def full_replay(match: Match) -> Any:
    """The state rebuilt from record 1, bypassing the cache (tests and audits)."""
    return replay(match, [step[1:] for step in archive.steps(match, upto=match.version)])


def remember(match_id: str, version: int, state: Any, *, final: bool = False) -> None:
    """Cache ``state`` as the state at ``version`` (call only for committed records); shared too
    when ``version`` crossed a multiple of SNAPSHOT_EVERY since the version this process held (at
    most one write every SNAPSHOT_EVERY records, and no read of the shared cache to decide), and
    when it is the ``final`` state of a match that just ended (its last state, read from then on)."""
    _remember(match_id, version, state, True if final else None)


def _remember(match_id: str, version: int, state: Any, share: bool | None) -> None:
    """`remember`; ``share`` None: share when a multiple of SNAPSHOT_EVERY was crossed."""
    with _cache_lock:
        current = _cache.get(match_id)
        if current is not None and current[0] > version:
            return
        if share is None:
            share = version // SNAPSHOT_EVERY > (version - 1 if current is None else current[0]) // SNAPSHOT_EVERY
        _cache[match_id] = (version, state)
        _cache.move_to_end(match_id)
        while len(_cache) > settings.TABULA_STATE_CACHE_SIZE:
            _cache.popitem(last=False)
        tag = _rules_of.get(match_id) if share and version else None
    if tag is not None:
        _shared_set(match_id, (tag, version, state))


def forget_all() -> None:
    """Forget what this process holds (its states, snapshots, and a shared cache found failing);
    the shared snapshots stay."""
    with _cache_lock:
        _cache.clear()
        _snapshots.clear()
        _rules_of.clear()
        _shared_off_until[0] = 0.0


# The snapshot all processes share (module docstring): under `shared_key`, (`rules_tag`, seq, state).


def rules_tag(match: Match) -> str:
    """The engine a state of ``match`` was folded by: a snapshot is used only for the same one."""
    return f"{match.game}:{match.rules_version}"


def shared_key(match_id: str) -> str:
    """The shared snapshot's cache key: by the match id alone, since `tail_of` asks for it before
    the match row (and its rules version) is read; the value carries the `rules_tag`."""
    return f"replay:{match_id}"


def _learn(match: Match) -> None:
    """Note the `rules_tag` of a match this process folds, so that `remember` can share its states."""
    tag = rules_tag(match)
    with _cache_lock:
        _rules_of[match.id] = tag
        _rules_of.move_to_end(match.id)
        while len(_rules_of) > settings.TABULA_STATE_CACHE_SIZE:
            _rules_of.popitem(last=False)


def _shared_for(match: Match, upto: int) -> tuple[int, Any] | None:
    """The shared snapshot of ``match`` when it is of the match's rules and at or before ``upto``."""
    shared = _shared_get(match.id)
    if shared is None or shared[0] != rules_tag(match) or not 0 < shared[1] <= upto:
        return None
    return shared[1], shared[2]


def _shared_get(match_id: str) -> tuple[str, int, Any] | None:
    """The shared (rules tag, seq, state) of a match, or None (none, or the cache failing)."""
    if not settings.TABULA_STATE_SNAPSHOTS or time.monotonic() < _shared_off_until[0]:
        return None
    try:
        value = caches["replay"].get(shared_key(match_id))
    except Exception as exc:  # down, slow, or a value this code cannot unpickle: replay from the records
        _shared_failed("read", exc)
        return None
    _shared_warned[0] = False
    if not (isinstance(value, tuple) and len(value) == 3 and isinstance(value[1], int)):
        return None
    return value


def _shared_set(match_id: str, value: tuple[str, int, Any]) -> None:
    """Store the shared snapshot (runs on commit: a failure is logged, never raised)."""
    if not settings.TABULA_STATE_SNAPSHOTS or time.monotonic() < _shared_off_until[0]:
        return
    try:
        caches["replay"].set(shared_key(match_id), value, settings.TABULA_STATE_SNAPSHOT_TTL)
    except Exception as exc:
        _shared_failed("write", exc)
    else:
        _shared_warned[0] = False


def _shared_failed(what: str, exc: Exception) -> None:
    """Leave the shared cache alone for SHARED_BACKOFF_S (a cache timing out would otherwise cost
    each read its timeout); say so as a warning once an outage, then at debug (the error's type
    only: a message could quote a state)."""
    _shared_off_until[0] = time.monotonic() + SHARED_BACKOFF_S
    level = logging.DEBUG if _shared_warned[0] else logging.WARNING
    _shared_warned[0] = True
    log.log(level, "replay snapshot %s failed (%s): replaying from the records", what, type(exc).__name__)
