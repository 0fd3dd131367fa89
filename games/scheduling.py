"""What a match waits for, and the tasks that act on it: timers for deadlines, turns for bots.

After a write commits, `wake` queues the deadline timer (when it is due within
``TABULA_TIMER_HORIZON_S``) and the bots' turn. Tasks are sent by their registered name
(`core.taskqueue`), so this module does not import ``games.tasks`` (which sits above the services). A lost task is never
fatal: the beat sweep (`due_match_ids`, `bot_match_ids`) finds every due deadline and every bot
with something to do.

``TABULA_QUEUE_TIMERS`` is False where tasks run inline (the test settings): a countdown cannot be
honoured there, so only the sweep fires deadlines.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from core import taskqueue
from games import replay
from games.models import Match, Seat

log = logging.getLogger(__name__)

TIMER_SLACK_S = 0.2  # fire a little after the deadline: ETAs are not exact
BOT_IDLE_S = 3  # the sweep wakes bots of matches idle this long (a lost bots_play task)
SWEEP_LIMIT = 500
INTERRUPT_SWEPT_TTL_S = 24 * 3600  # how long the sweep remembers it offered a bot its interrupt
LEADERBOARD_BATCH_S = 5  # rated matches finishing within this long share one rank refresh


def leaderboard_pending_key(game: str) -> str:
    return f"board-refresh-pending:{game}"


def leaderboard_on_commit(game: str) -> None:
    """Once a rated match's ratings are committed: refresh the game's stored ranks a few seconds later,
    one refresh queued per game at a time (the task clears the mark before it starts). A broker or
    cache failure is logged; the hourly beat refreshes every board anyway."""

    def send() -> None:
        try:
            if cache.add(leaderboard_pending_key(game), 1, timeout=LEADERBOARD_BATCH_S * 12):
                taskqueue.send(taskqueue.LEADERBOARDS_REFRESH, (game,), countdown=LEADERBOARD_BATCH_S)
        except Exception:
            log.exception("could not queue the leaderboard refresh of %s", game)

    transaction.on_commit(send)


def ended_on_commit(match: Match) -> None:
    """Once a match's end is committed: a tournament's table tells its tournament, which may pair
    the next round (a lost task is found by the tournaments' sweep)."""
    tournament = match.tournament
    if tournament:
        transaction.on_commit(
            lambda: taskqueue.send(taskqueue.TOURNAMENT_ADVANCE, (tournament,), lost="the tournaments sweep finds it")
        )


def wake_on_commit(match_id: str, version: int, due: datetime | None, bots: bool) -> None:
    """Once the current transaction commits: queue the match's timer and its bots' turn."""
    if due is not None or bots:
        transaction.on_commit(lambda: wake(match_id, version, due, bots))


def wake(match_id: str, version: int, due: datetime | None, bots: bool) -> None:
    """Queue the deadline timer if it is due soon, and the bots if one has something to do.

    A broker failure is logged, never raised: the beat sweep picks the match up.
    """
    try:
        if due is not None and settings.TABULA_QUEUE_TIMERS:
            wait = (due - timezone.now()).total_seconds()
            if wait <= settings.TABULA_TIMER_HORIZON_S:
                taskqueue.send(taskqueue.DEADLINE_FIRE, (match_id, version), countdown=max(0.0, wait) + TIMER_SLACK_S)
        if bots:
            taskqueue.send(taskqueue.BOTS_PLAY, (match_id, version))
    except Exception:
        log.exception("could not queue timers or bots for match %s", match_id)


def next_deadline(match: Match) -> datetime | None:
    """The earliest of the game timer and the running seat clocks."""
    deadlines = [d for d in Seat.objects.filter(match=match).values_list("deadline", flat=True) if d is not None]
    if match.timer_deadline is not None:
        deadlines.append(match.timer_deadline)
    return min(deadlines, default=None)


def bot_seats_to_play(match: Match) -> list[int]:
    """The bot seats that are awaited now."""
    awaiting = set(match.awaiting)
    seats = Seat.objects.filter(match=match, resigned=False).exclude(bot="").values_list("index", flat=True)
    return [s for s in seats if s in awaiting]


def schedule(match_id: str) -> None:
    """Queue what the match waits for now (its next deadline, its bots), reading it afresh."""
    match = Match.objects.filter(id=match_id, status=Match.Status.ACTIVE).first()
    if match is not None:
        wake(match.id, match.version, next_deadline(match), bool(bot_seats_to_play(match)))


def rearm_if_early(*, match_id: str, version: int) -> None:
    """Queue the timer again when the match is still at ``version`` and its deadline is ahead."""
    if not settings.TABULA_QUEUE_TIMERS:
        return
    match = Match.objects.filter(id=match_id, version=version, status=Match.Status.ACTIVE).first()
    if match is None:
        return
    due = next_deadline(match)
    if due is not None and due > timezone.now():
        wait = (due - timezone.now()).total_seconds()
        if wait <= settings.TABULA_TIMER_HORIZON_S:
            taskqueue.send(taskqueue.DEADLINE_FIRE, (match.id, match.version), countdown=wait + TIMER_SLACK_S)


# --- the sweep's queries ------------------------------------------------------------------------


def due_match_ids(now: datetime | None = None, limit: int = SWEEP_LIMIT) -> list[str]:
    """Active matches with a deadline that has passed (the game timer or a seat clock)."""
    now = now or timezone.now()
    timers = Match.objects.filter(status=Match.Status.ACTIVE, timer_deadline__lte=now).values_list("id", flat=True)
    clocks = (
        Seat.objects.filter(match__status=Match.Status.ACTIVE, deadline__lte=now, resigned=False)
        .values_list("match_id", flat=True)
        .distinct()
    )
    return sorted(set(timers[:limit]) | set(clocks[:limit]))


def bot_match_ids(now: datetime | None = None, limit: int = SWEEP_LIMIT) -> list[str]:
    """Active matches idle for a few seconds in which a bot has something to do (a lost bots_play task).

    Whatever the other seats are: a candidate is a match with some bot seat that has not resigned
    (an ``Exists`` over its seats). It is woken when a bot is awaited, every sweep until the bot
    plays; or, once per version, when a bot holds an interrupt it might take (EKKO's mirror,
    Enka's jump-in): a bot that declines is not asked again until the match moves on. Oldest
    first, so a backlog beyond ``limit`` is worked through over successive sweeps.
    """
    idle = (now or timezone.now()) - timedelta(seconds=BOT_IDLE_S)
    live_bot = Seat.objects.filter(match=OuterRef("pk"), resigned=False).exclude(bot="")
    candidates = list(
        Match.objects.filter(status=Match.Status.ACTIVE, updated_at__lte=idle)
        .filter(Exists(live_bot))
        .order_by("updated_at")[:limit]
    )
    woken = [m.id for m in candidates if bot_seats_to_play(m)]
    others = [m for m in candidates if m.id not in woken]
    if others:
        keys = {f"tabula:bot-interrupt-swept:{m.id}:{m.version}": m for m in others}
        seen = cache.get_many(list(keys))
        fresh = {key: m for key, m in keys.items() if key not in seen}
        if fresh:
            cache.set_many(dict.fromkeys(fresh, 1), timeout=INTERRUPT_SWEPT_TTL_S)
        woken += [m.id for m in fresh.values() if _bot_holds_interrupt(m)]
    return woken


def _bot_holds_interrupt(match: Match) -> bool:
    """A bot seat (not awaited) has a legal move now: an interrupt it might take."""
    seats = Seat.objects.filter(match=match, resigned=False).exclude(bot="").values_list("index", flat=True)
    rules = replay.rules_for(match)
    state = replay.match_state(match)
    return any(rules.legal_moves(state, s) for s in seats)
