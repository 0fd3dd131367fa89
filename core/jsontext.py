"""JSON text from the database, decoded by orjson: the events page and a history page's rows come
as JSON (`games.archive.log`, `games.sql`), and the standard library's decoder was most of an events
page's Python time (issue 31): for a page of 115 records, 188 µs, and 110 µs here (orjson alone: 88).

orjson reads what the standard library reads, to the same values (floats correctly rounded, keys in
their order), but for integers outside 64 bits, which it reads as floats, and for a number past a
double's range, which it refuses. Text with a run of twenty digits, or of nineteen after a minus
(where those integers would be), is left to the standard library (a scan of a copy with every digit
made a 0: a few percent of orjson's time, where a regular expression cost more than the decoding);
so is text orjson refuses. ``tests/test_jsontext.py`` holds both to the same values.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_PAST_64_BITS = (b"0" * 20, b"-" + b"0" * 19)


def loads(text: str | bytes | memoryview) -> Any:
    """``json.loads(text)``, by orjson where it gives the same values."""
    raw = text.encode() if isinstance(text, str) else bytes(text)
    marked = raw.translate(_DIGITS_AS_ZERO)
    if _PAST_64_BITS[0] in marked or _PAST_64_BITS[1] in marked:
        return json.loads(raw)
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:  # a number past a double's range (or text neither reads: then its error)
        return json.loads(raw)
