"""Tournament pairing, seating and scoring (issue 29, the pure part): properties over many sizes."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import pairing


def _check_partition(r: pairing.Round, pool: list[int], size: int) -> None:
    seated = [e for t in r.tables for e in t]
    assert sorted(seated + r.byes) == sorted(pool)  # everyone once: at a table or with a bye
    assert all(len(t) == size for t in r.tables)


@pytest.mark.parametrize("n", range(2, 15))
def test_a_round_robin_of_two_meets_every_pair_exactly_once_with_seats_balanced(n):
    pool = list(range(100, 100 + n))
    rounds = pairing.round_robin(pool, 2)
    met = pairing.met_counts(rounds)
    assert set(met) == {frozenset(p) for p in itertools.combinations(pool, 2)}
    assert set(met.values()) == {1}
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    counts = {e: [0, 0] for e in pool}
    for r in rounds:
        _check_partition(r, pool, 2)
        for t in r.tables:
            for i, e in enumerate(t):
                counts[e][i] += 1
    assert all(max(c) - min(c) <= 1 for c in counts.values()), counts


@pytest.mark.parametrize(("n", "size"), [(6, 3), (9, 3), (12, 3), (8, 4), (12, 4), (10, 5), (7, 3), (13, 4)])
def test_a_round_robin_of_larger_tables_meets_every_pair_with_seats_balanced(n, size):
    pool = list(range(n))
    rounds = pairing.round_robin(pool, size, seed=n * size)
    met = pairing.met_counts(rounds)
    assert set(met) == {frozenset(p) for p in itertools.combinations(pool, 2)}  # every pair meets
    counts = {e: [0] * size for e in pool}
    for r in rounds:
        _check_partition(r, pool, size)
        for t in r.tables:
            for i, e in enumerate(t):
                counts[e][i] += 1
    assert all(max(c) - min(c) <= 1 for c in counts.values()), counts  # every seat, as equally as can be
    # a covering is never much longer than the lower bound: each entrant meets size − 1 others a round
    assert len(rounds) <= 2 * -(-(n - 1) // (size - 1)) + 1


def test_pools_are_snake_seeded_and_even():
    assert pairing.pools(list(range(10)), 5) == [[0, 3, 4, 7, 8], [1, 2, 5, 6, 9]]
    sizes = [len(p) for p in pairing.pools(list(range(23)), 6)]
    assert sum(sizes) == 23 and max(sizes) - min(sizes) <= 1


def _play(r: pairing.Round, rng: random.Random, size: int) -> list[tuple[list[int], dict[int, float]]]:
    out = []
    for t in r.tables:
        order = t[:]
        rng.shuffle(order)
        out.append((t, pairing.table_points([[e] for e in order], pairing.default_vector(size))))
    return out


@given(n=st.integers(4, 24), size=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10_000))
@settings(max_examples=60, deadline=None)
def test_swiss_avoids_repeats_while_it_can_and_keeps_everyone_playing(n, size, seed):
    rng = random.Random(seed)
    pool = list(range(n))
    rounds: list[pairing.Round] = []
    results: list[tuple[list[int], dict[int, float]]] = []
    byes: list[tuple[int, float]] = []
    counts: dict[int, list[int]] = {}
    had_bye: set[int] = set()
    for _ in range(3):
        table = pairing.standings(results, byes, size, pool)
        scores = {r.entrant: r.points for r in table}
        one = pairing.swiss_round(
            [r.entrant for r in table], scores, pairing.met_counts(rounds), counts, size, had_bye=had_bye
        )
        _check_partition(one, pool, size)
        assert len(one.byes) == n % size
        if n // size >= 2 * size:  # room enough: no pair meets twice in three rounds
            met = pairing.met_counts([*rounds, one])
            assert max(met.values()) == 1, met
        assert not (set(one.byes) & had_bye) or len(had_bye) >= n - n % size
        had_bye |= set(one.byes)
        rounds.append(one)
        results += _play(one, rng, size)
        byes += [(e, 1.0) for e in one.byes]


def test_swiss_puts_the_leaders_on_the_first_table():
    scores = {e: float(10 - e) for e in range(8)}
    one = pairing.swiss_round(list(range(8)), scores, {}, {}, 4)
    assert sorted(one.tables[0]) == [0, 1, 2, 3]


def test_elimination_gives_byes_to_the_best_seeds_and_halves_the_field():
    first = pairing.elimination_round(list(range(6)))
    assert sorted(first.byes) == [0, 1] and len(first.tables) == 2
    assert {frozenset(t) for t in first.tables} == {frozenset((2, 5)), frozenset((3, 4))}
    full = pairing.elimination_round(list(range(8)))
    assert full.byes == [] and [len(t) for t in full.tables] == [2, 2, 2, 2]
    assert pairing.bracket_order(8) == [0, 7, 3, 4, 1, 6, 2, 5]


def test_shared_ranks_share_their_places_points():
    vector = pairing.default_vector(4)
    assert vector == [6.0, 4.0, 2.0, 0.0]
    assert pairing.table_points([[7], [8, 9], [10]], vector) == {7: 6.0, 8: 3.0, 9: 3.0, 10: 0.0}


@given(seed=st.integers(0, 10_000), n=st.integers(3, 12), size=st.sampled_from([2, 3, 4]))
@settings(max_examples=40, deadline=None)
def test_standings_equal_a_recomputation_from_the_results(seed, n, size):
    rng = random.Random(seed)
    pool = list(range(n))
    results: list[tuple[list[int], dict[int, float]]] = []
    for r in pairing.round_robin(pool, size, seed=seed)[:4]:
        results += _play(r, rng, size)
    rows = pairing.standings(results, [], size, pool)
    points = {e: 0.0 for e in pool}
    for _table, got in results:
        for e, p in got.items():
            points[e] += p
    assert {r.entrant: r.points for r in rows} == points
    assert [r.rank for r in rows] == list(range(1, n + 1))
    assert all((a.points, a.buchholz) >= (b.points, b.buchholz) for a, b in itertools.pairwise(rows))
    for row in rows:  # Buchholz by hand
        mine = [t for t, _ in results if row.entrant in t]
        expected = sum(sum(points[o] for o in t if o != row.entrant) / (len(t) - 1) for t in mine)
        assert row.buchholz == pytest.approx(expected)
        assert row.played == len(mine) and sum(row.seats) == len(mine)


@given(n=st.integers(6, 20), size=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10_000))
@settings(max_examples=60, deadline=None)
def test_swiss_keeps_a_blocked_pair_apart_where_it_can(n, size, seed):
    rng = random.Random(seed)
    pool = list(range(n))
    a, b = rng.sample(pool, 2)
    scores = {e: float(rng.randint(0, 3)) for e in pool}
    ranked = sorted(pool, key=lambda e: -scores[e])
    one = pairing.swiss_round(ranked, scores, {}, {}, size, apart=[frozenset((a, b))])
    _check_partition(one, pool, size)
    if len(one.tables) >= 2:
        assert not any({a, b} <= set(t) for t in one.tables)


def test_pools_part_blocked_pairs():
    split = pairing.pools(list(range(12)), 6, apart=[frozenset((0, 3)), frozenset((1, 2))])
    assert not any({0, 3} <= set(p) or {1, 2} <= set(p) for p in split)
    assert sorted(len(p) for p in split) == [6, 6]


@pytest.mark.parametrize(("n", "size", "rounds", "most"), [(9, 3, 4, 1), (16, 4, 5, 1), (12, 3, 7, 2), (10, 3, 6, 2)])
def test_the_search_finds_short_coverings_with_repeats_spread(n, size, rounds, most):
    """Kirkman-like schedules where they exist (9 and 16: every pair exactly once, in the fewest
    rounds); elsewhere fewer rounds than the greedy covering's, no pair meeting more than twice."""
    found = pairing.round_robin(list(range(n)), size, seed=1)
    met = pairing.met_counts(found)
    assert len(met) == n * (n - 1) // 2
    assert len(found) <= rounds and max(met.values()) <= most
