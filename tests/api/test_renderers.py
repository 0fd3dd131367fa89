"""The API's renderer (`api.renderers.JSONRenderer`) writes DRF's ``JSONRenderer``'s bytes, for any
JSON value and for the Python values DRF's encoder knows; and the test settings check every answer
of the suite both ways (``TABULA_JSON_RENDERER_CHECK``)."""

from __future__ import annotations

import dataclasses
import decimal
import uuid
from datetime import UTC, date, datetime, time, timedelta

import pytest
from django.test import override_settings
from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.renderers import JSONRenderer as DRFRenderer

from api.renderers import _PYTHON_WRITES_OTHERWISE, JSONRenderer, RenderedDifferently, _python_writes_otherwise

finite = st.floats(allow_nan=False, allow_infinity=False)
text = st.text(st.characters(codec="utf-8"))  # every code point but lone surrogates, U+2028 and controls among them
scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | finite | text
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(text, inner, max_size=5),
    max_leaves=40,
)


def _both(data, accept=None):
    ours = JSONRenderer().render(data, accept, {})
    drf = DRFRenderer().render(data, accept, {})
    return ours, drf


@settings(max_examples=400, deadline=None)
@given(values)
def test_any_json_value_is_written_as_drf_writes_it(data):
    ours, drf = _both(data)
    assert ours == drf


@settings(max_examples=200, deadline=None)
@given(finite)
def test_every_float_is_written_as_python_writes_it(number):
    ours, drf = _both({"x": number})
    assert ours == drf


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([b"e-", b"e", b"-", b"0.0000", b"0", b".", b"1", b"9", b"x", b'"', b","]), max_size=12))
def test_the_scan_for_small_floats_finds_what_its_expression_finds(parts):
    out = b"".join(parts)
    assert _python_writes_otherwise(out) == bool(_PYTHON_WRITES_OTHERWISE.search(out))


@pytest.mark.parametrize(
    ("out", "otherwise"),
    [
        (b'{"id":"Cj2be-Kbp2whfyDg"}', False),  # a match id, not a float
        (b'{"x":1e-07}', True),
        (b'{"x":0.00001}', True),
        (b'{"x":10.00001}', False),
        (b"0.0000", True),
        (b"3e-", False),
    ],
)
def test_the_scan_tells_a_small_float_from_text(out, otherwise):
    assert _python_writes_otherwise(out) is otherwise


@dataclasses.dataclass
class _Point:
    x: int


@pytest.mark.parametrize(
    "data",
    [
        {"at": datetime(2026, 12, 4, 13, 56, 50, 179716, tzinfo=UTC)},  # DRF: milliseconds and Z
        {"at": datetime(2026, 12, 4, 13, 56, 50)},
        {"day": date(2026, 12, 4), "time": time(13, 56, 50, 1234), "took": timedelta(seconds=90)},
        {"id": uuid.UUID(int=7), "price": decimal.Decimal("1.10"), "small": decimal.Decimal("0.00001")},
        {"title": gettext_lazy("Not found."), "raw": b"bytes"},
        {"gen": (i for i in range(3)), "tuple": (1, 2), "set": sorted({3, 1})},
        {"line": "a\u2028b\u2029c", "controls": '\x00\x1f\x7f\t\n\r\b\f"\\/'},
        {1: "an int key", None: "a None key", False: "a bool key"},
        {"big": 2**64, "small": -(2**63) - 1, "edge": 2**63},
        {"floats": [1e-4, 9.99e-5, 1e-5, 1e-7, 1e16, 1e22, 5e-324, -0.0, 1.7976931348623157e308]},
        {"string that looks like a small float": "0.00001 and 1e-7"},
        [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
        "just a string",
        12,
    ],
)
def test_values_drf_knows_are_written_as_drf_writes_them(data):
    if isinstance(data, dict) and "gen" in data:  # a generator is spent by its first rendering: checked once
        with override_settings(TABULA_JSON_RENDERER_CHECK=False):
            ours = JSONRenderer().render({**data, "gen": (i for i in range(3))})
        drf = DRFRenderer().render({**data, "gen": (i for i in range(3))})
        assert b'"gen":[0,1,2]' in ours
    else:
        ours, drf = _both(data)
    assert ours == drf


def test_nesting_past_orjsons_limit_is_drfs_to_write():
    deep: list = []
    for _ in range(300):
        deep = [deep]
    assert JSONRenderer().orjson_bytes(deep, None, {}) is None  # the control: orjson would refuse it
    assert _both(deep)[0] == _both(deep)[1]


def test_an_indent_asked_for_is_drfs_to_write():
    accept = "application/json; indent=4"
    assert JSONRenderer().orjson_bytes({"a": [1, 2]}, accept, {}) is None
    ours, drf = _both({"a": [1, 2]}, accept)
    assert ours == drf and b"\n    " in ours


def test_what_drf_refuses_is_refused():
    for data in ({"x": float("nan")}, {"x": _Point(1)}, {"x": "\ud800"}):
        with pytest.raises((ValueError, TypeError)):
            DRFRenderer().render(data)
        if data["x"] == data["x"]:  # NaN is the one difference (the module's docstring)
            with pytest.raises((ValueError, TypeError)):
                JSONRenderer().render(data)


def test_the_check_fails_an_answer_written_differently(monkeypatch):
    monkeypatch.setattr(JSONRenderer, "orjson_bytes", lambda *args: b'{"a":2}')
    with override_settings(TABULA_JSON_RENDERER_CHECK=True), pytest.raises(RenderedDifferently):
        JSONRenderer().render({"a": 1})
    with override_settings(TABULA_JSON_RENDERER_CHECK=False):  # unchecked, orjson's bytes are the answer
        assert JSONRenderer().render({"a": 1}) == b'{"a":2}'


def test_the_api_renders_with_it(client):
    from rest_framework.settings import api_settings

    assert [JSONRenderer] == api_settings.DEFAULT_RENDERER_CLASSES
    answer = client.get("/api/v1/games")
    assert answer.status_code == 200 and answer.content == DRFRenderer().render(answer.json())
