"""Agreements: undo your own last input (docs/api.md, *Undo and agreements*).

``POST matches/{id}/undo`` takes back the caller's last input when the match's ``takebacks`` option
is ``own_input``, nobody has recorded anything since, and taking it back hides nothing anyone
learned: the engine-independent leak oracle `rules.base.undo_blocker` decides (a card played face
up from a hidden hand was seen; a draw was chance). Otherwise ``422 undo_unsafe`` with the
``reason`` (``revealed``, ``random``, ``others_moved``, ``not_yours``, ``disabled``) and the
blocking ``seq``. An accepted undo appends an ``undone`` record (`play.apply_undone`).
"""

from __future__ import annotations

from django.db import transaction

from accounts.models import User
from core.errors import ApplicationError, NotFound
from games import replay, selectors
from games.errors import MatchOver, StaleVersion
from games.models import Match, Record
from games.services import play, writes


class UndoUnsafe(ApplicationError):
    code, status, title = "undo_unsafe", 422, "Undo refused"


REASONS = {
    "disabled": "This match takes no moves back (its takebacks option).",
    "not_yours": "The last input is not yours to take back.",
    "others_moved": "Something was recorded after your last input.",
    "revealed": "Your last input showed someone what the game hid from them.",
    "random": "Your last input drew on chance or a hidden pile.",
}


@transaction.atomic
def match_undo(*, match_id: str, user: User, expected_version: int) -> play.Played:
    match, seats = writes.locked(match_id, replaying=True)
    if not selectors.match_visible_to(match, user):
        raise NotFound(f"No match {match_id!r}.")  # a private match is not there for outsiders
    seat = play.seat_of(seats, user)
    if match.version != expected_version:
        raise StaleVersion(match.version)
    if match.status != Match.Status.ACTIVE:
        raise MatchOver(f"The match is {match.status}.")
    check = selectors.undo_check(match, seat.index, replay.match_state(match))
    if check.reason is not None or check.to_seq is None:
        reason = check.reason or "disabled"
        raise UndoUnsafe(REASONS[reason], reason=reason, seq=check.seq)
    return play.apply_undone(match, seats, to_seq=check.to_seq, seat=seat.index, actor=Record.Actor.PLAYER)
