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
    """The confusable skeleton: two names with one skeleton look alike and cannot both exist.

    It is a function of the name's capitals, so a name and its case variants (one account, by
    `key`) share it: the capitals are mapped to their prototypes first (Greek Β → B), then the
    case-folded result once more (what only a small letter resembles: Cyrillic һ → h).
    """
    table = _prototypes()

    def mapped(text: str) -> str:
        text = unicodedata.normalize("NFD", text)
        out = "".join(table.get(c, c) for c in text if not unicodedata.combining(c) or c in table)
        return unicodedata.normalize("NFD", out).casefold()

    folded = mapped(mapped(normalise(username).upper()))
    # TR39 maps these ASCII look-alikes together as well (rn/m, 0/o, 1/l/i, |)
    return folded.replace("rn", "m").translate(_ASCII_LOOKALIKES)
