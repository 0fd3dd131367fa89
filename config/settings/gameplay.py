"""The game platform: deadlines and clocks, bots, the state cache, ratings and leaderboards."""

from __future__ import annotations

import os

TABULA_ALLOW_SETUP = False  # the `setup` option (a dealt position): test settings or staff only
TABULA_STATE_CACHE_SIZE = 512  # matches whose latest state each process keeps
# The state snapshot every process shares (games/replay.py), one per match in the cache: a match
# moving refreshes it every 64 records; one untouched this long (seconds) lets it go, and its next
# cold read replays from record 1 once and stores it again. Days, not hours: a correspondence game
# may rest a day or two between moves, and Redis holds a few kilobytes per match.
TABULA_STATE_SNAPSHOT_TTL = int(os.environ.get("TABULA_STATE_SNAPSHOT_TTL", str(3 * 24 * 3600)))
# An operator's switch for them (on: reads start from them; off: each process replays on its own).
TABULA_STATE_SNAPSHOTS = os.environ.get("TABULA_STATE_SNAPSHOTS", "1").lower() in {"1", "true", "yes", "on"}
# Archival (games/archive.py): a match finished this many days ago has its records moved into one
# compressed row; the hourly job archives at most TABULA_ARCHIVE_BATCH matches a run.
TABULA_ARCHIVE_AFTER_DAYS = int(os.environ.get("TABULA_ARCHIVE_AFTER_DAYS", "30"))
TABULA_ARCHIVE_BATCH = int(os.environ.get("TABULA_ARCHIVE_BATCH", "500"))

# Deadlines and clocks.
TABULA_TIMER_HORIZON_S = 60  # deadlines further away than this are left to the sweep
TABULA_QUEUE_TIMERS = True  # queue a countdown task per deadline (False where tasks run inline: tests)

# Bots.
TABULA_BOT_TURN_MOVES = 8  # a bot task plays this many moves, then queues the rest behind others' turns

# Ratings and leaderboards.
TABULA_PROVISIONAL_GAMES = int(os.environ.get("TABULA_PROVISIONAL_GAMES", "10"))  # rated games before listed
TABULA_LEADERBOARD_ACTIVE_DAYS = int(os.environ.get("TABULA_LEADERBOARD_ACTIVE_DAYS", "90"))  # recent window

# Away (games.services.away, docs/api.md *Away*): a new account's balance, how it grows (1 day per 7),
# its cap, the shortest absence, and how often one may be started by hand.
_DAY = 24 * 3600
TABULA_AWAY = {
    "start_s": int(os.environ.get("TABULA_AWAY_START_S", str(3 * _DAY))),
    "accrue_per_s": 1 / 7,
    "cap_s": int(os.environ.get("TABULA_AWAY_CAP_S", str(30 * _DAY))),
    "min_s": int(os.environ.get("TABULA_AWAY_MIN_S", str(_DAY))),
    "interval_s": int(os.environ.get("TABULA_AWAY_INTERVAL_S", str(_DAY))),
}
