"""Pairing, seating and scoring for tournaments of tables: pure, the standard library only.

Entrants are numbers (entry ids). A *table* is a list of entrants in seat order (seat 0 first).

- `round_robin`: every entrant meets every other of its pool. Tables of two: the circle method
  (Berger tables), each pair exactly once. Larger tables: each round partitions the pool into
  tables, built greedily to meet the most pairs not met yet, until every pair has met (a covering:
  exactly once is possible only for particular numbers, such as Kirkman's 15 in tables of three);
  then, for pools of up to ``ANNEAL_UP_TO``, simulated annealing looks for a covering in fewer
  rounds (from the lower bound up), with repeated meetings spread as evenly as it finds.
- `swiss_round`: entrants ordered by score (leaders first) are cut into tables, then neighbouring
  tables swap entrants while that lowers a cost: a repeated meeting weighs ``REPEAT`` (weighted, not
  absolute), a score gap inside a table weighs its size.
- `elimination_round`: a single-elimination bracket for tables of two, byes to the best seeds.
- `seat`: each table's seat order, so that every entrant sits in every position as equally as the
  numbers allow (whatever its tables' order, each table takes the order that gives its entrants the
  seats they have had least).
- `table_points` and `standings`: points by rank within a table (a vector such as 6/4/2/0; shared
  ranks share their places' points), then the tie-breaks Buchholz and Sonneborn–Berger.

Remainders (a pool or a round that does not divide into tables) sit out with a bye.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

Table = list[int]
ANNEAL_UP_TO = 24  # entrants in a pool: larger pools keep the greedy covering
UNMET = 1000.0  # a round robin's annealing: a pair that never meets outweighs any spread of repeats
REPEAT = 10.0  # a repeated meeting in a Swiss round costs as much as a score gap of ten points


@dataclass
class Round:
    tables: list[Table]
    byes: list[int] = field(default_factory=list)


def pairs(table: Sequence[int]) -> Iterable[frozenset[int]]:
    return (frozenset(p) for p in itertools.combinations(table, 2))


# --- seating ------------------------------------------------------------------------------------------


def seat(tables: list[list[int]], counts: dict[int, list[int]], size: int) -> list[Table]:
    """Put each table's entrants in seat order and count the seats taken (``counts``: entrant ->
    times in each seat, updated). Each table takes the order that gives its entrants the seats they
    have had least: the smallest total of their counts, then the smallest sum of squares after."""
    out = []
    for table in tables:
        for e in table:
            counts.setdefault(e, [0] * size)
        best: tuple[int, int, tuple[int, ...]] | None = None
        for order in itertools.permutations(table) if len(table) <= 6 else [tuple(table)]:
            taken = sum(counts[e][i] for i, e in enumerate(order))
            spread = sum((counts[e][i] + 1) ** 2 for i, e in enumerate(order))
            key = (taken, spread, order)
            if best is None or key < best:
                best = key
        assert best is not None
        chosen = list(best[2])
        for i, e in enumerate(chosen):
            counts[e][i] += 1
        out.append(chosen)
    return out


# --- round robin -------------------------------------------------------------------------------------


def pools(entrants: Sequence[int], pool_size: int, apart: Iterable[frozenset[int]] = ()) -> list[list[int]]:
    """Split entrants (in seed order) into pools of about ``pool_size``, snake-wise (1, 2, 3, 3, 2, 1…);
    then, for each pair in ``apart`` (a block between them) that shares a pool, swap one of them
    with someone of another pool where that separates them without joining another such pair."""
    n = max(1, -(-len(entrants) // pool_size))
    out: list[list[int]] = [[] for _ in range(n)]
    for i, e in enumerate(entrants):
        lap, at = divmod(i, n)
        out[at if lap % 2 == 0 else n - 1 - at].append(e)
    keep = set(apart)

    def clashes(pool: list[int]) -> int:
        return sum(p in keep for p in pairs(pool))

    for _ in range(len(entrants)):
        before = sum(clashes(p) for p in out)
        if before == 0:
            break
        done = False
        for a, b in itertools.permutations(range(n), 2):
            for i, j in itertools.product(range(len(out[a])), range(len(out[b]))):
                x, y = out[a][:], out[b][:]
                x[i], y[j] = y[j], x[i]
                if clashes(x) + clashes(y) < clashes(out[a]) + clashes(out[b]):
                    out[a], out[b] = x, y
                    done = True
                    break
            if done:
                break
        if not done:
            break  # kept apart where possible: the rest must meet
    return out


def _circle(entrants: list[int]) -> list[Round]:
    """Berger tables: n − 1 rounds (n rounded up to even), each pair once; the odd one out has a bye."""
    people: list[int | None] = list(entrants) + ([None] if len(entrants) % 2 else [])
    n = len(people)
    rounds = []
    for _ in range(n - 1):
        tables, byes = [], []
        for i in range(n // 2):
            a, b = people[i], people[n - 1 - i]
            if a is None or b is None:
                byes.append(a if b is None else b)
                continue
            tables.append([a, b])
        rounds.append(Round(tables, [e for e in byes if e is not None]))
        people = [people[0], people[-1], *people[1:-1]]  # rotate all but the first
    return rounds


def _cover_round(pool: list[int], size: int, met: set[frozenset[int]], rng: random.Random, tries: int) -> Round:
    """One round of tables of ``size`` meeting as many unmet pairs as possible (best of ``tries``)."""
    seated = len(pool) - len(pool) % size
    best: tuple[int, Round] | None = None
    for _ in range(tries):
        rest = pool[:]
        rng.shuffle(rest)
        # the remainder's bye goes to whoever has the fewest pairs left to meet
        rest.sort(key=lambda e: sum(frozenset((e, o)) not in met for o in pool if o != e), reverse=True)
        byes, rest = rest[seated:], rest[:seated]
        tables: list[Table] = []
        while rest:
            table = [rest.pop(0)]
            while len(table) < size:
                gain = [(sum(frozenset((c, t)) not in met for t in table), -i, c) for i, c in enumerate(rest)]
                _, neg, _chosen = max(gain)
                table.append(rest.pop(-neg))
            tables.append(table)
        new = sum(p not in met for t in tables for p in pairs(t))
        if best is None or new > best[0]:
            best = (new, Round(tables, byes))
    assert best is not None
    return best[1]


def _anneal(entrants: list[int], size: int, count: int, rng: random.Random, steps: int) -> list[Round] | None:
    """``count`` rounds in which every pair meets, as evenly as the search finds (None if it finds
    none), by simulated annealing. Each round is a partition into tables (and the remainder's
    byes); a step swaps two entrants of one round (of two tables, or a table and the byes). The
    energy is ``UNMET`` per pair that never meets plus the sum of squared meetings (repeats spread
    out); a step that raises it is taken now and then, less often as the search cools."""
    n = len(entrants)
    seated = n - n % size
    met: dict[frozenset[int], int] = {frozenset(p): 0 for p in itertools.combinations(entrants, 2)}
    rounds: list[list[int]] = []
    for _ in range(count):
        order = entrants[:]
        rng.shuffle(order)
        rounds.append(order)
        for t in range(0, seated, size):
            for p in pairs(order[t : t + size]):
                met[p] += 1
    slots, total = count * (seated // size) * (size * (size - 1) // 2), len(met)
    q, r = divmod(slots, total)
    floor = r * (q + 1) ** 2 + (total - r) * q**2  # the sum of squares when every pair meets as evenly as can be

    def energy_of(p: frozenset[int], by: int) -> float:
        m = met[p]
        unmet = UNMET * ((m + by == 0) - (m == 0))
        return unmet + (m + by) ** 2 - m**2

    def mates(order: list[int], at: int) -> list[int]:
        if at >= seated:
            return []
        start = at - at % size
        return [order[k] for k in range(start, start + size) if k != at]

    energy = sum(UNMET * (m == 0) + m * m for m in met.values())
    best: tuple[float, list[list[int]]] | None = None
    temperature = 2.0
    for _ in range(steps):
        if energy <= floor:
            break
        order = rounds[rng.randrange(count)]
        a, b = rng.randrange(n), rng.randrange(n)
        if a // size == b // size or (a >= seated and b >= seated):
            continue
        x, y = order[a], order[b]
        lose = [frozenset((x, m)) for m in mates(order, a)] + [frozenset((y, m)) for m in mates(order, b)]
        gain = [frozenset((y, m)) for m in mates(order, a)] + [frozenset((x, m)) for m in mates(order, b)]
        delta = 0.0
        for p in lose:  # the two lists never share a pair: x and y sit at different tables
            delta += energy_of(p, -1)
            met[p] -= 1
        for p in gain:
            delta += energy_of(p, +1)
            met[p] += 1
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            order[a], order[b] = y, x
            energy += delta
            if energy < UNMET and (best is None or energy < best[0]):
                best = (energy, [o[:] for o in rounds])
        else:
            for p in gain:
                met[p] -= 1
            for p in lose:
                met[p] += 1
        temperature = max(0.05, temperature * 0.9995)
    if best is None:
        return None
    return [Round([o[t : t + size] for t in range(0, seated, size)], o[seated:]) for o in best[1]]


def round_robin(pool: Sequence[int], size: int, *, seed: int = 0, tries: int = 60) -> list[Round]:
    """The rounds of a pool's round robin in tables of ``size``, seated (`seat`)."""
    entrants = list(pool)
    if len(entrants) < size:
        return []
    if size == 2:
        rounds = _circle(entrants)
    else:
        rng = random.Random(seed)
        met: set[frozenset[int]] = set()
        everyone = {frozenset(p) for p in itertools.combinations(entrants, 2)}
        rounds = []
        while met < everyone and len(rounds) < 4 * len(entrants):
            one = _cover_round(entrants, size, met, rng, tries)
            rounds.append(one)
            met.update(p for t in one.tables for p in pairs(t))
        # then fewer rounds where a search finds them: from the lower bound up to the greedy's count
        # (that too: with its repeats spread out); pools of up to ANNEAL_UP_TO (the search's time)
        per_round = (len(entrants) // size) * (size * (size - 1) // 2)
        lower = max(-(-(len(entrants) - 1) // (size - 1)), -(-len(everyone) // per_round))
        for count in range(lower, len(rounds) + 1) if len(entrants) <= ANNEAL_UP_TO else ():
            found = _anneal(entrants, size, count, rng, steps=2500 * len(entrants))
            if found is not None:
                rounds = found
                break
    return balance(rounds, size)


def _orient(tables: list[list[int]]) -> list[list[int]]:
    """Tables of two ordered so that everyone sits first and second as equally as possible: orient
    the graph whose edges are the tables along Euler circuits (odd vertices joined to a dummy one
    first, so that every vertex has even degree: in = out, ±1 once the dummy edges go)."""
    dummy = object()
    edges: list[list[object]] = [list(t) for t in tables]
    degree: dict[object, int] = defaultdict(int)
    for a, b in edges:
        degree[a] += 1
        degree[b] += 1
    extra = [[v, dummy] for v, d in degree.items() if d % 2]
    everything = edges + extra
    around: dict[object, list[int]] = defaultdict(list)
    for i, (a, b) in enumerate(everything):
        around[a].append(i)
        around[b].append(i)
    used = [False] * len(everything)
    oriented: dict[int, tuple[object, object]] = {}
    for start in list(around):
        stack: list[tuple[object, int | None]] = [(start, None)]
        while stack:
            v, _via = stack[-1]
            while around[v] and used[around[v][-1]]:
                around[v].pop()
            if around[v]:
                i = around[v].pop()
                used[i] = True
                a, b = everything[i]
                w = b if a is v else a
                oriented[i] = (v, w)
                stack.append((w, i))
            else:
                stack.pop()
    out = []
    for i, _table in enumerate(edges):
        a, b = oriented[i]
        out.append([int(a), int(b)])  # type: ignore[call-overload]
    return out


def balance(rounds: list[Round], size: int, passes: int = 40) -> list[Round]:
    """Seat every table of every round so that each entrant's seats are as even as they can be:
    tables of two by Euler orientation (`_orient`: within one of even); larger tables by `seat`,
    then local search (each table takes the order that lowers the sum of squares of everyone's
    seat counts) until nothing improves."""
    if size == 2:
        flat = _orient([t for r in rounds for t in r.tables])
        out, at = [], 0
        for r in rounds:
            out.append(Round(flat[at : at + len(r.tables)], r.byes))
            at += len(r.tables)
        return out
    counts: dict[int, list[int]] = {}
    seated = [Round(seat(r.tables, counts, size), r.byes) for r in rounds]
    for _ in range(passes):
        improved = False
        for r in seated:
            for ti, table in enumerate(r.tables):
                for i, e in enumerate(table):
                    counts[e][i] -= 1
                best = min(
                    itertools.permutations(table),
                    key=lambda order: (
                        sum((counts[e][i] + 1) ** 2 - counts[e][i] ** 2 for i, e in enumerate(order)),
                        order != tuple(table),
                    ),
                )
                if list(best) != table:
                    improved = True
                r.tables[ti] = list(best)
                for i, e in enumerate(r.tables[ti]):
                    counts[e][i] += 1
        if not improved:
            break
    return seated


# --- Swiss ---------------------------------------------------------------------------------------------


APART = 1000.0  # a blocked pair at one table: kept apart whenever any other pairing exists


def _cost(
    table: Sequence[int], scores: dict[int, float], met: dict[frozenset[int], int], apart: frozenset[frozenset[int]]
) -> float:
    values = [scores.get(e, 0.0) for e in table]
    meetings = sum(met.get(p, 0) * REPEAT + (APART if p in apart else 0.0) for p in pairs(table))
    return meetings + (max(values) - min(values))


def swiss_round(
    ranked: Sequence[int],
    scores: dict[int, float],
    met: dict[frozenset[int], int],
    counts: dict[int, list[int]],
    size: int,
    *,
    had_bye: set[int] | None = None,
    apart: Iterable[frozenset[int]] = (),
) -> Round:
    """The next Swiss round: ``ranked`` (leaders first) cut into tables of ``size``, improved by
    swaps between neighbouring tables, seated. The remainder's byes go to the lowest-ranked
    entrants who have not had one yet. ``met``: how often each pair has met; ``counts``: `seat`'s;
    ``apart``: pairs kept from one table where any other pairing exists (blocks)."""
    keep = frozenset(apart)
    order = list(ranked)
    extra = len(order) % size
    had = had_bye or set()
    byes: list[int] = []
    for e in reversed(order[:]):
        if len(byes) == extra:
            break
        if e not in had:
            byes.append(e)
    for e in reversed(order):  # everyone had one: the lowest again
        if len(byes) == extra:
            break
        if e not in byes:
            byes.append(e)
    order = [e for e in order if e not in byes]
    tables = [order[i : i + size] for i in range(0, len(order), size)]
    improved = True
    while improved:
        improved = False
        for a, b in itertools.combinations(range(len(tables)), 2):
            if b - a > 2 and not any(p in keep for t in (tables[a], tables[b]) for p in pairs(t)):
                continue  # neighbours only (leaders stay near the top), but anywhere to part a blocked pair
            before = _cost(tables[a], scores, met, keep) + _cost(tables[b], scores, met, keep)
            for i, j in itertools.product(range(size), range(size)):
                x, y = tables[a][:], tables[b][:]
                x[i], y[j] = y[j], x[i]
                if _cost(x, scores, met, keep) + _cost(y, scores, met, keep) < before - 1e-9:
                    tables[a], tables[b] = x, y
                    improved = True
                    break
            if improved:
                break
    return Round(seat(tables, counts, size), byes)


# --- single elimination -------------------------------------------------------------------------------


def bracket_order(n: int) -> list[int]:
    """Seed positions of a bracket of ``n`` (a power of two): 1 meets n, and the best two meet last."""
    order = [0]
    while len(order) < n:
        m = len(order) * 2
        order = [x for s in order for x in (s, m - 1 - s)]
    return order


def elimination_round(alive: Sequence[int]) -> Round:
    """A round of a single-elimination bracket of tables of two. ``alive``: the entrants still in,
    in bracket order (the first round: by seed, best first; later rounds: the previous round's
    winners, in its tables' order). Byes fill the first round up to a power of two, to the best seeds."""
    n = len(alive)
    if n < 2:
        return Round([], list(alive))
    full = 1 << (n - 1).bit_length()
    if full == n:
        return Round([[alive[i], alive[i + 1]] for i in range(0, n, 2)])
    slots: list[int | None] = [alive[s] if s < n else None for s in bracket_order(full)]
    tables, byes = [], []
    for i in range(0, full, 2):
        a, b = slots[i], slots[i + 1]
        if a is not None and b is not None:
            tables.append([a, b])
        else:
            byes.append(a if a is not None else b)
    return Round(tables, [e for e in byes if e is not None])


# --- scoring --------------------------------------------------------------------------------------------


def default_vector(size: int) -> list[float]:
    """Points by place: 2(k − 1), 2(k − 2), … 0 (tables of four: 6/4/2/0; of two: 2/0)."""
    return [float(2 * (size - 1 - i)) for i in range(size)]


def table_points(ranking: Sequence[Sequence[int]], vector: Sequence[float]) -> dict[int, float]:
    """Points by entrant from a table's ranking (groups of tied entrants, best first): a group shares
    the points of the places it takes."""
    out: dict[int, float] = {}
    place = 0
    for group in ranking:
        share = vector[place : place + len(group)]
        for e in group:
            out[e] = sum(share) / len(group)
        place += len(group)
    return out


@dataclass
class Row:
    entrant: int
    points: float = 0.0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    played: int = 0
    seats: list[int] = field(default_factory=list)
    rank: int = 0


def standings(
    results: Sequence[tuple[Table, dict[int, float]]],
    byes: Sequence[tuple[int, float]],
    size: int,
    entrants: Iterable[int] = (),
    vector: Sequence[float] | None = None,
) -> list[Row]:
    """Standings from finished tables (each: its seat order and the points each entrant took) and
    byes (entrant, points). Ranked by points, then Buchholz (the sum, over one's tables, of the mean
    final points of one's opponents there), then Sonneborn–Berger (the same, each table weighted by
    the share of the table's top points one took), then entry number."""
    top = max(vector or default_vector(size)) or 1.0
    rows: dict[int, Row] = {e: Row(e, seats=[0] * size) for e in entrants}
    for table, points in results:
        for i, e in enumerate(table):
            row = rows.setdefault(e, Row(e, seats=[0] * size))
            row.points += points.get(e, 0.0)
            row.played += 1
            row.seats[i] += 1
    for e, p in byes:
        rows.setdefault(e, Row(e, seats=[0] * size)).points += p
    final = {e: r.points for e, r in rows.items()}
    for table, points in results:
        for e in table:
            others = [final[o] for o in table if o != e]
            mean = sum(others) / len(others) if others else 0.0
            rows[e].buchholz += mean
            rows[e].sonneborn_berger += points.get(e, 0.0) / top * mean
    ranked = sorted(rows.values(), key=lambda r: (-r.points, -r.buchholz, -r.sonneborn_berger, r.entrant))
    for i, r in enumerate(ranked):
        r.rank = i + 1
    return ranked


def met_counts(rounds: Iterable[Round]) -> dict[frozenset[int], int]:
    """How often each pair has met in these rounds."""
    out: dict[frozenset[int], int] = defaultdict(int)
    for r in rounds:
        for t in r.tables:
            for p in pairs(t):
                out[p] += 1
    return dict(out)
