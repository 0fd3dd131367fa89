"""The hand-written SQL of accounts (one text for PostgreSQL and SQLite: neither differs here).

A token and its user are read on every authenticated request, precompiled once and hydrated as the
ORM would (`core.sql`; ``tests/games/test_sql.py`` compares them with their ORM twin). A
leaderboard's ranks are stored by one statement per board (a window function over ``Rating``).
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections

from accounts.models import ApiToken, Rating, User
from core.sql import columns, fetch, hydrate, table, width


@cache
def _token_with_user_sql() -> str:
    return (
        f"SELECT {columns(ApiToken, 't')}, {columns(User, 'u')} FROM {table(ApiToken)} t"
        f" JOIN {table(User)} u ON u.id = t.user_id WHERE t.key_hash = %s"
    )


@cache
def _active_by_name_sql() -> str:
    return (
        f"SELECT {columns(User, 'u')} FROM {table(User)} u"
        " WHERE u.is_active = %s AND u.deleted_at IS NULL AND (u.username_key = %s OR u.username = %s)"
        " ORDER BY COALESCE(u.username_key = %s, %s) DESC, u.id LIMIT 1"
    )


def active_by_name(key: str, username: str) -> User | None:
    """The first active account whose ``username_key`` is ``key``, else the first whose name is
    exactly ``username`` (by id), in one query: `accounts.services.by_name`, which every profile
    and history read makes (the ORM compiled two queries for it, 3 ms of a history page)."""
    rows = fetch(_active_by_name_sql(), [True, key, username, key, False])
    return hydrate(User, rows[0]) if rows else None


def token_with_user(key_hash: str) -> ApiToken | None:
    """``ApiToken.objects.select_related("user").filter(key_hash=...).first()``, in one query."""
    rows = fetch(_token_with_user_sql(), [key_hash])
    if not rows:
        return None
    token = hydrate(ApiToken, rows[0])
    token.user = hydrate(User, rows[0], width(ApiToken))
    return token


@cache
def _around_sql() -> str:
    return (
        f"WITH mine AS (SELECT r.rank, r.matches FROM {table(Rating)} r JOIN {table(User)} u ON u.id = r.user_id"
        " WHERE r.game = %s AND u.username_key = %s AND u.is_active = %s ORDER BY r.game, r.id LIMIT 1)"
        " SELECT mine.rank, mine.matches, e.rank, e.rating, e.matches, eu.username FROM mine"
        f" LEFT JOIN ({table(Rating)} e JOIN {table(User)} eu ON eu.id = e.user_id)"
        " ON e.game = %s AND e.rank >= mine.rank - %s AND e.rank <= mine.rank + %s"
        " ORDER BY e.rank"
    )


def around(game: str, key: str, span: int) -> tuple[int | None, int, list[tuple[int, float, int, str]]] | None:
    """The leaderboard of ``game`` ``span`` places either side of the active player whose
    ``username_key`` is ``key``, in one statement: their rank (None while not listed), their rated
    games, and the entries (rank, rating, rated games, name) in rank order; None when they have no
    rating in the game. The ORM read the rating (with its user) and then the range: two queries,
    each compiled anew, most of the answer's time (issue 31)."""
    rows = fetch(_around_sql(), [game, key, True, game, span, span])
    if not rows:
        return None
    rank, matches = rows[0][0], rows[0][1]
    return rank, matches, [tuple(row[2:]) for row in rows if row[2] is not None]


def leaderboard_ranks(game: str, *, provisional: int, since: datetime) -> int:
    """Store the rank of each listed player of ``game`` (at least ``provisional`` rated games, rated
    since ``since``) and clear the others'; answers the rows changed."""
    rating = Rating._meta.db_table
    with connections[DEFAULT_DB_ALIAS].cursor() as cur:
        cur.execute(
            f"""
                UPDATE {rating} AS r SET rank = s.rn
                FROM (
                    SELECT id, CASE WHEN matches >= %s AND rated_at >= %s
                        THEN row_number() OVER (
                            PARTITION BY (matches >= %s AND rated_at >= %s)
                            ORDER BY rating DESC, matches DESC, id
                        ) END AS rn
                    FROM {rating} WHERE game = %s
                ) AS s
                WHERE r.id = s.id AND r.rank IS DISTINCT FROM s.rn
                """,  # the table name is the model's
            [provisional, since, provisional, since, game],
        )
        return int(cur.rowcount)


@cache
def _ratings_of_sql() -> str:
    return f"SELECT {columns(Rating, 'r')} FROM {table(Rating)} r WHERE r.user_id = %s ORDER BY r.game"


def ratings_of(user_id: int) -> list[Rating]:
    """``user.ratings.all()`` (by game, `Rating`'s order): a profile shows them on every read, and the
    ORM compiled the query each time."""
    return ratings_from(fetch(*ratings_statement(user_id)))


def ratings_statement(user_id: int) -> tuple[str, list[Any]]:
    """`ratings_of`'s statement, for a caller that sends it with others (``games.sql.profile_reads``)."""
    return _ratings_of_sql(), [user_id]


def ratings_from(rows: list[tuple[Any, ...]]) -> list[Rating]:
    """`ratings_of` from the rows of `ratings_statement`."""
    return [hydrate(Rating, row) for row in rows]
