"""Query parameters as the views read them."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.request import Request


def query_int(request: Request, name: str, default: int, low: int, high: int) -> int:
    """The integer query parameter ``name``, ``default`` when it is absent, as DRF's
    ``IntegerField(min_value=low, max_value=high)`` reads it: its value, or its 400 problem. Plain
    digits in range are read without building the field, which cost a history page about 20 µs a
    parameter (issue 31); anything else goes to the field, so every refusal is DRF's, in the
    request's language."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if raw.isascii() and raw.isdigit() and len(raw) <= 12 and low <= int(raw) <= high:
        return int(raw)
    value: int = serializers.IntegerField(min_value=low, max_value=high).run_validation(raw)
    return value
