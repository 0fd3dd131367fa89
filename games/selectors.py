"""Read-side queries: the caller's state, the match summary, the redacted record stream."""

from __future__ import annotations

import secrets
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import get_language, pgettext, pgettext_lazy
from django.utils.translation import gettext as _

import languages
from accounts import selectors as account_selectors
from accounts.models import Rating, RatingChange, User
from circles import selectors as circles
from core.errors import Conflict, NotFound
from games import archive, replay, sql
from games.models import Invitation, Match, Record, Seat, Tally
from rules.base import Moved, Rules, undo_blocker


def match_get(match_id: str) -> Match:
    try:
        return (
            Match.objects.select_related("created_by")
            .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index")))
            .get(id=match_id)
        )
    except Match.DoesNotExist:
        raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)}) from None


def match_with_seat_of(match_id: str, user: User | None) -> Match:
    """The match, annotated with ``caller_seat`` (the user's seat index or None), in one query."""
    user_id = user.pk if user is not None and user.is_authenticated else None
    tail = replay.tail_of(match_id)  # with the records to replay (`games.sql`: every GET state reads this)
    match, seat, records = sql.match_with_seat_of(match_id, user_id, tail.sql, tail.params)
    match.caller_seat = seat  # type: ignore[attr-defined]
    tail.attach(match, records[0] if records else None)
    return match


def seat_index_of(match: Match, user: User | None) -> int | None:
    if user is None or not user.is_authenticated:
        return None
    return Seat.objects.filter(match=match, user=user).values_list("index", flat=True).first()


def state_etag(match: Match, seat: int | None) -> str:
    """Changes whenever the caller's state can change: the version, or the seat it is shown to."""
    return f'"{match.id}.{match.version}.{"s" if seat is None else seat}"'


def _clock_rows(match: Match, seats: list[Seat] | None) -> list[tuple[int, Any, int | None, Any]]:
    """Each seat's ``(index, deadline, bank_ms, away_until)``; no query without a time control
    (no seat has a clock, and no absence freezes one)."""
    if seats is not None:
        return [(s.index, s.deadline, s.bank_ms, s.away_until) for s in seats]
    if not match.time_control:
        return [(i, None, None, None) for i in range(match.players)]
    rows = Seat.objects.filter(match_id=match.id).order_by("index")
    return list(rows.values_list("index", "deadline", "bank_ms", "away_until"))


def deadlines(match: Match, seats: list[Seat] | None = None, rows: list[Any] | None = None) -> dict[str, Any]:
    """The game timer and each running seat clock: deadline, and the bank left when it started."""
    rows = _clock_rows(match, seats) if rows is None else rows
    return {
        "timer": match.timer_deadline.isoformat() if match.timer_deadline else None,
        "seats": {str(i): {"deadline": d.isoformat(), "bank_ms": b} for i, d, b, _ in rows if d is not None},
    }


@dataclass(frozen=True)
class UndoCheck:
    """Whether ``seat`` may undo its last input now: ``reason`` None when it may (back to
    ``to_seq``), else why not and the record that blocks it (docs/api.md, *Undo and agreements*)."""

    reason: str | None
    seq: int | None
    to_seq: int | None = None


def sample_seed(match: Match, n: int) -> int:
    """A seed for sampling hidden worlds (the undo oracle, a bot's vote): fixed per match and record,
    and never the match's secret seed, so that nothing sampled depends on it."""
    return zlib.crc32(f"{match.id}:{n}".encode())


def undo_check(match: Match, seat: int, state: Any) -> UndoCheck:
    """The rules of ``POST undo``: the match allows it, the last record is this seat's own move,
    and taking it back hides nothing anyone learned (`rules.base.undo_blocker`)."""
    if match.takebacks != "own_input":
        return UndoCheck("disabled", None)
    recent = list(Record.objects.filter(match_id=match.id).order_by("-seq")[:64])
    mine = next((r for r in recent if r.seat == seat and r.type == Record.Type.MOVE), None)
    if mine is None or mine.actor != Record.Actor.PLAYER or mine.move is None:
        return UndoCheck("not_yours", recent[0].seq if recent else None)
    if mine.seq != match.version:
        return UndoCheck("others_moved", mine.seq + 1)
    rules = replay.rules_for(match)
    before = replay.state_at(match, mine.seq - 1)
    given = Moved(seat, rules.parse_move(mine.move))
    blocked = undo_blocker(rules, before, given, state, match.players, seed=sample_seed(match, mine.seq))
    if blocked is not None:
        return UndoCheck(blocked, mine.seq)
    return UndoCheck(None, None, mine.seq - 1)


def state_payload(
    match: Match, rules: Rules[Any, Any, Any] | None, state: Any, seat: int | None, seats: list[Seat] | None = None
) -> dict[str, Any]:
    """The caller's state (``GET state``, docs/api.md), computed only from what ``seat`` may see."""
    payload: dict[str, Any] = {
        "match": match.id,
        "game": match.game,
        "version": match.version,
        "status": match.status,
        "you": seat,
        "awaiting": list(match.awaiting) if match.status == Match.Status.ACTIVE else [],
        "view": None,
        "legal_moves": [],
        "result": match.result,
        "deadlines": deadlines(match, seats, rows := _clock_rows(match, seats)),
        "seats": [{"index": i, "away_until": a.isoformat() if a else None} for i, _, _, a in rows],
        "can_undo": False,
    }
    if state is None or rules is None:
        return payload
    deadline = match.timer_deadline.isoformat() if match.timer_deadline else None
    payload["view"] = rules.view(state, seat, deadline)
    if seat is not None and match.status == Match.Status.ACTIVE:
        payload["legal_moves"] = [rules.dump_move(m) for m in rules.legal_moves(state, seat)]
        if match.takebacks == "own_input":  # an undo costs a check only where one is allowed
            payload["can_undo"] = undo_check(match, seat, state).reason is None
        if seat in match.awaiting:
            payload["since_your_last"] = since_your_last(match, rules, seat)
    return payload


SINCE_CAP = 20  # records a `since_your_last` summary shows; the count of the others comes with them


def since_your_last(
    match: Match, rules: Rules[Any, Any, Any] | None, seat: int, upto: Record | None = None
) -> dict[str, Any]:
    """What happened since ``seat``'s own previous move (or timeout): the records after it, as the
    seat may see them, the latest `SINCE_CAP` (``records``) and how many earlier ones are left out
    (``more``). ``upto``: the record being written now (it may not be in the table yet)."""
    end = upto.seq if upto is not None else match.version + 1
    found, own = sql.records_since_own(match.id, seat, end, SINCE_CAP)
    before = own if found else (upto.seq - 1 if upto is not None else match.version)
    rows: list[Record] = list(found)
    if upto is not None:
        rows = [upto, *rows][:SINCE_CAP]
    rows.reverse()
    total = (upto.seq if upto is not None else match.version) - before
    return {"records": [record_for_viewer(rules, r, seat) for r in rows], "more": max(0, total - len(rows))}


def match_state_view(match: Match, seat: int | None) -> dict[str, Any]:
    """The state as ``seat`` (None: a spectator) may see it."""
    if match.status == Match.Status.OPEN or match.version == 0:
        return state_payload(match, None, None, seat)
    rules = replay.rules_for(match)
    return state_payload(match, rules, replay.match_state(match), seat)


ENDINGS = {  # lifecycle records that end a match: its status from there on
    Record.Type.ABORTED: Match.Status.ABORTED,
    Record.Type.CANCELLED: Match.Status.ABORTED,
    Record.Type.DRAWN: Match.Status.FINISHED,
    Record.Type.CONCEDED: Match.Status.FINISHED,
    Record.Type.ADJUDICATED: Match.Status.FINISHED,
}


def replay_at_view(match: Match, at: int, seat: int | None) -> dict[str, Any]:
    """``GET state?at=``: the state as ``seat`` (None: a spectator) saw it just after record ``at``.
    Computed from the state of that moment, so a later reveal never shows backwards; no legal
    moves, no clocks (the past cannot be played). The record itself comes as ``seat`` sees it."""
    rules = replay.rules_for(match)
    state, record = replay.state_and_record_at(match, at)
    if record is None:
        raise NotFound(_("This match has no record %(seq)s.") % {"seq": at})
    ended = record if record.type in ENDINGS else None  # such a record is always a match's last
    outcome = rules.outcome(state) if state is not None else None
    status, result = Match.Status.ACTIVE, None
    if state is None:
        status = Match.Status.OPEN if ended is None else ENDINGS[ended.type]  # type: ignore[index]
    elif ended is not None:
        status, result = ENDINGS[ended.type], match.result  # type: ignore[index]
    elif outcome is not None:
        status, result = Match.Status.FINISHED, outcome.to_json()
    event = record_for_viewer(rules, record, seat)
    if "username" in event["data"] or "by" in event["data"]:  # only these name anyone
        deleted = deleted_seats(match)
        creator_deleted = match.created_by.deleted_at is not None
        if deleted or creator_deleted:
            _without_deleted_names(event["data"], record.seat, deleted, creator_deleted)
    return {
        "match": match.id,
        "game": match.game,
        "version": match.version,
        "at": at,
        "status": status,
        "you": seat,
        "awaiting": sorted(rules.awaiting(state)) if state is not None and status == Match.Status.ACTIVE else [],
        "view": rules.view(state, seat, None) if state is not None else None,
        "legal_moves": [],
        "result": result,
        "deadlines": {"timer": None, "seats": {}},
        "seats": [{"index": i, "away_until": None} for i in range(match.players)],
        "can_undo": False,
        "record": event,
    }


#: A timeline line's words for each `Record.Type`: its code with spaces, in the caller's language
#: (lazy: each line is translated in the language active when it is written).
RECORD_WORDS: dict[str, Any] = {
    Record.Type.CREATED: pgettext_lazy("timeline", "created"),
    Record.Type.SEAT_TAKEN: pgettext_lazy("timeline", "seat taken"),
    Record.Type.SEAT_LEFT: pgettext_lazy("timeline", "seat left"),
    Record.Type.BOT_ADDED: pgettext_lazy("timeline", "bot added"),
    Record.Type.STARTED: pgettext_lazy("timeline", "started"),
    Record.Type.MOVE: pgettext_lazy("timeline", "move"),
    Record.Type.TIMEOUT: pgettext_lazy("timeline", "timeout"),
    Record.Type.EXPIRED: pgettext_lazy("timeline", "expired"),
    Record.Type.RESIGNED: pgettext_lazy("timeline", "resigned"),
    Record.Type.BOT_TOOK_OVER: pgettext_lazy("timeline", "bot took over"),
    Record.Type.ABORTED: pgettext_lazy("timeline", "aborted"),
    Record.Type.PAUSED: pgettext_lazy("timeline", "paused"),
    Record.Type.RESUMED: pgettext_lazy("timeline", "resumed"),
    Record.Type.SEAT_RETURNED: pgettext_lazy("timeline", "seat returned"),
    Record.Type.UNDONE: pgettext_lazy("timeline", "undone"),
    Record.Type.DRAWN: pgettext_lazy("timeline", "drawn"),
    Record.Type.CONCEDED: pgettext_lazy("timeline", "conceded"),
    Record.Type.CANCELLED: pgettext_lazy("timeline", "cancelled"),
    Record.Type.TIME_GRANTED: pgettext_lazy("timeline", "time granted"),
    Record.Type.ADJUDICATED: pgettext_lazy("timeline", "adjudicated"),
}


def timeline_text(game: str, seat: int | None, type: str, kinds: Sequence[str]) -> str:
    """A timeline line in the active language (the request's): "seat 2 move: played, drew". Each
    effect's kind in its game's words (``effect.<kind>`` of its catalogue, as a client's log says it),
    else its code with spaces."""
    language = get_language() or languages.DEFAULT
    words = str(RECORD_WORDS[type]) if type in RECORD_WORDS else type.replace("_", " ")
    if seat is not None:
        words = pgettext("timeline", "seat %(number)s %(record)s") % {"number": seat + 1, "record": words}
    if not kinds:
        return words
    effects = ", ".join(languages.text(game, language, f"effect.{k}") or k.replace("_", " ") for k in kinds)
    return pgettext("timeline", "%(record)s: %(effects)s") % {"record": words, "effects": effects}


def timeline(match: Match, seat: int | None, *, after: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
    """``GET timeline``: one line per record for a replay's scrubber, as ``seat`` may see it: its
    number, type, seat, actor, time, the kinds of the effects that seat saw, and a line of text in
    the request's language (`timeline_text`)."""
    rules = replay.rules_for(match)
    out = []
    for record in archive.records(match, after=after, limit=limit):
        event = record_for_viewer(rules, record, seat)
        kinds = [e["kind"] for e in event["data"].get("effects", [])] if record.type in replay.ENGINE_RECORDS else []
        text = timeline_text(match.game, event["seat"], record.type, kinds)
        out.append({k: event[k] for k in ("seq", "type", "seat", "actor", "at")} | {"effects": kinds, "text": text})
    return out


#: The columns a match summary shows (`api.representations.match_summary`), of the match, its
#: creator and its rematch: a list reads only these (a user row is twenty columns, its preferences
#: JSON among them, for a name).
SUMMARY_FIELDS = (
    *(
        f.name
        for f in Match._meta.concrete_fields
        if f.name not in ("rules_version", "updated_at", "timer_key", "invite_code", "archived_at")
    ),
    "created_by__username",
    "created_by__deleted_at",
    "rematch__id",
)


def for_summaries(qs: QuerySet[Match]) -> QuerySet[Match]:
    """``qs`` reading what a list of summaries shows, and nothing else: the creator's public name and
    the rematch's id by a join, only the columns shown (`SUMMARY_FIELDS`). The seats are left out:
    `with_seats` reads the page's at once."""
    return qs.select_related("created_by", "rematch").only(*SUMMARY_FIELDS)


#: `SUMMARY_FIELDS` of the match itself, as attribute names: what `games.sql`'s pages read of it.
SUMMARY_ATTNAMES = tuple(f.attname for f in Match._meta.concrete_fields if f.name in SUMMARY_FIELDS)


def _listing(user_id: int, *conditions: tuple[str, Any], order: str, seats_order: str = "") -> sql.Listing:
    """The matches ``user_id`` sits in that meet every ``(condition, parameter)`` on ``m``, as
    `games.sql` reads a page or a count of them; with no condition, in ``seats_order`` on the seats
    when there is one (`sql.Listing.seats_order`)."""
    where, params = sql.seated(user_id)
    for condition, param in conditions:
        where += f" AND {condition}"
        params.append(param)
    return sql.Listing(where, tuple(params), order, SUMMARY_ATTNAMES, "" if conditions else seats_order)


def my_matches(user: User) -> sql.Listing:
    """``match_list(user=user, mine=True)`` (``matches?mine=true``) for `games.sql.summaries_page`:
    every match the caller sits in, in the same order (``-created_at``, then ``id``)."""
    return _listing(user.pk, order="m.created_at DESC, m.id ASC", seats_order="s.match_created_at DESC, s.match_id ASC")


def user_matches_listing(
    user: User, viewer: User | None, *, game: str | None = None, status: str | None = None
) -> sql.Listing | None:
    """``user_matches(user, viewer, game=…, status=…)`` for `games.sql.summaries_page` when the
    viewer is ``user`` (one's own history needs no visibility rule) or anonymous (only public
    matches); None for anyone else: their visibility rule (invitations, tournaments, blocks) stays
    on the ORM's path."""
    own = viewer is not None and viewer.is_authenticated and viewer.pk == user.pk
    anonymous = viewer is None or not viewer.is_authenticated
    if not (own or anonymous):
        return None
    conditions: list[tuple[str, Any]] = [] if own else [("m.private = %s", False)]
    if game:
        conditions.append(("m.game = %s", game))
    if status:
        conditions.append(("m.status = %s", status))
    return _listing(
        user.pk,
        *conditions,
        order="m.created_at DESC, m.id DESC",
        seats_order="s.match_created_at DESC, s.match_id DESC",
    )


def match_list(*, user: User, mine: bool = False) -> QuerySet[Match]:
    """Matches the caller may list: every public match, and private ones it sits in (filters: api).
    ``mine``: only those it sits in, every one of which it may see (a seat passes every part of
    the visibility rule), so the rule's subqueries are neither built nor run."""
    qs = for_summaries(Match.objects.all())
    if mine:
        qs = qs.filter(Exists(Seat.objects.filter(match=OuterRef("pk"), user=user)))
    else:
        qs = qs.filter(_visible_q(user))
    return qs.order_by("-created_at", "id")


def with_seats(matches: Iterable[Match | sql.ListedMatch]) -> list[Match | sql.ListedMatch]:
    """The matches, each with ``listed_seats``: its seats in order (`sql.ListedSeat`), with their
    players' public names, read for the whole page in one statement (`games.sql.seats_of`). A list
    of summaries shows every seat of every match; the lists' querysets leave the seats out so that
    only a page's are read (``user_matches(result=…)`` reads whole lists), and the ORM's prefetch
    cost more than the summaries themselves. A match whose seats were prefetched, or read with the
    page (`sql.summaries_page`), keeps those."""
    matches = list(matches)
    wanted = [
        m.id
        for m in matches
        if getattr(m, "listed_seats", None) is None and "seats" not in getattr(m, "_prefetched_objects_cache", {})
    ]
    seats = sql.seats_of(wanted)
    wanted_ids = set(wanted)
    for match in matches:
        if match.id in wanted_ids:
            match.listed_seats = seats.get(match.id, [])  # type: ignore[union-attr]  # a Match gets one
    return matches


def seats_shown(match: Match | sql.ListedMatch) -> list[Seat] | list[sql.ListedSeat]:
    """The seats a summary shows: those `with_seats` read, else ``match.seats.all()``."""
    listed: list[sql.ListedSeat] | None = getattr(match, "listed_seats", None)
    if listed is not None:
        return listed
    assert isinstance(match, Match)  # a listed one always has its seats
    return list(match.seats.all())


def record_for_viewer(
    rules: Rules[Any, Any, Any] | None, record: Record | archive.LogRecord, seat: int | None
) -> dict[str, Any]:
    """One record as ``seat`` may see it: private effects and others' moves removed.

    A move is shown to its author only; everyone else learns what happened from the public
    effects. Where the game hides even who acted (EKKO's reaction pass) the seat is removed too.
    """
    author_visible = True
    data: dict[str, Any]
    if record.type in replay.ENGINE_RECORDS:
        own = seat is not None and seat == record.seat
        if record.move is not None and rules is not None and not own:
            author_visible = not rules.hides_author_of(record.move)
        data = {"effects": [e for e in record.effects if e["to"] is None or (seat is not None and seat in e["to"])]}
        if own and record.move is not None:
            data["move"] = record.move
        if record.data:
            data.update(record.data)
    else:
        data = dict(record.data)
    return {
        "seq": record.seq,
        "type": record.type,
        "seat": record.seat if author_visible else None,
        "actor": record.actor if author_visible else None,
        "data": data,
        "at": record.at.isoformat(),
    }


def deleted_seats(match: Match) -> set[int]:
    """Seats whose account was deleted: their records show a deleted player, not the old name."""
    return set(Seat.objects.filter(match_id=match.pk, user__deleted_at__isnull=False).values_list("index", flat=True))


def _without_deleted_names(data: dict[str, Any], seat: int | None, deleted: set[int], creator_deleted: bool) -> None:
    from accounts.usernames import DELETED

    if seat is not None and seat in deleted and "username" in data:
        data["username"] = DELETED
    if creator_deleted and "by" in data:
        data["by"] = DELETED


def match_and_seat_of(match_id: str, user: User | None, page: tuple[int, int] | None = None) -> Match:
    """The match row alone, annotated with ``caller_seat`` (the user's seat index or None) and, on
    PostgreSQL, ``deleted_players`` (`sql.deleted_in`'s answer) and, with ``page`` (``after``,
    ``limit``), ``log_page``: that page of a live match's log (``archive.log_tail``), in one prepared
    statement: what ``GET events`` needs (no seats, no creator). The page is read before anyone's
    right to see the match is checked, and nothing of it is shown until `event_list` is asked."""
    user_id = user.pk if user is not None and user.is_authenticated else None
    deleted = sql.deleted_tail()
    log = archive.log_tail() if page is not None else ""
    match, seat, values = sql.match_with_seat_of(match_id, user_id, deleted + log, page if log and page else ())
    match.caller_seat = seat  # type: ignore[attr-defined]
    if deleted:
        match.deleted_players = sql.deleted_of(values[0])  # type: ignore[attr-defined]
    if log and match.archived_at is None:  # an archived match's records are in its archive
        match.log_page = (page, archive.log_of(values[-1]))  # type: ignore[attr-defined]
    return match


def event_list(*, match: Match, user: User | None, after: int = 0, limit: int = 500) -> list[dict[str, Any]]:
    """The records after ``after`` as ``user``'s seat may see them (a spectator's view when not
    seated). ``match.caller_seat``, when `match_and_seat_of` read it, is ``user``'s seat,
    ``match.deleted_players`` the deleted accounts among its players, and ``match.log_page`` the page."""
    seat: int | None = match.caller_seat if hasattr(match, "caller_seat") else seat_index_of(match, user)
    rules = replay.rules_for(match)
    read = getattr(match, "log_page", None)  # the page `match_and_seat_of` read with the match
    records: Sequence[Record | archive.LogRecord]
    if read is not None and read[0] == (after, limit):
        records = read[1]
    else:
        records = archive.log(match, after=after, limit=limit)
    events = [record_for_viewer(rules, r, seat) for r in records]
    if not records:
        deleted, creator_deleted = set(), False
    elif hasattr(match, "deleted_players"):  # read with the match (`match_and_seat_of`)
        deleted, creator_deleted = match.deleted_players
    else:
        deleted, creator_deleted = sql.deleted_in(match.pk, match.created_by_id)
    if deleted or creator_deleted:
        for event, record in zip(events, records, strict=True):
            _without_deleted_names(event["data"], record.seat, deleted, creator_deleted)
    return events


def match_export(match: Match) -> dict[str, Any]:
    """The whole unredacted log and the seed: only once the match is over."""
    if match.is_live:
        raise Conflict("match_live", _("The log is exported once the match is over."))
    records = archive.records(match)
    deleted = deleted_seats(match)
    creator_deleted = match.created_by.deleted_at is not None
    for r in records:
        if deleted or creator_deleted:
            r.data = dict(r.data)
            _without_deleted_names(r.data, r.seat, deleted, creator_deleted)
    return {
        "match": match.id,
        "game": match.game,
        "rules_version": match.rules_version,
        "players": match.players,
        "options": match.options,
        "seed": match.seed,
        "seed_commitment": match.seed_commitment,
        "result": match.result,
        "records": [
            {
                "seq": r.seq,
                "type": r.type,
                "seat": r.seat,
                "actor": r.actor,
                "move": r.move,
                "effects": r.effects,
                "data": r.data,
                "at": r.at.isoformat(),
            }
            for r in records
        ],
    }


PROFILE_RECENT = 10  # the recent matches a profile shows


def user_profile(
    username: str, viewer: User | None = None, stamps: bool = False
) -> tuple[User, dict[str, int], list[sql.ListedMatch] | list[sql.Stamp], dict[str, dict[str, Any]], list[Rating]]:
    """A public profile, the same for every viewer: the active user, their counts of the matches
    anyone may see (played, active, won), their recent ones (the visibility rule for no one: public
    ones), their statistics (`user_stats` for no viewer) and their ratings. The counts of finished
    matches and the statistics are the player's tallies (`games.tallies`: kept as each match ends, a
    row per game, however long the history; folding every finished match here grew with it). The
    active count and the recent matches are one statement (`games.sql.profile_matches`), sent with
    the tallies' and the ratings' in one round trip (`games.sql.profile_reads`). ``viewer``: the
    signed-in reader, only to find a player reading their own profile without a query (`user_get`).
    ``stamps``: the recent matches as `sql.Stamp`s, for the API's cache of summaries."""
    user = user_get(username, viewer)
    reads = sql.profile_reads(user.pk, PROFILE_RECENT, SUMMARY_ATTNAMES, stamps)
    tallies = reads.tallies
    counts = {"played": sum(t.played for t in tallies), "active": reads.active, "won": sum(t.winners for t in tallies)}
    stats = {t.game: tally_stats(t) for t in tallies}  # in the order each game was first finished
    return user, counts, reads.recent, stats, reads.ratings


def tally_stats(tally: Tally) -> dict[str, Any]:
    """One game's statistics from its tally, as `user_stats` shows them (the same keys, in order)."""
    placements, scores = tally.placement_count, tally.score_count
    return {
        "played": tally.played,
        "won": tally.won,
        "drawn": tally.drawn,
        "lost": tally.lost,
        "longest_streak": tally.longest_streak,
        "average_placement": round(tally.placement_sum / placements, 3) if placements else None,
        "average_score": round(tally.score_sum / scores, 3) if scores else None,
    }


# --- players: visibility, invitations, history, statistics -----------------------------------------


#: Who else may see a private tournament's tables: each function (registered by `tournaments` at
#: start-up, `audience`) answers the ids of the tournaments a user is in, as a query.
_audiences: list[Callable[[int], Any]] = []


def audience(tournaments_of: Callable[[int], Any]) -> None:
    """Register ``tournaments_of(user_id)``: a query of the `Match.tournament` values whose private
    matches that user may see (the entrants of a private tournament see all its tables)."""
    if tournaments_of not in _audiences:
        _audiences.append(tournaments_of)


def _in_audience(match: Match, user: User) -> bool:
    if not match.tournament or not _audiences:
        return False
    q = Q()
    for tournaments_of in _audiences:
        q |= Q(tournament__in=tournaments_of(user.pk))
    return Match.objects.filter(Q(pk=match.pk) & q).exists()


def match_visible_to(match: Match, user: User | None, code: str | None = None) -> bool:
    """Whether ``user`` may see ``match`` at all (summary, state, events, export, streams).

    A public match: everyone. A private one: its seated players, its invitees (not after declining),
    the holder of its invitation code, staff, and the entrants of its tournament (`audience`).
    Everyone else is told it does not exist. An open
    match is hidden, even with its code, from whoever blocks one of its players or is blocked by
    one (circles), unless they sit in it themselves.
    """
    if match.status == Match.Status.OPEN and _blocked_out(match, user):
        return False
    if not match.private:
        return True
    # bytes: compare_digest refuses str with non-ASCII characters, and a client may send any code
    if code and match.invite_code and secrets.compare_digest(code.encode(), match.invite_code.encode()):
        return True
    if user is None or not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return (
        Seat.objects.filter(match_id=match.pk, user=user).exists()
        or Invitation.objects.filter(match_id=match.pk, user=user, delivered=True)
        .exclude(status=Invitation.Status.DECLINED)
        .exists()
        or _in_audience(match, user)
    )


def _blocked_out(match: Match, user: User | None) -> bool:
    """Whether a block between ``user`` and a player of ``match`` hides it from them (not seated)."""
    if user is None or not user.is_authenticated:
        return False
    players = Seat.objects.filter(match_id=match.pk, user__isnull=False)
    if players.filter(user=user).exists():
        return False
    return players.filter(circles.between_q(user.pk, "user_id", "games")).exists()


def match_get_for(match_id: str, user: User | None, code: str | None = None) -> Match:
    """``match_get``, answering 404 (as for a match that does not exist) to whoever may not see it."""
    match = match_get(match_id)
    if not match_visible_to(match, user, code):
        raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)})
    return match


def require_visible(match_id: str, user: User | None, code: str | None = None) -> None:
    """404 unless the match exists and ``user`` may see it (one query for a public match)."""
    match = Match.objects.filter(id=match_id).only("id", "private", "invite_code", "status", "tournament").first()
    if match is None or not match_visible_to(match, user, code):
        raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)})


def match_by_invite_code(code: str) -> Match:
    match = Match.objects.filter(invite_code=code).first() if code else None
    if match is None:
        raise NotFound(_("No match has this invitation code."))
    return match_get(match.id)


def _visible_q(viewer: User | None) -> Q:
    """`match_visible_to` as a condition on matches (without the invitation code: lists never take one)."""
    if viewer is None or not viewer.is_authenticated:
        return Q(private=False)
    seated = Exists(Seat.objects.filter(match=OuterRef("pk"), user=viewer))
    blocking = Seat.objects.filter(match=OuterRef("pk"), user__isnull=False).filter(
        circles.between_q(viewer.pk, "user_id", "games")
    )
    blocked_out = Q(status=Match.Status.OPEN) & Q(Exists(blocking)) & ~Q(seated)
    if viewer.is_staff:
        return ~blocked_out
    invited = Invitation.objects.filter(match=OuterRef("pk"), user=viewer, delivered=True).exclude(
        status=Invitation.Status.DECLINED
    )
    entrant = Q()
    for tournaments_of in _audiences:
        entrant |= Q(tournament__in=tournaments_of(viewer.pk))
    return (Q(private=False) | Q(seated) | Q(Exists(invited)) | entrant) & ~blocked_out


def visible_to(viewer: User | None, match: str = "match_id") -> Exists:
    """The same rule as a condition on rows that name a match in the column ``match`` (a seat, a
    rating change): true when ``viewer`` may see that match. ``None``: what anyone may see."""
    return Exists(Match.objects.filter(pk=OuterRef(match)).filter(_visible_q(viewer)))


def rating_history(user: User, game: str, viewer: User | None) -> QuerySet[RatingChange]:
    """``user``'s rating after each rated match of ``game`` that ``viewer`` may see. An entry for a
    private match (its id, its end, the change it made) is left out for everyone else; the current
    rating, which counts every rated match, is the rating itself and stays whole."""
    return account_selectors.rating_history(user, game).filter(visible_to(viewer))


def invitation_list(user: User) -> QuerySet[Invitation]:
    """The caller's pending invitations to matches that are still open, newest first."""
    return (
        Invitation.objects.filter(
            user=user, status=Invitation.Status.PENDING, match__status=Match.Status.OPEN, delivered=True
        )
        .select_related("invited_by", "match__created_by", "match__rematch")
        .prefetch_related(Prefetch("match__seats", queryset=Seat.objects.select_related("user").order_by("index")))
        .order_by("-created_at", "-id")
    )


def match_invitations(match: Match, user: User) -> QuerySet[Invitation]:
    """A match's invitations, for its seated players (others: 404 for a private match, 403 otherwise)."""
    if not Seat.objects.filter(match=match, user=user).exists():
        if not match_visible_to(match, user):
            raise NotFound(_("No match %(id)s.") % {"id": repr(match.id)})
        from games.errors import NotSeated

        raise NotSeated(_("Only seated players see a match's invitations."))
    return Invitation.objects.filter(match=match).select_related("user", "invited_by").order_by("created_at", "id")


def user_get(username: str, viewer: User | None = None) -> User:
    """The active account ``username`` designates (404 if none); ``viewer``: the signed-in reader,
    found without a query when it is the one named (`accounts.services.by_name`)."""
    from accounts.services import by_name

    user = by_name(username, viewer)
    if user is None:
        raise NotFound(_("No user %(username)s.") % {"username": repr(username)})
    return user


def outcome_of(index: int, result: dict[str, Any] | None) -> str | None:
    """``won``, ``drawn`` (first place shared), ``lost`` for a seat of a finished match."""
    if not result:
        return None
    winners = result.get("winners") or []
    if index in winners:
        return "won" if len(winners) == 1 else "drawn"
    ranking = result.get("ranking") or []
    if len(ranking) == 1 and index in ranking[0]:
        return "drawn"
    return "lost"


def user_matches(
    user: User, viewer: User | None, *, game: str | None = None, status: str | None = None, result: str | None = None
) -> QuerySet[Match] | list[Match]:
    """``user``'s matches ``viewer`` may see, newest first (a query to page in the database); ``result``
    filters finished ones by outcome (then a list: the outcome is read from each result). One's own
    history needs no visibility rule: a seat passes every part of it (as ``match_list(mine=True)``)."""
    qs = Match.objects.filter(Exists(Seat.objects.filter(match=OuterRef("pk"), user=user)))
    own = viewer is not None and viewer.is_authenticated and viewer.pk == user.pk
    if not own:
        qs = qs.filter(_visible_q(viewer))
    if game:
        qs = qs.filter(game=game)
    if status:
        qs = qs.filter(status=status)
    if result:
        qs = qs.filter(status=Match.Status.FINISHED)
    qs = for_summaries(qs).order_by("-created_at", "-id")
    if not result:
        return qs
    matches = list(qs)
    if result:
        index = dict(Seat.objects.filter(user=user, match__in=[m.pk for m in matches]).values_list("match_id", "index"))
        matches = [m for m in matches if outcome_of(index[m.pk], m.result) == result]
    return matches


FinishedRow = tuple[str, int, dict[str, Any] | None]  # (game, the user's seat index, result)


def finished_rows(user: User, viewer: User | None = None) -> list[FinishedRow]:
    """``user``'s finished matches that ``viewer`` may see (None: anyone), oldest first, as
    ``(game, seat index, result)``: what the statistics are made of (`user_stats`; the public
    profile reads them from its tallies instead, `games.tallies`, whose fold this is)."""
    return list(
        Seat.objects.filter(user=user, match__status=Match.Status.FINISHED)
        .filter(visible_to(viewer))
        .order_by("match__finished_at", "match_id")
        .values_list("match__game", "index", "match__result")
    )


def user_stats(
    user: User, viewer: User | None = None, rows: list[FinishedRow] | None = None
) -> dict[str, dict[str, Any]]:
    """Per game, over the finished matches ``viewer`` may see (None: anyone, as on a public profile):
    played, won, drawn, lost, average placement (1 = first), average score, longest winning streak.
    ``rows``: `finished_rows` already read for the same viewer."""
    rows = finished_rows(user, viewer) if rows is None else rows
    out: dict[str, dict[str, Any]] = {}
    streaks: dict[str, int] = {}
    for game, index, result in rows:
        s = out.setdefault(
            game,
            {"played": 0, "won": 0, "drawn": 0, "lost": 0, "placements": [], "scores": [], "longest_streak": 0},
        )
        s["played"] += 1
        outcome = outcome_of(index, result) or "lost"
        s[outcome] += 1
        streaks[game] = streaks.get(game, 0) + 1 if outcome == "won" else 0
        s["longest_streak"] = max(s["longest_streak"], streaks[game])
        ranking = (result or {}).get("ranking") or []
        place = next((i + 1 for i, group in enumerate(ranking) if index in group), None)
        if place is not None:
            s["placements"].append(place)
        scores = (result or {}).get("scores") or []
        if index < len(scores) and isinstance(scores[index], int | float):
            s["scores"].append(scores[index])
    for s in out.values():
        places, scores = s.pop("placements"), s.pop("scores")
        s["average_placement"] = round(sum(places) / len(places), 3) if places else None
        s["average_score"] = round(sum(scores) / len(scores), 3) if scores else None
    return out


def user_export_matches(user: User, game: str | None = None) -> QuerySet[Match]:
    """The user's finished matches that anyone may see, oldest first (``GET users/{username}/export``)."""
    qs = Match.objects.filter(
        Exists(Seat.objects.filter(match=OuterRef("pk"), user=user)), _visible_q(None), status=Match.Status.FINISHED
    )
    if game:
        qs = qs.filter(game=game)
    return qs.order_by("finished_at", "id")


def feed(followee_ids: set[int], *, days: int = 30, limit: int = 50) -> list[tuple[Match, str, Any]]:
    """Public matches that people in ``followee_ids`` started or finished in the last ``days``, the
    latest first: (match, "started" | "finished", when)."""
    if not followee_ids:
        return []
    since = timezone.now() - timedelta(days=days)
    theirs = Exists(Seat.objects.filter(match=OuterRef("pk"), user_id__in=followee_ids))
    rows = (
        Match.objects.filter(theirs, private=False, started_at__gte=since)
        .exclude(status=Match.Status.ABORTED)
        .select_related("created_by", "rematch")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index")))
        .annotate(last=Coalesce("finished_at", "started_at"))
        .order_by("-last", "id")[:limit]
    )
    return [(m, "finished" if m.finished_at else "started", m.finished_at or m.started_at) for m in rows]
