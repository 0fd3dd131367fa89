"""OpenAPI pieces built from the engines: each game's moves as a `oneOf` with a `type` discriminator.

The engines describe their moves as plain data (`MoveSpec`); here they become DRF serializers, one
per move type, grouped per game by drf-spectacular's `PolymorphicProxySerializer`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import build_basic_type
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import Direction, PolymorphicProxySerializer
from rest_framework import serializers

from games.engines import RULES
from games.engines.base import MoveField, MoveSpec


def _bounds(spec: Any) -> dict[str, Any]:
    """``min_value``/``max_value`` for an integer member, only the ones the spec sets."""
    bounds = {"min_value": spec.minimum, "max_value": spec.maximum}
    return {k: v for k, v in bounds.items() if v is not None}


def _camel(*parts: str) -> str:
    return "".join(p.replace("-", "_").title().replace("_", "") for p in parts)


def _field(spec: MoveField) -> serializers.Field:
    common: dict[str, Any] = {"required": spec.required, "help_text": spec.description or None}
    if spec.choices is not None:
        child: serializers.Field = serializers.ChoiceField(choices=list(spec.choices))
        if spec.type.endswith("_list"):
            return serializers.ListField(child=child, **common)
        return serializers.ChoiceField(choices=list(spec.choices), **common)
    if spec.type == "integer":
        return serializers.IntegerField(**_bounds(spec), **common)
    if spec.type == "boolean":
        return serializers.BooleanField(**common)
    if spec.type == "integer_list":
        return serializers.ListField(child=serializers.IntegerField(**_bounds(spec)), **common)
    if spec.type == "object":
        return serializers.DictField(**common)
    if spec.type == "object_list":
        return serializers.ListField(child=serializers.DictField(), **common)
    if spec.type == "string_list":
        return serializers.ListField(child=serializers.CharField(), **common)
    return serializers.CharField(**common)


def _move_serializer(game: str, spec: MoveSpec) -> type[serializers.Serializer]:
    attrs: dict[str, Any] = {"type": serializers.ChoiceField(choices=[spec.type], help_text=spec.description)}
    attrs.update({f.name: _field(f) for f in spec.fields})
    attrs["__doc__"] = f"{RULES[game].title} `{spec.type}`: {spec.description}"
    return type(_camel(game, spec.type, "move"), (serializers.Serializer,), attrs)


@cache
def game_move_serializer(game: str) -> PolymorphicProxySerializer:
    rules = RULES[game]
    return PolymorphicProxySerializer(
        component_name=_camel(game, "move"),
        serializers={spec.type: _move_serializer(game, spec) for spec in rules.moves},
        resource_type_field_name="type",
        many=False,
    )


@cache
def any_move_serializer() -> PolymorphicProxySerializer:
    """A move of any game: the per-game unions, each with its own discriminator."""
    return PolymorphicProxySerializer(
        component_name="Move",
        serializers=[game_move_serializer(game) for game in RULES],
        resource_type_field_name=None,
        many=False,
    )


class TabulaAutoSchema(AutoSchema):
    """Names nested ``Input/OutputSerializer`` components after their view: ``AuthRegisterInput``."""

    def get_serializer_name(self, serializer: serializers.Serializer, direction: Direction) -> str:
        qualname = type(serializer).__qualname__
        if "." in qualname:
            outer, inner = qualname.rsplit(".", 1)
            return outer.rsplit(".", 1)[-1].removesuffix("Api") + inner.removesuffix("Serializer")
        return super().get_serializer_name(serializer, direction)


class MoveJSONField(serializers.JSONField):
    """A move of the match's game; the engine parses it (400 ``invalid_move`` when it is none)."""


class MoveFieldExtension(OpenApiSerializerFieldExtension):
    """Documents `MoveJSONField` as the union of every registered game's moves (resolved lazily)."""

    target_class = MoveJSONField

    def map_serializer_field(self, auto_schema: AutoSchema, direction: Direction) -> dict[str, Any]:
        if not RULES:
            return build_basic_type(OpenApiTypes.OBJECT) or {}
        return auto_schema.resolve_serializer(any_move_serializer(), direction).ref


def paths_without_trailing_slash(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: every path answers with and without a slash; document the bare form."""
    result["paths"] = {path.rstrip("/") or "/": item for path, item in result["paths"].items()}
    return result
