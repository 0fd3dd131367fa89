"""`api.params.query_int` answers every query value as DRF's ``IntegerField`` does: the same
integer, or the same refusal in the request's language; its shortcut for plain digits only skips
building the field."""

from __future__ import annotations

import pytest
from django.utils import translation
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from api.params import query_int

VALUES = ["0", "1", "7", "007", "200", "201", "2147483648", "2147483649", "99999999999999", "-1", "", " 5", "5 ",
          "5.0", "1e3", "+5", "٣", "５", "0x10", "abc"]  # fmt: skip


def _answer(call):
    try:
        return ("value", call())
    except serializers.ValidationError as exc:
        return ("refused", [str(detail) for detail in exc.detail])


@pytest.mark.parametrize("language", ["en", "pl", "es"])
@pytest.mark.parametrize(("low", "high"), [(0, 2**31), (1, 200)])
@pytest.mark.parametrize("raw", VALUES)
def test_a_value_reads_as_drf_reads_it(raw, low, high, language):
    request = Request(APIRequestFactory().get("/", {"n": raw}))
    with translation.override(language):
        want = _answer(lambda: serializers.IntegerField(min_value=low, max_value=high).run_validation(raw))
        got = _answer(lambda: query_int(request, "n", 3, low, high))
    assert got == want
    assert type(got[1]) is type(want[1])


def test_an_absent_parameter_is_the_default_and_the_last_of_several_counts():
    assert query_int(Request(APIRequestFactory().get("/")), "n", 3, 0, 10) == 3
    assert query_int(Request(APIRequestFactory().get("/?n=4&n=6")), "n", 3, 0, 10) == 6
