"""Tournaments (docs/api.md, *Tournaments*): defaults, bounds and the no-show ban."""

from __future__ import annotations

TABULA_TOURNAMENTS = {
    "max_players": 256,  # the most entrants one tournament may take
    "max_rounds": 50,  # Swiss
    "round_hours": 14 * 24,  # a round's deadline, unless the tournament sets its own
    "time_control": {"per_move_s": 3 * 24 * 3600},  # unless the tournament sets its own
    "open_per_user": 5,  # tournaments one user may have open (taking entries) at once
    "ban_hours": 24,  # the first no-show's ban; each further one doubles it
    "ban_forget_days": 180,  # a ban this long over is forgotten: the next no-show starts again
    "recent_days": 90,  # the window of the condition `max_recent_timeouts`
}
