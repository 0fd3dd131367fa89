"""Before and around play: create a match, invite, join, leave, add bots, rematch, delete an account.

A full table starts at once (`play.start_if_full`). Services answer domain values; the API renders them.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from circles import selectors as circles
from circles import services as circles_services
from core.errors import ApplicationError, Conflict, Forbidden, InvalidRequest, NotFound
from games import clocks
from games.errors import NotSeated, QuotaExceeded, match_status
from games.models import Invitation, Match, Record, Seat
from games.services import play, writes
from notify import inbox
from rules import RULES, bots
from rules.base import RulesError, Started, step

BOT_LEVELS = bots.LEVELS
#: Who may take moves back (the match option ``takebacks``, docs/api.md *Undo and agreements*):
#: nobody, the author of the last input alone, or everyone whose records it would undo.
TAKEBACKS = ("none", "own_input", "by_consent")


def _validate_bots(bots: Any, players: int, creator_seat: int = 0) -> list[tuple[int, str]]:
    if bots is None:
        return []
    if not isinstance(bots, list):
        raise InvalidRequest(_("bots must be a list."), errors={"bots": [_("Must be a list of {seat, level}.")]})
    out: list[tuple[int, str]] = []
    for i, bot in enumerate(bots):
        if not isinstance(bot, dict) or set(bot) - {"seat", "level"}:
            raise InvalidRequest(_("Each bot is {seat, level}."), errors={f"bots[{i}]": [_("Must be {seat, level}.")]})
        seat, level = bot.get("seat"), bot.get("level", play.TAKEOVER_BOT_LEVEL)
        if type(seat) is not int or not 0 <= seat < players or seat == creator_seat:
            raise InvalidRequest(
                _("%(field)s must be a seat from 1 to %(last)s (the creator takes seat 0).")
                % {"field": f"bots[{i}].seat", "last": players - 1},
                errors={f"bots[{i}].seat": [_("Must be an integer from 1 to %(last)s.") % {"last": players - 1}]},
            )
        if level not in BOT_LEVELS:
            raise InvalidRequest(
                _("%(field)s must be one of %(choices)s.")
                % {"field": f"bots[{i}].level", "choices": ", ".join(BOT_LEVELS)},
                errors={f"bots[{i}].level": [_("Must be one of %(choices)s.") % {"choices": ", ".join(BOT_LEVELS)}]},
            )
        out.append((seat, level))
    if len({s for s, _ in out}) != len(out):
        raise InvalidRequest(_("Two bots name the same seat."), errors={"bots": [_("Seats must be distinct.")]})
    return out


def setup_allowed(user: User) -> bool:
    return bool(settings.TABULA_ALLOW_SETUP or user.is_staff)


@transaction.atomic
def match_create(
    *,
    user: User,
    game: str,
    players: int,
    options: dict[str, Any] | None = None,
    bots: Any = None,
    time_control: Any = None,
    private: bool = False,
    invite: list[str] | None = None,
    creator_seat: int = 0,
    reserved: dict[int, User] | None = None,
    rematch_of: Match | None = None,
) -> Match:
    """Create a match; the creator takes seat 0 (``creator_seat``), bots take theirs, invitees get the
    next free seats reserved for them (``reserved``: given seats, for a rematch), and a full table
    starts at once."""
    options, takebacks, seed = options_check(user=user, game=game, players=players, options=options)
    rules = RULES[game]
    bot_seats = _validate_bots(bots, players, creator_seat)
    invited = _invitees(user, invite or [], reserved or {}, players, creator_seat, bot_seats)
    if invited:  # `invited` now, then the start's entries: every inbox this may touch, locked in order
        inbox.lock_inboxes([user.pk, *(u.pk for u in invited.values())])
    tc = clocks.validate(time_control)
    _check_quotas(user, with_bots=bool(bot_seats), stays_open=len(bot_seats) < players - 1)
    now = timezone.now()
    match = Match.objects.create(
        id=writes.new_match_id(),
        game=game,
        rules_version=rules.version,
        players=players,
        options=options,
        time_control=tc,
        seed=seed,
        seed_commitment=hashlib.sha256(str(seed).encode()).hexdigest(),
        private=private,
        rated="setup" not in options,
        takebacks=takebacks or ("none" if "setup" not in options else "own_input"),
        created_by=user,
        created_at=now,
        updated_at=now,
        invite_code=secrets.token_urlsafe(16),
        rematch_of=rematch_of,
    )
    Seat.objects.bulk_create(
        [
            Seat(
                match=match,
                match_created_at=match.created_at,
                index=i,
                user=user if i == creator_seat else None,
                joined_at=now if i == creator_seat else None,
            )
            for i in range(players)
        ]
    )
    created = {"game": game, "players": players, "by": user.username}
    if rematch_of is not None:
        created["rematch_of"] = rematch_of.id
    writes.append(match, Record.Type.CREATED, actor=Record.Actor.SYSTEM, data=created)
    writes.append(
        match, Record.Type.SEAT_TAKEN, actor=Record.Actor.PLAYER, seat=creator_seat, data={"username": user.username}
    )
    for seat_index, invitee in invited.items():
        _invite(match, invitee, by=user, seat=seat_index)
    for seat, level in bot_seats:
        Seat.objects.filter(match=match, index=seat).update(bot=level, joined_at=now)
        writes.append(match, Record.Type.BOT_ADDED, actor=Record.Actor.SYSTEM, seat=seat, data={"level": level})
    play.start_if_full(match)
    match.save()
    return match


def options_check(
    *, user: User, game: str, players: int, options: dict[str, Any] | None
) -> tuple[dict[str, Any], str | None, int]:
    """A game, a player count and options as `match_create` takes them (a tournament's too): the
    engine's options, the platform's ``takebacks`` (None: not given) and a seed the whole deal was
    tried with. Raises `InvalidRequest` (400) naming what is wrong."""
    rules = RULES.get(game)
    if rules is None:
        raise InvalidRequest(
            _("Unknown game %(game)s; see GET /api/v1/games.") % {"game": repr(game)},
            errors={"game": [_("Unknown game.")]},
        )
    if type(players) is not int or players not in rules.seats:
        bounds = {"low": rules.seats.start, "high": rules.seats.stop - 1}
        raise InvalidRequest(
            _("%(game)s takes %(low)s to %(high)s players.") % {"game": rules.title, **bounds},
            errors={"players": [_("Must be from %(low)s to %(high)s.") % bounds]},
        )
    if options is not None and not isinstance(options, dict):
        raise InvalidRequest(_("options must be an object."), errors={"options": [_("Must be an object.")]})
    options = dict(options or {})
    takebacks = options.pop("takebacks", None)  # the platform's option, not the engine's
    if takebacks is not None and takebacks not in TAKEBACKS:
        raise InvalidRequest(
            _("takebacks must be one of %(choices)s.") % {"choices": ", ".join(TAKEBACKS)},
            errors={"options.takebacks": [_("Unknown value.")]},
        )
    if "setup" in options and not setup_allowed(user):
        raise Forbidden(_("The setup option is for tests and staff only."))
    _check_option_bounds(options)
    seed = secrets.randbits(63)
    try:  # the whole deal, with this match's seed: a `setup` may need the board to be checked
        step(rules, None, Started(rules.parse_config(options, players), seed))
    except RulesError as exc:
        raise InvalidRequest(exc.message, errors={"options": [exc.message]}) from exc
    return options, takebacks, seed


def _invitees(
    user: User,
    names: list[str],
    reserved: dict[int, User],
    players: int,
    creator_seat: int,
    bot_seats: list[tuple[int, str]],
) -> dict[int, User]:
    """The seats reserved for invitees: ``reserved`` as given, then each named user in the next free seat."""
    from accounts import usernames

    out = dict(reserved)
    taken = {creator_seat, *(i for i, _ in bot_seats), *out}
    free = [i for i in range(players) if i not in taken]
    seen = {user.pk, *(u.pk for u in out.values())}
    for name in names:
        invitee = User.objects.filter(username_key=usernames.key(name), is_active=True).first()
        if invitee is None:
            raise InvalidRequest(
                _("No user %(username)s to invite.") % {"username": repr(name)},
                errors={"invite": [_("No user %(username)s.") % {"username": repr(name)}]},
            )
        if invitee.pk in seen:
            continue
        _not_blocking(user, invitee)
        if not free:
            raise InvalidRequest(
                _("More invitees than free seats."), errors={"invite": [_("More invitees than free seats.")]}
            )
        out[free.pop(0)] = invitee
        seen.add(invitee.pk)
    return out


def _notify_invited(invitation: Invitation) -> None:
    """The invitee's ``invited`` notification, written in the invitation's transaction."""
    payload = {
        "match": invitation.match_id,
        "game": invitation.match.game,
        "by": invitation.invited_by.username,
        "seat": invitation.seat,
    }
    inbox.notify(invitation.user, "invited", payload, invitation.match)


def _not_blocking(by: User, invitee: User) -> None:
    """The inviter may not invite someone they block (they know of their own block)."""
    if circles.blocks(by.pk, invitee.pk, "games"):
        raise Conflict(
            "user_blocked", _("You block %(username)s: unblock them to invite them.") % {"username": invitee.username}
        )


def _invite(match: Match, invitee: User, *, by: User, seat: int | None) -> Invitation:
    """Reserve ``seat`` for ``invitee`` and tell them, unless they block ``by``: then the inviter
    sees a pending invitation that the invitee never hears of (circles: nobody is told of a block)."""
    delivered = not circles.blocks(invitee.pk, by.pk, "games")
    invitation, _ = Invitation.objects.update_or_create(
        match=match,
        user=invitee,
        defaults={
            "invited_by": by,
            "seat": seat,
            "status": Invitation.Status.PENDING,
            "created_at": timezone.now(),
            "delivered": delivered,
        },
    )
    if delivered:
        _notify_invited(invitation)
    return invitation


def _reserved_seats(match: Match, *, besides: User | None = None) -> dict[int, int]:
    """seat -> invitee id, for pending invitations of an open match."""
    rows = Invitation.objects.filter(match=match, status=Invitation.Status.PENDING, seat__isnull=False)
    if besides is not None:
        rows = rows.exclude(user=besides)
    return {seat: uid for seat, uid in rows.values_list("seat", "user_id") if seat is not None}


@transaction.atomic
def invitation_create(*, match_id: str, by: User, username: str) -> Invitation:
    """A seated player invites ``username`` to an open match: a free seat is reserved for them."""
    from accounts import usernames

    match, seats = writes.locked(match_id)
    play.seat_of(seats, by)
    _require_open(match, "invite")
    invitee = User.objects.filter(username_key=usernames.key(username), is_active=True).first()
    if invitee is None:
        raise InvalidRequest(
            _("No user %(username)s to invite.") % {"username": repr(username)},
            errors={"username": [_("No user %(username)s.") % {"username": repr(username)}]},
        )
    if any(s.user_id == invitee.pk for s in seats):
        raise Conflict(
            "already_seated", _("%(username)s already holds a seat in this match.") % {"username": invitee.username}
        )
    _not_blocking(by, invitee)
    reserved = _reserved_seats(match, besides=invitee)
    free = next((s.index for s in seats if not s.taken and s.index not in reserved), None)
    if free is None:
        raise Conflict("match_full", _("The match has no free seat to reserve."))
    return _invite(match, invitee, by=by, seat=free)


@transaction.atomic
def invitation_decline(*, match_id: str, user: User) -> Invitation:
    """Decline a pending invitation: its seat is free again."""
    invitation = Invitation.objects.select_for_update().filter(match_id=match_id, user=user).first()
    if invitation is None or invitation.status != Invitation.Status.PENDING:
        raise NotFound(_("No pending invitation to match %(id)s.") % {"id": repr(match_id)})
    invitation.status, invitation.seat = Invitation.Status.DECLINED, None
    invitation.save(update_fields=["status", "seat"])
    return invitation


@transaction.atomic
def match_rematch(*, match_id: str, user: User) -> Match:
    """After the end: the same game, options and time control, every seat moved one place on; the
    caller sits down, bots keep their level, the other people are invited to their new seats."""
    match, seats = writes.locked(match_id)
    mine = play.seat_of(seats, user)
    if match.status != Match.Status.FINISHED:
        raise Conflict("match_live", _("A rematch follows a finished match."))
    if Match.objects.filter(rematch_of=match).exists():
        raise Conflict("rematch_exists", _("This match already has a rematch."))
    n = match.players
    moved = {(s.index + 1) % n: s for s in seats}
    reserved = {
        i: s.user
        for i, s in moved.items()
        if s.user is not None
        and s.user_id != user.pk
        and not s.bot
        and not circles.between(user.pk, s.user_id, "games")
    }  # a block either way: their seat is left free, and nobody is told
    bots_ = [{"seat": i, "level": s.bot} for i, s in moved.items() if s.bot]
    options = {k: v for k, v in match.options.items() if k != "setup"}
    return match_create(
        user=user,
        game=match.game,
        players=n,
        options=options,
        bots=bots_,
        time_control=match.time_control,
        private=match.private,
        creator_seat=(mine.index + 1) % n,
        reserved={i: u for i, u in reserved.items() if u.is_active},
        rematch_of=match,
    )


def account_delete(user: User) -> None:
    """``DELETE me``: leave open matches, resign live ones, drop invitations, then anonymise the
    account (finished matches keep their records; the seat shows a deleted player)."""
    for match_id, status in (
        Seat.objects.filter(user=user, match__status__in=(Match.Status.OPEN, Match.Status.ACTIVE))
        .values_list("match_id", "match__status")
        .order_by("match_id")
    ):
        try:
            if status == Match.Status.OPEN:
                match_leave(match_id=match_id, user=user)
            else:
                play.match_resign(match_id=match_id, user=user)
        except ApplicationError:
            pass  # already resigned, or ended meanwhile
    Invitation.objects.filter(user=user).delete()
    circles_services.forget(user)
    from accounts.services import user_anonymise

    user_anonymise(user)


def _check_option_bounds(options: dict[str, Any]) -> None:
    """Every integer option within ``TABULA_MAX_OPTION_INT`` (the engines bound most; this bounds the rest)."""
    bound = settings.TABULA_MAX_OPTION_INT
    for name, value in options.items():
        if type(value) is int and not -bound <= value <= bound:
            raise InvalidRequest(
                _("%(field)s is out of range.") % {"field": f"options.{name}"},
                errors={f"options.{name}": [_("Must be from %(low)s to %(high)s.") % {"low": -bound, "high": bound}]},
            )


def _check_quotas(user: User, *, with_bots: bool, stays_open: bool = False) -> None:
    """At most ``TABULA_MAX_OPEN_MATCHES`` open matches per creator, and ``TABULA_MAX_BOT_MATCHES``
    live matches with bots; the creator's row is locked so that racing creations count each other."""
    # NO KEY UPDATE: racing creations wait for each other, but another transaction's foreign-key
    # check on this user (a notification, a seat) does not, so the two cannot deadlock.
    User.objects.select_for_update(no_key=True).filter(pk=user.pk).values_list("pk", flat=True).first()
    mine = Match.objects.filter(created_by=user)
    cap = settings.TABULA_MAX_OPEN_MATCHES
    if stays_open and mine.filter(status=Match.Status.OPEN).count() >= cap:
        raise QuotaExceeded(
            ngettext(
                "You have %(count)s open match: start, leave or finish one first.",
                "You have %(count)s open matches: start, leave or finish one first.",
                cap,
            )
            % {"count": cap},
            limit=cap,
        )
    if with_bots:
        cap = settings.TABULA_MAX_BOT_MATCHES
        bot_seat = Seat.objects.filter(match=OuterRef("pk")).exclude(bot="")
        live = mine.filter(status__in=(Match.Status.OPEN, Match.Status.ACTIVE)).filter(Exists(bot_seat))
        if live.count() >= cap:
            raise QuotaExceeded(
                ngettext(
                    "You have %(count)s live match with bots: finish or resign one first.",
                    "You have %(count)s live matches with bots: finish or resign one first.",
                    cap,
                )
                % {"count": cap},
                limit=cap,
            )


def _require_open(match: Match, action: str) -> None:
    if match.status != Match.Status.OPEN:
        sentences = {
            "invite": _("Cannot invite: the match is %(status)s, not open."),
            "join": _("Cannot join: the match is %(status)s, not open."),
            "add a bot": _("Cannot add a bot: the match is %(status)s, not open."),
        }
        raise Conflict("match_not_open", sentences[action] % {"status": match_status(match.status)})


@transaction.atomic
def match_join(*, match_id: str, user: User, seat: int | None = None) -> Match:
    """Take a free seat (the first one unless ``seat`` names one); a full table starts the match."""
    match = writes.lock(match_id)
    _require_open(match, "join")
    seats = writes.seats_of(match)
    if any(s.user_id == user.id for s in seats):
        raise Conflict("already_seated", _("You already hold a seat in this match."))
    if any(circles.between(user.pk, s.user_id, "games") for s in seats if s.user_id is not None):
        raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)})  # as hidden as in the lobby (games.selectors)
    reserved = _reserved_seats(match, besides=user)
    invitation = Invitation.objects.filter(match=match, user=user, status=Invitation.Status.PENDING).first()
    if seat is None and invitation is not None and invitation.seat is not None:
        seat = invitation.seat
    if seat is not None:
        if not 0 <= seat < match.players:
            raise InvalidRequest(
                _("seat must be from 0 to %(last)s.") % {"last": match.players - 1},
                errors={"seat": [_("Out of range.")]},
            )
        target: Seat | None = seats[seat]
        if target is not None and target.taken:
            raise Conflict("seat_taken", _("Seat %(seat)s is taken.") % {"seat": seat})
        if seat in reserved:
            raise Conflict("seat_reserved", _("Seat %(seat)s is reserved for an invited player.") % {"seat": seat})
    else:
        target = next((s for s in seats if not s.taken and s.index not in reserved), None)
        if target is None:
            raise Conflict("match_full", _("The match has no free seat."))
    assert target is not None
    if invitation is not None:
        invitation.status = Invitation.Status.ACCEPTED
        invitation.save(update_fields=["status"])
    target.user, target.joined_at = user, timezone.now()
    target.save(update_fields=["user", "joined_at"])
    writes.append(
        match, Record.Type.SEAT_TAKEN, actor=Record.Actor.PLAYER, seat=target.index, data={"username": user.username}
    )
    play.start_if_full(match)
    match.updated_at = timezone.now()
    match.save()
    return match


@transaction.atomic
def match_leave(*, match_id: str, user: User) -> Match:
    """Give a seat back before the start; the match is aborted when no human is left."""
    match, seats = writes.locked(match_id)
    mine = next((s for s in seats if s.user_id == user.id), None)
    if mine is None:
        raise NotSeated(_("You hold no seat in this match."))
    if match.status != Match.Status.OPEN:
        raise Conflict("match_started", _("The match has started: resign instead of leaving."))
    mine.user, mine.joined_at = None, None
    mine.save(update_fields=["user", "joined_at"])
    writes.append(
        match, Record.Type.SEAT_LEFT, actor=Record.Actor.PLAYER, seat=mine.index, data={"username": user.username}
    )
    if not any(s.user_id for s in seats if s.index != mine.index):
        writes.append(match, Record.Type.ABORTED, actor=Record.Actor.SYSTEM, data={"reason": "no_players"})
        match.status = Match.Status.ABORTED
        match.finished_at = timezone.now()
    match.updated_at = timezone.now()
    match.save()
    return match


@transaction.atomic
def bot_add(*, match_id: str, user: User, seat: int | None, level: str) -> Match:
    """Seat a bot in an open match (the creator only); a full table starts the match."""
    match = writes.lock(match_id)
    if match.created_by_id != user.id:
        raise Forbidden(_("Only the match's creator may add bots."))
    _require_open(match, "add a bot")
    if not Seat.objects.filter(match=match).exclude(bot="").exists():
        _check_quotas(user, with_bots=True)
    if level not in BOT_LEVELS:
        raise InvalidRequest(
            _("level must be one of %(choices)s.") % {"choices": ", ".join(BOT_LEVELS)},
            errors={"level": [_("Unknown level.")]},
        )
    seats = writes.seats_of(match)
    if seat is None:
        target = next((s for s in seats if not s.taken), None)
        if target is None:
            raise Conflict("match_full", _("The match has no free seat."))
    elif not 0 <= seat < match.players:
        raise InvalidRequest(
            _("seat must be from 0 to %(last)s.") % {"last": match.players - 1}, errors={"seat": [_("Out of range.")]}
        )
    else:
        target = seats[seat]
        if target.taken:
            raise Conflict("seat_taken", _("Seat %(seat)s is taken.") % {"seat": seat})
    target.bot, target.joined_at = level, timezone.now()
    target.save(update_fields=["bot", "joined_at"])
    writes.append(match, Record.Type.BOT_ADDED, actor=Record.Actor.SYSTEM, seat=target.index, data={"level": level})
    play.start_if_full(match)
    match.updated_at = timezone.now()
    match.save()
    return match
