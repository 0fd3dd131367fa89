"""The one path every game input takes, and the moves and resignations that feed it.

Every game input (the start, a move, a timeout, a resignation, the game timer) goes through
`apply_input`: replay, `step`, clocks, one INSERT, advance. What follows a commit (timers, bot turns,
the state cache) is queued by `games.scheduling` on commit; the inbox entries an input causes are
written with it (`games.notices`). A move is `move_turn` (the lock, the seat) then `Turn.play`, or
both at once with `move_submit`.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from structlog.contextvars import bind_contextvars

from accounts.models import User
from core import metrics, sql
from core.errors import ApplicationError, Conflict, NotFound
from games import clocks, notices, ratings, replay, scheduling, selectors, tallies
from games.errors import MatchOver, NotSeated, StaleVersion, match_is
from games.models import Match, Record, Seat
from games.services import writes
from rules import RULES, bots
from rules.base import Input, Moved, Outcome, Resigned, Rules, RulesError, Started, TimedOut, Timer, step

TAKEOVER_BOT_LEVEL = bots.DEFAULT_LEVEL  # also the level of a bot added without one


@dataclass(frozen=True)
class Played:
    """What an input did: the match (saved, at its new version), the state after it, the seats, and who acted."""

    match: Match
    rules: Rules[Any, Any, Any]
    state: Any
    seats: list[Seat]
    seat: int | None


def apply_input(
    match: Match,
    seats: list[Seat],
    given: Input,
    *,
    actor: str,
    data: dict[str, Any] | None = None,
    wake_bots: bool = True,
    now: datetime | None = None,
    state: Any = None,
) -> Played:
    """Apply one input to a locked match and record it: replay, step, clocks, one INSERT, advance.

    Every engine record is written here and nowhere else. The record is inserted once, complete:
    effects that announce a new game timer carry its absolute deadline. Lifecycle changes the
    input implies (a resignation, a timeout count, a bot taking a seat over) are made here too.
    ``wake_bots=False`` when the caller is the bot loop itself, which plays on without a new task.
    ``state``, when given, is the match's state at its version (a caller applying many inputs).
    """
    rules = replay.rules_for(match)
    before = list(match.awaiting)
    if state is None and not isinstance(given, Started):
        state = replay.match_state(match)
    new_state, effects = step(rules, state, given)  # RulesError: nothing was written
    now = now or timezone.now()
    author = getattr(given, "seat", None)
    outcome = rules.outcome(new_state)
    effects_json = [e.to_json() for e in effects]
    if outcome is None:
        _timer_set(match, rules.timer(new_state), effects_json, now)
    seat = seats[author] if author is not None else None
    # A player's own move ends a run of timeouts, but only a move others see was made by the seat:
    # resetting the (public) count on a hidden one (EKKO's reaction `pass`) would tell who passed.
    if (
        isinstance(given, Moved)
        and actor == Record.Actor.PLAYER
        and seat is not None
        and seat.consecutive_timeouts
        and not rules.author_hidden(given.move)
    ):
        seat.consecutive_timeouts = 0
        seat.save(update_fields=["consecutive_timeouts"])
    if isinstance(given, Resigned) and seat is not None:
        seat.resigned, seat.deadline, seat.clock_started_at = True, None, None
        seat.save(update_fields=["resigned", "deadline", "clock_started_at"])
    move = rules.dump_move(given.move) if isinstance(given, Moved) else None
    record = writes.append(
        match, given.record, actor=actor, seat=author, move=move, effects=effects_json, data=data, at=now, defer=True
    )
    bind_contextvars(match_id=match.id, game=match.game, version=match.version)  # for every log line after
    if isinstance(given, TimedOut) and seat is not None and outcome is None:
        _maybe_take_over(match, seat)
    _advance(match, rules, new_state, outcome, seats=seats, author=author, now=now, wake_bots=wake_bots)
    timed_out = isinstance(given, TimedOut) or (isinstance(given, Resigned) and actor == Record.Actor.TIMEOUT)
    notices.on_played(
        match,
        rules,
        record,
        before=before,
        seats=seats,
        started=isinstance(given, Started),
        finished=outcome is not None,
        timed_out=author if timed_out else None,
        now=now,
    )
    return Played(match, rules, new_state, seats, author)


def apply_undone(match: Match, seats: list[Seat], *, to_seq: int, seat: int, actor: str) -> Played:
    """Set a locked match back to its state at ``to_seq`` with an ``undone`` record (an undo, or an
    accepted takeback): replay skips the span, the log keeps it. Clocks follow the state as after
    any input; an undo refunds nothing a bank already paid."""
    rules = replay.rules_for(match)
    now = timezone.now()
    state = replay.state_at(match, to_seq)
    writes.append(
        match,
        Record.Type.UNDONE,
        actor=actor,
        seat=seat,
        move={"to_seq": to_seq},  # what replay reads (`replay.replay`)
        data={"to_seq": to_seq},
        at=now,
        defer=True,
    )
    _timer_set(match, rules.timer(state), [], now)
    _advance(match, rules, state, None, seats=seats, author=None, now=now, wake_bots=True)
    return Played(match, rules, state, seats, seat)


def end_by_agreement(
    match: Match, seats: list[Seat], *, rtype: str, data: dict[str, Any], result: dict[str, Any] | None
) -> Record:
    """End a locked match as its seats agreed: ``drawn`` or ``conceded`` (finished, rated as the
    result says), or ``cancelled`` (``result`` None: aborted, unrated, no rating changes)."""
    now = timezone.now()
    record = writes.append(match, rtype, actor=Record.Actor.SYSTEM, data=data, at=now, defer=True)
    match.status = Match.Status.FINISHED if result is not None else Match.Status.ABORTED
    match.finished_at, match.updated_at, match.result, match.awaiting = now, now, result, []
    match.timer_key, match.timer_deadline = "", None
    Seat.objects.filter(match=match).update(deadline=None, clock_started_at=None)
    writes.save_progress(match)
    if result is None:
        match.rated = False
        match.save(update_fields=["rated"])
    elif ratings.ratings_update(match):
        scheduling.leaderboard_on_commit(match.game)
    tallies.tally_update(match)  # a cancelled match (aborted) counts in none
    scheduling.ended_on_commit(match)
    notices.on_agreed(match, seats, record)
    return record


def _timer_set(match: Match, timer: Timer | None, effects: list[dict[str, Any]], now: datetime) -> None:
    """Keep, start or clear the game timer; a new one stamps its deadline into the effects announcing it."""
    if timer is None:
        match.timer_key, match.timer_deadline = "", None
        return
    if timer.key == match.timer_key:
        return
    match.timer_key, match.timer_deadline = timer.key, now + timedelta(seconds=timer.seconds)
    for effect in effects:
        if effect["data"].get("deadline", 0) is None:
            effect["data"]["deadline"] = match.timer_deadline.isoformat()


def _maybe_take_over(match: Match, seat: Seat) -> None:
    """A bot takes the seat after ``bot_after`` timeouts in a row (the `bot_took_over` record)."""
    bot_after = (match.time_control or {}).get("bot_after")
    if not bot_after or seat.consecutive_timeouts < bot_after or seat.bot:
        return
    seat.bot = TAKEOVER_BOT_LEVEL
    seat.save(update_fields=["bot"])
    record = writes.append(
        match,
        Record.Type.BOT_TOOK_OVER,
        actor=Record.Actor.SYSTEM,
        seat=seat.index,
        data={"level": TAKEOVER_BOT_LEVEL, "after_timeouts": seat.consecutive_timeouts},
    )
    notices.on_took_over(match, seat, record)


def _advance(
    match: Match,
    rules: Rules[Any, Any, Any],
    state: Any,
    outcome: Outcome | None,
    *,
    seats: list[Seat],
    author: int | None,
    now: datetime,
    wake_bots: bool,
) -> None:
    """Derive status, result, awaiting and clocks from the new state; save; queue what follows on commit."""
    before, since = set(match.awaiting), match.awaited_since or {}
    match.awaiting = sorted(rules.awaiting(state))
    stamp = now.isoformat()
    match.awaited_since = {
        str(s): (since.get(str(s)) or stamp) if s in before else stamp for s in match.awaiting
    }  # a nudge waits for how long a seat has been awaited
    match.updated_at = now
    if outcome is not None:
        match.status, match.finished_at, match.result = Match.Status.FINISHED, now, outcome.to_json()
        replay.keep_final(match, state)  # read from then on, never replayed
        match.timer_key, match.timer_deadline = "", None
        if any(s.deadline for s in seats):
            Seat.objects.filter(match=match).update(deadline=None, clock_started_at=None)
    else:
        for seat in clocks.update(match.time_control, rules.clocked_seats(state), seats, author=author, now=now):
            assert isinstance(seat, Seat)
            sql.update(seat, ["deadline", "clock_started_at", "bank_ms"])
    writes.save_progress(match)  # and the record `apply_input` deferred
    match_id, version = match.id, match.version
    final = outcome is not None
    transaction.on_commit(lambda: replay.remember(match_id, version, state, final=final))
    if outcome is not None:
        if ratings.ratings_update(match):
            scheduling.leaderboard_on_commit(match.game)
        tallies.tally_update(match)
        scheduling.ended_on_commit(match)
        if outcome.rematch:
            _rematch_on_tie(match, seats)
        return
    due = min([d for d in (match.timer_deadline, *(s.deadline for s in seats)) if d is not None], default=None)
    bots_busy = wake_bots and _bots_have_work(rules, state, match, seats)
    scheduling.wake_on_commit(match_id, version, due, bots_busy)


def _bots_have_work(rules: Rules[Any, Any, Any], state: Any, match: Match, seats: list[Seat]) -> bool:
    """A bot is awaited, or holds an interrupt it might take."""
    awaiting = set(match.awaiting)
    return any(s.bot and not s.resigned and (s.index in awaiting or rules.legal_moves(state, s.index)) for s in seats)


def start_if_full(match: Match) -> None:
    """Deal once every seat is filled (the `started` record), and start the clocks."""
    seats = writes.seats_of(match)
    if any(not s.taken for s in seats):
        return
    rules = replay.rules_for(match)
    now = timezone.now()
    match.status, match.started_at = Match.Status.ACTIVE, now
    bank_ms = clocks.initial_bank_ms(match.time_control)
    if bank_ms is not None:
        Seat.objects.filter(match=match).update(bank_ms=bank_ms)
        for seat in seats:
            seat.bank_ms = bank_ms
    config = rules.parse_config(match.options, match.players)
    apply_input(
        match, seats, Started(config, match.seed), actor=Record.Actor.SYSTEM, data={"players": match.players}, now=now
    )


def _rematch_on_tie(match: Match, seats: list[Seat]) -> Match:
    """A tie under ``tie_policy: "rematch"``: the same seats and options, a fresh seed, started at once."""
    options = {k: v for k, v in match.options.items() if k != "setup"}
    return match_seated(
        game=match.game,
        options=options,
        time_control=match.time_control,
        seats=[(s.user, s.bot) for s in seats],
        created_by=match.created_by,
        private=match.private,
        tournament=match.tournament,
        rematch_of=match,
    )


def match_seated(
    *,
    game: str,
    options: dict[str, Any],
    time_control: dict[str, Any] | None,
    seats: list[tuple[User | None, str]],
    created_by: User,
    private: bool = False,
    takebacks: str = "none",
    tournament: str = "",
    rematch_of: Match | None = None,
) -> Match:
    """A match whose every seat is given (``seats``: (user, "") or (None, bot level), in seat order),
    started at once: a rematch, or a tournament's table. Options and time control are already valid."""
    rules = RULES[game]
    now = timezone.now()
    seed = secrets.randbits(63)
    match = Match.objects.create(
        id=writes.new_match_id(),
        game=game,
        rules_version=rules.version,
        players=len(seats),
        options=options,
        time_control=time_control,
        seed=seed,
        seed_commitment=hashlib.sha256(str(seed).encode()).hexdigest(),
        private=private,
        rated=True,
        takebacks=takebacks,
        created_by=created_by,
        created_at=now,
        updated_at=now,
        rematch_of=rematch_of,
        tournament=tournament,
    )
    Seat.objects.bulk_create(
        [
            Seat(match=match, match_created_at=match.created_at, index=i, user=user, bot=bot, joined_at=now)
            for i, (user, bot) in enumerate(seats)
        ]
    )
    created: dict[str, Any] = {"game": game, "players": len(seats), "by": created_by.username}
    if rematch_of is not None:
        created["rematch_of"] = rematch_of.id
    if tournament:
        created["tournament"] = tournament
    writes.append(match, Record.Type.CREATED, actor=Record.Actor.SYSTEM, data=created)
    for i, (user, bot) in enumerate(seats):
        if bot:
            writes.append(match, Record.Type.BOT_ADDED, actor=Record.Actor.SYSTEM, seat=i, data={"level": bot})
        else:
            writes.append(
                match,
                Record.Type.SEAT_TAKEN,
                actor=Record.Actor.SYSTEM,
                seat=i,
                data={"username": user.username if user is not None else None},
            )
    start_if_full(match)
    match.save()
    return match


def seat_of(seats: list[Seat], user: User) -> Seat:
    seat = next((s for s in seats if s.user_id == user.id), None)
    if seat is None:
        raise NotSeated(_("You hold no seat in this match."))
    return seat


def _require_live(match: Match, *, not_started: str) -> None:
    if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
        raise MatchOver(match_is(match.status))
    if match.status == Match.Status.OPEN:
        raise Conflict("match_not_started", not_started)


@dataclass
class Turn:
    """A match locked for one move by one seat (`move_turn`): `play` applies the move."""

    match: Match
    seats: list[Seat]
    seat: Seat
    actor: str
    wake_bots: bool
    started: float  # perf_counter() before the lock: the move's time, for the metrics

    def play(self, move: Any, expected_version: int) -> Played:
        """Check the version and the status, parse the move and apply it (`apply_input`)."""
        match = self.match
        if match.version != expected_version:
            raise StaleVersion(match.version)
        _require_live(match, not_started=_("The match has not started yet: moves come once every seat is filled."))
        parsed = replay.rules_for(match).parse_move(move)  # InvalidMove → 400
        played = apply_input(
            match, self.seats, Moved(self.seat.index, parsed), actor=self.actor, wake_bots=self.wake_bots
        )
        game, actor, seconds = match.game, self.actor, time.perf_counter() - self.started
        transaction.on_commit(lambda: metrics.move_accepted(game, actor, seconds))
        return played


@contextmanager
def move_turn(
    *,
    match_id: str,
    user: User | None = None,
    seat_index: int | None = None,
    actor: str = Record.Actor.PLAYER,
    wake_bots: bool = True,
) -> Iterator[Turn]:
    """One transaction holding the match's lock for a move by the caller's seat (or ``seat_index``
    for a bot): the block gets the `Turn` once the seat is known and plays it with `Turn.play`.

    Checks, in the order rules/README.md pins: not_found (a private match the caller may not see),
    not_seated here; then in the block whatever the caller checks under the lock (the API's
    ``Idempotency-Key`` replay: racing retries of one request are serialised by the lock), then
    `Turn.play`: version_conflict, match_over, invalid_move, the engine's not_awaited / race_lost /
    illegal_move. A refusal raised anywhere in the block rolls the transaction back and is counted.
    """
    started, game = time.perf_counter(), metrics.UNKNOWN_GAME
    try:
        with transaction.atomic():
            match, seats = writes.locked(match_id, replaying=True)
            if user is not None and not selectors.match_visible_to(match, user):
                raise NotFound(
                    _("No match %(id)s.") % {"id": repr(match_id)}
                )  # a private match is not there for outsiders
            game = match.game
            seat = seat_of(seats, user) if user is not None else seats[seat_index or 0]
            yield Turn(match, seats, seat, actor, wake_bots, started)
    except (ApplicationError, RulesError) as exc:
        metrics.move_refused(game, exc.code)
        if isinstance(exc, RulesError):
            exc.game = game  # its words are that game's catalogue's (api.exceptions)
        raise


def move_submit(
    *,
    match_id: str,
    move: Any,
    expected_version: int,
    user: User | None = None,
    seat_index: int | None = None,
    actor: str = Record.Actor.PLAYER,
    wake_bots: bool = True,
) -> Played:
    """Apply one move by the caller's seat (or ``seat_index`` for a bot); the match and state after
    it. `move_turn` and `Turn.play` in one."""
    with move_turn(match_id=match_id, user=user, seat_index=seat_index, actor=actor, wake_bots=wake_bots) as turn:
        return turn.play(move, expected_version)


def inputs_play(*, match_id: str, inputs: Iterable[tuple[Input, str]]) -> Played | None:
    """Apply many ``(input, actor)`` in one transaction through the same path as each single one.

    For tools that build long matches (the benchmarks); the match must be active. Returns what
    the last input did (None for no input).
    """
    played = None
    with transaction.atomic():
        match, seats = writes.locked(match_id, replaying=True)
        _require_live(match, not_started=_("The match has not started."))
        state = replay.match_state(match)
        for given, actor in inputs:
            played = apply_input(match, seats, given, actor=actor, state=state)
            state = played.state
    return played


@transaction.atomic
def match_resign(*, match_id: str, user: User) -> Match:
    """Resign the caller's seat; the rules page says what that does to the game."""
    match, seats = writes.locked(match_id, replaying=True)
    seat = seat_of(seats, user)
    _require_live(match, not_started=_("The match has not started: leave it instead."))
    if seat.resigned:
        raise Conflict("already_resigned", _("You have already resigned."))
    return apply_input(match, seats, Resigned(seat.index), actor=Record.Actor.PLAYER).match
