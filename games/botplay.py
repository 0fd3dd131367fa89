"""Bot turns on the worker: read the bot seat's view, decide, and submit like a human would.

The decision functions (``rules.bots``) receive only the seat's view and legal moves, never the
state, so a bot cannot see what its seat could not. Awaited bots move first; then a bot that holds
an interrupt (EKKO's mirror, Enka's jump-in) may take it.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from core import metrics
from core.errors import ApplicationError
from games import replay, scheduling
from games.models import Match, Record, Seat
from games.services import play
from rules import bots
from rules.base import RulesError

log = logging.getLogger(__name__)

MAX_REFUSALS = 3  # refusals in a row before a bot gives up until the next wake-up (never spin)


def bot_inputs(match: Match, seat: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """What a bot in ``seat`` is given: the seat's view and legal moves, exactly as the API shows them."""
    rules = replay.rules_for(match)
    state = replay.match_state(match)
    deadline = match.timer_deadline.isoformat() if match.timer_deadline else None
    return dict(rules.view(state, seat, deadline)), [rules.dump_move(m) for m in rules.legal_moves(state, seat)]


def _next_bot_move(match: Match) -> tuple[int, dict[str, Any]] | None:
    """The first bot decision to submit: an awaited bot's move, else a bot's chosen interrupt."""
    rules = replay.rules_for(match)
    awaiting = set(match.awaiting)
    seats = list(Seat.objects.filter(match=match, resigned=False).exclude(bot="").order_by("index"))
    for seat in sorted(seats, key=lambda s: s.index not in awaiting):  # awaited bots first
        view, legal = bot_inputs(match, seat.index)
        if not legal:
            continue
        seed = secrets.randbits(63)
        with metrics.BOT_DECISION_SECONDS.labels(seat.bot).time():
            if seat.index in awaiting:
                return seat.index, bots.choose_move(rules, view, legal, seat.index, seat.bot, seed)
            interrupt = bots.choose_interrupt(rules, view, legal, seat.index, seat.bot, seed)
        if interrupt is not None:
            return seat.index, interrupt
    return None


def bots_play(*, match_id: str, expected_version: int | None, limit: int = 500) -> int:
    """Play while a bot has something to do; returns how many moves the bots made."""
    played = refused = 0
    while played < limit and refused < MAX_REFUSALS:
        match = Match.objects.filter(id=match_id).first()
        if match is None or match.status != Match.Status.ACTIVE:
            break
        if expected_version is not None and match.version != expected_version:
            break
        expected_version = None
        decision = _next_bot_move(match)
        if decision is None:
            break
        seat, move = decision
        try:
            play.move_submit(
                match_id=match.id,
                move=move,
                expected_version=match.version,
                seat_index=seat,
                actor=Record.Actor.BOT,
                wake_bots=False,  # this loop plays on: no new task for its own bots
            )
            played, refused = played + 1, 0
        except (ApplicationError, RulesError) as exc:  # a human's move landed first: think again
            refused += 1
            log.info("bot move in %s refused (%s): thinking again", match.id, exc.code)
    if played >= limit:
        scheduling.schedule(match_id)
    return played
