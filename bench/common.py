"""Small helpers shared by the bench sections: percentiles and number formatting."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p90(values: Sequence[float]) -> float:
    if len(values) < 2:
        return median(values)
    return statistics.quantiles(values, n=10)[-1]


def us(seconds: float) -> str:
    """Seconds as microseconds, e.g. ``'12.3 µs'``."""
    return f"{seconds * 1e6:.1f} µs"


def ms(seconds: float) -> str:
    """Seconds as milliseconds, e.g. ``'4.21 ms'``."""
    return f"{seconds * 1e3:.2f} ms"


def heading(title: str) -> None:
    print(f"\n== {title} ==", flush=True)
