"""One contract test over every registered engine: random playouts that must end, keep their
invariants (card conservation among them), replay deterministically, round-trip moves and states
through JSON, never mutate their input, never show a seat what the game hides from it (in its
view or in the effects it is shown), refuse moves from seats that have none, and emit the same
effects for the same input on equal states.

Every input goes through `rules.base.step`, and when no awaited seat can move the
playout asks `rules.base.fallback`: the same path the platform, the bots and the
benchmarks take.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import RULES
from rules.base import (
    Effect,
    IllegalMove,
    Input,
    InvalidMove,
    Moved,
    NotAwaited,
    RaceLost,
    Resigned,
    Rules,
    RulesError,
    Started,
    TimedOut,
    fallback,
    step,
)
from rules.rng import rng

ENGINES = sorted(RULES)
AnyRules = Rules[Any, Any, Any]
# A whole playout is one example, and some check every position of it: half the profile's examples
# (60 on CI) keep these five tests to about a minute a game on CI.
PLAYOUT = settings(
    max_examples=max(settings.default.max_examples // 2, 10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)


def _next_input(rules: AnyRules, state: Any, players: int, draw: Any) -> Input:
    """The next input of a playout: now and then a resignation or a timeout (of a seat whose
    clock runs, as the platform would), else a legal move of a seat that has one (interrupts
    included), else whatever `fallback` says."""
    awaiting = sorted(rules.awaiting(state))
    clocked = sorted(rules.clocked_seats(state))
    movers = [s for s in range(players) if rules.legal_moves(state, s)]
    roll = draw(st.integers(0, 99))
    if roll < 2:
        return Resigned(draw(st.sampled_from(awaiting)))
    if roll < 6 and clocked:
        return TimedOut(draw(st.sampled_from(clocked)))
    if movers:
        seat = draw(st.sampled_from(movers))
        moves = rules.legal_moves(state, seat)
        return Moved(seat, moves[draw(st.integers(0, len(moves) - 1))])
    sent = fallback(rules, state)
    assert sent is not None, "an awaited seat without legal moves, and nothing moves the game on"
    return sent


def _start(rules: AnyRules, data: st.DataObject) -> tuple[Any, int, int, int]:
    """A dealt game: (state, players, seed, config)."""
    players = data.draw(st.integers(rules.seats.start, rules.seats.stop - 1), label="players")
    seed = data.draw(st.integers(0, 2**63 - 1), label="seed")
    config = rules.parse_config({}, players)
    return rules.setup(config, seed)[0], players, seed, config


def _playout(rules: AnyRules, data: st.DataObject) -> Iterator[tuple[Any | None, Input, Any, tuple[Effect, ...], int]]:
    """A random playout: (state before, input, state after, effects, players) for every input,
    the deal first (its state before is None)."""
    players = data.draw(st.integers(rules.seats.start, rules.seats.stop - 1), label="players")
    dealt = Started(rules.parse_config({}, players), data.draw(st.integers(0, 2**63 - 1), label="seed"))
    state, effects = step(rules, None, dealt)
    yield None, dealt, state, effects, players
    for _ in range(rules.max_moves):
        if not rules.awaiting(state):
            return
        sent = _next_input(rules, state, players, data.draw)
        after, effects = step(rules, state, sent)
        yield state, sent, after, effects, players
        state = after
    pytest.fail(f"{rules.name} did not end within max_moves={rules.max_moves}")


@pytest.mark.parametrize("game", ENGINES)
@PLAYOUT
@given(data=st.data())
def test_random_playout_keeps_the_contract(game: str, data: st.DataObject) -> None:
    rules = RULES[game]
    state, players, seed, config = _start(rules, data)
    opened, opening_effects = rules.setup(config, seed)
    assert _canon(rules.dump_state(opened)) == _canon(rules.dump_state(state)), "setup is not deterministic"
    assert [e.to_json() for e in opening_effects] == [e.to_json() for e in rules.setup(config, seed)[1]]
    for effect in opening_effects:
        json.dumps(effect.to_json())
    inputs: list[Input] = []
    for _ in range(rules.max_moves):
        assert rules.invariant_violations(state) == []
        if not rules.awaiting(state):
            break
        assert rules.outcome(state) is None
        sent = _next_input(rules, state, players, data.draw)
        if isinstance(sent, Moved):
            dumped = rules.dump_move(sent.move)
            assert rules.parse_move(json.loads(json.dumps(dumped))) == sent.move, "move does not round-trip"
        before = _canon(rules.dump_state(state))
        new_state, effects = step(rules, state, sent)
        assert _canon(rules.dump_state(state)) == before, "transition mutated its input state"
        _check_views(rules, new_state, players, data)
        for effect in effects:
            json.dumps(effect.to_json())
        inputs.append(sent)
        state = new_state
    else:
        pytest.fail(f"{game} did not end within max_moves={rules.max_moves}")
    assert fallback(rules, state) is None, "a finished game is not moved on"
    outcome = rules.outcome(state)
    assert outcome is not None
    assert sorted(s for group in outcome.ranking for s in group) == list(range(players))
    assert outcome.winners == outcome.ranking[0]
    assert len(outcome.scores) == players
    replayed = rules.setup(config, seed)[0]
    for sent in inputs:
        replayed, _ = step(rules, replayed, sent)
    assert _canon(rules.dump_state(replayed)) == _canon(rules.dump_state(state)), "replay is not deterministic"


def _check_views(rules: AnyRules, state: Any, players: int, data: st.DataObject) -> None:
    dumped = rules.dump_state(state)
    assert _canon(rules.dump_state(rules.parse_state(json.loads(json.dumps(dumped))))) == _canon(dumped)
    for viewer in [None, *range(players)]:
        view = rules.view(state, viewer, None)
        assert view["game"] == rules.name and "phase" in view and "seats" in view
        json.dumps(view)
        if viewer is None:
            continue
        # No leak: a state rebuilt from the view alone, its hidden parts sampled afresh, looks the same.
        gen = rng(data.draw(st.integers(0, 2**32), label="determinize"), "determinize")
        sampled = rules.determinize(json.loads(json.dumps(view)), viewer, gen)
        assert rules.invariant_violations(sampled) == []
        assert _canon(rules.view(sampled, viewer, None)) == _canon(view), "view depends on hidden information"
        assert [rules.dump_move(m) for m in rules.legal_moves(sampled, viewer)] == [
            rules.dump_move(m) for m in rules.legal_moves(state, viewer)
        ], "legal moves depend on hidden information"


# --- effects do not leak ----------------------------------------------------------------------


def _leaves(obj: Any, key: str | None = None) -> Iterator[tuple[str | None, Any]]:
    """Every scalar in a JSON value, with the name of the member it sits under (list items inherit it)."""
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            yield from _leaves(v, str(k))
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from _leaves(v, key)
    else:
        yield key, obj


def _names(obj: Any) -> Iterator[str]:
    """Every member name in a JSON value (Ecos's map is keyed by cell: ``"1,-3"``)."""
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            yield str(k)
            yield from _names(v)
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from _names(v)


def _signals(obj: Any) -> set[tuple[str | None, Any]]:
    """The values of ``obj`` that can name a hidden thing, as comparable keys.

    A string (a card id like ``"red-5"``, ``"blu-14"``) counts by value alone, under whatever
    member it sits. An integer is ambiguous (card 7 of EKKO, a score of 7, a count of 7), so it
    counts together with the member it sits under (``("card", 7)``). Booleans and nulls name
    nothing.

    >>> sorted(_signals({"seat": 1, "hand": [3, "red-5"], "auto": True}), key=repr)
    [('hand', 3), ('seat', 1), (None, 'red-5')]
    """
    out: set[tuple[str | None, Any]] = set()
    for key, value in _leaves(obj):
        if isinstance(value, str):
            out.add((None, value))
        elif isinstance(value, int) and not isinstance(value, bool):
            out.add((key, value))
    return out


def _values(obj: Any) -> set[Any]:
    """Every value (`_signals`) and member name in ``obj``, whatever member it sits under."""
    return {value for _, value in _signals(obj)} | set(_names(obj))


def _leaks(rules: AnyRules, before: Any, after: Any, effects: tuple[Effect, ...], players: int) -> list[str]:
    """What ``effects`` tell some seat B, by value, of the private effects addressed to others.

    For each seat B, the platform shows B the effects with ``visible_to(B)``; the private ones
    addressed only to other seats are what B must not learn. Three checks:

    1. An address names seats of the game, at least one (an empty ``to``, or a seat that does
       not exist, is an effect shown to nobody).
    2. No effect shown to B carries the payload of a private effect addressed only to others:
       the private ``data`` is not a sub-mapping of a shown effect's ``data``, unless B's view
       shows every value of it anyway (Ecos's last pick closes the prompt and the picked cards
       lie in the tableau for all). A public companion that copies ``{"seat": 1, "card": 42}``
       out of ``card_drawn`` is a leak, and so is one that copies ``{"seat": 1, "cause":
       "player"}`` out of EKKO's ``you_passed``, though no single value there is secret.
    3. No effect addressed to B (``to`` names B) names a hidden value of a private effect to
       others. Hidden means: a `_signals` key of the private data whose value is part of the
       true state (its ``dump_state`` before or after the step: hidden information is state
       the view leaves out, so a vocabulary word like ``"timeout"`` is not) and appears
       nowhere in B's view, before the step or after it, nor in a public effect of the step
       (what B is shown, B may be told again: in Enka B draws a ``blue-take5`` and plays it at
       once, the round ends and the deal gives C the other ``blue-take5``; B's own draw names
       a card that B's views never show but the public ``played`` did). A string is matched
       under any member, an integer under the same member.

    Public effects are left out of check 3 on purpose: they may reveal hidden values for good
    (Enka's ``round_ended`` shows every hand, then a new deal hides the table again, and card
    names repeat across copies), which no game-agnostic rule can tell from a leak by value.
    `_interference` covers them instead. Check 3 never flags a value B's view shows or a value
    that is no part of the state, check 2 only a whole private payload repeated to B.
    """
    problems = []
    seats = frozenset(range(players))
    for effect in effects:
        if effect.to is not None and not (effect.to and effect.to <= seats):
            problems.append(f"{effect.kind} is addressed to {sorted(effect.to)} of {players} seats")
    truth = {v for state in (before, after) if state is not None for v in _values(rules.dump_state(state))}
    for seat in range(players):
        shown = [e for e in effects if e.visible_to(seat)]
        private = [e for e in effects if not e.visible_to(seat)]
        if not private:
            continue
        known = {v for state in (before, after) if state is not None for v in _values(rules.view(state, seat, None))}
        public = known | {v for e in effects if e.to is None for v in _values(e.data)}  # check 3 only
        addressed = {signal for e in shown if e.to is not None for signal in _signals(e.data)}
        for p in private:
            items = list(p.data.items())
            news = _values(p.data) - known
            for e in shown:
                if items and news and all(k in e.data and e.data[k] == v for k, v in items):
                    problems.append(f"seat {seat} is shown {e.to_json()}, which carries {p.to_json()}")
            hidden = {(k, v) for k, v in _signals(p.data) if v in truth and v not in public}
            for k, v in sorted(hidden & addressed, key=repr):
                problems.append(f"seat {seat} is told {v!r} ({k}) of {p.kind} to {sorted(p.to or ())}")
    return problems


class _Hands:
    """Just enough rules for `_leaks`: the state is every seat's hand, a seat's view its own."""

    def dump_state(self, state: Any) -> Any:
        return {"hands": state}

    def view(self, state: Any, seat: int | None, deadline: Any) -> Any:
        return {"hand": state[seat]}


def test_the_leak_oracle_flags_a_hidden_value_unless_the_step_showed_it() -> None:
    before, after = [["blue-1"], ["blue-2"]], [["blue-1"], ["blue-2", "red-5"]]
    dealt = Effect("cards_received", {"seat": 1, "cards": ["red-5"]}, frozenset({1}))
    told = Effect("hint", {"about": "red-5"}, frozenset({0}))  # seat 0 is told of seat 1's new card
    played = Effect("played", {"seat": 1, "card": "red-5"})  # ... which the step showed everyone
    copied = Effect("echo", {"seat": 1, "cards": ["red-5"]})  # the private payload, public
    rules: Any = _Hands()
    assert _leaks(rules, before, after, (dealt, told), 2) == ["seat 0 is told 'red-5' (None) of cards_received to [1]"]
    assert _leaks(rules, before, after, (dealt, told, played), 2) == []
    assert len(_leaks(rules, before, after, (dealt, played, copied), 2)) == 1  # check 2 is not loosened


def _interference(
    rules: AnyRules, before: Any, sent: Input, after: Any, effects: tuple[Effect, ...], seat: int, draw: Any
) -> list[str]:
    """The effects shown to ``seat`` depend on more than what ``seat`` sees (noninterference).

    Another true state behind ``seat``'s view of ``before`` (`determinize`: what the view hides
    is sampled afresh) gets the same input. When it is accepted there and ``seat``'s view after
    is the same as well, the seat cannot tell the two steps apart, so the effects it is shown
    (public ones and its own) must be the same too: if they differ, they carry something of
    the hidden part, like a drawn card named in a public ``drew``. A public reveal that the
    seat's view then reflects (a round's hands, a closed prompt's answers) changes that view
    and is not compared; a reveal that left no trace in the view would be flagged.
    """
    view = json.loads(json.dumps(rules.view(before, seat, None)))
    other = rules.determinize(view, seat, rng(draw(st.integers(0, 2**32), label="resample"), "leak"))
    try:
        other_after, other_effects = step(rules, other, sent)
    except RulesError:  # the input used something the view hides (another seat's card)
        return []
    if _canon(rules.view(other_after, seat, None)) != _canon(rules.view(after, seat, None)):
        return []
    mine = [e.to_json() for e in effects if e.visible_to(seat)]
    theirs = [e.to_json() for e in other_effects if e.visible_to(seat)]
    return [] if mine == theirs else [f"seat {seat} is shown {mine} here, {theirs} in a state it cannot tell apart"]


@pytest.mark.parametrize("game", ENGINES)
@PLAYOUT
@given(data=st.data())
def test_effects_show_a_seat_nothing_its_view_hides(game: str, data: st.DataObject) -> None:
    """Effects do not leak, on every input of a random playout: by value (`_leaks`), and for
    one seat drawn per input, by noninterference (`_interference`)."""
    rules = RULES[game]
    for before, sent, after, effects, players in _playout(rules, data):
        assert _leaks(rules, before, after, effects, players) == [], sent
        if before is not None:
            seat = data.draw(st.integers(0, players - 1), label="observer")
            assert _interference(rules, before, sent, after, effects, seat, data.draw) == [], sent


# --- a seat with nothing to do is refused -----------------------------------------------------

REFUSALS = (NotAwaited, IllegalMove, RaceLost, InvalidMove)


def _refusals(
    rules: AnyRules, state: Any, players: int, catalogue: list[Any], draw: Any, answered: frozenset[int] = frozenset()
) -> list[str]:
    """Moves accepted from seats that are not awaited and hold no interrupt (nor have ``answered``
    an open simultaneous prompt: `_answered`); [] when all are refused.

    Each such seat is sent up to 6 moves drawn from what the other seats may play here and
    from ``catalogue`` (legal moves of earlier positions, which covers move types nobody holds
    now). A refusal must be one of the contract's `RulesError`s and leave the state as it was.
    """
    awaiting = rules.awaiting(state)
    idle = [s for s in range(players) if s not in awaiting and s not in answered and not rules.legal_moves(state, s)]
    candidates = [m for s in range(players) for m in rules.legal_moves(state, s)] + catalogue
    if not idle or not candidates:
        return []
    problems = []
    before = _canon(rules.dump_state(state))
    for seat in idle:
        for move in draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=6, unique_by=repr)):
            try:
                step(rules, state, Moved(seat, move))
            except REFUSALS:
                pass
            else:
                problems.append(f"seat {seat} (awaiting {sorted(awaiting)}) may play {rules.dump_move(move)}")
            if _canon(rules.dump_state(state)) != before:
                problems.append(f"refusing {rules.dump_move(move)} from seat {seat} changed the state")
    return problems


def _answered(rules: AnyRules, answered: frozenset[int], before: Any, sent: Input, after: Any) -> frozenset[int]:
    """The seats that have answered the simultaneous prompt still open in ``after``.

    Such a seat may send a replacement answer until the prompt closes, and a replacement is not
    listed in ``legal_moves`` (docs/rules/README.md, on ``not_awaited`` and ``legal_moves``; Ekö's and
    Ecos' pages allow one). A prompt is open while ``awaiting`` only shrinks; a seat answers it by a
    move, or by its timeout's default answer, that takes it off ``awaiting``. A seat newly awaited
    (a new prompt, a new turn) or the end closes it.
    """
    was, now = set(rules.awaiting(before)), set(rules.awaiting(after))
    if not now or not now <= was:
        return frozenset()
    if isinstance(sent, Moved | TimedOut) and sent.seat in was and sent.seat not in now:
        return answered | {sent.seat}
    return answered


@pytest.mark.parametrize("game", ENGINES)
@PLAYOUT
@given(data=st.data())
def test_a_seat_that_is_not_awaited_and_holds_no_interrupt_is_refused(game: str, data: st.DataObject) -> None:
    """Every position of a random playout, the final one too: an idle seat's move is refused,
    unless the seat has answered a simultaneous prompt that is still open (a replacement)."""
    rules = RULES[game]
    catalogue: list[Any] = []
    final = None
    answered: frozenset[int] = frozenset()
    for before, sent, after, _, players in _playout(rules, data):
        if before is None:
            continue
        assert _refusals(rules, before, players, catalogue, data.draw, answered) == []
        catalogue = [*catalogue, *(m for s in range(players) for m in rules.legal_moves(before, s)[:2])][-40:]
        answered = _answered(rules, answered, before, sent, after)
        final = after, players
    assert final is not None
    assert _refusals(rules, *final, catalogue, data.draw, answered) == []


# --- effects are deterministic ----------------------------------------------------------------


@pytest.mark.parametrize("game", ENGINES)
@PLAYOUT
@given(data=st.data())
def test_the_same_input_on_equal_states_gives_the_same_effects(game: str, data: st.DataObject) -> None:
    """Each input of a random playout, applied again to the state rebuilt from its JSON dump,
    gives the same effects and the same state: effects depend on nothing but the state
    (no set order, no object identity, no cached value the dump drops)."""
    rules = RULES[game]
    for before, sent, after, effects, _ in _playout(rules, data):
        rebuilt = None if before is None else rules.parse_state(json.loads(json.dumps(rules.dump_state(before))))
        again, again_effects = step(rules, rebuilt, sent)
        assert [e.to_json() for e in again_effects] == [e.to_json() for e in effects], sent
        assert _canon(rules.dump_state(again)) == _canon(rules.dump_state(after)), sent


@pytest.mark.parametrize("game", ENGINES)
def test_catalogue_entry_is_complete(game: str) -> None:
    rules = RULES[game]
    assert rules.seats.start >= 1 and rules.max_moves > 0
    names = [o.name for o in rules.options]
    assert len(names) == len(set(names))
    defaults = {o.name: o.default for o in rules.options if not o.restricted}
    rules.parse_config(defaults, rules.seats.start)
    assert {m.type for m in rules.moves}, "an engine documents its moves"


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 200) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@pytest.mark.parametrize("game", ENGINES)
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_anything_a_client_sends_is_parsed_or_refused_with_a_rules_error(game: str, data: st.DataObject) -> None:
    """No input makes an engine fail with anything but its own coded errors (a 5xx is a bug)."""
    from rules.base import RulesError

    rules = RULES[game]
    spec = data.draw(st.sampled_from(rules.moves))
    fields = {
        f.name: data.draw(_json_values | st.sampled_from(list(f.choices or [None])), label=f.name)
        for f in spec.fields
        if data.draw(st.booleans())
    }
    extra = data.draw(st.dictionaries(st.text(max_size=6), _json_values, max_size=1))
    payload = data.draw(st.sampled_from([{"type": spec.type, **fields}, {"type": spec.type, **fields, **extra}]))
    players = rules.seats.start
    state = rules.setup(rules.parse_config({}, players), data.draw(st.integers(0, 2**32)))[0]
    try:
        move = rules.parse_move(payload)
    except RulesError as exc:
        assert exc.code == "invalid_move"
        return
    for seat in range(players):
        with contextlib.suppress(RulesError):
            rules.apply(state, seat, move)


@pytest.mark.parametrize("game", ENGINES)
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_options_are_accepted_or_refused_with_invalid_options(game: str, data: st.DataObject) -> None:
    """Match options from a client: parsed, or refused with `InvalidOptions` (400), never a crash."""
    from rules.base import InvalidOptions

    rules = RULES[game]
    names = [o.name for o in rules.options] + ["bogus"]
    options = data.draw(st.dictionaries(st.sampled_from(names), _json_values, max_size=3))
    players = data.draw(st.integers(rules.seats.start, rules.seats.stop - 1))
    # a `setup` that needs the board may only be checked with the seed: the platform does both at creation
    with contextlib.suppress(InvalidOptions):
        rules.setup(rules.parse_config(options, players), data.draw(st.integers(0, 2**32)))[0]
