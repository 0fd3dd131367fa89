"""The game platform: deadlines and clocks, bots, the state cache, ratings and leaderboards."""

from __future__ import annotations

import os

TABULA_ALLOW_SETUP = False  # the `setup` option (a dealt position): test settings or staff only
TABULA_STATE_CACHE_SIZE = 512  # matches whose latest state each process keeps

# Deadlines and clocks.
TABULA_TIMER_HORIZON_S = 60  # deadlines further away than this are left to the sweep
TABULA_QUEUE_TIMERS = True  # queue a countdown task per deadline (False where tasks run inline: tests)

# Bots.
TABULA_BOT_TURN_MOVES = 8  # a bot task plays this many moves, then queues the rest behind others' turns

# Ratings and leaderboards.
TABULA_PROVISIONAL_GAMES = int(os.environ.get("TABULA_PROVISIONAL_GAMES", "10"))  # rated games before listed
TABULA_LEADERBOARD_ACTIVE_DAYS = int(os.environ.get("TABULA_LEADERBOARD_ACTIVE_DAYS", "90"))  # recent window
