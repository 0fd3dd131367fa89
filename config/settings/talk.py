"""Table talk and circles (docs/api.md, *Table talk*, *Circles*): chat, notes, nudges, blocks."""

from __future__ import annotations

# Chat: the longest message (after trimming) and the words that flag a message for staff review, per
# language (a flagged message is still shown: the list only points staff at it). Every list is
# checked, whatever the match's language; a word matches whole, case-insensitively.
TABULA_CHAT_MAX_LENGTH = 1000
TABULA_CHAT_FLAG_WORDS: dict[str, list[str]] = {
    "en": ["idiot", "moron", "retard", "kill yourself", "kys", "cheater"],
    "pl": ["idiota", "debil", "kretyn", "oszust"],
    "es": ["idiota", "imbécil", "estúpido", "tramposo"],
}
TABULA_NOTE_MAX_LENGTH = 10_000  # private notes per match

# Nudges: a seat may be nudged once it has been awaited max(min_s, share × its per-move time), and
# once per turn and per `every_s`.
TABULA_NUDGE = {"min_s": 12 * 3600, "share": 0.25, "every_s": 24 * 3600}

TABULA_MAX_BLOCKS = 500  # per user
TABULA_FEED_DAYS = 30  # GET me/feed: matches started or finished this recently
