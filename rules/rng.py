"""The one source of randomness for every engine.

A generator is derived from the match seed and a *path* naming the use
(``rng(seed, "deal", round_no)``), so no RNG state lives in a game state and
every use is independent of every other. Only ``Random.random()`` is promised
to give the same sequence on every CPython version, so shuffling and picking
are written here on top of it (Fisher–Yates), never with ``random.shuffle``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def rng(seed: int, *path: object) -> random.Random:
    """A generator derived from ``seed`` and ``path``; a str seed hashes with SHA-512.

    >>> rng(7, "deal", 1).random() == rng(7, "deal", 1).random()
    True
    >>> rng(7, "deal", 1).random() == rng(7, "deal", 2).random()
    False
    """
    return random.Random("/".join(map(str, (seed, *path))))


def randbelow(gen: random.Random, n: int) -> int:
    """A uniform index in ``range(n)`` from ``gen.random()`` alone.

    >>> all(0 <= randbelow(rng(1, i), 5) < 5 for i in range(50))
    True
    """
    if n <= 0:
        raise ValueError("randbelow needs n >= 1")
    return min(int(gen.random() * n), n - 1)


def shuffled(items: Sequence[T], gen: random.Random) -> list[T]:
    """A Fisher–Yates shuffle of a copy of ``items``.

    >>> sorted(shuffled(range(10), rng(3, "x"))) == list(range(10))
    True
    >>> shuffled("abcdef", rng(3, "x")) == shuffled("abcdef", rng(3, "x"))
    True
    """
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = randbelow(gen, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def pick(items: Sequence[T], gen: random.Random) -> T:
    """A uniform choice of one item.

    >>> pick([4], rng(0))
    4
    """
    return items[randbelow(gen, len(items))]


def sample(items: Sequence[T], k: int, gen: random.Random) -> list[T]:
    """The first ``k`` items of the helper's shuffle of ``items`` (docs/rules/README.md)."""
    return shuffled(items, gen)[:k]
