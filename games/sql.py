"""The hand-written SQL of games: PostgreSQL and SQLite side by side.

Every move locks its match and reads its seats, every ``GET state`` reads a match and the caller's
seat; the ORM would compile those queries anew each time. Here they are written once and hydrated
as the ORM would (`core.sql`: quoting, converters, ``from_db``, the preparing cursor), and
``tests/games/test_sql.py`` compares each with its ORM twin on both databases. Where the dialects
differ, both are in the function that builds the statement.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import DateTimeField
from django.utils.translation import gettext as _

from accounts import sql as accounts_sql
from accounts.models import Rating, User
from core.errors import NotFound
from core.sql import columns, convert, fetch, fetch_together, for_update, hydrate, hydrate_fields, table, width
from games.models import Absence, FinalState, Match, Record, Seat, Tally


def lock(match_id: str) -> Match:
    """``Match.objects.select_for_update(no_key=True).get(id=match_id)``: every write takes it."""
    rows = fetch(f"SELECT {columns(Match, 'm')} FROM {table(Match)} m WHERE m.id = %s{for_update()}", [match_id])
    if not rows:
        raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)})
    return hydrate(Match, rows[0])


def locked(match_id: str, tail: str = "", tail_params: Sequence[Any] = ()) -> tuple[Match, list[Seat], Any]:
    """`lock` and `seats` in one round trip: the match row, locked, joined to its seats (a match
    always has them, but the LEFT JOIN keeps one that has none); only the match row is locked.
    ``tail``: one more expression to select (`record_tail`), its value returned third."""
    rows = fetch(
        f"SELECT {columns(Match, 'm')}, {columns(Seat, 's')}{tail} FROM {table(Match)} m"
        f' LEFT JOIN {table(Seat)} s ON s.match_id = m.id WHERE m.id = %s ORDER BY s."index"'
        f"{for_update(of='m')}",
        [*tail_params, match_id],
    )
    if not rows:
        raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)})
    start = width(Match)
    seats = [hydrate(Seat, row, start) for row in rows if row[start] is not None]
    return hydrate(Match, rows[0]), seats, rows[0][-1] if tail else None


def seats(match: Match) -> list[Seat]:
    """``Seat.objects.filter(match=match).order_by("index")``."""
    rows = fetch(
        f'SELECT {columns(Seat, "s")} FROM {table(Seat)} s WHERE s.match_id = %s ORDER BY s."index"', [match.id]
    )
    return [hydrate(Seat, row) for row in rows]


def match_with_seat_of(
    match_id: str, user_id: int | None, tail: str = "", tail_params: Sequence[Any] = ()
) -> tuple[Match, int | None, tuple[Any, ...]]:
    """The match, the user's seat index in it (None: none, or no user), and the values of ``tail``'s
    expressions in order (none without one: `record_tail`, `deleted_tail`, ``archive.log_tail``), in
    one query: every ``GET state`` makes it."""
    rows = fetch(
        f'SELECT {columns(Match, "m")}, (SELECT s."index" FROM {table(Seat)} s'
        f" WHERE s.match_id = m.id AND s.user_id = %s LIMIT 1){tail} FROM {table(Match)} m WHERE m.id = %s",
        [user_id, *tail_params, match_id],
    )
    if not rows:
        raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)})
    start = width(Match)
    return hydrate(Match, rows[0]), rows[0][start], tuple(rows[0][start + 1 :])


def record_tail(*, final: bool = False) -> str:
    """PostgreSQL: a scalar subquery to add to the SELECT list of a statement that reads the match
    row aliased ``m`` (one parameter: the version the records follow): the records after it up to
    the row's version, as a JSON array of ``[type, seat, move]`` in ``seq`` order (NULL when there are
    none). ``final``: when the match has a final state at its version (`FinalState`), that instead,
    as ``{"final": <its bytes in base64>}``, and no record is read. SQLite: nothing (no
    ``json_agg``; the records are queried after)."""
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.vendor != "postgresql":
        return ""
    quote = connection.ops.quote_name
    records = (
        f"(SELECT json_agg(json_build_array(r.{quote('type')}, r.seat, r.move) ORDER BY r.seq)"
        f" FROM {table(Record)} r WHERE r.match_id = m.id AND r.seq > %s AND r.seq <= m.version)"
    )
    if not final:
        return f", {records}"
    return (  # COALESCE reads the records only when there is no final state
        f", COALESCE((SELECT json_build_object('final', encode(f.state, 'base64')) FROM {table(FinalState)} f"
        f" WHERE f.match_id = m.id AND f.version = m.version), {records})"
    )


def final_state(match_id: str, version: int) -> bytes | None:
    """The stored final state of a match at ``version`` (`FinalState.state`), None when none."""
    rows = fetch(
        f"SELECT f.state FROM {table(FinalState)} f WHERE f.match_id = %s AND f.version = %s", [match_id, version]
    )
    return bytes(rows[0][0]) if rows else None


@dataclass(slots=True)
class ListedSeat:
    """A seat as a list of match summaries shows it (``SeatSerializer``'s fields), its player's
    public name already resolved: a page has a hundred seats or more, and a model instance for each
    seat and each player cost more than the rest of the summary."""

    match_id: str
    index: int
    username: str | None  # the public name: "deleted player" for a deleted account; None: no user
    bot: str
    resigned: bool
    deadline: datetime | None
    bank_ms: int | None
    consecutive_timeouts: int
    away_until: datetime | None
    caretaker: bool


#: `ListedSeat`'s fields in the order a seat is read (`_seat_values`), with the player's id, name and
#: whether the account is deleted in place of ``username``.
_SEAT_ARRAY = (
    "index",
    "user_id",
    "username",
    "deleted",
    "bot",
    "resigned",
    "deadline",
    "bank_ms",
    "consecutive_timeouts",
    "away_until",
    "caretaker",
)
#: Those of them that are the seat's own columns, converted as the ORM converts them.
_SEAT_COLUMNS = tuple(name for name in _SEAT_ARRAY if name not in ("username", "deleted"))


def _seat_values() -> list[str]:
    """`_SEAT_ARRAY` as SQL on a seat ``s`` and its player ``su`` (``LEFT JOIN``ed)."""
    column = {f.attname: f.column for f in Seat._meta.concrete_fields}
    return [
        f"s.{_quote(column[name])}"
        if name in column
        else f"su.{_quote('username')}"
        if name == "username"
        else f"su.{_quote('deleted_at')} IS NOT NULL"
        for name in _SEAT_ARRAY
    ]


def _listed_seat(match_id: str, values: Sequence[Any]) -> ListedSeat:
    """A `ListedSeat` from `_SEAT_ARRAY`'s values: the public name is "deleted player" for a deleted
    account (`User.public_name`'s rule), none for an empty seat or a bot's."""
    from accounts.usernames import DELETED  # `User.public_name`'s word

    index, user_id, name, deleted, bot, resigned, deadline, bank_ms, timeouts, away_until, caretaker = values
    username = None if user_id is None else DELETED if deleted else name
    return ListedSeat(match_id, index, username, bot, resigned, deadline, bank_ms, timeouts, away_until, caretaker)


def seats_of(match_ids: Sequence[str]) -> dict[str, list[ListedSeat]]:
    """The seats of these matches, in ``index`` order per match, with their players' public names,
    in one statement. Every list of match summaries shows every seat of every match on its page:
    the ORM's prefetch (``Prefetch("seats", Seat.objects.select_related("user"))``) compiled the
    query, built whole user rows and a queryset per match, most of a page's time (issue 31). On
    PostgreSQL a page's seats come with the page instead (`_seats_column`)."""
    if not match_ids:
        return {}
    connection = connections[DEFAULT_DB_ALIAS]
    params: list[Any]
    if connection.vendor == "postgresql":
        where, params = "s.match_id = ANY(%s)", [list(match_ids)]
    else:
        where, params = f"s.match_id IN ({', '.join(['%s'] * len(match_ids))})", list(match_ids)
    rows = fetch(
        f"SELECT s.match_id, {', '.join(_seat_values())}"
        f" FROM {table(Seat)} s LEFT JOIN {table(User)} su ON su.id = s.user_id"
        f" WHERE {where} ORDER BY s.match_id, s.{_quote('index')}",
        params,
    )
    own = [_SEAT_ARRAY.index(name) for name in _SEAT_COLUMNS]
    deleted = _SEAT_ARRAY.index("deleted")
    out: dict[str, list[ListedSeat]] = {}
    for match_id, *values in rows:
        for position, value in zip(own, convert(Seat, _SEAT_COLUMNS, [values[i] for i in own]), strict=True):
            values[position] = value
        values[deleted] = bool(values[deleted])  # SQLite's IS NOT NULL is 0 or 1
        out.setdefault(match_id, []).append(_listed_seat(match_id, values))
    return out


def _deleted_sql(match: str, creator: str) -> str:
    """The indexes of the seats of match ``match`` whose account was deleted, and -1 when its creator
    ``creator``'s was (SQL expressions, or ``%s``)."""
    users = table(User)
    return (
        f"SELECT s.{_quote('index')} FROM {table(Seat)} s JOIN {users} u ON u.id = s.user_id"
        f" WHERE s.match_id = {match} AND u.deleted_at IS NOT NULL"
        f" UNION ALL SELECT -1 FROM {users} u WHERE u.id = {creator} AND u.deleted_at IS NOT NULL"
    )


def deleted_in(match_id: str, created_by_id: int) -> tuple[set[int], bool]:
    """The seats of the match whose account was deleted, and whether its creator's was, in one
    statement (the records name them: a deleted player's old name is never shown)."""
    return deleted_of(index for (index,) in fetch(_deleted_sql("%s", "%s"), [match_id, created_by_id]))


def deleted_tail() -> str:
    """PostgreSQL: `deleted_in` as a scalar subquery (an array) to add to the SELECT list of a
    statement that reads the match row ``m`` (`match_with_seat_of`): ``GET events`` asks both. Read
    it with `deleted_of`. Elsewhere "" (then `deleted_in` asks)."""
    if connections[DEFAULT_DB_ALIAS].vendor != "postgresql":
        return ""
    return f", ARRAY({_deleted_sql('m.id', 'm.created_by_id')})"


def deleted_of(indexes: Iterable[int]) -> tuple[set[int], bool]:
    """`_deleted_sql`'s indexes (`deleted_tail`'s value) as `deleted_in` answers."""
    seats = set(indexes)
    creator = -1 in seats
    seats.discard(-1)
    return seats, creator


def waiting_seats(user_id: int) -> list[tuple[Seat, Match]]:
    """``Seat.objects.filter(user=…, match__status="active", resigned=False, bot="")`` with the
    match columns ``GET me/turns`` shows (``game``, ``version``, ``awaiting``, ``timer_deadline``,
    ``updated_at``), in one prepared statement: clients poll it. The caller's active seats are found
    by the seat's copy of its match's status (`Seat.match_status`, kept by the database) in the
    partial index ``seat_active``, and only their matches are read: joining every seat the caller
    ever had to its match, the statement grew with their history, and its plan could instead read
    every active match on the server (issue 31). The status is written in, not bound: a generic
    plan uses a partial index only when the query names its condition."""
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    rows = fetch(
        f"SELECT s.id, s.match_id, s.{quote('index')}, s.deadline, m.game, m.version, m.awaiting,"
        f" m.timer_deadline, m.updated_at FROM {table(Seat)} s JOIN {table(Match)} m ON m.id = s.match_id"
        f" WHERE s.user_id = %s AND s.match_status = '{Match.Status.ACTIVE.value}' AND s.resigned = %s"
        f" AND s.bot = %s ORDER BY s.match_id, s.{quote('index')}",  # the model's order: ties keep it
        [user_id, False, ""],
    )
    seat_fields = ("id", "match_id", "index", "deadline")
    match_fields = ("id", "game", "version", "awaiting", "timer_deadline", "updated_at")
    return [
        (hydrate_fields(Seat, seat_fields, row[:4]), hydrate_fields(Match, match_fields, (row[1], *row[4:])))
        for row in rows
    ]


def records_since_own(match_id: str, seat: int, end: int, cap: int) -> tuple[list[Record], int]:
    """The records after ``seat``'s latest move or timeout before ``end`` and before ``end`` itself,
    the latest ``cap`` of them newest first, and that move's ``seq`` (0: none): `since_your_last` in
    one statement. The ORM built it with the same subquery twice, and compiling that was a quarter
    of the front's CPU per move."""
    own = (
        f"SELECT COALESCE(MAX(o.seq), 0) AS seq FROM {table(Record)} o"
        f" WHERE o.match_id = %s AND o.seat = %s AND o.seq < %s AND o.{_quote('type')} IN (%s, %s)"
    )
    rows = fetch(
        f"WITH own AS ({own}) SELECT own.seq, {columns(Record, 'r')} FROM own"
        f" LEFT JOIN {table(Record)} r ON r.match_id = %s AND r.seq < %s AND r.seq > own.seq"
        f" ORDER BY r.seq DESC LIMIT %s",
        [match_id, seat, end, Record.Type.MOVE.value, Record.Type.TIMEOUT.value, match_id, end, cap],
    )
    found = [hydrate(Record, row, 1) for row in rows if row[1] is not None]
    return found, rows[0][0]


def is_away(user_id: int) -> bool:
    """``Absence.objects.filter(user=user, ended_at__isnull=True).exists()``: every move asks it."""
    sql = f"SELECT 1 FROM {table(Absence)} a WHERE a.user_id = %s AND a.ended_at IS NULL LIMIT 1"
    return bool(fetch(sql, [user_id]))


def _quote(name: str) -> str:
    return connections[DEFAULT_DB_ALIAS].ops.quote_name(name)


#: The largest offset a page statement is given: a client may ask for any offset, and a page past
#: the end is empty whatever it is (the ORM's pagination never sent one past the count).
_MAX_OFFSET = 2**62


@dataclass(frozen=True, slots=True)
class Listing:
    """Which matches a list of summaries shows, as SQL on the match row aliased ``m``: ``where``
    (with its ``params``) and ``order`` (an ORDER BY list, its ties broken as the ORM's query breaks
    them). ``fields``: the match's attribute names a summary reads (`selectors.SUMMARY_FIELDS`)."""

    where: str
    params: tuple[Any, ...]
    order: str
    fields: tuple[str, ...]
    #: When the list is every match one user sits in (``params`` is their id alone): ``order`` on
    #: their seats ``s`` (`Seat.match_created_at`), so that the page is found in the index
    #: ``seat_history`` without looking up each of their matches.
    seats_order: str = ""


def seated(user_id: int) -> tuple[str, list[Any]]:
    """``Exists(Seat.objects.filter(match=OuterRef("pk"), user=user))`` as a condition on ``m``: the
    matches among the user's seats, read first. On PostgreSQL ``OFFSET 0`` keeps the planner from
    folding the subquery into a join it may then start from the other end: for a player with
    hundreds of matches it estimated (rightly) more rows, and chose to walk every match newest
    first, testing each against the seats: 270 ms instead of 3 at 100,000 matches (issue 31)."""
    fence = " OFFSET 0" if connections[DEFAULT_DB_ALIAS].vendor == "postgresql" else ""
    return f"m.id IN (SELECT s.match_id FROM {table(Seat)} s WHERE s.user_id = %s{fence})", [user_id]


@cache  # the same text for the life of the process (as `_tallies_sql`)
def _summary_select(fields: tuple[str, ...]) -> str:
    """The match's summary columns, its creator's name and deletion, and its rematch's id: what
    ``for_summaries`` reads by its two joins (``m``, ``u``, ``r``). On PostgreSQL they are one JSON
    array, its seats last (`_seats_column`): a row's five JSON columns and four times, each decoded
    on its own, cost more than the rest of its summary (issue 31)."""
    column = {f.attname: f.column for f in Match._meta.concrete_fields}
    values = ", ".join(f"m.{_quote(column[name])}" for name in fields)
    values += f", u.{_quote('username')}, u.{_quote('deleted_at')}, r.id"
    if connections[DEFAULT_DB_ALIAS].vendor != "postgresql":
        return values
    return f"json_build_array({values}, {_seats_column()})"


@cache
def _seats_column() -> str:
    """For PostgreSQL: a scalar subquery over the match row ``m``: its seats in ``index`` order, each
    a JSON array of `_SEAT_ARRAY`, with its player's name (the page's seats come with the page, not
    in a statement of their own: `seats_of`; on SQLite `selectors.with_seats` reads them so)."""
    return (
        f"(SELECT json_agg(json_build_array({', '.join(_seat_values())}) ORDER BY s.{_quote('index')})"
        f" FROM {table(Seat)} s LEFT JOIN {table(User)} su ON su.id = s.user_id WHERE s.match_id = m.id)"
    )


_JSON_TIMES = tuple(_SEAT_ARRAY.index(name) for name in ("deadline", "away_until"))


def _listed_seats(match_id: str, seats: list[list[Any]] | None) -> list[ListedSeat]:
    """`_seats_column`'s arrays as `ListedSeat`s, as `seats_of` reads them: a JSON time is text (at
    UTC, the connection's zone), made a datetime again so that the summary formats it as always."""
    out = []
    for values in seats or []:
        for position in _JSON_TIMES:
            values[position] = _time(values[position])
        out.append(_listed_seat(match_id, values))
    return out


def _time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


@cache
def _summary_joins() -> str:
    return (
        f" JOIN {table(User)} u ON u.id = m.created_by_id"
        f" LEFT JOIN {table(Match)} r ON r.{_quote(Match._meta.get_field('rematch_of').column)} = m.id"
    )


@dataclass(slots=True)
class ListedMatch:
    """A match as a list of summaries shows it: the columns a summary reads (`Listing.fields`, which
    are `selectors.SUMMARY_ATTNAMES`), its creator's public name, its rematch's id and, once read,
    its seats. A page read as model instances (the match, its creator, its rematch) spent more on
    building them than on the rest of its answer (issue 31); nothing on a page needs a model."""

    id: str
    game: str
    players: int
    options: dict[str, Any]
    time_control: dict[str, Any] | None
    seed: int
    seed_commitment: str
    private: bool
    rated: bool
    status: str
    version: int
    created_by_id: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    result: dict[str, Any] | None
    awaiting: list[int]
    awaited_since: dict[str, str]
    rematch_of_id: str | None
    timer_deadline: datetime | None
    takebacks: str
    tournament: str
    creator: str  # the creator's public name: "deleted player" for a deleted account
    rematch: str | None  # the id of the rematch after a tie, if there is one
    listed_seats: list[ListedSeat] | None = None  # None until read (`selectors.with_seats`)

    @property
    def is_live(self) -> bool:
        return self.status in (Match.Status.OPEN, Match.Status.ACTIVE)


def _summary_match(fields: tuple[str, ...], row: Sequence[Any], postgres: bool) -> ListedMatch | None:
    """A `ListedMatch` from `_summary_select`'s columns, each converted as the ORM converts it (on
    PostgreSQL, ``postgres``, from its JSON array: a time is text there, made a datetime again); None
    for a row without a match (a profile's count alone)."""
    from accounts.usernames import DELETED  # `User.public_name`'s word

    n = len(fields)
    if postgres:
        row = row[0]
        converted: list[Any] = [_time(v) if name in _TIMES else v for name, v in zip(fields, row, strict=False)]
    else:
        converted = convert(Match, fields, row[:n])
    values = dict(zip(fields, converted, strict=True))
    if values["id"] is None:
        return None
    username, deleted_at, rematch = row[n : n + 3]
    match = ListedMatch(**values, creator=DELETED if deleted_at is not None else username, rematch=rematch)
    if postgres:  # its seats came with it (`_seats_column`)
        match.listed_seats = _listed_seats(match.id, row[n + 3])
    return match


#: The match's attributes that are times (text in a JSON array).
_TIMES = frozenset(f.attname for f in Match._meta.concrete_fields if isinstance(f, DateTimeField))


def _summaries(fields: tuple[str, ...], rows: Sequence[Sequence[Any]]) -> list[ListedMatch]:
    """The `ListedMatch` of each of ``rows`` that holds a match."""
    postgres = connections[DEFAULT_DB_ALIAS].vendor == "postgresql"
    return [match for match in (_summary_match(fields, row, postgres) for row in rows) if match is not None]


def _hits(listing: Listing) -> str:
    """The page's match ids (``id``) and the count (``total``: ``count(*) OVER ()``, over every match
    before the LIMIT), as a narrow subquery; its parameters are ``listing.params``, the limit and
    the offset."""
    if listing.seats_order:  # from the seats alone: their index holds the order
        return (
            f"SELECT s.match_id AS id, count(*) OVER () AS total FROM {table(Seat)} s WHERE s.user_id = %s"
            f" ORDER BY {listing.seats_order} LIMIT %s OFFSET %s"
        )
    return (
        f"SELECT m.id, count(*) OVER () AS total FROM {table(Match)} m WHERE {listing.where}"
        f" ORDER BY {listing.order} LIMIT %s OFFSET %s"
    )


def summaries_page(listing: Listing, limit: int, offset: int) -> tuple[int, list[ListedMatch]]:
    """The count of ``listing``'s matches and those from ``offset`` to ``offset + limit``, as
    ``for_summaries(qs)``'s page and ``qs.count()`` are (the ORM compiled both anew per request,
    most of a history page's time, issue 31). One statement: the page's ids and the count in a
    narrow subquery (`_hits`), then their summary columns (`_page`)."""
    total, rows = _page(listing, _summary_select(listing.fields), _summary_joins(), limit, offset)
    return total, _summaries(listing.fields, rows)


def _page(listing: Listing, select: str, joins: str, limit: int, offset: int) -> tuple[int, list[tuple[Any, ...]]]:
    """The count of ``listing``'s matches and, for each on the page (`_hits`), in order, ``select``
    on its row ``m`` and ``joins``. A page past the end has no row to carry the count: then a count
    alone."""
    sql = (
        f"WITH hits AS ({_hits(listing)})"
        f" SELECT {select}, hits.total FROM hits JOIN {table(Match)} m ON m.id = hits.id{joins}"
        f" ORDER BY {listing.order}"
    )
    rows = fetch(sql, [*listing.params, limit, min(offset, _MAX_OFFSET)])
    if not rows:
        return (summaries_count(listing) if offset else 0), []
    return rows[0][-1], [row[:-1] for row in rows]


@dataclass(frozen=True, slots=True)
class Stamp:
    """What a listed match's cached summary is checked against (`page_stamps`, `api.summaries`): a
    record moves ``version``, the end of the match ``status``, a rematch after it ``rematch``."""

    id: str
    version: int
    status: str
    rematch: str | None


#: A `Stamp`'s columns, on the match ``m`` and its rematch ``r`` (`_summary_joins`).
_STAMP_SELECT = "m.id, m.version, m.status, r.id"


def page_stamps(listing: Listing, limit: int, offset: int) -> tuple[int, list[Stamp]]:
    """`summaries_page` without the summaries: the count and, in the page's order, each match's
    `Stamp`. A third of the page's statement: its summaries (a JSON array each, with their seats
    and their players' names) are most of its time, and a cached summary needs none of it
    (`api.summaries`)."""
    total, rows = _page(listing, _STAMP_SELECT, _summary_joins(), limit, offset)
    return total, [Stamp(*row) for row in rows]


def summaries_by_id(fields: tuple[str, ...], ids: Sequence[str]) -> list[ListedMatch]:
    """The `ListedMatch` of each of ``ids`` (in no particular order), as `summaries_page` reads a
    page's: the rest of a page whose other summaries were cached (`api.summaries`)."""
    if not ids:
        return []
    marks = ", ".join(["%s"] * len(ids))
    sql = f"SELECT {_summary_select(fields)} FROM {table(Match)} m{_summary_joins()} WHERE m.id IN ({marks})"
    return _summaries(fields, fetch(sql, list(ids)))


def summaries_count(listing: Listing) -> int:
    """``qs.count()`` of ``listing``'s matches."""
    rows = fetch(f"SELECT count(*) FROM {table(Match)} m WHERE {listing.where}", list(listing.params))
    return int(rows[0][0])


def summaries(listing: Listing, limit: int) -> list[ListedMatch]:
    """The first ``limit`` of ``listing``'s matches, as ``for_summaries(qs)[:limit]`` is (the
    profile's recent matches): their ids first, then only theirs are read whole, with their seats.
    Read whole before the LIMIT, every one of a long history's matches cost its columns, creator,
    rematch and seats (issue 31)."""
    sql = (
        f"WITH hits AS (SELECT m.id FROM {table(Match)} m WHERE {listing.where} ORDER BY {listing.order} LIMIT %s)"
        f" SELECT {_summary_select(listing.fields)} FROM hits JOIN {table(Match)} m ON m.id = hits.id"
        f"{_summary_joins()} ORDER BY {listing.order}"
    )
    return _summaries(listing.fields, fetch(sql, [*listing.params, limit]))


def profile_matches(user_id: int, limit: int, fields: tuple[str, ...]) -> tuple[int, list[ListedMatch]]:
    """A public profile's count of the player's active public matches and their ``limit`` latest
    finished public ones (ties: the latest id first), in one statement. Both are found from the
    player's seats alone, which carry their match's status, end and privacy (`Seat.match_status`,
    kept by the database): the partial indexes ``seat_finished`` (newest end first) and
    ``seat_active`` (active seats, by privacy) hold just those seats, so neither grows with a long
    history of other matches; looking up every match the player sat in did (issue 31). The count
    drives the statement, so that it comes on a row of its own when nothing is finished."""
    return _profile_matches_of(fields, fetch(*_profile_matches_statement(user_id, limit, fields)))


def _profile_matches_statement(
    user_id: int, limit: int, fields: tuple[str, ...], stamps: bool = False
) -> tuple[str, list[Any]]:
    # The condition is written in, not bound: a prepared statement's generic plan can use a partial
    # index only when its query names the index's own condition (`Seat.Meta.indexes`).
    select = _STAMP_SELECT if stamps else _summary_select(fields)
    public = "s.user_id = %s AND NOT s.match_private"
    seat = table(Seat)
    sql = (
        f"WITH hits AS (SELECT s.match_id AS id FROM {seat} s WHERE {public}"
        f" AND s.match_status = '{Match.Status.FINISHED.value}'"
        f" ORDER BY s.match_finished_at DESC, s.match_id DESC LIMIT %s),"
        f" active AS (SELECT count(*) AS n FROM {seat} s WHERE {public}"
        f" AND s.match_status = '{Match.Status.ACTIVE.value}')"
        f" SELECT {select}, active.n FROM active"
        f" LEFT JOIN (hits JOIN {table(Match)} m ON m.id = hits.id{_summary_joins()}) ON 1 = 1"
        f" ORDER BY m.finished_at DESC, m.id DESC"
    )
    return sql, [user_id, limit, user_id]


def _profile_matches_of(fields: tuple[str, ...], rows: list[tuple[Any, ...]]) -> tuple[int, list[ListedMatch]]:
    return int(rows[0][-1]), _summaries(fields, [row[:-1] for row in rows])


def _profile_stamps_of(rows: list[tuple[Any, ...]]) -> tuple[int, list[Stamp]]:
    return int(rows[0][-1]), [Stamp(*row[:-1]) for row in rows if row[0] is not None]


def tallies_of(user_id: int) -> list[Tally]:
    """A player's tallies in the order each game was first finished (a profile's statistics list the
    games so), as ``Tally.objects.filter(user_id=…).order_by("first_finished_at", "first_match_id")``."""
    return [hydrate(Tally, row) for row in fetch(_tallies_sql(), [user_id])]


@cache
def _tallies_sql() -> str:
    return (
        f"SELECT {columns(Tally, 't')} FROM {table(Tally)} t WHERE t.user_id = %s"
        " ORDER BY t.first_finished_at, t.first_match_id"
    )


@dataclass(frozen=True, slots=True)
class ProfileReads:
    """What a public profile reads of a player besides the user: `tallies_of`, `profile_matches`
    (``active``, ``recent``) and ``accounts.sql.ratings_of``."""

    tallies: list[Tally]
    active: int
    recent: list[ListedMatch] | list[Stamp]  # stamps when asked for (`profile_reads`)
    ratings: list[Rating]


def profile_reads(user_id: int, limit: int, fields: tuple[str, ...], stamps: bool = False) -> ProfileReads:
    """`tallies_of`, `profile_matches` and ``accounts.sql.ratings_of`` of one player, the same rows,
    in one round trip to PostgreSQL (`core.sql.fetch_together`): one after the other, each waited for
    the last. ``stamps``: the recent matches' `Stamp`s in place of their summaries (`api.summaries`)."""
    tallies, matches, ratings = fetch_together(
        [
            (_tallies_sql(), [user_id]),
            _profile_matches_statement(user_id, limit, fields, stamps),
            accounts_sql.ratings_statement(user_id),
        ]
    )
    active, recent = _profile_stamps_of(matches) if stamps else _profile_matches_of(fields, matches)
    return ProfileReads([hydrate(Tally, row) for row in tallies], active, recent, accounts_sql.ratings_from(ratings))
