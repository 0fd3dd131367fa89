"""The OpenAPI document's game schemas hold for whatever an engine sends: on random playouts of
every game, each seat's (and a spectator's) view validates against ``<Game>View``, every legal move
against ``<Game>Move`` and the result against ``<Game>Result`` and ``Result``. The schemas are
closed objects (``additionalProperties: false``) built from the engines' TypedDicts, so a member an
engine adds, drops or retypes without its TypedDict fails here."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from api.schema import camel, game_schemas
from rules import RULES
from tests.engines.test_contract import ENGINES, PLAYOUT, _playout


def _validator(component: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/components/schemas/{component}", "components": {"schemas": SCHEMAS}})


SCHEMAS: dict[str, Any] = game_schemas()


def _errors(validator: Draft202012Validator, value: Any) -> list[str]:
    plain = json.loads(json.dumps(value))  # what the API sends: JSON, not tuples
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(plain)]


@pytest.mark.parametrize("game", ENGINES)
@settings(PLAYOUT, max_examples=4)
@given(data=st.data())
def test_every_view_move_and_result_of_a_playout_validates(game: str, data: st.DataObject) -> None:
    rules = RULES[game]
    g = camel(game)
    view, move, result = _validator(g + "View"), _validator(g + "Move"), _validator(g + "Result")
    any_result = _validator("Result")
    state = None
    for _before, _sent, state, _effects, players in _playout(rules, data):
        for seat in [*range(players), None]:
            assert _errors(view, rules.view(state, seat)) == [], f"{game} view of seat {seat}"
        for seat in range(players):
            for legal in rules.legal_moves(state, seat):
                assert _errors(move, rules.dump_move(legal)) == []
    outcome = rules.outcome(state)
    assert outcome is not None
    assert _errors(result, outcome.to_json()) == [] and _errors(any_result, outcome.to_json()) == []


def test_a_view_member_the_typeddict_does_not_declare_fails() -> None:
    """The check above can fail: an extra member, or a wrongly typed one, is reported."""
    rules = RULES["ecos"]
    state = rules.setup(rules.parse_config({}, 2), 7)[0]
    sent = rules.view(state, 0)
    validator = _validator("EcosView")
    assert _errors(validator, sent) == []
    assert _errors(validator, {**sent, "secret": 1})
    assert _errors(validator, {**sent, "bag": {**sent["bag"], "size": "forty"}})
