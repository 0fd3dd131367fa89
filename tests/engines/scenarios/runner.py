"""One runner for the rules pages' scenarios, written as TOML under ``tests/engines/scenarios/<game>/``.

A file has a ``description`` and ``[[cases]]``. A case gives ``players`` (default 2), ``seed``
(default 0), ``options`` (match options) and/or ``setup`` (the `setup` fixture, merged into the
options), then ``[[cases.steps]]``. A step may apply one input and then checks what follows:

- input: ``move = {...}`` by ``seat``; or ``action = "timeout" | "resign"`` by ``seat``; or
  ``action = "expire"`` (the game timer). With ``error = "<reason or code>"`` the input must be
  refused with that `IllegalMove` reason (or `RulesError` code) and the state stays as it was.
- ``effects`` / ``absent_effects``: effect kinds that must (not) be among the input's effects;
  ``effect_data = [{kind = ..., <member> = <value>...}]``: an effect of that kind with those data
  members; ``to`` in it checks the audience (a list of seats, or ``"all"``).
- ``awaiting = [...]``: the awaited seats after it.
- ``view = {"<dotted.path>" = value}`` and ``nulls = ["<path>"]``: the view of ``viewer`` (default:
  spectator, or the scenario's ``viewer``), read by dotted path (list indices are numbers).
- ``legal`` / ``not_legal``: moves that must (not) be listed for ``legal_seat`` (default: ``seat``).
- ``outcome = {winners, reason, scores?, ranking?}``.

A game's test module calls `run_file(rules, path)`; ``options_of`` may build the options of a
case (Ekö's ``fill``).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rules.base import Effect, Expired, IllegalMove, Moved, Resigned, Rules, RulesError, TimedOut, step

Case = dict[str, Any]


def files(game: str) -> list[Path]:
    """The scenario files of a game (``s*.toml``), in name order."""
    return sorted((Path(__file__).parent / game).glob("s*.toml"))


def default_options(case: Case) -> dict[str, Any]:
    options = dict(case.get("options", {}))
    if "setup" in case:
        options["setup"] = json.loads(json.dumps(case["setup"]))
    return options


def at(view: Any, path: str) -> Any:
    """``view`` read along a dotted path: ``"seats.0.hand"``."""
    node = view
    for part in path.split("."):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def reason(exc: RulesError) -> str:
    return exc.reason if isinstance(exc, IllegalMove) and exc.reason else exc.code


def _input(rules: Rules[Any, Any, Any], step_: Case) -> Any:
    seat = step_.get("seat")
    if "move" in step_:
        assert seat is not None, "a move needs a seat"
        return Moved(seat, rules.parse_move(step_["move"]))
    action = step_.get("action")
    if action == "timeout":
        return TimedOut(seat)
    if action == "resign":
        return Resigned(seat)
    if action == "expire":
        return Expired()
    raise AssertionError(f"unknown action {action!r}")


def _check_effects(effects: tuple[Effect, ...], step_: Case) -> None:
    kinds = [e.kind for e in effects]
    for kind in step_.get("effects", []):
        assert kind in kinds, f"{kind} not in {kinds}"
    for kind in step_.get("absent_effects", []):
        assert kind not in kinds, f"{kind} in {kinds}"
    for want in step_.get("effect_data", []):
        want = dict(want)
        kind, to = want.pop("kind"), want.pop("to", None)
        found = [
            e
            for e in effects
            if e.kind == kind
            and all(e.data.get(k) == v for k, v in want.items())
            and (to is None or (e.to is None if to == "all" else e.to == frozenset(to)))
        ]
        assert found, f"no {kind} effect with {want} (to {to}) in {[e.to_json() for e in effects]}"


def run_step(rules: Rules[Any, Any, Any], state: Any, step_: Case, *, viewer: int | None = None) -> Any:
    """Apply a step's input (if any) to ``state`` and check what it says; the state after it."""
    effects: tuple[Effect, ...] = ()
    if "move" in step_ or "action" in step_:
        try:
            new, effects = step(rules, state, _input(rules, step_))
        except RulesError as exc:
            assert "error" in step_, f"unexpected refusal {reason(exc)}: {exc}"
            assert reason(exc) == step_["error"], f"refused with {reason(exc)}, not {step_['error']}: {exc}"
        else:
            assert "error" not in step_, f"expected {step_['error']}, but it was accepted"
            assert rules.invariant_violations(new) == []
            state = new
    _check_effects(effects, step_)
    if "awaiting" in step_:
        assert sorted(rules.awaiting(state)) == step_["awaiting"]
    view = rules.view(state, step_.get("viewer", viewer), None)
    for path, expected in step_.get("view", {}).items():
        assert at(view, path) == expected, f"{path}: {at(view, path)!r} != {expected!r}"
    for path in step_.get("nulls", []):
        assert at(view, path) is None, f"{path} is {at(view, path)!r}"
    lister = step_.get("legal_seat", step_.get("seat"))
    if lister is not None and ("legal" in step_ or "not_legal" in step_):
        legal = [rules.dump_move(m) for m in rules.legal_moves(state, lister)]
        for move in step_.get("legal", []):
            assert move in legal, f"{move} not listed in {legal}"
        for move in step_.get("not_legal", []):
            assert move not in legal, f"{move} listed"
    if "outcome" in step_:
        out = rules.outcome(state)
        assert out is not None, "the game is not over"
        want = step_["outcome"]
        assert sorted(out.winners) == want["winners"] and out.reason == want["reason"], out.to_json()
        if "scores" in want:
            assert list(out.scores) == want["scores"]
        if "ranking" in want:
            assert [sorted(g) for g in out.ranking] == want["ranking"]
    return state


def run_file(
    rules: Rules[Any, Any, Any], path: Path, *, options_of: Callable[[Case], dict[str, Any]] = default_options
) -> int:
    """Run every case of one scenario file; returns how many steps ran (so a caller can assert some did)."""
    doc = tomllib.loads(path.read_text())
    assert doc.get("description"), f"{path.name} has no description"
    steps = 0
    for case in doc["cases"]:
        config = rules.parse_config(options_of(case), case.get("players", 2))
        state, _ = rules.setup(config, case.get("seed", 0))
        assert rules.invariant_violations(state) == []
        for step_ in case["steps"]:
            try:
                state = run_step(rules, state, step_, viewer=case.get("viewer"))
            except AssertionError as exc:
                raise AssertionError(f"{path.name}, case {case.get('name')!r}, step {steps}: {exc}") from exc
            steps += 1
    return steps
