"""`core.jsontext.loads` decodes JSON text to the values the standard library's ``json.loads`` gives,
orjson or not (integers past 64 bits go to the standard library)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import jsontext

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**80), 2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8"))
)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5), max_leaves=40
)


def _same(a, b) -> bool:
    """Equal, and of the same types all the way down (1 == 1.0 == True would hide a difference)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@settings(max_examples=400, deadline=None)
@given(values)
def test_any_json_text_decodes_as_the_standard_library_decodes_it(value):
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False), json.dumps(value, indent=1)):
        assert _same(jsontext.loads(text), json.loads(text))
        assert _same(jsontext.loads(text.encode()), json.loads(text))


@pytest.mark.parametrize(
    "text",
    [
        '{"b": 1, "a": 2, "b": 3}',
        "[18446744073709551616]",  # orjson alone would read these two as floats
        "[-9223372036854775809]",
        "[18446744073709551615, -9223372036854775808, 9223372036854775807]",  # orjson reads these
        '{"seed": 1234567890123456789, "at": "2026-12-04T13:56:50.179716+00:00"}',
        "[1e400, -1e400]",  # orjson refuses these
        "[12345678901234567890.5, 0.12345678901234567890123]",
        '"\\ud83d\\ude00"',
        "[]",
    ],
)
def test_edges_decode_as_the_standard_library_decodes_them(text):
    assert _same(jsontext.loads(text), json.loads(text))


def test_text_that_is_not_json_is_refused():
    with pytest.raises(ValueError):
        jsontext.loads("[1,")


@pytest.mark.postgresql
@pytest.mark.django_db
def test_postgresql_json_values_are_read_by_it_and_jsonb_stays_djangos(monkeypatch):
    from django.db import connection

    calls = []
    plain = jsontext.loads
    monkeypatch.setattr(jsontext, "loads", lambda text: calls.append(text) or plain(text))
    with connection.cursor() as cursor:  # a new loader per cursor: it picks the patched function up
        cursor.execute('SELECT \'[18446744073709551616, 1.5, {"b": 1, "a": 2}]\'::json, \'{"k": 1}\'::jsonb')
        value, jsonb = cursor.fetchone()
    assert _same(value, [18446744073709551616, 1.5, {"b": 1, "a": 2}]) and len(calls) == 1
    assert jsonb == '{"k": 1}'  # text: Django's JSONField decodes it
