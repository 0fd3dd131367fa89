"""The API's JSON: DRF's ``JSONRenderer``, its bytes written by orjson.

Rendering an answer with the standard library was a tenth of a history page's time, and more of an
events page's (issue 31). orjson writes the same bytes for what the API answers with, faster; where
it would not, DRF's own renderer writes the answer:

- the options DRF's renderer takes are its defaults (compact, UTF-8, strict) and no indent was
  asked for (``Accept: application/json; indent=4``), else DRF's renderer;
- a value orjson does not know goes through DRF's encoder (times in DRF's format, lazy strings,
  decimals, query sets, generators), as with DRF's renderer;
- a value orjson refuses (a key that is not a string, an integer past 64 bits, nesting past 255
  levels, a lone surrogate) and a float below 1e-4 (orjson writes ``1e-7`` and ``0.00001`` where
  Python writes ``1e-07`` and ``1e-05``): DRF's renderer, which then answers as it always has;
- U+2028 and U+2029 are escaped, as DRF escapes them (the answer stays a subset of JavaScript).

One difference is left: a float that is not a number (NaN, an infinity), which DRF's strict
renderer refuses and orjson writes as ``null``. No answer carries one: the API's parser refuses
them in requests (`api.limits.StrictJSONParser`) and PostgreSQL's ``jsonb`` cannot hold one.

With ``TABULA_JSON_RENDERER_CHECK`` on (the test settings), every answer is rendered both ways and
an answer whose bytes differ fails: the whole test suite is the conformance test, beside the
property test in ``tests/api/test_renderers.py``. (A generator in an answer is spent by the first
rendering, so the check is for answers of lists and dicts, which is every answer of the API.)
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from django.conf import settings
from rest_framework import renderers

_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS  # both as DRF's encoder says
#: A float below 1e-4: orjson writes ``1e-7`` and ``0.00001``, Python ``1e-07`` and ``1e-05``
#: (`_python_writes_otherwise`).
_PYTHON_WRITES_OTHERWISE = re.compile(rb"[0-9]e-[0-9]|(?<![0-9.])0\.0000")
_DIGITS, _DIGITS_AND_DOT = frozenset(b"0123456789"), frozenset(b"0123456789.")
_LINE_SEPARATOR, _PARAGRAPH_SEPARATOR = "\u2028".encode(), "\u2029".encode()


class RenderedDifferently(AssertionError):
    """orjson's bytes were not DRF's (``TABULA_JSON_RENDERER_CHECK``)."""


class JSONRenderer(renderers.JSONRenderer):
    """DRF's ``JSONRenderer``, the same bytes, written by orjson where it writes them the same."""

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        fast = self.orjson_bytes(data, accepted_media_type, renderer_context)
        if fast is not None and not settings.TABULA_JSON_RENDERER_CHECK:
            return fast
        drf: bytes = super().render(data, accepted_media_type, renderer_context)
        if fast is not None and fast != drf:
            raise RenderedDifferently(f"orjson wrote {fast[:200]!r}, DRF {drf[:200]!r}")
        return drf

    def orjson_bytes(self, data: Any, accepted_media_type: str | None, renderer_context: Any) -> bytes | None:
        """The answer's bytes by orjson, or None where DRF's renderer must write them (module docstring)."""
        if data is None or self.ensure_ascii or not self.compact or not self.strict:
            return None
        if self.get_indent(accepted_media_type or "", renderer_context or {}) is not None:
            return None
        try:
            out = orjson.dumps(data, default=self.encoder_class().default, option=_OPTIONS)
        except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
            return None
        if _python_writes_otherwise(out):
            return None
        if b"\xe2\x80" in out and (_LINE_SEPARATOR in out or _PARAGRAPH_SEPARATOR in out):  # (one scan mostly)
            out = out.replace(_LINE_SEPARATOR, b"\\u2028").replace(_PARAGRAPH_SEPARATOR, b"\\u2029")
        return out


def _python_writes_otherwise(out: bytes) -> bool:
    """Whether ``out`` holds a float that Python writes otherwise: ``_PYTHON_WRITES_OTHERWISE``
    matches in it. Each ``e-`` and ``0.0000`` is found by ``bytes.find`` and its neighbours looked
    at: the expression searched a whole answer at every position, 0.8 ms for a page of history
    whose one match id held ``e-`` (issue 31), more than orjson's writing of the page."""
    at = out.find(b"e-")
    while at != -1:
        if at > 0 and out[at - 1] in _DIGITS and at + 2 < len(out) and out[at + 2] in _DIGITS:
            return True
        at = out.find(b"e-", at + 2)
    at = out.find(b"0.0000")
    while at != -1:
        if at == 0 or out[at - 1] not in _DIGITS_AND_DOT:
            return True
        at = out.find(b"0.0000", at + 1)
    return False
