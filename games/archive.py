"""Finished matches' records leave the hot table (issue 30, part 4).

The records table takes every move of every match, so it grows with the service's whole history;
the moves of live matches are what it is read and written for. A match finished for longer than
``TABULA_ARCHIVE_AFTER_DAYS`` has its log moved, in one transaction under the match's row lock,
into one `ArchivedLog` row (zlib-compressed JSON, about a tenth of the rows' size), and
``Match.archived_at`` says so. `records` is the one way every reader of a log reads it (events,
export, replay and replay steps, the audit `verify_matches`): from the table, or from the archive
as the same `Record` objects. A log is never edited once its match is over, so the archive needs
no way back. The hourly beat job `games.tasks.archive_sweep` archives at most
``TABULA_ARCHIVE_BATCH`` matches a run.
"""

from __future__ import annotations

import json
import threading
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone

from core import jsontext
from core.sql import columns, convert, fetch, hydrate, table
from games.models import ArchivedLog, Match, Record

_FINISHED = (Match.Status.FINISHED, Match.Status.ABORTED)
_CACHE_SIZE = 64  # decoded logs per process: a replay steps through one log many times
#: A log as its archive row holds it, decoded: ``[seq, type, seat, actor, move, effects, data, at]``
#: per record, ``at`` as ISO text.
_Row = list[Any]
_cache: OrderedDict[str, list[_Row]] = OrderedDict()
_lock = threading.Lock()


def _pack(rows: list[Record]) -> bytes:
    plain = [[r.seq, r.type, r.seat, r.actor, r.move, r.effects, r.data, r.at.isoformat()] for r in rows]
    return zlib.compress(json.dumps(plain, separators=(",", ":")).encode(), 6)


#: `Record`'s fields in the order its constructor takes them positionally (`_record`): a log of a
#: hundred records built by keyword spent 0.4 ms more. A change to the model fails here, not later.
_POSITIONAL = ("id", "match_id", "seq", "type", "seat", "actor", "move", "effects", "data", "at")
if tuple(f.attname for f in Record._meta.concrete_fields) != _POSITIONAL:
    raise ImproperlyConfigured(f"games.archive._POSITIONAL is not Record's field order: {_POSITIONAL}")


def _record(match_id: str, row: _Row) -> Record:
    seq, kind, seat, actor, move, effects, data, at = row
    return Record(None, match_id, seq, kind, seat, actor, move, effects, data, datetime.fromisoformat(at))


def _archived(match_id: str) -> list[_Row]:
    """The decoded rows of a match's archive (none when it has none), from this process's cache."""
    with _lock:
        found = _cache.get(match_id)
        if found is not None:
            _cache.move_to_end(match_id)
            return found
    blob = fetch(f"SELECT a.records FROM {table(ArchivedLog)} a WHERE a.match_id = %s", [match_id])
    rows: list[_Row] = jsontext.loads(zlib.decompress(bytes(blob[0][0]))) if blob else []
    with _lock:
        _cache[match_id] = rows
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return rows


def _between(rows: list[_Row], after: int, upto: int | None) -> list[_Row]:
    return [row for row in rows if row[0] > after and (upto is None or row[0] <= upto)]


def records(match: Match, *, after: int = 0, upto: int | None = None, limit: int | None = None) -> list[Record]:
    """Records ``after < seq <= upto`` of ``match`` in order (at most ``limit``), wherever they are."""
    if match.archived_at is None:
        return _live_records(match.id, after, upto, limit)
    rows = _between(_archived(match.id), after, upto)
    return [_record(match.id, row) for row in (rows[:limit] if limit is not None else rows)]


_STEP_FIELDS = ("seq", "type", "seat", "move")


def steps(match: Match, *, after: int = 0, upto: int | None = None) -> list[tuple[int, str, int | None, Any]]:
    """``(seq, type, seat, move)`` of `records` ``after < seq <= upto``: what a replay folds, and only
    that. A live log's four columns are read alone (a prepared statement); an archived log's come
    straight from its decoded rows, without a `Record` each: a cold ``GET state`` of an archived
    match built a hundred and used four fields of them (issue 31)."""
    if match.archived_at is None:
        sql, params = _live_sql("r.seq, r.type, r.seat, r.move", match.id, after, upto, None)
        converted = (convert(Record, _STEP_FIELDS, row) for row in fetch(sql, params))
        return [(seq, kind, seat, move) for seq, kind, seat, move in converted]
    return [(row[0], row[1], row[2], row[4]) for row in _between(_archived(match.id), after, upto)]


def _live_records(match_id: str, after: int, upto: int | None, limit: int | None) -> list[Record]:
    """``Record.objects.filter(match_id=…, seq__gt=after[, seq__lte=upto]).order_by("seq")[:limit]``,
    written once (`core.sql`: a prepared statement on PostgreSQL, rows hydrated as the ORM would):
    ``GET events`` reads a whole log, and compiling the query cost more than reading it."""
    sql, params = _live_sql(columns(Record, "r"), match_id, after, upto, limit)
    return [hydrate(Record, row) for row in fetch(sql, params)]


def _live_sql(names: str, match_id: str, after: int, upto: int | None, limit: int | None) -> tuple[str, list[Any]]:
    """The statement of a live log's records ``after < seq <= upto`` in order (at most ``limit``),
    their columns ``names`` (on ``r``)."""
    sql = f"SELECT {names} FROM {table(Record)} r WHERE r.match_id = %s AND r.seq > %s"
    params: list[Any] = [match_id, after]
    if upto is not None:
        sql += " AND r.seq <= %s"
        params.append(upto)
    sql += " ORDER BY r.seq"
    if limit is not None:
        sql += " LIMIT %s"
        params.append(limit)
    return sql, params


class LogRecord(NamedTuple):
    """A record as a log reader sees it: `Record`'s fields without the model around them. ``GET
    events`` shows a whole log; building a model instance for each record was most of its time,
    and a frozen dataclass's was still 40 % of reading a page of 80 from its JSON (a tuple's: 6 %)."""

    seq: int
    type: str
    seat: int | None
    actor: str
    move: Any
    effects: list[dict[str, Any]]
    data: dict[str, Any]
    at: datetime


_LOG_FIELDS = ("seq", "type", "seat", "actor", "move", "effects", "data", "at")


def log(match: Match, *, after: int = 0, limit: int | None = None) -> Sequence[Record | LogRecord]:
    """`records` for reading only: a live match's as `LogRecord` (its values converted as the ORM
    converts them), an archived one's as the archive keeps them. On PostgreSQL the page comes as one
    JSON array, decoded in one call: three JSON columns decoded one by one per record were most of a
    whole log's read (issue 31)."""
    if match.archived_at is not None:
        return records(match, after=after, limit=limit)
    names = _log_names()
    sql = f"SELECT {names} FROM {table(Record)} r WHERE r.match_id = %s AND r.seq > %s ORDER BY r.seq"
    params: list[Any] = [match.id, after]
    if limit is not None:
        sql += " LIMIT %s"
        params.append(limit)
    if connections[DEFAULT_DB_ALIAS].vendor != "postgresql":
        return [LogRecord(*convert(Record, _LOG_FIELDS, row)) for row in fetch(sql, params)]
    return log_of(
        fetch(f"SELECT json_agg(json_build_array({names}) ORDER BY r.seq)::text FROM ({sql}) r", params)[0][0]
    )


def log_tail() -> str:
    """PostgreSQL: `log`'s page of a live match as a scalar subquery, to add to the SELECT list of a
    statement that reads the match row ``m`` (two parameters: ``after`` and ``limit``): ``GET events``
    reads the match and its page in one statement. Read it with `log_of`; it is empty for an
    archived match, whose records are in its archive. Elsewhere "" (then `log` asks)."""
    if connections[DEFAULT_DB_ALIAS].vendor != "postgresql":
        return ""
    names = _log_names()
    return (
        f", (SELECT json_agg(json_build_array({names}) ORDER BY r.seq)::text FROM (SELECT {names}"
        f" FROM {table(Record)} r WHERE r.match_id = m.id AND r.seq > %s ORDER BY r.seq LIMIT %s) r)"
    )


def log_of(page: str | None) -> list[LogRecord]:
    """A page of `log` (or `log_tail`'s value) from its JSON text. A JSON time is text at the
    connection's zone (UTC), its fraction of a second trimmed: read back as the datetime the column
    holds. jsonb values keep the order of keys jsonb gives them, as the ORM's reading does."""
    return [
        LogRecord(seq, rtype, seat, actor, move, effects, data, datetime.fromisoformat(at))
        for seq, rtype, seat, actor, move, effects, data, at in jsontext.loads(page or "[]")
    ]


def _log_names() -> str:
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    column = {f.attname: f.column for f in Record._meta.concrete_fields}
    return ", ".join("r." + quote(column[name]) for name in _LOG_FIELDS)


def archive(match_id: str) -> bool:
    """Move a finished match's records into its archive row; False when it is not (or no longer) due."""
    return archive_many([match_id]) == [match_id]


def archive_many(match_ids: list[str]) -> list[str]:
    """`archive` for a batch, in one transaction under the matches' row locks (the sweep's unit):
    one read of their records, one insert of their archive rows, one delete. Answers those archived."""
    with transaction.atomic():
        matches = {
            m.id: m
            for m in Match.objects.select_for_update()
            .filter(id__in=match_ids, status__in=_FINISHED, archived_at__isnull=True)
            .order_by("id")  # locks taken in one order: two sweeps never deadlock
        }
        logs: dict[str, list[Record]] = {match_id: [] for match_id in matches}
        for record in Record.objects.filter(match_id__in=list(matches)).order_by("match_id", "seq"):
            logs[record.match_id].append(record)
        # A log with a gap is the audit's to report (verify_matches), never to bury.
        done = [m for m, rows in logs.items() if [r.seq for r in rows] == list(range(1, len(rows) + 1))]
        ArchivedLog.objects.bulk_create(
            [ArchivedLog(match=matches[m], count=len(logs[m]), records=_pack(logs[m])) for m in done]
        )
        Record.objects.filter(match_id__in=done).delete()
        Match.objects.filter(id__in=done).update(archived_at=timezone.now())
    return done


def due(now: datetime | None = None, limit: int | None = None) -> list[str]:
    """Finished matches older than ``TABULA_ARCHIVE_AFTER_DAYS``, not yet archived, oldest first."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.TABULA_ARCHIVE_AFTER_DAYS)
    query = Match.objects.filter(status__in=_FINISHED, archived_at__isnull=True, finished_at__lt=cutoff)
    ids = query.order_by("finished_at").values_list("id", flat=True)
    return list(ids[: limit or settings.TABULA_ARCHIVE_BATCH])


def sweep(now: datetime | None = None, batch: int = 100) -> dict[str, Any]:
    """Archive what is due (the hourly beat job), ``batch`` matches a transaction:
    ``{"archived": n, "records": m}``."""
    due_ids = due(now)
    archived: list[str] = []
    for i in range(0, len(due_ids), batch):
        archived += archive_many(due_ids[i : i + batch])
    moved = sum(ArchivedLog.objects.filter(match_id__in=archived).values_list("count", flat=True))
    return {"archived": len(archived), "records": moved}
