"""Bot players for every game: pure decision functions over the engine contract.

A bot sees what its seat sees and nothing else. `choose_move` takes the seat's
``view`` (the JSON the API shows it), the seat's legal moves (dumped JSON, as
the API lists them), the seat and a seed: never the state. Whatever the view
hides is sampled afresh with ``rules.determinize(view, seat, gen)``, so a bot
cannot cheat even by accident: two true states that look the same to the seat
give the same decision (``tests/engines/test_bots.py``).

Levels (docs/api.md, *Clocks, timeouts and bots*; issue 6), the same for every game:

- ``random``: a uniform legal move.
- ``greedy``: one ply: the move whose successor maximises ``rules.heuristic`` for
  the seat, averaged over `GREEDY_SAMPLES` determinizations (the same ones for
  every move, so the comparison is paired).
- ``strong``: single-observer information-set MCTS (Cowling, Powley and
  Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012).
  Each iteration samples one determinization from the view, walks the tree
  (UCB1 over the *available* children below the root: a child's availability
  counts the iterations in which its move was legal), expands one move, plays
  on with uniform random records, and backs every seat's reward up the path.

How `strong` maps the contract onto a tree:

- The root is the seat's own decision. It is searched with PUCT (as in
  AlphaZero) whose priors are the `greedy` one-ply values turned into a
  softmax (`_priors`), so a small budget plays like `greedy` and a larger one
  corrects it; at most `ROOT_WIDTH` options, the best by one-ply value, are
  searched.
- Below the root, a tree node is a decision of the root seat, or of a seat
  that is alone in ``awaiting``; its edges are ``(seat, move)``.
- Where several seats are awaited at once (simultaneous prompts, EKKO's
  reaction window), the root seat branches in the tree when it is among
  them and the other seats act by the default policy (a uniform legal
  move), one record at a time; so the root never learns a simultaneous
  answer before giving its own.
- Interrupts by seats that are not awaited (EKKO ``mirror``, Enka
  ``jump_in``): at the root, waiting is an option of its own
  (`choose_interrupt`); below it, every seat takes an available interrupt
  with probability `INTERRUPT_RATE` per record (the default policy). A search
  whose first `INTERRUPT_PROBES` probes found no interrupt stops looking, so
  games without interrupts do not pay for them.
- Awaited seats with no legal move (the answered seats of a reaction window):
  ``base.fallback``: the game timer expires if there is one, otherwise the
  lowest such seat times out (the page's default move).
- After the tree, at most `PLAYOUT_DEPTH` random records (and `MAX_RECORDS`
  per iteration in all). A finished game scores by its `Outcome`
  (`outcome_rewards`: winning, then rank). An unfinished one scores each seat
  by its heuristic advantage over the other seats' mean, squashed by
  ``tanh`` into (0.1, 0.9) (`heuristic_rewards`) with a scale measured per
  decision on a few random playouts, so any engine's heuristic units work
  and a real win always weighs more than a lead. This assumes that the
  heuristic values of different seats in one state are comparable.
- The move played is the most visited root option (ties: higher mean
  reward, then the better one-ply value).

Determinism: every random draw comes from ``rules.rng`` generators
derived from the seed, so a decision is a function of (view, legal moves,
seat, level, seed, iterations) as long as the wall-clock cap (``seconds``)
does not cut the search short; tests pass ``seconds=None``.

Pure apart from ``time.perf_counter`` for that cap and for `play_match`'s
timings: no Django, no Celery, standard library only.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rules.base import JSON, Outcome, Rules, RulesError, Seat, fallback, step
from rules.rng import pick, randbelow, rng

Level = Literal["random", "greedy", "strong"]
LEVELS: tuple[Level, ...] = ("random", "greedy", "strong")
DEFAULT_LEVEL: Level = "strong"

GREEDY_SAMPLES = 4  # determinizations averaged by `greedy`
STRONG_ITERATIONS = 1000  # default iteration budget of `strong`
STRONG_SECONDS = 0.5  # default wall-clock cap of a whole `strong` decision (tests pass None: determinism)
PLAYOUT_DEPTH = 8  # records played out by the default policy after the tree
MAX_RECORDS = 64  # records per iteration in all (tree walk included)
CALIBRATION_PLAYOUTS = 8  # random playouts that set the scale of heuristic advantages
EXPLORATION = 0.7  # UCB1 constant for rewards in [0, 1]
INTERRUPT_RATE = 0.3  # chance per record that a seat takes an interrupt it holds (default policy)
INTERRUPT_PROBES = 64  # stop probing for interrupts after this many probes found none
ROOT_WIDTH = 48  # legal moves searched at the root; more are screened by one-ply heuristic
PRIOR_APPLIES = 256  # budget of one-ply applies per determinization for the root priors
PRIOR_SHARPNESS = 3.0  # best/worst one-ply prior ratio is e**3
PUCT = 1.2  # PUCT constant at the root
WIN_WEIGHT = 0.7  # share of a finished game's reward for winning (the rest is for rank)

AnyRules = Rules[Any, Any, Any]
_WAIT = -1  # the root option "make no interrupt now" (`choose_interrupt`)


# --- decision functions -----------------------------------------------------------------------


def choose_move(
    rules: AnyRules,
    view: JSON,
    legal_moves: list[JSON],
    seat: Seat,
    level: str,
    seed: int,
    *,
    iterations: int = STRONG_ITERATIONS,
    seconds: float | None = STRONG_SECONDS,
) -> JSON:
    """The move a bot of ``level`` sends for ``seat``: one of ``legal_moves``, decided from ``view`` alone."""
    if not legal_moves:
        raise ValueError("a bot needs at least one legal move")
    option = _decide(rules, view, legal_moves, seat, level, seed, iterations, seconds, may_wait=False)
    return legal_moves[option]


def choose_interrupt(
    rules: AnyRules,
    view: JSON,
    legal_moves: list[JSON],
    seat: Seat,
    level: str,
    seed: int,
    *,
    iterations: int = STRONG_ITERATIONS,
    seconds: float | None = STRONG_SECONDS,
) -> JSON | None:
    """For a seat that is not awaited: one of its interrupts (``legal_moves``), or None to let play go on."""
    if not legal_moves:
        return None
    option = _decide(rules, view, legal_moves, seat, level, seed, iterations, seconds, may_wait=True)
    return None if option == _WAIT else legal_moves[option]


def _decide(
    rules: AnyRules,
    view: JSON,
    legal_moves: list[JSON],
    seat: Seat,
    level: str,
    seed: int,
    iterations: int,
    seconds: float | None,
    *,
    may_wait: bool,
) -> int:
    """The chosen option: an index into ``legal_moves``, or `_WAIT`."""
    deadline = None if seconds is None else time.perf_counter() + seconds
    options = list(range(len(legal_moves))) + ([_WAIT] if may_wait else [])
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; levels are {', '.join(LEVELS)}")
    if len(options) == 1:
        return options[0]
    if level == "random":
        return pick(options, rng(seed, "bot", "random"))
    moves = [rules.parse_move(m) for m in legal_moves]
    if level == "greedy":
        values = _one_ply(rules, view, seat, moves, options, seed, GREEDY_SAMPLES)
        best = max(values)
        ties = [o for o, v in zip(options, values, strict=True) if v >= best - 1e-9 * max(1.0, abs(best))]
        return pick(ties, rng(seed, "bot", "greedy", "tie"))
    if level == "strong":
        samples = max(1, min(GREEDY_SAMPLES, PRIOR_APPLIES // len(options)))
        values = _one_ply(rules, view, seat, moves, options, seed, samples)
        # Search the best `ROOT_WIDTH` options by one-ply value, best first (ties in legal order).
        ranked = sorted(range(len(options)), key=lambda i: (-values[i], i))[:ROOT_WIDTH]
        search = _Search(
            rules, view, seat, moves, [options[i] for i in ranked], _priors([values[i] for i in ranked]), seed
        )
        return search.run(max(1, iterations), deadline)
    raise ValueError(f"unknown bot level {level!r}; levels are {', '.join(LEVELS)}")


def _one_ply(
    rules: AnyRules, view: JSON, seat: Seat, moves: Sequence[Any], options: list[int], seed: int, samples: int
) -> list[float]:
    """Each option's ``heuristic`` for ``seat`` one ply ahead, averaged over ``samples`` determinizations.

    The same determinizations serve every option, so the comparison is paired;
    an option the engine refuses (it should not) is worth -inf.
    """
    totals = [0.0] * len(options)
    for k in range(samples):
        state = rules.determinize(view, seat, rng(seed, "bot", "greedy", k))
        for i, option in enumerate(options):
            try:
                after = state if option == _WAIT else rules.apply(state, seat, moves[option])[0]
            except RulesError:
                totals[i] = -math.inf
                continue
            totals[i] += rules.heuristic(after, seat)
    return [total / samples for total in totals]


def _priors(values: Sequence[float]) -> list[float]:
    """PUCT priors from one-ply values: a softmax over the values rescaled to [0, `PRIOR_SHARPNESS`].

    >>> [round(p, 3) for p in _priors([1.0, 0.0, 1.0])]
    [0.488, 0.024, 0.488]
    >>> _priors([2.0, 2.0])
    [0.5, 0.5]
    """
    finite = [v for v in values if v > -math.inf]
    if not finite:
        return [1 / len(values)] * len(values)
    high, low = max(finite), min(finite)
    span = high - low or 1.0
    weights = [math.exp(PRIOR_SHARPNESS * (v - high) / span) if v > -math.inf else 0.0 for v in values]
    total = sum(weights)
    return [w / total for w in weights]


# --- information-set MCTS ---------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class _Node:
    """A tree node: statistics of the edge that leads here, from the point of view of ``actor``."""

    actor: Seat  # the seat that chose the edge into this node (the root seat at the root)
    visits: int = 0
    reward: float = 0.0
    available: int = 0  # iterations in which this edge was legal (SO-ISMCTS availability)
    children: dict[Hashable, _Node] = field(default_factory=dict)

    def ucb(self, log_parent: float) -> float:
        """UCB1 score; ``log_parent`` is the log of the parent visits or of this edge's availability."""
        return self.reward / self.visits + EXPLORATION * math.sqrt(log_parent / self.visits)


class _Search:
    """One `strong` decision: single-observer ISMCTS from ``seat``'s view."""

    def __init__(
        self,
        rules: AnyRules,
        view: JSON,
        seat: Seat,
        moves: Sequence[Any],
        options: list[int],
        priors: list[float],
        seed: int,
    ) -> None:
        self.rules = rules
        self.view = view
        self.seat = seat
        self.moves = moves
        self.options = options
        self.priors = priors
        self.seed = seed
        self.players = len(view["seats"])
        self.root = _Node(actor=seat)
        self.playout_depth = PLAYOUT_DEPTH
        self.probes = 0  # interrupt probes made, and how many found an interrupt
        self.hits = 0
        self.scale = 1.0  # set by `run` (`_calibrate`)

    def run(self, iterations: int, deadline: float | None) -> int:
        """Search for ``iterations`` (or until ``deadline``) and return the most visited root option."""
        self.scale = self._calibrate()
        for i in range(iterations):
            self._iterate(i)
            if deadline is not None and time.perf_counter() > deadline:
                break
        children = self.root.children

        def rank(k: int) -> tuple[int, float, int]:
            node = children.get(self.options[k])
            if node is None or node.visits == 0:
                return (0, 0.0, -k)
            return (node.visits, node.reward / node.visits, -k)

        return self.options[max(range(len(self.options)), key=rank)]

    def _iterate(self, i: int) -> None:
        """One iteration: determinize, select and expand, play out, back up."""
        rules = self.rules
        gen = rng(self.seed, "bot", "strong", i)
        root = self.root
        path = [root]
        try:
            state = rules.determinize(self.view, self.seat, gen)
            option = self._select_root()
            node = root.children.get(option)
            if node is None:
                node = root.children[option] = _Node(actor=self.seat)
            path.append(node)
            fresh = node.visits == 0
            if option != _WAIT:
                state = rules.apply(state, self.seat, self.moves[option])[0]
            records = 1  # records in this iteration; the playout proper is capped separately
            playout = 0
            while rules.awaiting(state) and records < MAX_RECORDS and playout < self.playout_depth:
                records += 1
                playout += fresh
                after = self._interrupt(state, gen)
                if after is not None:
                    state = after
                    continue
                if fresh:
                    state = _default_record(rules, state, gen)
                    continue
                actor, legal = self._tree_actor(state)
                if actor is None:
                    state = _default_record(rules, state, gen)
                    continue
                node, j, fresh = self._select(node, actor, legal, gen)
                path.append(node)
                state = rules.apply(state, actor, legal[j])[0]
            rewards = self._rewards(state)
        except RulesError:
            # An engine that refuses a move it listed (it should not): score the path as a loss.
            rewards = [0.0] * self.players
        for visited in path:
            visited.visits += 1
            visited.reward += rewards[visited.actor]

    def _select_root(self) -> int:
        """The root option to try, by PUCT with the one-ply priors (unvisited options count at the root's mean)."""
        root = self.root
        children = root.children
        explore = PUCT * math.sqrt(max(1, root.visits))
        first = root.reward / root.visits if root.visits else 0.5
        best, best_score = self.options[0], -math.inf
        for option, prior in zip(self.options, self.priors, strict=True):
            child = children.get(option)
            visits = child.visits if child is not None else 0
            mean = child.reward / visits if child is not None and visits else first
            score = mean + explore * prior / (1 + visits)
            if score > best_score:
                best, best_score = option, score
        return best

    def _select(self, node: _Node, actor: Seat, legal: Sequence[Any], gen: Any) -> tuple[_Node, int, bool]:
        """Below the root: expand an untried legal move, else pick the best available child by UCB1."""
        keys = [(actor, self._key(move)) for move in legal]
        children = node.children
        untried = []
        for j, key in enumerate(keys):
            child = children.get(key)
            if child is None:
                untried.append(j)
            else:
                child.available += 1
        if untried:
            j = untried[randbelow(gen, len(untried))]
            child = children[keys[j]] = _Node(actor=actor, available=1)
            return child, j, True
        j = max(range(len(keys)), key=lambda j: children[keys[j]].ucb(math.log(children[keys[j]].available)))
        return children[keys[j]], j, False

    def _key(self, move: Any) -> Hashable:
        """A hashable identity for an engine move (the move itself when it is hashable)."""
        try:
            hash(move)
        except TypeError:
            return json.dumps(self.rules.dump_move(move), sort_keys=True)
        key: Hashable = move
        return key

    def _tree_actor(self, state: Any) -> tuple[Seat | None, Sequence[Any]]:
        """The seat whose decision branches the tree here, with its legal moves; None to use the default policy."""
        rules = self.rules
        awaiting = rules.awaiting(state)
        if self.seat in awaiting:
            legal = rules.legal_moves(state, self.seat)
            if legal:
                return self.seat, legal
        if len(awaiting) == 1:
            (actor,) = awaiting
            if actor != self.seat:
                legal = rules.legal_moves(state, actor)
                if legal:
                    return actor, legal
        return None, ()

    def _interrupt(self, state: Any, gen: Any) -> Any | None:
        """The default policy's interrupts: the state after one, or None when nobody interrupts."""
        if self.probes >= INTERRUPT_PROBES and self.hits == 0:
            return None
        rules = self.rules
        awaiting = rules.awaiting(state)
        start = randbelow(gen, self.players)
        for k in range(self.players):
            seat = (start + k) % self.players
            if seat in awaiting or gen.random() >= INTERRUPT_RATE:
                continue
            self.probes += 1
            legal = rules.legal_moves(state, seat)
            if legal:
                self.hits += 1
                return rules.apply(state, seat, pick(legal, gen))[0]
        return None

    def _rewards(self, state: Any) -> list[float]:
        """Every seat's reward in [0, 1]: by the outcome when the game is over, else by heuristic."""
        outcome = self.rules.outcome(state)
        if outcome is not None:
            return outcome_rewards(outcome, self.players)
        return heuristic_rewards(self._advantages(state), self.scale)

    def _advantages(self, state: Any) -> list[float]:
        """Each seat's heuristic minus the mean of the other seats' heuristics."""
        values = [self.rules.heuristic(state, s) for s in range(self.players)]
        total = sum(values)
        others = max(1, self.players - 1)
        return [v - (total - v) / others for v in values]

    def _calibrate(self) -> float:
        """The scale of heuristic advantages: their median size after a few random playouts (finished games aside)."""
        rules = self.rules
        sizes: list[float] = []
        for k in range(CALIBRATION_PLAYOUTS):
            gen = rng(self.seed, "bot", "strong", "calibrate", k)
            state = rules.determinize(self.view, self.seat, gen)
            try:
                for _ in range(self.playout_depth):
                    if not rules.awaiting(state):
                        break
                    state = _default_record(rules, state, gen)
            except RulesError:
                continue
            if rules.outcome(state) is None:
                sizes.extend(abs(a) for a in self._advantages(state) if a)
        return statistics.median(sizes) if sizes else 1.0


def _default_record(rules: AnyRules, state: Any, gen: Any) -> Any:
    """A uniform legal move of an awaited seat (a random one of those who have moves), else expire or time out."""
    awaiting = sorted(rules.awaiting(state))
    start = randbelow(gen, len(awaiting))
    for k in range(len(awaiting)):
        seat = awaiting[(start + k) % len(awaiting)]
        legal = rules.legal_moves(state, seat)
        if legal:
            return rules.apply(state, seat, pick(legal, gen))[0]
    return _fallback(rules, state)


def _fallback(rules: AnyRules, state: Any) -> Any:
    """The state after what moves the game on when no awaited seat can move (`base.fallback`)."""
    given = fallback(rules, state)
    if given is None:
        raise RuntimeError(f"{rules.name}: an awaited seat can move, or the game is over")
    return step(rules, state, given)[0]


def outcome_rewards(outcome: Outcome, players: int) -> list[float]:
    """Rewards of a finished game: `WIN_WEIGHT` for winning plus the rest by rank (ties share).

    >>> outcome_rewards(Outcome(frozenset({1}), (frozenset({1}), frozenset({0})), (0, 1), "x"), 2)
    [0.0, 1.0]
    """
    rewards = [0.0] * players
    ahead = 0
    for group in outcome.ranking:
        place = (ahead + (len(group) - 1) / 2) / (players - 1) if players > 1 else 0.0
        for seat in group:
            rewards[seat] = WIN_WEIGHT * (seat in outcome.winners) + (1 - WIN_WEIGHT) * (1 - place)
        ahead += len(group)
    return rewards


def heuristic_rewards(advantages: Sequence[float], scale: float) -> list[float]:
    """Rewards of an unfinished game: ``0.5 + 0.4 tanh(advantage / scale)``, inside (0.1, 0.9).

    >>> [round(r, 3) for r in heuristic_rewards([0.0, 2.0, -2.0], 2.0)]
    [0.5, 0.805, 0.195]
    """
    return [0.5 + 0.4 * math.tanh(a / scale) for a in advantages]


# --- in-process matches (tests and bench) ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One finished bot match: the outcome, the number of records and every decision's timing."""

    outcome: Outcome
    records: int
    decisions: tuple[tuple[Seat, str, float], ...]  # (seat, level, seconds), in order


def play_match(
    rules: AnyRules,
    levels: Sequence[str],
    seed: int,
    *,
    options: JSON | None = None,
    iterations: int = STRONG_ITERATIONS,
    seconds: float | None = STRONG_SECONDS,
) -> MatchRecord:
    """Play one match between bots in-process, each seat deciding from its own view and legal moves only.

    Before each record, every seat that is not awaited and holds an interrupt
    is offered it (`choose_interrupt`); then the first awaited seat with legal
    moves decides (`choose_move`); with no such seat the game timer expires,
    or the lowest awaited seat times out.
    """
    players = len(levels)
    state = rules.setup(rules.parse_config(dict(options or {}), players), seed)[0]
    decisions: list[tuple[Seat, str, float]] = []
    for records in range(rules.max_moves + 1):
        awaiting = rules.awaiting(state)
        if not awaiting:
            outcome = rules.outcome(state)
            assert outcome is not None, "a finished game has an outcome"
            return MatchRecord(outcome, records, tuple(decisions))
        state = _play_record(rules, state, levels, seed, records, awaiting, decisions, iterations, seconds)
    raise RuntimeError(f"{rules.name} did not end within max_moves={rules.max_moves}")


def _play_record(
    rules: AnyRules,
    state: Any,
    levels: Sequence[str],
    seed: int,
    records: int,
    awaiting: frozenset[Seat],
    decisions: list[tuple[Seat, str, float]],
    iterations: int,
    seconds: float | None,
) -> Any:
    """The state after the next record of a bot match."""
    players = len(levels)
    order = [(records + k) % players for k in range(players)]
    for interrupts in (True, False):
        for seat in order:
            if (seat in awaiting) == interrupts:
                continue
            legal = _json(rules.dump_move(m) for m in rules.legal_moves(state, seat))
            if not legal:
                continue
            view = _json(rules.view(state, seat, None))
            decide = choose_interrupt if interrupts else choose_move
            started = time.perf_counter()
            seed_now = decision_seed(seed, records, seat)
            move = decide(rules, view, legal, seat, levels[seat], seed_now, iterations=iterations, seconds=seconds)
            decisions.append((seat, levels[seat], time.perf_counter() - started))
            if move is not None:
                return rules.apply(state, seat, rules.parse_move(move))[0]
    return _fallback(rules, state)


def decision_seed(match_seed: int, version: int, seat: Seat) -> int:
    """The seed of a bot's decision for ``seat`` at match ``version``: reproducible, different every record.

    >>> decision_seed(7, 12, 1) == decision_seed(7, 12, 1) != decision_seed(7, 13, 1)
    True
    """
    return int(rng(match_seed, "bot", "decision", version, seat).random() * 2**53)


def _json(value: Any) -> Any:
    """``value`` as the API would carry it (a JSON round trip; a generator becomes a list)."""
    if not isinstance(value, dict | list):
        value = list(value)
    return json.loads(json.dumps(value))
