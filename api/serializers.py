"""Shared serializers: problem documents, matches, state, records."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games import clocks
from games.models import Match, Seat


class ProblemSerializer(serializers.Serializer):
    """An RFC 9457 problem document (``application/problem+json``)."""

    type = serializers.CharField()
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField()
    code = serializers.CharField(help_text="Stable machine code, e.g. `illegal_move`, `version_conflict`.")
    reason = serializers.CharField(required=False, help_text="The rules page's reason code, for `illegal_move`.")
    current_version = serializers.IntegerField(required=False, help_text="For `version_conflict`.")
    errors = serializers.DictField(  # type: ignore[assignment]  # the problem member is named `errors`
        child=serializers.ListField(child=serializers.CharField()), required=False, help_text="Field errors."
    )


RESULT = {"$ref": "#/components/schemas/Result"}  # api.schema: per game, `EkkoResult`…
OPTIONS = {"$ref": "#/components/schemas/MatchOptions"}  # api.schema: every game's options
DEADLINES = {"$ref": "#/components/schemas/Deadlines"}


class TimeControlSerializer(serializers.Serializer):
    """The ``time_control`` docs/api.md pins: one of ``per_move_s`` or ``bank_s`` (+ ``increment_s``)."""

    per_move_s = serializers.IntegerField(min_value=1, max_value=clocks.YEAR_S, required=False)
    bank_s = serializers.IntegerField(min_value=1, max_value=clocks.YEAR_S, required=False)
    increment_s = serializers.IntegerField(min_value=0, max_value=24 * 3600, required=False)
    on_timeout = serializers.ChoiceField(choices=["default_move", "forfeit"], required=False)
    bot_after = serializers.IntegerField(min_value=1, max_value=100, required=False)
    away = serializers.ChoiceField(
        choices=list(clocks.AWAY), required=False, help_text="`allowed` (the default): an away seat's clock is frozen."
    )
    away_cap_s = serializers.IntegerField(
        min_value=1,
        max_value=clocks.YEAR_S,
        required=False,
        help_text="The longest one absence may hold this match (default 7 days).",
    )


# A model serializer for answers only: integers carry no bounds taken from the database. Django
# derives an integer field's range from the connected backend (SQLite: 64 bits for every integer;
# PostgreSQL: 16, 32 or 64), so bounds on output fields made the published OpenAPI document depend
# on the database it was generated against. (A comment, not a docstring: drf-spectacular would
# publish an inherited docstring as every subclass's description.)
#
# Every field of an answer is always there (null where it has no value), so every field is read-only:
# the published schema then marks each one required and readOnly, and a client written the obvious
# way needs no check for a field that cannot be missing.
class OutputModelSerializer(serializers.ModelSerializer):
    def build_standard_field(self, field_name: str, model_field: Any) -> tuple[type, dict[str, Any]]:
        field_class, kwargs = super().build_standard_field(field_name, model_field)
        if issubclass(field_class, serializers.IntegerField):
            kwargs.pop("max_value", None)
            if kwargs.get("min_value") != 0:  # a positive field's 0 is the same everywhere
                kwargs.pop("min_value", None)
        return field_class, kwargs

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        for field in fields.values():
            field.read_only = True
            field.required = False
        return fields


class SeatSerializer(OutputModelSerializer):
    username = serializers.SerializerMethodField()
    bot = serializers.SerializerMethodField()
    remaining_ms = serializers.SerializerMethodField(help_text="Bank left (bank clocks only).")

    class Meta:
        model = Seat
        fields = [
            "index",
            "username",
            "bot",
            "resigned",
            "deadline",
            "remaining_ms",
            "consecutive_timeouts",
            "away_until",
            "caretaker",
        ]

    def get_username(self, seat: Seat) -> str | None:
        return seat.user.public_name if seat.user is not None else None  # a deleted account: "deleted player"

    def get_bot(self, seat: Seat) -> str | None:
        return seat.bot or None

    def get_remaining_ms(self, seat: Seat) -> int | None:
        return seat.bank_ms


class MatchSerializer(OutputModelSerializer):
    """The match summary (``GET matches/{id}``, docs/api.md)."""

    seats = SeatSerializer(many=True, read_only=True)
    created_by = serializers.CharField(source="created_by.public_name", read_only=True)
    options = serializers.SerializerMethodField()
    result = serializers.SerializerMethodField()
    awaiting = serializers.SerializerMethodField()
    awaited_since = serializers.SerializerMethodField(
        help_text="Since when each awaited seat (by index, as a string) has been awaited: what a nudge waits for."
    )
    deadlines = serializers.SerializerMethodField()
    seed = serializers.SerializerMethodField(help_text="Revealed once the match is over.")
    rematch_of = serializers.CharField(source="rematch_of_id", read_only=True, allow_null=True)
    rematch = serializers.SerializerMethodField(help_text="The automatic rematch after a tie, if any.")
    time_control = serializers.SerializerMethodField()
    tournament = serializers.SerializerMethodField(help_text="The tournament this match is a table of, if any.")

    class Meta:
        model = Match
        fields = [
            "id",
            "game",
            "status",
            "players",
            "version",
            "seats",
            "awaiting",
            "awaited_since",
            "deadlines",
            "result",
            "options",
            "time_control",
            "private",
            "rated",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "seed_commitment",
            "seed",
            "rematch_of",
            "rematch",
            "tournament",
        ]

    @extend_schema_field(OPTIONS)
    def get_options(self, match: Match) -> dict[str, Any]:
        # A `setup` fixture is the deal itself: hidden like the seed while the match is live.
        options = {**match.options, "takebacks": match.takebacks}  # the platform's option beside the engine's
        if match.is_live and "setup" in options:
            options["setup"] = "hidden until the match is over"
        return options

    @extend_schema_field({"oneOf": [RESULT, {"type": "null"}]})
    def get_result(self, match: Match) -> dict[str, Any] | None:
        return match.result  # as stored: a page's added members (EKKO's rematch, Ecos' tiebreak_draws) included

    def get_tournament(self, match: Match) -> str | None:
        return match.tournament or None

    def get_awaiting(self, match: Match) -> list[int]:
        return list(match.awaiting) if match.status == Match.Status.ACTIVE else []

    @extend_schema_field({"type": "object", "additionalProperties": {"type": "string", "format": "date-time"}})
    def get_awaited_since(self, match: Match) -> dict[str, str]:
        return dict(match.awaited_since or {}) if match.status == Match.Status.ACTIVE else {}

    @extend_schema_field(DEADLINES)
    def get_deadlines(self, match: Match) -> dict[str, Any]:
        return {
            "timer": match.timer_deadline.isoformat() if match.timer_deadline else None,
            "seats": {
                str(s.index): {"deadline": s.deadline.isoformat(), "bank_ms": s.bank_ms}
                for s in match.seats.all()
                if s.deadline
            },
        }

    @extend_schema_field(TimeControlSerializer(allow_null=True))
    def get_time_control(self, match: Match) -> dict[str, Any] | None:
        return match.time_control

    def get_rematch(self, match: Match) -> str | None:
        try:
            return match.rematch.id  # reverse one-to-one: selectors select_related it
        except Match.DoesNotExist:
            return None

    def get_seed(self, match: Match) -> int | None:
        return None if match.is_live else match.seed


class EventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    actor = serializers.CharField(allow_null=True)
    data = serializers.DictField()  # type: ignore[assignment]  # the record member is named `data`
    at = serializers.DateTimeField()
