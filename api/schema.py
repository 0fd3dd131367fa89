"""The OpenAPI document's game schemas, built from the engines, and the hooks that complete it.

Per game (component names carry the game): each move type (``EkkoPlayMove``) and their union
discriminated by ``type`` (``EkkoMove``); the view (``EkkoView``, from the engine's view
TypedDict); the result (``EkkoResult``); and the state a seat reads (``EkkoState``), whose
``legal_moves`` are ``EkkoMove`` items. ``MatchState`` is the union of the states, discriminated
by ``game``, so that a generated client parses each game's view and moves as that game's types.

A move is one component for both directions: what ``legal_moves`` gives is what ``moves``
takes, unchanged. The body of ``POST moves`` takes a ``Move``: ``anyOf`` the per-game unions,
because the match in the path decides the game and the same JSON can be a move of two games
(``{"type": "draw"}`` is EKKO's draw and Enka's); within its game a move matches exactly one branch.

Everything here follows the engines: moves from ``Rules.moves`` (`MoveSpec`), views from the
TypedDict the engine's ``view`` returns (or, while an engine's ``view`` is annotated as plain
JSON, the ``<Game>View`` TypedDict of its module), results from `Outcome` plus the members a
page adds (a ``<Game>Result`` TypedDict of the engine module when there is one). A move member that
is an object (Ecos's ``answers`` and ``choice``) has the schema of the TypedDict its `kit.arg`
names as ``shape``. ``MatchOptions`` (a match's ``options``) and ``Result`` merge every game's
catalogue and result members into one closed object each, so that a generated client reads
``match.options.target_score`` with no cast. Nothing an engine sends is an untyped object.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any, Literal, get_args, get_origin, is_typeddict

from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import Direction
from rest_framework import serializers

from rules import RULES
from rules.base import MoveField, MoveSpec, Option, Rules

Schema = dict[str, Any]
PROBLEM = "application/problem+json"
REF = "#/components/schemas/"

MATCH_STATUSES = ["open", "active", "finished", "aborted"]


def ref(name: str) -> Schema:
    return {"$ref": REF + name}


def nullable(schema: Schema) -> Schema:
    """``schema`` or null (OpenAPI 3.1: JSON Schema's own ``"null"`` type)."""
    if not schema:
        return schema  # any value already
    if "$ref" in schema or "type" not in schema:
        if "anyOf" in schema:
            return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
        return {"oneOf": [schema, {"type": "null"}]}
    kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    out = {**schema, "type": [*kinds, "null"]}
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    return out


def camel(*parts: str) -> str:
    """``camel("ekko", "play_drawn")`` → ``EkkoPlayDrawn``."""
    return "".join(p.replace("-", "_").title().replace("_", "") for p in parts)


# --- moves ----------------------------------------------------------------------------------------


def _items(spec: MoveField, convert: _Converter) -> Schema:
    item: Schema = {"type": "string"}
    if spec.type == "integer_list":
        item = {"type": "integer", **_int_bounds(spec)}
    elif spec.type == "object_list":
        item = convert.of(spec.shape)
    if spec.choices is not None:
        item["enum"] = list(spec.choices)
    return item


def _int_bounds(spec: MoveField) -> Schema:
    bounds = {"minimum": spec.minimum, "maximum": spec.maximum}
    return {k: v for k, v in bounds.items() if v is not None}


def move_field_schema(spec: MoveField, convert: _Converter) -> Schema:
    """A move member; an object (or object item) has the schema of its ``shape`` TypedDict."""
    out: Schema
    if spec.type.endswith("_list"):
        out = {"type": "array", "items": _items(spec, convert)}
    elif spec.type == "object":
        out = dict(convert.of(spec.shape))
    else:
        out = {"type": spec.type}
        if spec.type == "integer":
            out.update(_int_bounds(spec))
        if spec.choices is not None:
            out["enum"] = list(spec.choices)
    if spec.nullable:
        out = nullable(out)
    if spec.description:
        out["description"] = spec.description
    return out


def move_schema(rules: Rules[Any, Any, Any], spec: MoveSpec, convert: _Converter) -> Schema:
    """One move type: a closed object whose ``type`` is the move type."""
    properties: Schema = {"type": {"type": "string", "enum": [spec.type]}}
    properties.update({f.name: move_field_schema(f, convert) for f in spec.fields})
    return {
        "type": "object",
        "title": camel(rules.name, spec.type, "move"),
        "description": f"{rules.title} `{spec.type}`: {spec.description}".rstrip(": "),
        "properties": properties,
        "required": ["type", *(f.name for f in spec.fields if f.required)],
        "additionalProperties": False,
    }


# --- views and results: TypedDicts as schemas ----------------------------------------------------


@dataclasses.dataclass
class _Converter:
    """Python annotations (TypedDicts, lists, Literals, ``X | None``) as OpenAPI 3.0 schemas."""

    prefix: str
    components: dict[str, Schema]

    def name(self, cls: type) -> str:
        return cls.__name__ if cls.__name__.startswith(self.prefix) else self.prefix + cls.__name__

    def typeddict(self, cls: type) -> Schema:
        name = self.name(cls)
        if name not in self.components:
            self.components[name] = {}  # recursion guard
            hints = typing.get_type_hints(cls)
            required = getattr(cls, "__required_keys__", frozenset(hints))
            schema: Schema = {
                "type": "object",
                "properties": {key: self.of(hint) for key, hint in hints.items()},
                "required": [key for key in hints if key in required],
                "additionalProperties": False,
            }
            if cls.__doc__ and not cls.__doc__.startswith(cls.__name__ + "("):
                schema["description"] = " ".join(cls.__doc__.split())
            self.components[name] = schema
        return ref(name)

    def of(self, hint: Any) -> Schema:
        origin = get_origin(hint)
        if origin in (typing.Union, types.UnionType):
            args = [a for a in get_args(hint) if a is not type(None)]
            inner = self.of(args[0]) if len(args) == 1 else {"anyOf": [self.of(a) for a in args]}
            return nullable(inner) if len(args) < len(get_args(hint)) else inner
        if origin is Literal:
            values = list(get_args(hint))
            kind = "boolean" if all(type(v) is bool for v in values) else None
            kind = kind or ("integer" if all(type(v) is int for v in values) else "string")
            return {"type": kind, "enum": values}
        if hint is Any or hint is object:
            return {}
        if is_typeddict(hint):
            return self.typeddict(hint)
        if hint is bool:
            return {"type": "boolean"}
        if hint is int:
            return {"type": "integer"}
        if hint is float:
            return {"type": "number"}
        if hint is str:
            return {"type": "string"}
        if origin in (list, tuple, Sequence, typing.Sequence) or hint in (list, tuple):
            args = [a for a in get_args(hint) if a is not Ellipsis]
            return {"type": "array", "items": self.of(args[0]) if args else {}}
        if origin in (dict, Mapping, typing.Mapping) or hint is dict:
            value_types = get_args(hint)[1:]
            return {"type": "object", "additionalProperties": self.of(value_types[0]) if value_types else {}}
        return {}


def _engine_typeddict(rules: Rules[Any, Any, Any], hook: Callable[..., Any], suffix: str) -> type | None:
    """The TypedDict an engine function returns, else the module's ``<Game><suffix>`` TypedDict."""
    try:
        returned = typing.get_type_hints(hook).get("return")
    except Exception:  # an unresolvable annotation: fall back to the module's name
        returned = None
    if returned is not None and is_typeddict(returned):
        return typing.cast(type, returned)
    module = sys.modules.get(getattr(hook, "__module__", ""))
    found = getattr(module, camel(rules.name) + suffix, None) if module is not None else None
    return found if found is not None and is_typeddict(found) else None


#: Members a rules page adds to its result, for engines that declare no ``<Game>Result`` TypedDict.
RESULT_EXTRAS: dict[str, Schema] = {
    "ekko": {
        "rematch": {
            "type": "string",
            "enum": ["automatic", "offered"],
            "description": "After a tie: `automatic` (tie_policy rematch: see the match's `rematch`) or `offered`.",
        }
    },
    "enka": {
        "rematch": {
            "type": "boolean",
            "description": "True after a tie for first under tie_policy rematch (see the match's `rematch`); "
            "absent otherwise.",
        }
    },
    "ecos": {"tiebreak_draws": {"type": "integer", "description": "Draws played to break a tie."}},
}


def result_base() -> Schema:
    return {
        "winners": {"type": "array", "items": {"type": "integer"}},
        "ranking": {
            "type": "array",
            "items": {"type": "array", "items": {"type": "integer"}},
            "description": "Best first; tied seats share a group.",
        },
        "scores": {"type": "array", "items": {"type": "integer"}, "description": "By seat."},
        "reason": {"type": "string", "description": "One of the rules page's result reasons."},
    }


def _result_schema(rules: Rules[Any, Any, Any], convert: _Converter) -> Schema:
    properties = result_base()
    typed = _engine_typeddict(rules, rules.outcome, "Result")
    if typed is not None:
        convert.typeddict(typed)  # its members join the result's (its nested TypedDicts stay components)
        properties.update(convert.components.pop(convert.name(typed)).get("properties", {}))
    else:
        properties.update(RESULT_EXTRAS.get(rules.name, {}))
    return {
        "type": "object",
        "description": f"{rules.title}'s result (docs/api.md), with the members its rules page adds.",
        "properties": properties,
        "required": ["winners", "ranking", "scores", "reason"],
        "additionalProperties": False,
    }


# --- the per-game state, and the whole set ------------------------------------------------------


def deadlines_schema() -> Schema:
    return {
        "type": "object",
        "properties": {
            "timer": {
                "type": ["string", "null"],
                "format": "date-time",
                "description": "When the game's own timer runs out (EKKO's reaction window).",
            },
            "seats": {
                "type": "object",
                "description": "By seat index: when its clock runs out, and its bank when the clock started.",
                "additionalProperties": ref("SeatDeadline"),
            },
        },
        "required": ["timer", "seats"],
        "additionalProperties": False,
    }


def state_schema(rules: Rules[Any, Any, Any], view: Schema) -> Schema:
    g = camel(rules.name)
    return {
        "type": "object",
        "title": g + "State",
        "description": f"A seat's (or a spectator's) state of a {rules.title} match (docs/api.md, *The state*).",
        "properties": {
            "match": {"type": "string"},
            "game": {"type": "string", "enum": [rules.name]},
            "version": {"type": "integer"},
            "status": {"type": "string", "enum": MATCH_STATUSES},
            "you": {"type": ["integer", "null"], "description": "The caller's seat; null for a spectator."},
            "awaiting": {"type": "array", "items": {"type": "integer"}},
            "view": nullable(view),
            "legal_moves": {
                "type": "array",
                "items": ref(g + "Move"),
                "description": "The caller's legal moves, each sendable unchanged as `move`; [] when none.",
            },
            "result": nullable(ref(g + "Result")),
            "deadlines": ref("Deadlines"),
            "can_undo": {
                "type": "boolean",
                "description": "`POST undo` would take your last input back now (docs/api.md, *Undo*).",
            },
            "seats": {
                "type": "array",
                "items": ref("SeatAway"),
                "description": "Every seat, in order: whose owner is away, and until when (docs/api.md, *Away*).",
            },
            "since_your_last": ref("SinceYourLast"),
            "at": {
                "type": "integer",
                "description": "Replay (`GET state?at=`): the record this past state follows "
                "(`version` stays the match's).",
            },
            "record": {**ref("Event"), "description": "Replay: record `at`, as this seat saw it."},
        },
        "required": ["match", "game", "version", "status", "you", "awaiting", "view", "legal_moves", "result"]
        + ["deadlines", "seats", "can_undo"],
        "additionalProperties": False,
    }


def game_components(rules: Rules[Any, Any, Any]) -> dict[str, Schema]:
    g = camel(rules.name)
    out: dict[str, Schema] = {}
    convert = _Converter(g, out)
    names = []
    for spec in rules.moves:
        name = camel(rules.name, spec.type, "move")
        out[name] = move_schema(rules, spec, convert)
        names.append(name)
    out[g + "Move"] = {
        "description": f"A {rules.title} move: one of its move types, by `type`.",
        "oneOf": [ref(n) for n in names],
        "discriminator": {
            "propertyName": "type",
            "mapping": {spec.type: REF + n for spec, n in zip(rules.moves, names, strict=True)},
        },
    }
    typed = _engine_typeddict(rules, rules.view, "View")
    view = convert.typeddict(typed) if typed is not None else {"type": "object", "additionalProperties": {}}
    if "$ref" not in view:
        out[g + "View"] = view
        view = ref(g + "View")
    out[g + "Result"] = _result_schema(rules, convert)
    out[g + "State"] = state_schema(rules, view)
    return out


def game_schemas() -> dict[str, Schema]:
    """Every game's components, ``Move`` (any game's move) and ``MatchState`` (any game's state)."""
    out: dict[str, Schema] = {
        "Deadlines": deadlines_schema(),
        "SeatAway": {
            "type": "object",
            "properties": {
                "index": {"type": "integer"},
                "away_until": {
                    "type": ["string", "null"],
                    "format": "date-time",
                    "description": "The seat's owner is away until then (its clock frozen); null when not away.",
                },
            },
            "required": ["index", "away_until"],
            "additionalProperties": False,
        },
        "SinceYourLast": {
            "type": "object",
            "description": "While the match awaits you: what happened since your own previous move, as your seat "
            "may see it (docs/api.md, *The state*).",
            "properties": {
                "records": {
                    "type": "array",
                    "items": ref("Event"),
                    "description": f"The records after your previous move, the latest {20} at most, oldest first.",
                },
                "more": {"type": "integer", "description": "How many earlier records are left out."},
            },
            "required": ["records", "more"],
            "additionalProperties": False,
        },
        "SeatDeadline": {
            "type": "object",
            "properties": {
                "deadline": {"type": "string", "format": "date-time"},
                "bank_ms": {"type": ["integer", "null"]},
            },
            "required": ["deadline", "bank_ms"],
            "additionalProperties": False,
        },
    }
    for rules in RULES.values():
        out.update(game_components(rules))
    out["Result"] = {
        "type": "object",
        "description": "The result (docs/api.md), with the members each game's rules page adds (see "
        "`EkkoResult`, `EcosResult`…: a match's `game` says which).",
        "properties": _merged([(rules.title, out[camel(g, "Result")]["properties"]) for g, rules in RULES.items()]),
        "required": ["winners", "ranking", "scores", "reason"],
        "additionalProperties": False,
    }
    out["MatchOptions"] = {
        "type": "object",
        "description": "A match's options: the members of its game's catalogue entry (`GET games`), each "
        "optional (the catalogue's default applies). Each member names the games that have it.",
        "properties": {
            **_merged([(rules.title, options_schema(rules)) for rules in RULES.values()]),
            "takebacks": {
                "type": "string",
                "enum": ["none", "own_input", "by_consent"],
                "description": "(every game) Who may take moves back: nobody, the author of the last input "
                "alone (`POST undo`, the default of an unrated match), or everyone it would undo "
                "(`takeback` proposals). A rated match defaults to `none`.",
            },
        },
        "additionalProperties": False,
    }
    games = [camel(g) for g in RULES]
    out["Move"] = {
        "description": (
            "A move of the match's game (the match in the path decides which): sent as `legal_moves` "
            'gives it. The same JSON may be a move of two games (`{"type": "draw"}`), hence `anyOf`.'
        ),
        "anyOf": [ref(g + "Move") for g in games],
    }
    out["MatchState"] = {
        "description": "The caller's state of a match, by game.",
        "oneOf": [ref(g + "State") for g in games],
        "discriminator": {"propertyName": "game", "mapping": {g: REF + camel(g) + "State" for g in RULES}},
    }
    return out


def option_schema(option: Option) -> Schema:
    """One option as a member of `MatchOptions` (its catalogue entry says the same, as data)."""
    out: Schema
    if option.type == "seat_or_random":
        out = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "enum": ["random"]}]}
    elif option.type == "object":
        # `setup`, a test fixture whose shape its rules page gives (and which a live match's answer
        # replaces with a sentence), is any JSON value.
        out = _Converter("", {}).of(option.shape) if option.shape is not None else {}
    else:
        out = {"type": option.type}
        if option.choices is not None:
            out["enum"] = list(option.choices)
        out.update({k: v for k, v in (("minimum", option.minimum), ("maximum", option.maximum)) if v is not None})
        if option.default is None:
            out = nullable(out)
    return {**out, "description": option.description}


def options_schema(rules: Rules[Any, Any, Any]) -> Schema:
    return {option.name: option_schema(option) for option in rules.options}


def _merged(members: list[tuple[str, Schema]]) -> Schema:
    """Members of several games' objects as one object's: a member the games type alike is one
    schema, widened to every game's bounds and words; one they type differently (EKKO's `rematch`
    is a word, Enka's a boolean) is ``anyOf`` them. Descriptions say which game has what."""
    by_name: dict[str, list[tuple[str, Schema]]] = {}
    for title, properties in members:
        for name, schema in properties.items():
            by_name.setdefault(name, []).append((title, schema))
    out: Schema = {}
    for name, found in by_name.items():
        shapes: list[Schema] = []
        for _, schema in found:
            bare = {k: v for k, v in schema.items() if k != "description"}
            same = next((s for s in shapes if s.get("type") == bare.get("type") and "anyOf" not in bare), None)
            if same is None:
                shapes.append(bare)
                continue
            for bound, pick in (("minimum", min), ("maximum", max)):
                if bound in same:
                    same[bound] = pick(same[bound], bare[bound]) if bound in bare else same.pop(bound)
            if "enum" in same:
                same["enum"] += [w for w in bare.get("enum", []) if w not in same["enum"]]
        merged = shapes[0] if len(shapes) == 1 else {"anyOf": shapes}
        said = {s["description"] for _, s in found if s.get("description")}
        if len(said) > 1:
            text = "; ".join(f"{title}: {s['description']}" for title, s in found if s.get("description"))
        else:
            text = next(iter(said), "")
        if len(found) < len(members):
            text = f"({', '.join(title for title, _ in found)}) {text}".strip()
        if text:
            merged["description"] = text
        out[name] = merged
    return out


# --- serializer fields that point at these components --------------------------------------------


class MoveJSONField(serializers.JSONField):
    """A move of the match's game; the engine parses it (400 ``invalid_move`` when it is none)."""


class StateJSONField(serializers.JSONField):
    """The caller's state (rendered by ``games.selectors.state_payload``)."""


class _RefField:
    """Documents a field as a reference to one component. A plain mixin: every subclass of
    drf-spectacular's extension class is registered, and a registered base without a
    ``target_class`` breaks schema generation."""

    component = ""

    def map_serializer_field(self, auto_schema: AutoSchema, direction: Direction) -> Schema:
        return ref(self.component)


class MoveFieldExtension(_RefField, OpenApiSerializerFieldExtension):
    target_class = MoveJSONField
    component = "Move"


class StateFieldExtension(_RefField, OpenApiSerializerFieldExtension):
    target_class = StateJSONField
    component = "MatchState"


class OptionsJSONField(serializers.DictField):
    """A new match's options (its game's engine checks them: 400 ``invalid_options``)."""


class OptionsFieldExtension(_RefField, OpenApiSerializerFieldExtension):
    target_class = OptionsJSONField
    component = "MatchOptions"


class OptionValueField(serializers.JSONField):
    """A value an option may take (a word, a number or a boolean)."""


class OptionValueFieldExtension(OpenApiSerializerFieldExtension):
    target_class = OptionValueField

    def map_serializer_field(self, auto_schema: AutoSchema, direction: Direction) -> Schema:
        return {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}]}


class TabulaAutoSchema(AutoSchema):
    """Names nested ``Input/OutputSerializer`` components after their view: ``AuthRegisterInput``."""

    def get_serializer_name(self, serializer: serializers.Serializer, direction: Direction) -> str:
        qualname = type(serializer).__qualname__
        if "." in qualname:
            outer, inner = qualname.rsplit(".", 1)
            return outer.rsplit(".", 1)[-1].removesuffix("Api") + inner.removesuffix("Serializer")
        return super().get_serializer_name(serializer, direction)


# --- postprocessing hooks -------------------------------------------------------------------------


def paths_without_trailing_slash(result: Schema, **kwargs: Any) -> Schema:
    """Every path answers with and without a slash; document the bare form (the root keeps its slash)."""
    paths = result["paths"].items()
    result["paths"] = {(p if p == "/api/v1/" else p.rstrip("/") or "/"): item for p, item in paths}
    return result


def pages_always_name_their_neighbours(result: Schema, **kwargs: Any) -> Schema:
    """A page always carries ``next`` and ``previous`` (null at either end): required, as every
    other field of an answer is (api/serializers.py `OutputModelSerializer`)."""
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.startswith("Paginated") and {"next", "previous"} <= set(component.get("properties", {})):
            component["required"] = sorted({*component.get("required", []), "next", "previous"})
    return result


#: Reads a visitor may make of a public match, whose answer a token changes (the caller's seat).
WATCHABLE = frozenset({"matches_read", "matches_state", "matches_timeline", "matches_events"})


def public_reads_need_no_token(result: Schema, **kwargs: Any) -> Schema:
    """A read anyone may make (the catalogue, the API root) declares no security at all.

    drf-spectacular lists the token schemes plus ``{}`` ("or none"); generators read any listed
    scheme as required (openapi-python-client then asks for an `AuthenticatedClient` to read the
    public catalogue). A token sent anyway is accepted and changes nothing. The streams keep their
    list: without a token they need a ticket. So do the reads of a match (`WATCHABLE`): anyone may
    watch a public one, but a token changes the answer (the caller's seat and view).
    """
    for item in result["paths"].values():
        operation = item.get("get")
        if not operation or {} not in operation.get("security", []):
            continue
        name = operation.get("operationId", "")
        if "stream" not in name and name not in WATCHABLE:
            operation["security"] = []
    return result


def one_component_per_nullable_enum(result: Schema, **kwargs: Any) -> Schema:
    """A move field that takes one of some words or null (Enka's ``color``, Ekö's ``expect``) gets
    one component per game and field, referenced from every move that has it: inline, each move
    made a generated client define an identical class of its own (three for Enka's colour)."""
    schemas = result["components"]["schemas"]
    for game in RULES:
        for name in [n for n in schemas if n.startswith(camel(game)) and n.endswith("Move")]:
            for field, prop in schemas[name].get("properties", {}).items():
                if prop.get("type") != ["string", "null"] or None not in prop.get("enum", []):
                    continue
                component = camel(game, field)
                words = [w for w in prop["enum"] if w is not None]
                assert schemas.setdefault(component, {"type": "string", "enum": words})["enum"] == words, component
                described = {"description": prop["description"]} if "description" in prop else {}
                schemas[name]["properties"][field] = {"oneOf": [ref(component), {"type": "null"}], **described}
    return result


#: The seed of the match each move example comes from (tests/api/test_openapi_examples.py replays it).
EXAMPLE_SEED = 20_251_201
EXAMPLE_VERSION = 4  # a 2-seat match just started: created, seat 0 taken, seat 1 taken, started


@cache
def move_example(game: str) -> tuple[int, dict[str, Any]]:
    """A real first move of a 2-seat match of ``game`` dealt with `EXAMPLE_SEED`: (seat, move).

    The awaited seat's legal move with the most members (the most telling one), so the example
    is one the server accepts in that match.
    """
    from rules.base import Started, step

    rules = RULES[game]
    state, _ = step(rules, None, Started(rules.parse_config({}, 2), EXAMPLE_SEED))
    seat = min(s for s in rules.awaiting(state) if rules.legal_moves(state, s))
    moves = [rules.dump_move(m) for m in rules.legal_moves(state, seat)]
    return seat, max(moves, key=len)


def _without_nullable(node: Any) -> Any:
    if isinstance(node, dict):
        node = {k: _without_nullable(v) for k, v in node.items()}
        if node.pop("nullable", False) is True:
            node = nullable(node)
        return node
    if isinstance(node, list):
        return [_without_nullable(v) for v in node]
    return node


def openapi_31_nullable(result: Schema, **kwargs: Any) -> Schema:
    """OpenAPI 3.1 has no ``nullable``: what still says it (DRF's pagination schema) says ``"null"``."""
    return typing.cast(Schema, _without_nullable(result))


def add_game_schemas(result: Schema, **kwargs: Any) -> Schema:
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(game_schemas())
    for item in result["paths"].values():
        op = item.get("post", {})
        if op.get("operationId") == "matches_moves_create":
            op["requestBody"]["content"]["application/json"]["examples"] = {
                game: {
                    "summary": f"A {rules.title} move",
                    "description": f"Seat {move_example(game)[0]}'s first move in a 2-seat {rules.title} match.",
                    "value": {"move": move_example(game)[1], "expected_version": EXAMPLE_VERSION},
                }
                for game, rules in RULES.items()
            }
    for game in RULES:
        schemas[camel(game, "Move")]["examples"] = [move_example(game)[1]]
    return result


_RETRY_AFTER = {"description": "Seconds to wait before retrying.", "schema": {"type": "integer", "minimum": 1}}

#: Each error status: what it means, and where it can occur (a predicate on method, operation).
ERRORS: dict[int, tuple[str, Callable[[str, Schema], bool]]] = {
    400: (
        "Invalid request (`invalid_request` with field `errors`, `malformed_request`, `invalid_move`…)",
        lambda m, op: "requestBody" in op or any(p.get("in") == "query" for p in op.get("parameters", [])),
    ),
    401: (
        "Not authenticated, or the token is invalid (`not_authenticated`, `authentication_failed`)",
        lambda m, op: any(op.get("security", [{}])),
    ),
    403: (
        "Forbidden (`forbidden`, `not_seated`, a missing CSRF token under session authentication)",
        lambda m, op: any(op.get("security", [{}])) and m != "get",
    ),
    404: ("Not found (`not_found`)", lambda m, op: any(p.get("in") == "path" for p in op.get("parameters", []))),
    406: ("Not acceptable: the `Accept` header rules out JSON (`not_acceptable`)", lambda m, op: True),
    413: ("Payload too large (`payload_too_large`)", lambda m, op: m != "get"),
    415: (
        "Unsupported media type: send `application/json` (`unsupported_media_type`)",
        lambda m, op: "requestBody" in op,
    ),
    429: ("Rate limited (`rate_limited`): see `Retry-After`", lambda m, op: True),
    503: ("Service unavailable (`service_unavailable`): see `Retry-After`", lambda m, op: True),
}


#: Statuses an operation declares itself (where they can occur is its own business).
DESCRIPTIONS = {
    409: "Conflict (`version_conflict` with `current_version`, `race_lost`, `match_over`, `seat_taken`…)",
    422: "Not legal now (`illegal_move` with the rules page's `reason`, `not_awaited`, `idempotency_key_reused`)",
}


def _problem_response(description: str, status: int) -> Schema:
    response: Schema = {"description": description, "content": {PROBLEM: {"schema": ref("Problem")}}}
    if status in (429, 503):
        response["headers"] = {"Retry-After": _RETRY_AFTER}
    if status == 429:
        response["headers"]["RateLimit-Policy"] = {
            "description": "The limit (IETF RateLimit headers).",
            "schema": {"type": "string"},
        }
        response["headers"]["RateLimit"] = {"description": "What is left of it.", "schema": {"type": "string"}}
    return response


def problem_responses(result: Schema, **kwargs: Any) -> Schema:
    """Every error as ``application/problem+json``, on every operation where it can occur."""
    for item in result["paths"].values():
        for method, op in item.items():
            if not isinstance(op, dict) or "responses" not in op:
                continue
            responses = op["responses"]
            for code, response in list(responses.items()):
                content = response.get("content", {})
                if int(code) >= 400 and "application/json" in content:
                    content[PROBLEM] = content.pop("application/json")
                    if response.get("description", "") in ("", "No response body"):
                        response["description"] = DESCRIPTIONS.get(int(code)) or ERRORS[int(code)][0]
            for status, (description, occurs) in ERRORS.items():
                declared = str(status) in responses
                if (not declared and occurs(method, op)) or (declared and status in (429, 503)):
                    responses[str(status)] = _problem_response(description, status)
            op["responses"] = dict(sorted(responses.items()))
    return result


class TokenAuthExtension(OpenApiAuthenticationExtension):
    """``api.authentication.BearerOrTokenAuthentication``: documented as DRF's token scheme was."""

    target_class = "api.authentication.BearerOrTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": 'Token-based authentication with required prefix "Token"',
        }


def _stream_operation(operation_id: str, summary: str, description: str, params: list[Schema]) -> Schema:
    problem = {PROBLEM: {"schema": ref("Problem")}}
    return {
        "operationId": operation_id,
        "summary": summary,
        "description": description,
        "tags": ["notifications"],
        "security": [{"tokenAuth": []}, {}],
        "parameters": [
            *params,
            {
                "in": "query",
                "name": "after",
                "schema": {"type": "integer", "minimum": 0},
                "description": "Resume after this id (as `Last-Event-ID`); entries after it are replayed first. "
                "With neither, the stream starts at the current end.",
            },
            {
                "in": "header",
                "name": "Last-Event-ID",
                "schema": {"type": "integer", "minimum": 0},
                "description": "Sent by `EventSource` on reconnection: resume after this id.",
            },
            {
                "in": "query",
                "name": "ticket",
                "schema": {"type": "string"},
                "description": "A single-use ticket from `POST /api/v1/me/stream-tickets` (for `EventSource`, "
                "which cannot send `Authorization`).",
            },
        ],
        "responses": {
            "200": {
                "description": "Server-Sent Events: `id:` the entry's number, `event:` its type, `data:` its JSON. "
                "A comment (`: keep-alive`) at once and at least every 15 s. When the reader may no longer see "
                "the stream (its token revoked or expired, its account closed, the match no longer visible to "
                'it), a last `event: closed` with `data: {"reason": "token_revoked" | "account_closed" | '
                '"not_visible"}`, and the stream ends.',
                "content": {"text/event-stream": {"schema": {"type": "string"}}},
            },
            "400": {"description": "`after` / `Last-Event-ID` is not a number", "content": problem},
            "401": {"description": "No token and no valid ticket (`not_authenticated`)", "content": problem},
            "503": {
                "description": "Too many open streams (`too_many_streams`), for the caller or the server",
                "content": problem,
                "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds (jittered)."}},
            },
        },
    }


def stream_paths(result: Schema, **kwargs: Any) -> Schema:
    """The SSE paths (async Django views served by the front's event loop, outside DRF) in the document."""
    match_param = {"in": "path", "name": "match_id", "required": True, "schema": {"type": "string"}}
    result["paths"]["/api/v1/me/stream"] = {
        "get": _stream_operation(
            "me_stream",
            "The caller's inbox, live",
            "Each inbox entry (as in `GET me/notifications`) as an event; resumes after `Last-Event-ID`.",
            [],
        )
    }
    match_stream = _stream_operation(
        "matches_stream",
        "A match's records, live",
        "Each record as `GET matches/{id}/events` shows it to the caller's seat (or a spectator), `id:` = `seq`.",
        [match_param],
    )
    match_stream["responses"]["404"] = {
        "description": "No such match",
        "content": {PROBLEM: {"schema": ref("Problem")}},
    }
    match_stream["tags"] = ["play"]
    result["paths"]["/api/v1/matches/{match_id}/stream"] = {"get": match_stream}
    return result
