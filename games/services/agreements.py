"""Agreements: undo your own last input, and proposals the seats vote on (docs/api.md, *Undo*,
*Proposals*).

``POST matches/{id}/undo`` takes back the caller's last input when the match's ``takebacks`` option
is ``own_input``, nobody has recorded anything since, and taking it back hides nothing anyone
learned: the engine-independent leak oracle `rules.base.undo_blocker` decides (a card played face
up from a hidden hand was seen; a draw was chance). Otherwise ``422 undo_unsafe`` with the
``reason`` (``revealed``, ``random``, ``others_moved``, ``not_yours``, ``disabled``) and the
blocking ``seq``. An accepted undo appends an ``undone`` record (`play.apply_undone`).
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from accounts.models import User
from core.errors import ApplicationError, Conflict, Forbidden, InvalidRequest, NotFound
from games import notices, replay, scheduling, selectors
from games.errors import MatchOver, StaleVersion, match_is, proposal_status
from games.models import Match, Proposal, Record, Seat
from games.services import play, writes
from rules.base import Moved, undo_blocker


class UndoUnsafe(ApplicationError):
    code, status, title = "undo_unsafe", 422, gettext_noop("Undo refused")


REASONS = {  # translated when raised
    "disabled": gettext_noop("This match takes no moves back (its takebacks option)."),
    "not_yours": gettext_noop("The last input is not yours to take back."),
    "others_moved": gettext_noop("Something was recorded after your last input."),
    "revealed": gettext_noop("Your last input showed someone what the game hid from them."),
    "random": gettext_noop("Your last input drew on chance or a hidden pile."),
}


@transaction.atomic
def match_undo(*, match_id: str, user: User, expected_version: int) -> play.Played:
    match, seats = writes.locked(match_id, replaying=True)
    if not selectors.match_visible_to(match, user):
        raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)})  # a private match is not there for outsiders
    seat = play.seat_of(seats, user)
    if match.version != expected_version:
        raise StaleVersion(match.version)
    if match.status != Match.Status.ACTIVE:
        raise MatchOver(match_is(match.status))
    check = selectors.undo_check(match, seat.index, replay.match_state(match))
    if check.reason is not None or check.to_seq is None:
        reason = check.reason or "disabled"
        raise UndoUnsafe(_(REASONS[reason]), reason=reason, seq=check.seq)
    return play.apply_undone(match, seats, to_seq=check.to_seq, seat=seat.index, actor=Record.Actor.PLAYER)


# --- proposals ------------------------------------------------------------------------------------

KINDS = ("takeback", "draw", "concede_to", "cancel", "pause", "extend")
EXPIRES = timedelta(hours=24)
PER_HOUR = 10  # proposals one seat may make in a match per hour
MAX_PAUSE = timedelta(days=30)
MAX_EXTEND_S = 7 * 24 * 3600


class TakebackUnsafe(ApplicationError):
    code, status, title = "takeback_unsafe", 422, gettext_noop("Takeback refused")


def proposal_json(p: Proposal) -> dict[str, Any]:
    return {
        "id": p.pk,
        "kind": p.kind,
        "by": p.by_seat,
        "status": p.status,
        "needed": list(p.needed),
        "votes": {str(k): v for k, v in p.votes.items()},
        "created_at": p.created_at.isoformat(),
        "expires_at": p.expires_at.isoformat(),
        **p.params,
    }


def _bad(field: str, message: str) -> InvalidRequest:
    return InvalidRequest(message, errors={field: [message]})


def _live(match: Match) -> None:
    if match.status != Match.Status.ACTIVE:
        raise MatchOver(match_is(match.status))


def _humans_in(seats: list[Seat]) -> list[int]:
    return [s.index for s in seats if s.user_id is not None and not s.bot and not s.resigned]


def _span_seats(match: Match, to_seq: int) -> list[int]:
    return sorted(
        {
            seat
            for seat in Record.objects.filter(match=match, seq__gt=to_seq, type=Record.Type.MOVE)
            .exclude(actor=Record.Actor.BOT)
            .values_list("seat", flat=True)
            if seat is not None
        }
    )


def _takeback_blocker(match: Match, to_seq: int) -> int | None:
    """The first record after ``to_seq`` that showed someone something or drew on chance (its seq)."""
    rules = replay.rules_for(match)
    started = Record.objects.filter(match=match, type=Record.Type.STARTED).values_list("seq", flat=True).first()
    if started is None or to_seq < started:
        return started or 1
    for record in Record.objects.filter(match=match, seq__gt=to_seq).order_by("seq"):
        if record.type in (Record.Type.UNDONE, Record.Type.DRAWN, Record.Type.CONCEDED):
            return record.seq
        if record.type not in replay.ENGINE_RECORDS:
            continue
        if record.type != Record.Type.MOVE or record.move is None or record.seat is None:
            return record.seq  # a timeout, an expiry, a resignation: not taken back
        before, after = replay.state_at(match, record.seq - 1), replay.state_at(match, record.seq)
        given = Moved(record.seat, rules.parse_move(record.move))
        if (
            undo_blocker(rules, before, given, after, match.players, seed=selectors.sample_seed(match, record.seq))
            is not None
        ):
            return record.seq
    return None


def _params(
    match: Match, seats: list[Seat], me: Seat, kind: str, body: dict[str, Any]
) -> tuple[dict[str, Any], list[int]]:
    """What the proposal names, checked, and the seats whose yes it takes (the proposer's included)."""
    humans = _humans_in(seats)
    if kind == "takeback":
        if match.takebacks != "by_consent":
            raise Conflict("takebacks_disabled", _("This match takes moves back only by its takebacks option."))
        to_seq = body.get("to_seq")
        if type(to_seq) is not int or not 0 < to_seq < match.version:
            raise _bad(
                "to_seq",
                _("to_seq must be a record before the match's version %(version)s.") % {"version": match.version},
            )
        blocked = _takeback_blocker(match, to_seq)
        if blocked is not None:
            raise TakebackUnsafe(_("Taking these moves back would hide what someone already saw."), seq=blocked)
        needed = sorted(set(_span_seats(match, to_seq)) | {me.index})
        return {"to_seq": to_seq}, [s for s in needed if s in humans or s == me.index]
    if kind in ("draw", "cancel"):
        return {}, humans
    if kind == "concede_to":
        seat = body.get("seat")
        if type(seat) is not int or not 0 <= seat < len(seats) or seats[seat].resigned:
            raise _bad("seat", _("seat must be a seat still in the match."))
        return {"seat": seat}, humans
    if kind == "pause":
        until = body.get("until")
        when = _datetime(until)
        now = timezone.now()
        if when is None or not now < when <= now + MAX_PAUSE:
            raise _bad("until", _("until must be a date and time in the next 30 days."))
        return {"until": when.isoformat()}, humans
    seat, seconds = body.get("seat"), body.get("seconds")
    if type(seat) is not int or not 0 <= seat < len(seats):
        raise _bad("seat", _("seat must be a seat of the match."))
    if type(seconds) is not int or not 1 <= seconds <= MAX_EXTEND_S:
        raise _bad("seconds", _("seconds must be an integer from 1 to %(max)s.") % {"max": MAX_EXTEND_S})
    if not match.time_control:
        raise Conflict("no_clock", _("This match has no clocks to extend."))
    needed = [me.index] if seat != me.index else humans  # an opponent's gift needs no vote
    return {"seat": seat, "seconds": seconds}, needed


def _datetime(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def _seated(match_id: str, user: User) -> tuple[Match, list[Seat], Seat]:
    match, seats = writes.locked(match_id, replaying=True)
    if not selectors.match_visible_to(match, user):
        raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)})
    return match, seats, play.seat_of(seats, user)


@transaction.atomic
def proposal_create(*, match_id: str, user: User, body: Any) -> dict[str, Any]:
    """``POST matches/{id}/proposals``: put an agreement to the seats (it passes at once when only
    the proposer's yes is needed)."""
    if not isinstance(body, dict):
        raise _bad("kind", _("The body must be an object with a kind."))
    kind = body.get("kind")
    if kind not in KINDS:
        raise _bad("kind", _("kind must be one of %(choices)s.") % {"choices": ", ".join(KINDS)})
    match, seats, me = _seated(match_id, user)
    _live(match)
    if me.resigned:
        raise Conflict("already_resigned", _("You have resigned from this match."))
    _expire_stale(match)
    now = timezone.now()
    if (
        Proposal.objects.filter(match=match, by_seat=me.index, created_at__gte=now - timedelta(hours=1)).count()
        >= PER_HOUR
    ):
        raise Conflict(
            "too_many_proposals",
            ngettext(
                "At most %(count)s proposal an hour in one match.",
                "At most %(count)s proposals an hour in one match.",
                PER_HOUR,
            )
            % {"count": PER_HOUR},
        )
    params, needed = _params(match, seats, me, kind, body)
    try:
        with transaction.atomic():
            proposal = Proposal.objects.create(
                match=match,
                kind=kind,
                by_seat=me.index,
                by_user=user,
                params=params,
                needed=needed,
                votes={str(me.index): True},
                created_version=match.version,
                expires_at=now + EXPIRES,
                created_at=now,
            )
    except IntegrityError:
        raise Conflict(
            "proposal_open", _("A %(kind)s proposal is already open in this match.") % {"kind": kind}
        ) from None
    notices.on_proposal(match, seats, "proposal", proposal_json(proposal))
    _bots_vote(match, seats, proposal)
    _settle(match, seats, proposal)
    return proposal_json(proposal)


def _bots_vote(match: Match, seats: list[Seat], proposal: Proposal) -> None:
    """Bots answer at once, by a fixed policy on what their engine's heuristic says of the position:
    a ``cancel`` only in an unrated match; a ``draw`` when they are not ahead of everyone; a
    ``concede_to`` that names them, or a seat they stand behind. They are not asked the other kinds."""
    if proposal.kind not in ("draw", "concede_to", "cancel"):
        return
    bots = [s.index for s in seats if s.bot and not s.resigned]
    if not bots:
        return
    rules, state = replay.rules_for(match), replay.match_state(match)
    votes = dict(proposal.votes)
    for bot in bots:
        # What the bot's seat sees, never the whole state: its vote is public, so it must not
        # depend on anything the seat cannot see (a bot plays from a world sampled from its view).
        seen = json.loads(json.dumps(rules.view(state, bot, None), default=list))
        world = rules.determinize(seen, bot, random.Random(selectors.sample_seed(match, -proposal.pk)))
        standing = {s.index: rules.heuristic(world, s.index) for s in seats if not s.resigned}
        if proposal.kind == "cancel":
            yes = not match.rated
        elif proposal.kind == "draw":
            yes = standing[bot] < max(v for seat, v in standing.items() if seat != bot)
        else:
            named = proposal.params["seat"]
            yes = named == bot or standing[bot] < standing.get(named, float("inf"))
        votes[str(bot)] = yes
    proposal.needed = sorted({*proposal.needed, *bots})
    proposal.votes = votes
    proposal.save(update_fields=["needed", "votes"])


def proposal_list(*, match_id: str, user: User, status: str = "open") -> list[dict[str, Any]]:
    match = selectors.match_get(match_id)
    if not selectors.match_visible_to(match, user):
        raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)})
    proposals = Proposal.objects.filter(match=match).order_by("id")
    if status != "all":
        proposals = proposals.filter(status=status)
    return [proposal_json(p) for p in proposals]


def _proposal(match: Match, pid: int) -> Proposal:
    proposal = Proposal.objects.select_for_update().filter(match=match, pk=pid).first()
    if proposal is None:
        raise NotFound(_("No proposal %(id)s in this match.") % {"id": pid})
    return proposal


@transaction.atomic
def proposal_vote(*, match_id: str, user: User, pid: int, accept: Any) -> dict[str, Any]:
    """``PUT …/proposals/{pid}/vote``: a needed seat's yes or no; the last yes applies it, in this transaction."""
    if type(accept) is not bool:
        raise _bad("accept", _("accept must be true or false."))
    match, seats, me = _seated(match_id, user)
    _expire_stale(match)
    proposal = _proposal(match, pid)
    if proposal.status != Proposal.Status.OPEN:
        raise _closed(proposal)
    _live(match)
    if me.index not in proposal.needed:
        raise Forbidden(_("Your vote is not needed on this proposal."))
    proposal.votes = {**proposal.votes, str(me.index): accept}
    proposal.save(update_fields=["votes"])
    _settle(match, seats, proposal)
    return proposal_json(proposal)


@transaction.atomic
def proposal_withdraw(*, match_id: str, user: User, pid: int) -> None:
    match, seats, me = _seated(match_id, user)
    proposal = _proposal(match, pid)
    if proposal.by_seat != me.index:
        raise Forbidden(_("Only the proposer withdraws a proposal."))
    if proposal.status != Proposal.Status.OPEN:
        raise _closed(proposal)
    _close(match, seats, proposal, Proposal.Status.WITHDRAWN)


def _closed(proposal: Proposal) -> Conflict:
    closed = _("This proposal is %(status)s.") % {"status": proposal_status(proposal.status)}
    return Conflict("proposal_closed", closed)


def _close(match: Match, seats: list[Seat], proposal: Proposal, status: str) -> None:
    proposal.status, proposal.resolved_at = status, timezone.now()
    proposal.save(update_fields=["status", "resolved_at"])
    notices.on_proposal(match, seats, "proposal_result", proposal_json(proposal))


def _settle(match: Match, seats: list[Seat], proposal: Proposal) -> None:
    """Reject on any no; apply once every needed seat said yes."""
    votes = {int(k): v for k, v in proposal.votes.items()}
    if any(v is False for v in votes.values()):
        _close(match, seats, proposal, Proposal.Status.REJECTED)
        return
    if not all(votes.get(seat) for seat in proposal.needed):
        return
    if proposal.kind == "takeback" and _takeback_blocker(match, proposal.params["to_seq"]) is not None:
        _close(match, seats, proposal, Proposal.Status.EXPIRED)  # what it named is gone
        return
    _close(match, seats, proposal, Proposal.Status.PASSED)
    _apply(match, seats, proposal)
    Proposal.objects.filter(match=match, status=Proposal.Status.OPEN).exclude(pk=proposal.pk).filter(
        kind__in=["takeback", "draw", "concede_to", "cancel"] if proposal.kind != "extend" else []
    ).update(status=Proposal.Status.EXPIRED, resolved_at=timezone.now())


def _apply(match: Match, seats: list[Seat], proposal: Proposal) -> None:
    """A passed proposal's record, in the vote's transaction."""
    kind, params = proposal.kind, proposal.params
    data = {"proposal": proposal.pk}
    if kind == "takeback":
        play.apply_undone(match, seats, to_seq=params["to_seq"], seat=proposal.by_seat, actor=Record.Actor.SYSTEM)
    elif kind == "cancel":
        play.end_by_agreement(match, seats, rtype=Record.Type.CANCELLED, data=data, result=None)
    elif kind == "draw":
        play.end_by_agreement(match, seats, rtype=Record.Type.DRAWN, data=data, result=_draw_result(seats))
    elif kind == "concede_to":
        result = _conceded_result(match, seats, params["seat"])
        play.end_by_agreement(
            match, seats, rtype=Record.Type.CONCEDED, data={**data, "seat": params["seat"]}, result=result
        )
    elif kind == "pause":
        _pause_clocks(match, seats, datetime.fromisoformat(params["until"]), data)
    else:
        _grant(match, seats, params["seat"], params["seconds"], data)


def _draw_result(seats: list[Seat]) -> dict[str, Any]:
    remaining = [s.index for s in seats if not s.resigned]
    out = [s.index for s in seats if s.resigned]
    return {
        "winners": remaining,
        "ranking": [remaining] + ([out] if out else []),
        "scores": [0] * len(seats),
        "reason": "draw",
    }


def _conceded_result(match: Match, seats: list[Seat], winner: int) -> dict[str, Any]:
    """The named seat first, the others by the engine's standing (its heuristic), resigned seats last."""
    rules = replay.rules_for(match)
    state = replay.match_state(match)
    others = [s.index for s in seats if s.index != winner and not s.resigned]
    standing = {s: rules.heuristic(state, s) for s in others}
    groups: list[list[int]] = []
    for s in sorted(others, key=lambda s: -standing[s]):
        if groups and standing[groups[-1][0]] == standing[s]:
            groups[-1].append(s)
        else:
            groups.append([s])
    out = [s.index for s in seats if s.resigned and s.index != winner]
    return {
        "winners": [winner],
        "ranking": [[winner], *groups] + ([out] if out else []),
        "scores": [0] * len(seats),
        "reason": "conceded",
    }


def _pause_clocks(match: Match, seats: list[Seat], until: datetime, data: dict[str, Any]) -> None:
    """Every running clock, and the game timer, wait until ``until``: their deadlines move by the pause."""
    now = timezone.now()
    delta = until - now
    moved = []
    for seat in seats:
        if seat.deadline is not None:
            seat.deadline += delta
            seat.save(update_fields=["deadline"])
            moved.append(seat.index)
    if match.timer_deadline is not None:
        match.timer_deadline += delta
    writes.append(
        match,
        Record.Type.PAUSED,
        actor=Record.Actor.SYSTEM,
        data={**data, "reason": "agreement", "until": until.isoformat(), "seats": moved},
        at=now,
    )
    match.updated_at = now
    writes.save_progress(match)
    _rearm(match, seats)


def _grant(match: Match, seats: list[Seat], index: int, seconds: int, data: dict[str, Any]) -> None:
    seat = seats[index]
    if seat.deadline is not None:
        seat.deadline += timedelta(seconds=seconds)
    if match.time_control and "bank_s" in match.time_control:
        seat.bank_ms = (seat.bank_ms or 0) + seconds * 1000
    seat.save(update_fields=["deadline", "bank_ms"])
    writes.append(
        match,
        Record.Type.TIME_GRANTED,
        actor=Record.Actor.SYSTEM,
        seat=index,
        data={
            **data,
            "seat": index,
            "seconds": seconds,
            "deadline": seat.deadline.isoformat() if seat.deadline else None,
        },
    )
    match.updated_at = timezone.now()
    writes.save_progress(match)
    _rearm(match, seats)


def _rearm(match: Match, seats: list[Seat]) -> None:
    due = min([d for d in (match.timer_deadline, *(s.deadline for s in seats)) if d is not None], default=None)
    scheduling.wake_on_commit(match.id, match.version, due, False)


def _expire_stale(match: Match) -> None:
    """Open proposals past their time, or older than a full round of records (one per seat), expire."""
    now = timezone.now()
    round_ago = match.version - 2 * match.players  # a full round of turns, each a move and its effects at most
    stale = Proposal.objects.filter(match=match, status=Proposal.Status.OPEN)
    stale.filter(Q(expires_at__lte=now) | Q(created_version__lt=round_ago)).update(
        status=Proposal.Status.EXPIRED, resolved_at=now
    )


def sweep(now: datetime | None = None) -> int:
    """Beat: expire proposals past their 24 hours (a round's end is checked at the next write)."""
    now = now or timezone.now()
    return Proposal.objects.filter(status=Proposal.Status.OPEN, expires_at__lte=now).update(
        status=Proposal.Status.EXPIRED, resolved_at=now
    )
