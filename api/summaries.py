"""Pages of match summaries, with the summaries of ended matches cached per process (issue 31).

A page of history is mostly matches that have ended, and an ended match's summary hardly changes.
Building one (its JSON array in PostgreSQL with its seats and their players' names, then the dict in
Python) was two thirds of a history page's time beyond ``GET games``. With the token cache on
(Redis, `accounts.tokencache`), a page is read as its `games.sql.Stamp`s first, and only the
summaries this process does not hold are read whole. A cached summary is used while:

- its match's version, status and rematch are still the stamp's (a record, the end, a rematch
  after a tie or an offered one);
- no user has changed since it was read: every change to a user (a rename, a deletion) bumps the
  token cache's generation, read once per page;
- it is younger than ``TTL_S``: what changes a match or a seat with neither (the admin, raw SQL)
  is seen within that time, as the token cache's entries are.

Only a summary that nothing else changes is kept: a finished or aborted match whose seats have no
clock, no away mark and no caretaker (``_lasting``; an away mark is cleared after the end without a
record). At most ``TABULA_SUMMARY_CACHE_SIZE`` summaries are kept, the least recently shown
dropped first (about 5 KB each). Without Redis, or with ``TABULA_SUMMARY_CACHE`` off, every page is
read whole.
``tests/api/test_summary_cache.py`` proves a cached page is the page read whole, and each change.

A summary is the same for every reader (`api.representations.match_summary` takes no viewer); which
matches a reader may see is the listing's, read anew each time. The dicts given out are shared by
the requests of the process: they are rendered, never changed. A profile's recent matches
(``users/{name}``) are read the same way (`summarised`).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any, cast

from django.conf import settings

from accounts import tokencache
from api.representations import match_summaries
from games import sql
from games.models import Match

TTL_S = tokencache.TTL_S
_ENDED = frozenset({Match.Status.FINISHED.value, Match.Status.ABORTED.value})

Summary = dict[str, Any]
_entries: OrderedDict[str, tuple[tuple[int, sql.Stamp], float, Summary]] = OrderedDict()  # id → (key, read at, summary)
_lock = threading.Lock()


def enabled() -> bool:
    return bool(getattr(settings, "TABULA_SUMMARY_CACHE", False)) and tokencache.enabled()


def generation(request: Any = None) -> int | None:
    """The generation to read summaries under, None when the cache is off (or Redis is down). Read
    it before the stamps: a change committed after it bumps it past this (`tokencache.lookup`).
    ``request``: when its token was looked up under a generation, that one, read earlier in the
    same request, is as good and costs no second trip to Redis."""
    if not enabled():
        return None
    read_under = getattr(getattr(request, "auth", None), "read_under", None)
    return read_under if read_under is not None else tokencache.generation()


def page(listing: sql.Listing, limit: int, offset: int, request: Any = None) -> tuple[int, list[Summary]]:
    """The count of ``listing``'s matches and the summaries from ``offset`` to ``offset + limit``,
    as ``match_summaries`` of `games.sql.summaries_page`'s page are. ``request``: see `generation`."""
    current = generation(request)
    if current is None:
        count, matches = sql.summaries_page(listing, limit, offset)
        return count, match_summaries(matches)
    count, stamps = sql.page_stamps(listing, limit, offset)
    return count, summarised(stamps, listing.fields, current)


def of(
    matches: list[sql.ListedMatch] | list[sql.Stamp], fields: tuple[str, ...], generation: int | None
) -> list[Summary]:
    """The summaries of ``matches``: read whole (`games.sql.ListedMatch`) when ``generation`` is None,
    else their stamps (`summarised`), as the reader asked them of `games` after `generation`."""
    if generation is None:
        return match_summaries(cast(list[sql.ListedMatch], matches))
    return summarised(cast(list[sql.Stamp], matches), fields, generation)


def summarised(stamps: list[sql.Stamp], fields: tuple[str, ...], generation: int) -> list[Summary]:
    """The summary of each of the matches ``stamps`` names, in their order: from this process's
    cache where it holds the stamp's, the others read whole (``fields``: `games.sql.Listing.fields`)
    and kept when they last. ``generation``: as `generation` answered before the stamps were read."""
    now = time.monotonic()
    found: dict[str, Summary] = {}
    with _lock:
        for stamp in stamps:
            entry = _entries.get(stamp.id)
            if entry is not None and entry[0] == (generation, stamp) and now - entry[1] < TTL_S:
                found[stamp.id] = entry[2]
                _entries.move_to_end(stamp.id)
    missing = [stamp.id for stamp in stamps if stamp.id not in found]
    if missing:
        read = {summary["id"]: summary for summary in match_summaries(sql.summaries_by_id(fields, missing))}
        with _lock:
            for stamp in stamps:
                summary = read.get(stamp.id)
                if summary is not None and _lasting(summary, stamp):
                    _entries[stamp.id] = ((generation, stamp), now, summary)
                    _entries.move_to_end(stamp.id)
            while len(_entries) > settings.TABULA_SUMMARY_CACHE_SIZE:
                _entries.popitem(last=False)
        found.update(read)
    # A match deleted between the two statements is left out, as a page read a moment later would.
    return [found[stamp.id] for stamp in stamps if stamp.id in found]


def _lasting(summary: Summary, stamp: sql.Stamp) -> bool:
    """Whether ``summary`` is what ``stamp`` says (a move between the two statements makes it newer)
    and nothing but a record, a rematch or a user's change can alter it (the module docstring)."""
    return (
        stamp.status in _ENDED
        and (summary["version"], summary["status"], summary["rematch"]) == (stamp.version, stamp.status, stamp.rematch)
        and summary["deadlines"]["timer"] is None
        and all(
            seat["deadline"] is None and seat["away_until"] is None and not seat["caretaker"]
            for seat in summary["seats"]
        )
    )


def clear() -> None:
    with _lock:
        _entries.clear()
