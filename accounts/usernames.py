"""Usernames: NFKC-normalised, unique case-insensitively and by their confusable skeleton.

The skeleton follows Unicode TR39's idea (``skeleton(a) == skeleton(b)`` when the two names look
alike) with the confusables data that ``confusable_homoglyphs`` ships: every character is replaced
by one representative of its homoglyph set (an ASCII one when the set has one), after NFKC and
before case folding, so that a Cyrillic ``аnn`` or a fullwidth ``ＡＮＮ`` collides with ``ann``.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from pathlib import Path

import confusable_homoglyphs

DELETED = "deleted player"  # how a deleted account's seat is shown (no username can contain a space)


def normalise(username: str) -> str:
    """The form a username is stored in: NFKC (fullwidth and compatibility characters folded)."""
    return unicodedata.normalize("NFKC", username).strip()


def key(username: str) -> str:
    """Case-insensitive identity: NFKC, then Unicode case folding."""
    return normalise(username).casefold()


@cache
def _prototypes() -> dict[str, str]:
    data = json.loads((Path(confusable_homoglyphs.__file__).parent / "confusables.json").read_text("utf-8"))
    out: dict[str, str] = {}
    for char, glyphs in data.items():
        if len(char) != 1:
            continue
        family = [char] + [g["c"] for g in glyphs if len(g["c"]) == 1]
        ascii_ = sorted(c for c in family if c.isascii())
        out[char] = ascii_[0] if ascii_ else min(family)
    return out


_ASCII_LOOKALIKES = str.maketrans("01i|", "olll")


def skeleton(username: str) -> str:
    """The confusable skeleton: two names with one skeleton look alike and cannot both exist."""
    table = _prototypes()
    # case-folded before the mapping as well: the prototypes of a capital and its small letter may
    # differ (Cyrillic Ә maps to Latin Ə, whose small letter is ə, but ә maps to ǝ)
    text = unicodedata.normalize("NFD", key(username))
    mapped = "".join(table.get(c, c) for c in text if not unicodedata.combining(c) or c in table)
    mapped = unicodedata.normalize("NFD", mapped).casefold()
    # TR39 maps these ASCII look-alikes together as well (rn/m, 0/o, 1/l/i, |)
    mapped = mapped.replace("rn", "m").translate(_ASCII_LOOKALIKES)
    return mapped
