"""Bot turns on the worker: read the bot seat's view, decide, and submit like a human would.

The decision function (``games.bots.choose_move``) receives only the seat's view and legal moves,
never the state, so a bot cannot see what its seat could not.
"""

from __future__ import annotations

import logging
import secrets

from games import replay, services
from games.engines.base import RulesError
from games.errors import ApplicationError
from games.models import Match, Record, Seat

log = logging.getLogger(__name__)


def bot_decide(match: Match, seat: int) -> dict | None:
    """The move the bot in ``seat`` chooses now, or None if it has nothing to do."""
    from games.bots import choose_move

    rules = replay.rules_for(match)
    state = replay.match_state(match)
    legal = [rules.dump_move(m) for m in rules.legal_moves(state, seat)]
    if not legal:
        return None
    deadline = match.timer_deadline.isoformat() if match.timer_deadline else None
    view = rules.view(state, seat, deadline)
    level = Seat.objects.filter(match=match, index=seat).values_list("bot", flat=True).first() or "random"
    return choose_move(rules, view, legal, seat, level, secrets.randbits(63))


def bots_play(*, match_id: str, expected_version: int | None, limit: int = 500) -> int:
    """Play while a bot is awaited; returns how many moves the bots made."""
    played = 0
    token = services.bots_inline.set(True)
    try:
        while played < limit:
            match = Match.objects.filter(id=match_id).first()
            if match is None or match.status != Match.Status.ACTIVE:
                break
            if expected_version is not None and match.version != expected_version:
                break
            expected_version = None
            move = seat = None
            for seat in services.bot_seats_to_play(match):
                move = bot_decide(match, seat)
                if move is not None:
                    break
            if move is None:
                break
            try:
                services.move_submit(
                    match_id=match.id,
                    move=move,
                    expected_version=match.version,
                    seat_index=seat,
                    actor=Record.Actor.BOT,
                )
                played += 1
            except (ApplicationError, RulesError) as exc:  # a human's move landed first: think again
                log.info("bot move in %s lost to a newer version: %s", match.id, exc)
    finally:
        services.bots_inline.reset(token)
    if played >= limit:
        services.schedule(match_id)
    return played
