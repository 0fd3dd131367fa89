"""Accounts: register, tokens, the caller's profile and public profiles."""

from __future__ import annotations

from typing import Any

from django.utils import translation
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

import languages
from accounts import services
from accounts.models import Rating, User
from api import ratelimit, summaries
from api.authentication import caller, viewer
from api.serializers import MatchSerializer, OutputModelSerializer, ProblemSerializer
from core.errors import InvalidRequest
from games import selectors
from games.services import away, lobby
from notify import preferences as notice_preferences
from talk import chat, notes

P = ProblemSerializer


class AuthRegisterApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []

    class InputSerializer(serializers.Serializer):
        username = serializers.RegexField(
            r"^[\w.@+-]{3,150}$", max_length=150, help_text="3–150 letters, digits, @.+-_"
        )
        password = serializers.CharField(write_only=True, min_length=8, max_length=128)
        email = serializers.EmailField(required=False, allow_blank=True)  # no default: `""` is no e-mail
        language = serializers.ChoiceField(
            choices=list(languages.CODES),
            required=False,
            help_text="What mails, pushes and answers to this account speak; by default the best of the "
            "request's Accept-Language (English when none fits).",
        )

    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        token = serializers.CharField()

    @extend_schema(
        operation_id="auth_register",
        tags=["accounts"],
        request=InputSerializer,
        responses={201: OutputSerializer, 400: P, 409: P, 413: P, 429: P},
        examples=[OpenApiExample("register", {"username": "ann", "password": "correct-horse-9"}, request_only=True)],
        auth=[],
    )
    def post(self, request: Request) -> Response:
        ratelimit.check(request, "register_ip", ratelimit.client_address(request))
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = {"language": languages.normalize(get_language()) or languages.DEFAULT, **data.validated_data}
        user, token = services.user_register(**fields)
        return Response({"username": user.username, "token": token}, status=status.HTTP_201_CREATED)


class AuthTokenApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(write_only=True, max_length=1024)

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()

    @extend_schema(
        operation_id="auth_token",
        tags=["accounts"],
        request=InputSerializer,
        responses={200: OutputSerializer, 400: P, 413: P, 429: P},
        examples=[OpenApiExample("sign in", {"username": "ann", "password": "correct-horse-9"}, request_only=True)],
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        username = data.validated_data["username"]
        ratelimit.login_attempt(request, username)
        try:
            token = services.user_login(**data.validated_data)
        except InvalidRequest:
            ratelimit.login_failed(username)
            raise
        ratelimit.login_succeeded(username)
        return Response({"token": token})


class AuthLogoutApi(APIView):
    @extend_schema(
        operation_id="auth_logout",
        tags=["accounts"],
        request=None,
        responses={204: OpenApiResponse(description="The token is revoked."), 401: P},
    )
    def post(self, request: Request) -> Response:
        if request.auth is not None and hasattr(request.auth, "delete"):
            request.auth.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class RatingSerializer(OutputModelSerializer):
    ordinal = serializers.FloatField(read_only=True)
    rating = serializers.FloatField(read_only=True, help_text="Displayed: mu − 3σ scaled so a new player shows 1500.")
    rank = serializers.IntegerField(read_only=True, allow_null=True, help_text="Leaderboard rank; null if unlisted.")
    provisional = serializers.BooleanField(read_only=True)

    class Meta:
        model = Rating
        fields = ["game", "mu", "sigma", "ordinal", "matches", "rating", "rank", "provisional"]


def rating_json(rating: Rating) -> dict[str, Any]:
    """One rating as ``RatingSerializer`` shows it (it documents the answer), without building a
    model serializer's fields on every profile read."""
    return {
        "game": rating.game,
        "mu": float(rating.mu),
        "sigma": float(rating.sigma),
        "ordinal": float(rating.ordinal),
        "matches": int(rating.matches),
        "rating": float(rating.rating),
        "rank": int(rating.rank) if rating.rank is not None else None,
        "provisional": bool(rating.provisional),
    }


class GameStatsSerializer(serializers.Serializer):
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    drawn = serializers.IntegerField()
    lost = serializers.IntegerField()
    average_placement = serializers.FloatField(allow_null=True, help_text="1 is first.")
    average_score = serializers.FloatField(allow_null=True)
    longest_streak = serializers.IntegerField(help_text="The longest run of wins.")


class MeApi(APIView):
    class OutputSerializer(OutputModelSerializer):
        ratings = RatingSerializer(many=True, read_only=True)
        email = serializers.CharField(read_only=True, help_text='An e-mail address, or "" when none was given.')
        channels = serializers.SerializerMethodField(
            help_text="By inbox type, the channels its entries go to: `preferences.channels`, or the defaults."
        )

        class Meta:
            model = User
            fields = [
                "username",
                "email",
                "display_name",
                "language",
                "preferences",
                "channels",
                "date_joined",
                "ratings",
            ]
            read_only_fields = ["username", "date_joined"]

        @extend_schema_field(
            {
                "type": "object",
                "additionalProperties": {
                    "type": "array",
                    "items": {"type": "string", "enum": list(notice_preferences.CHANNELS)},
                },
            }
        )
        def get_channels(self, user: User) -> dict[str, list[str]]:
            return notice_preferences.channels(user.preferences)

    class InputSerializer(serializers.ModelSerializer):
        class Meta:
            model = User
            fields = ["email", "display_name", "language", "preferences"]

        def validate_preferences(self, value: object) -> object:
            if not isinstance(value, dict):
                raise serializers.ValidationError(_("Must be an object."))
            if "auto_away" in value and not isinstance(value["auto_away"], bool):
                raise serializers.ValidationError(_("auto_away must be true or false."))
            if "caretaker" in value and value["caretaker"] not in away.CARETAKERS:
                raise serializers.ValidationError(
                    _("caretaker must be one of %(choices)s.") % {"choices": ", ".join(away.CARETAKERS)}
                )
            if "chat" in value and value["chat"] not in chat.PREFERENCES:
                raise serializers.ValidationError(
                    _("chat must be one of %(choices)s.") % {"choices": ", ".join(chat.PREFERENCES)}
                )
            try:
                notice_preferences.validate(value)  # channels, timezone, quiet_hours, email_digest
            except ValueError as exc:
                raise serializers.ValidationError(str(exc)) from exc
            return value

    @extend_schema(operation_id="me_read", tags=["accounts"], responses={200: OutputSerializer, 401: P})
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(request.user).data)

    @extend_schema(
        operation_id="me_update",
        tags=["accounts"],
        request=InputSerializer,
        responses={200: OutputSerializer, 400: P, 401: P},
        examples=[OpenApiExample("rename", {"display_name": "Ann of Tabula"}, request_only=True)],
    )
    def patch(self, request: Request) -> Response:
        data = self.InputSerializer(request.user, data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        user = services.user_update(caller(request), **data.validated_data)
        translation.activate(user.language)  # the answer to a change of language already speaks it
        return Response(self.OutputSerializer(user).data)

    @extend_schema(
        operation_id="me_delete",
        tags=["accounts"],
        responses={204: OpenApiResponse(description="Deleted: tokens and settings are gone."), 401: P},
        description="Deletes the account: open matches are left, live ones resigned; finished matches keep "
        'their records, the seat shown as "deleted player".',
    )
    def delete(self, request: Request) -> Response:
        user = caller(request)
        lobby.account_delete(user)
        notes.forget(user)  # private notes go with the account (its chat stays, by "deleted player")
        return Response(status=status.HTTP_204_NO_CONTENT)


class UserDetailApi(APIView):
    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        display_name = serializers.CharField()
        date_joined = serializers.DateTimeField()
        ratings = RatingSerializer(many=True)
        counts = serializers.DictField(child=serializers.IntegerField())
        stats = serializers.DictField(child=GameStatsSerializer(), help_text="Per game, finished public matches.")
        recent_matches = MatchSerializer(many=True)

    @extend_schema(operation_id="user_read", tags=["accounts"], responses={200: OutputSerializer, 404: P})
    def get(self, request: Request, username: str) -> Response:
        current = summaries.generation(request)
        user, counts, recent, stats, ratings = selectors.user_profile(
            username, viewer(request), stamps=current is not None
        )
        body = {
            "username": user.username,
            "display_name": user.display_name,
            "date_joined": user.date_joined,
            "ratings": [rating_json(r) for r in ratings],
            "counts": counts,
            "stats": stats,
            "recent_matches": summaries.of(recent, selectors.SUMMARY_ATTNAMES, current),
        }
        return Response(body)  # already serialized; OutputSerializer documents it
