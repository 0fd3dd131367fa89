"""Tournaments: create, join, withdraw, and the run itself (docs/api.md, *Tournaments*).

Everything that moves a tournament on happens in `advance`, under the tournament's row lock: the
start (when full, or at its time), the result of each table once its match ends, the adjudication
of a match past its round's deadline, the pairing of the next round, the end. `advance` is called
by the last join, by a task a tournament match's end queues (`games.scheduling.ended_on_commit`)
and by the beat sweep (`sweep`), so nothing depends on one message, and two match ends that both
close a round pair the next one once (the lock, then the round's unique number).

Seats: entrants are numbers (`Entrant` ids) to `tournaments.pairing`, which seats every table so
that each entrant's seat positions stay as even as the numbers allow.
"""

from __future__ import annotations

import itertools
import logging
import math
import time
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext, pgettext_lazy

from accounts.models import Rating, User
from accounts.services import by_name
from circles import selectors as circles
from core import taskqueue
from core.errors import ApplicationError, Conflict, Forbidden, InvalidRequest, NotFound
from games import clocks
from games.models import Match, Record, Seat
from games.services import lobby, operators, play, writes
from notify import inbox
from rules import RULES
from tournaments import pairing, selectors
from tournaments.models import Ban, Bye, Entrant, Invitee, Round, Table, Tournament

log = logging.getLogger(__name__)

TYPES = ("tournament_started", "tournament_paired", "tournament_finished")
MAX_POOL = 32  # a round robin's pool: 31 matches each is already a long correspondence season
DEFAULT_POOL = 16  # the pools of a round robin of more than MAX_POOL entrants, unless set
CONDITIONS = ("min_rating", "max_rating", "min_rated_matches", "max_recent_timeouts")
_KEYS = frozenset(
    {
        "name",
        "game",
        "options",
        "time_control",
        "format",
        "table_size",
        "max_players",
        "rounds",
        "start",
        "entry",
        "invite",
        "conditions",
        "points",
        "bye_points",
        "round_hours",
        "pool_size",
        "concurrent",
        "private",
    }
)


class Banned(ApplicationError):
    code, status, title = "tournament_banned", 403, gettext_noop("Banned from tournaments")


# A status inside a sentence: the English word is the code; other languages make it agree with "tournament".
_STATUS = {
    "open": pgettext_lazy("tournament status", "open"),
    "running": pgettext_lazy("tournament status", "running"),
    "finished": pgettext_lazy("tournament status", "finished"),
}


def _status(status: str) -> str:
    return str(_STATUS.get(status, status))


def _config() -> dict[str, Any]:
    return dict(settings.TABULA_TOURNAMENTS)


def _bad(field: str, message: str) -> InvalidRequest:
    return InvalidRequest(f"{field}: {message}", errors={field: [message]})


def _int(data: dict[str, Any], name: str, low: int, high: int, default: int | None = None) -> int | None:
    value = data.get(name, default)
    if value is None:
        return None
    if type(value) is not int or not low <= value <= high:
        raise _bad(name, _("Must be an integer from %(low)s to %(high)s.") % {"low": low, "high": high})
    return value


# --- create ---------------------------------------------------------------------------------------


@transaction.atomic
def tournament_create(*, user: User, data: Any) -> Tournament:
    """``POST tournaments``: validated like a match (the game's player range for ``table_size``, the
    engine for ``options``), then the format's own bounds. 400 naming the field otherwise."""
    if not isinstance(data, dict):
        raise InvalidRequest(_("The body must be a JSON object."))
    unknown = set(data) - _KEYS
    if unknown:
        raise _bad("body", _("Unknown fields: %(fields)s.") % {"fields": ", ".join(sorted(unknown))})
    cfg = _config()
    name = data.get("name")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 100 or any(ord(c) < 32 for c in name):
        raise _bad("name", _("Must be 1 to 100 characters, without control characters."))
    game = data.get("game")
    if not isinstance(game, str) or game not in RULES:
        raise _bad("game", _("Unknown game; see GET /api/v1/games."))
    fmt = data.get("format")
    if fmt not in Tournament.Format.values:
        raise _bad("format", _('Must be "round_robin", "swiss" or "elimination".'))
    table_size = data.get("table_size")
    if type(table_size) is not int:
        raise _bad("table_size", _("Must be an integer: the players at each table."))
    options, takebacks, _seed = lobby.options_check(
        user=user, game=game, players=table_size, options=data.get("options")
    )
    if takebacks is not None:
        options["takebacks"] = takebacks
    if fmt == Tournament.Format.ELIMINATION and table_size != 2:
        raise _bad("table_size", _("Single elimination is for tables of two."))
    max_players = _int(data, "max_players", table_size, cfg["max_players"])
    if max_players is None:
        raise _bad(
            "max_players", _("Required: from %(low)s to %(high)s.") % {"low": table_size, "high": cfg["max_players"]}
        )
    rounds = _int(data, "rounds", 1, cfg["max_rounds"])
    if fmt == Tournament.Format.SWISS and rounds is None:
        rounds = max(1, math.ceil(math.log2(max(2, max_players))))
    if fmt != Tournament.Format.SWISS and rounds is not None:
        raise _bad(
            "rounds", _("Only a Swiss tournament takes a number of rounds (the others follow from the entrants).")
        )
    pool_size = _int(data, "pool_size", table_size, min(max_players, MAX_POOL))
    if pool_size is not None and fmt != Tournament.Format.ROUND_ROBIN:
        raise _bad("pool_size", _("Only a round robin has pools."))
    if fmt == Tournament.Format.ROUND_ROBIN and pool_size is None and max_players > MAX_POOL:
        pool_size = DEFAULT_POOL  # everyone against everyone stops making sense well before this
    concurrent = data.get("concurrent", True)
    if not isinstance(concurrent, bool):
        raise _bad("concurrent", _("Must be true or false."))
    tc_in = data.get("time_control", cfg["time_control"])
    if isinstance(tc_in, dict):  # a tournament's defaults: no away, a timeout forfeits
        tc_in = {"away": "disallowed", "on_timeout": "forfeit", **tc_in}
    tc = clocks.validate(tc_in)
    if tc is None:
        raise _bad("time_control", _("A tournament needs a time control: its rounds must end."))
    points = _points(data.get("points"), table_size)
    bye_points = data.get("bye_points", sum(points) / len(points))
    if type(bye_points) not in (int, float) or not 0 <= bye_points <= max(points):
        raise _bad("bye_points", _("Must be a number from 0 to %(high)s.") % {"high": max(points)})
    round_hours = _int(data, "round_hours", 1, 365 * 24, cfg["round_hours"]) or cfg["round_hours"]
    start = data.get("start", "when_full")
    start_at = None
    if start != "when_full":
        start_at = parse_datetime(start) if isinstance(start, str) else None
        if start_at is None or start_at.tzinfo is None:
            raise _bad("start", _('"when_full" or an ISO 8601 time with its offset.'))
        if not timezone.now() < start_at <= timezone.now() + timedelta(days=365):
            raise _bad("start", _("Must be in the next 365 days."))
    entry = data.get("entry", "open")
    if entry not in Tournament.Entry.values:
        raise _bad("entry", _('Must be "open" or "invite".'))
    invited = _invited(user, data.get("invite"), entry, max_players)
    private = data.get("private", entry == Tournament.Entry.INVITE)
    if not isinstance(private, bool):
        raise _bad("private", _("Must be true or false."))
    conditions = _conditions(data.get("conditions"))
    if Tournament.objects.filter(created_by=user, status=Tournament.Status.OPEN).count() >= cfg["open_per_user"]:
        cap = cfg["open_per_user"]
        raise Conflict(
            "quota_exceeded",
            ngettext(
                "You have %(count)s tournament taking entries already.",
                "You have %(count)s tournaments taking entries already.",
                cap,
            )
            % {"count": cap},
        )
    t = Tournament.objects.create(
        id=writes.new_match_id(),
        name=name.strip(),
        game=game,
        options=options,
        time_control=tc,
        format=fmt,
        table_size=table_size,
        max_players=max_players,
        rounds=rounds,
        pool_size=pool_size,
        concurrent=concurrent,
        points=points,
        bye_points=float(bye_points),
        round_hours=round_hours,
        start_at=start_at,
        entry=entry,
        private=private,
        conditions=conditions,
        created_by=user,
    )
    Invitee.objects.bulk_create([Invitee(tournament=t, user_id=u) for u in invited])
    return t


def _points(value: Any, size: int) -> list[float]:
    if value is None:
        return pairing.default_vector(size)
    if (
        not isinstance(value, list)
        or len(value) != size
        or any(type(v) not in (int, float) or not 0 <= v <= 1000 for v in value)
        or any(a < b for a, b in itertools.pairwise(value))
    ):
        raise _bad(
            "points",
            ngettext(
                "Must be %(count)s number from 0 to 1000, best place first, never rising.",
                "Must be %(count)s numbers from 0 to 1000, best place first, never rising.",
                size,
            )
            % {"count": size},
        )
    if value[0] == 0:
        raise _bad("points", _("The first place must score."))
    return [float(v) for v in value]


def _invited(user: User, names: Any, entry: str, max_players: int) -> list[int]:
    if names is None:
        return []
    if entry != Tournament.Entry.INVITE:
        raise _bad("invite", _('Only a tournament with entry "invite" takes invitations.'))
    if not isinstance(names, list) or len(names) > max_players or any(not isinstance(n, str) for n in names):
        raise _bad(
            "invite",
            ngettext(
                "Must be a list of at most %(count)s username.",
                "Must be a list of at most %(count)s usernames.",
                max_players,
            )
            % {"count": max_players},
        )
    ids = []
    for name in names:
        other = by_name(name)
        if other is None or other.deleted_at is not None:
            raise _bad("invite", _("No user %(username)s.") % {"username": repr(name)})
        ids.append(other.pk)
    return sorted(set(ids))


def _conditions(value: Any) -> dict[str, int]:
    if value is None:
        return {}
    if not isinstance(value, dict) or set(value) - set(CONDITIONS):
        raise _bad("conditions", _("Must be an object with any of %(keys)s.") % {"keys": ", ".join(CONDITIONS)})
    out = {}
    for key, v in value.items():
        if type(v) is not int or not 0 <= v <= 100_000:
            raise _bad(
                f"conditions.{key}", _("Must be an integer from %(low)s to %(high)s.") % {"low": 0, "high": 100000}
            )
        out[key] = v
    if out.get("min_rating", 0) > out.get("max_rating", 100_000):
        raise _bad("conditions", _("min_rating is above max_rating."))
    return out


# --- join and withdraw --------------------------------------------------------------------------


def _locked(tournament_id: str, user: User | None) -> Tournament:
    row = Tournament.objects.select_for_update().filter(id=tournament_id).first()
    if row is None or not selectors.visible_to(row, user):
        raise NotFound(_("No tournament %(id)s.") % {"id": repr(tournament_id)})
    return row


def unmet(t: Tournament, user: User, now: datetime | None = None) -> list[str]:
    """The tournament's conditions ``user`` does not meet (empty: they may join)."""
    cond = t.conditions or {}
    if not cond:
        return []
    rating = Rating.objects.filter(user=user, game=t.game).first()
    shown, played = (rating.rating, rating.matches) if rating is not None else (1500.0, 0)
    out = []
    if "min_rating" in cond and shown < cond["min_rating"]:
        out.append("min_rating")
    if "max_rating" in cond and shown > cond["max_rating"]:
        out.append("max_rating")
    if "min_rated_matches" in cond and played < cond["min_rated_matches"]:
        out.append("min_rated_matches")
    if "max_recent_timeouts" in cond:
        since = (now or timezone.now()) - timedelta(days=_config()["recent_days"])
        mine = Seat.objects.filter(match_id=OuterRef("match_id"), index=OuterRef("seat"), user=user)
        timeouts = (
            Record.objects.filter(type__in=(Record.Type.TIMEOUT, Record.Type.RESIGNED), actor=Record.Actor.TIMEOUT)
            .filter(at__gte=since, match__seats__user=user)
            .filter(Exists(mine))
            .values("pk")
            .distinct()
            .count()
        )
        if timeouts > cond["max_recent_timeouts"]:
            out.append("max_recent_timeouts")
    return out


@transaction.atomic
def join(*, tournament_id: str, user: User) -> Tournament:
    """``POST tournaments/{id}/join``. The last entry of a tournament that starts when full starts it,
    in the same transaction (the row lock orders it against every other join)."""
    t = _locked(tournament_id, user)
    if t.status != Tournament.Status.OPEN:
        raise Conflict(
            "tournament_started",
            _("The tournament is %(status)s: it takes no more entries.") % {"status": _status(t.status)},
        )
    if t.entrants.filter(user=user).exists():
        raise Conflict("already_entered", _("You are in this tournament already."))
    invited = t.invitees.filter(user=user).exists()
    if t.entry == Tournament.Entry.INVITE and not invited and user.pk != t.created_by_id:
        raise Forbidden(_("This tournament is by invitation only."))
    ban = Ban.objects.filter(user=user, until__gt=timezone.now()).first()
    if ban is not None:
        raise Banned(
            _("You missed tournament matches: no new tournaments until %(until)s.") % {"until": ban.until.isoformat()},
            until=ban.until.isoformat(),
        )
    failed = unmet(t, user)
    if failed:
        raise Forbidden(
            _("You do not meet this tournament's conditions: %(conditions)s.") % {"conditions": ", ".join(failed)},
            conditions=failed,
        )
    count = t.entrants.count()
    if count >= t.max_players:
        raise Conflict("tournament_full", _("The tournament is full."))
    number = (t.entrants.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    Entrant.objects.create(tournament=t, user=user, number=number)
    if t.start_at is None and count + 1 >= t.max_players:
        _start(t)
    return t


@transaction.atomic
def withdraw(*, tournament_id: str, user: User) -> Tournament:
    """``POST tournaments/{id}/withdraw``: before the start the entry goes; once running, every live
    match of the entrant in it is resigned (their tables finish without them: a two-player table is
    lost, a larger one plays on) and they are paired no more."""
    t = _locked(tournament_id, user)
    entrant = t.entrants.filter(user=user, withdrawn_at__isnull=True).first()
    if entrant is None:
        raise NotFound(_("You are not in this tournament."))
    if t.status == Tournament.Status.OPEN:
        entrant.delete()
        return t
    if t.status != Tournament.Status.RUNNING:
        raise Conflict("tournament_over", _("The tournament is %(status)s.") % {"status": _status(t.status)})
    entrant.withdrawn_at = timezone.now()
    entrant.save(update_fields=["withdrawn_at"])
    live = Match.objects.filter(tournament=t.id, status=Match.Status.ACTIVE, seats__user=user, seats__resigned=False)
    for match_id in sorted(live.values_list("id", flat=True)):
        play.match_resign(match_id=match_id, user=user)
    transaction.on_commit(lambda: _advance_later(t.id))
    return t


def _advance_later(tournament_id: str) -> None:
    taskqueue.send(taskqueue.TOURNAMENT_ADVANCE, (tournament_id,), lost="the tournaments sweep finds it")


# --- the run ------------------------------------------------------------------------------------------


def advance(tournament_id: str, now: datetime | None = None) -> str:
    """Move the tournament on as far as it goes now; answers its status. Safe to run any number of
    times, concurrently: each step happens under the tournament's row lock."""
    now = now or timezone.now()
    with transaction.atomic():
        t = Tournament.objects.select_for_update().filter(id=tournament_id).first()
        if t is None:
            return "gone"
        if t.status == Tournament.Status.OPEN and t.start_at is not None and t.start_at <= now:
            _start(t)
        if t.status != Tournament.Status.RUNNING:
            return t.status
        overdue = _collect(t, now)
    for match_id in overdue:  # each in its own transaction: the match's lock, then ours again
        try:
            operators.match_adjudicate(match_id=match_id)
        except Exception:
            log.exception("could not adjudicate %s", match_id)
    with transaction.atomic():
        t = Tournament.objects.select_for_update().get(id=tournament_id)
        if t.status != Tournament.Status.RUNNING:
            return t.status
        _collect(t, now)
        _next(t, now)
        return t.status


def _start(t: Tournament) -> None:
    """Seed the entrants (rating, then entry order) and pair the first round; too few: cancelled."""
    entrants = list(t.entrants.select_related("user"))
    now = timezone.now()
    if len(entrants) < max(t.table_size, 2):
        t.status, t.finished_at = Tournament.Status.CANCELLED, now
        t.save(update_fields=["status", "finished_at"])
        _tell(t, [e.user_id for e in entrants], "tournament_finished", {"cancelled": True})
        return
    users = [e.user_id for e in entrants]
    ratings = dict(Rating.objects.filter(game=t.game, user__in=users).values_list("user", "rating"))
    for e in entrants:
        e.rating = ratings.get(e.user_id, 1500.0)
    for i, e in enumerate(sorted(entrants, key=lambda e: (-(e.rating or 0), e.number))):
        e.seed = i + 1
    Entrant.objects.bulk_update(entrants, ["seed", "rating"])
    t.status, t.started_at = Tournament.Status.RUNNING, now
    t.save(update_fields=["status", "started_at"])
    _tell(t, [e.user_id for e in entrants], "tournament_started", {})
    _next(t, now)


def _collect(t: Tournament, now: datetime) -> list[str]:
    """Score every table whose match ended; answer the matches still live past their round's deadline."""
    overdue = []
    open_tables = Table.objects.filter(round__tournament=t, finished_at__isnull=True).select_related("match", "round")
    for table in open_tables:
        match = _final(table.match)
        if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
            _score(t, table, match, now)
        elif table.round.deadline <= now and match.status == Match.Status.ACTIVE:
            overdue.append(match.id)
    for r in t.round_set.filter(finished_at__isnull=True):
        if not r.tables.filter(finished_at__isnull=True).exists():
            r.finished_at = now
            r.save(update_fields=["finished_at"])
    return overdue


def _final(match: Match) -> Match:
    """A tie that asked for a rematch (EKKO's ``tie_policy``) is decided by its rematch."""
    seen = 0
    while match.status == Match.Status.FINISHED and (match.result or {}).get("rematch") and seen < 20:
        nxt = Match.objects.filter(rematch_of=match).first()
        if nxt is None:
            break
        match, seen = nxt, seen + 1
    return match


def _score(t: Tournament, table: Table, match: Match, now: datetime) -> None:
    """Points by place from the match's ranking (an aborted match: everyone shares every place)."""
    ids = list(table.entrants)
    if match.status == Match.Status.FINISHED and match.result:
        ranking = [[ids[s] for s in group] for group in match.result.get("ranking", [])]
        placed = {e for g in ranking for e in g}
        rest = [e for e in ids if e not in placed]
        if rest:
            ranking.append(rest)
    else:
        ranking = [ids]
    points = pairing.table_points(ranking, t.points)
    table.points = {str(e): p for e, p in points.items()}
    table.ranking = ranking
    table.adjudicated = bool(match.result and match.result.get("reason") == "adjudicated")
    table.finished_at = now
    table.save(update_fields=["points", "ranking", "adjudicated", "finished_at"])
    _no_shows(match, ids, now)


def _no_shows(match: Match, ids: list[int], now: datetime) -> None:
    """A seat that timed out without a single move of its own is a no-show: a ban, doubled each time."""
    seated = Record.objects.filter(match=match, seat__isnull=False)
    acted = set(seated.filter(actor=Record.Actor.PLAYER).values_list("seat", flat=True))
    timed = set(seated.filter(actor=Record.Actor.TIMEOUT).values_list("seat", flat=True))
    cfg = _config()
    for seat in Seat.objects.filter(match=match, user__isnull=False, index__in=timed - acted).order_by("user_id"):
        assert seat.user_id is not None
        ban = Ban.objects.select_for_update().filter(user_id=seat.user_id).first()
        if ban is not None and ban.until < now - timedelta(days=cfg["ban_forget_days"]):
            ban.offences = 0
        offences = (ban.offences if ban is not None else 0) + 1
        until = now + timedelta(hours=cfg["ban_hours"] * 2 ** min(offences - 1, 10))
        Ban.objects.update_or_create(user_id=seat.user_id, defaults={"offences": offences, "until": until})


def _next(t: Tournament, now: datetime) -> None:
    """Pair the next round once every table of the last one has finished; or finish."""
    if Table.objects.filter(round__tournament=t, finished_at__isnull=True).exists():
        return
    active = list(t.entrants.filter(withdrawn_at__isnull=True).select_related("user").order_by("seed", "number"))
    started = time.perf_counter()
    pairer = {
        Tournament.Format.ROUND_ROBIN: _round_robin,
        Tournament.Format.SWISS: _swiss,
        Tournament.Format.ELIMINATION: _elimination,
    }[Tournament.Format(t.format)]
    rounds = pairer(t, active)
    if not rounds:
        _finish(t, now)
        return
    spent_ms = (time.perf_counter() - started) * 1000 / len(rounds)
    inbox.lock_inboxes(sorted(e.user_id for e in active))
    by_id = {e.pk: e for e in active}
    for r, slots in rounds:
        _pair(t, r, slots, by_id, now, spent_ms)


def _apart(active: list[Entrant]) -> set[frozenset[int]]:
    """Entrant pairs with a block between them (either way, for games): kept apart where the format allows."""
    users = {e.user_id: e.pk for e in active}
    out = set()
    for owner, blocked in circles.blocked_pairs(set(users), "games"):
        out.add(frozenset((users[owner], users[blocked])))
    return out


PairedRound = tuple[pairing.Round, list[str]]


def _round_robin(t: Tournament, active: list[Entrant]) -> list[PairedRound]:
    """All rounds at once (concurrent, the default), or the schedule's next round."""
    if t.round == 0:
        ids = [e.pk for e in active]
        pools = pairing.pools(ids, t.pool_size or len(ids), _apart(active))
        per_pool = [pairing.round_robin(p, t.table_size, seed=t.created_at.toordinal()) for p in pools if p]
        merged = []
        for i in range(max((len(p) for p in per_pool), default=0)):
            tables = [tb for p in per_pool if i < len(p) for tb in p[i].tables]
            byes = [b for p in per_pool if i < len(p) for b in p[i].byes]
            byes += [e for p in pools if len(p) < t.table_size for e in p if i == 0]
            merged.append(pairing.Round(tables, byes))
        if not t.concurrent:
            t.schedule = [{"tables": r.tables, "byes": r.byes} for r in merged[1:]]
            t.save(update_fields=["schedule"])
            return [(merged[0], [])] if merged else []
        return [(r, []) for r in merged]
    if t.concurrent or not t.schedule:
        return []
    withdrawn = set(t.entrants.filter(withdrawn_at__isnull=False).values_list("pk", flat=True))
    head, rest = t.schedule[0], t.schedule[1:]
    t.schedule = rest
    t.save(update_fields=["schedule"])
    # a withdrawn entrant's tables are not played: the others at them sit this round out
    tables = [tb for tb in head["tables"] if not withdrawn & set(tb)]
    byes = [e for e in head["byes"] if e not in withdrawn]
    byes += [e for tb in head["tables"] if withdrawn & set(tb) for e in tb if e not in withdrawn]
    return [(pairing.Round(tables, byes), [])]


def _past(t: Tournament) -> tuple[list[Table], list[Bye]]:
    return list(Table.objects.filter(round__tournament=t)), list(Bye.objects.filter(round__tournament=t))


def _swiss(t: Tournament, active: list[Entrant]) -> list[PairedRound]:
    if t.round >= (t.rounds or 0) or len(active) < t.table_size:
        return []
    tables, byes = _past(t)
    rows = selectors.compute_standings(t, tables, byes, active)
    scores = {r.entrant: r.points for r in rows}
    ranked = [r.entrant for r in rows if r.entrant in {e.pk for e in active}]
    met: dict[frozenset[int], int] = {}
    counts: dict[int, list[int]] = {}
    for table in tables:
        for p in pairing.pairs(table.entrants):
            met[p] = met.get(p, 0) + 1
        for i, e in enumerate(table.entrants):
            counts.setdefault(e, [0] * t.table_size)[i] += 1
    had = {b.entrant_id for b in byes}
    r = pairing.swiss_round(ranked, scores, met, counts, t.table_size, had_bye=had, apart=_apart(active))
    return [(r, [])]


def _elimination(t: Tournament, active: list[Entrant]) -> list[PairedRound]:
    if t.round == 0:
        alive = [e.pk for e in active]  # by seed
    else:
        last = t.round_set.get(number=t.round)
        tables = {tb.index: tb for tb in last.tables.all()}
        seeds = {e.pk: e.seed or 0 for e in t.entrants.all()}
        withdrawn = set(t.entrants.filter(withdrawn_at__isnull=False).values_list("pk", flat=True))
        alive = []
        for slot in last.slots:
            if slot.startswith("b"):
                winner = int(slot[1:])
            else:
                table = tables[int(slot[1:])]
                best = (table.ranking or [table.entrants])[0]
                winner = min(best, key=lambda e: seeds.get(e, 0))  # a tie: the better seed goes on
                for loser in table.entrants:
                    if loser != winner:
                        Entrant.objects.filter(pk=loser, out_after__isnull=True).update(out_after=t.round)
            if winner in withdrawn:
                continue
            alive.append(winner)
    if len(alive) < 2:
        return []
    r = pairing.elimination_round(alive)
    if t.round == 0 and len(alive) & (len(alive) - 1):
        full = 1 << (len(alive) - 1).bit_length()
        order = [alive[s] if s < len(alive) else None for s in pairing.bracket_order(full)]
        slots, ti = [], 0
        for i in range(0, full, 2):
            a, b = order[i], order[i + 1]
            if a is not None and b is not None:
                slots.append(f"t{ti}")
                ti += 1
            else:
                slots.append(f"b{a if a is not None else b}")
    else:
        slots = [f"t{i}" for i in range(len(r.tables))]
    balanced = pairing.balance([r], 2)[0]
    return [(balanced, slots)]


def _pair(
    t: Tournament, r: pairing.Round, slots: list[str], by_id: dict[int, Entrant], now: datetime, spent_ms: float
) -> None:
    number = t.round + 1
    deadline = now + timedelta(hours=t.round_hours)
    try:
        with transaction.atomic():
            row = Round.objects.create(
                tournament=t, number=number, paired_at=now, deadline=deadline, slots=slots, pairing_ms=spent_ms
            )
    except IntegrityError:  # paired already (never under the lock; the constraint is the last word)
        log.warning("round %s of %s was paired already", number, t.id)
        return
    t.round = number
    t.save(update_fields=["round"])
    points = t.bye_points if t.format == Tournament.Format.SWISS else 0.0
    for e in r.byes:
        Bye.objects.create(round=row, entrant_id=e, points=points)
    told: dict[int, dict[str, Any]] = {}
    for index, seats in enumerate(r.tables):
        match = play.match_seated(
            game=t.game,
            options={k: v for k, v in t.options.items() if k != "takebacks"},
            time_control=t.time_control,
            seats=[(by_id[e].user, "") for e in seats],
            created_by=t.created_by,
            private=t.private,
            takebacks=t.options.get("takebacks", "none"),
            tournament=t.id,
        )
        Table.objects.create(round=row, index=index, match=match, entrants=list(seats))
        for i, e in enumerate(seats):
            told[by_id[e].user_id] = {"round": number, "table": index, "match": match.id, "seat": i}
    for e in r.byes:
        told[by_id[e].user_id] = {"round": number, "bye": True}
    _tell(t, sorted(told), "tournament_paired", None, each=told)


def _finish(t: Tournament, now: datetime) -> None:
    t.status, t.finished_at = Tournament.Status.FINISHED, now
    t.save(update_fields=["status", "finished_at"])
    rows = selectors.standings(t)
    ranks = {r["user_id"]: r["rank"] for r in rows}
    _tell(t, sorted(ranks), "tournament_finished", None, each={u: {"rank": rk} for u, rk in ranks.items()})


def _tell(
    t: Tournament,
    user_ids: Iterable[int],
    type: str,
    payload: dict[str, Any] | None,
    each: dict[int, dict[str, Any]] | None = None,
) -> None:
    """An inbox entry to each user (in id order: inboxes are locked in that order)."""
    base = {"tournament": t.id, "name": t.name, "game": t.game}
    for user_id in sorted(set(user_ids)):
        extra = (each or {}).get(user_id, payload or {})
        match = None
        if "match" in extra:
            match = Match(id=extra["match"])
        inbox.notify(user_id, type, {**base, **extra}, match)


# --- the sweep ------------------------------------------------------------------------------------------


def due(now: datetime | None = None, limit: int = 200) -> list[str]:
    """Tournaments with something to do: a start time reached, a table whose match ended, a round
    past its deadline, or a running one with no table left open (its next round)."""
    now = now or timezone.now()
    starting = Q(status=Tournament.Status.OPEN, start_at__lte=now)
    open_tables = Table.objects.filter(round__tournament=OuterRef("pk"), finished_at__isnull=True)
    ended = open_tables.filter(match__status__in=(Match.Status.FINISHED, Match.Status.ABORTED))
    late = open_tables.filter(round__deadline__lte=now)
    running = Q(status=Tournament.Status.RUNNING) & (Q(Exists(ended)) | Q(Exists(late)) | ~Q(Exists(open_tables)))
    rows = Tournament.objects.filter(starting | running).order_by("created_at").values_list("id", flat=True)
    return list(rows[:limit])


def sweep(now: datetime | None = None) -> int:
    """Beat: `advance` every tournament with something to do."""
    done = 0
    for tournament_id in due(now):
        try:
            advance(tournament_id, now)
            done += 1
        except Exception:
            log.exception("could not advance tournament %s", tournament_id)
    return done


def ban_of(user: User) -> Ban | None:
    return Ban.objects.filter(user=user, until__gt=timezone.now()).first()
