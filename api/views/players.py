"""Players: API tokens, password, account deletion, invitations, rematch, leaderboards, history, export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.http import StreamingHttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts.models import ApiToken, Rating, provisional
from api import ratelimit, summaries
from api.authentication import caller, current_token, viewer
from api.params import query_int
from api.representations import drf_datetime, match_summaries, match_summary
from api.serializers import MatchSerializer, OutputModelSerializer, ProblemSerializer
from core.errors import NotFound
from games import selectors
from games.models import Invitation, Match
from games.services import lobby
from rules import RULES

P = ProblemSerializer


def _game(game: str) -> str:
    if game not in RULES:
        raise NotFound(_("No game %(game)s.") % {"game": repr(game)})
    return game


# --- tokens, password, deletion ---------------------------------------------------------------------


class TokenSerializer(OutputModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "label", "created_at", "last_used_at", "expires_at"]


class MeTokensApi(APIView):
    class InputSerializer(serializers.Serializer):
        label = serializers.CharField(  # type: ignore[assignment]  # the field is named `label`
            max_length=100, allow_blank=True, required=False, default=""
        )

    class CreatedSerializer(TokenSerializer):
        key = serializers.CharField(help_text="The key, shown this once: only its hash is kept.")

        class Meta(TokenSerializer.Meta):
            fields = [*TokenSerializer.Meta.fields, "key"]

    @extend_schema(
        operation_id="me_tokens_list", tags=["accounts"], responses={200: TokenSerializer(many=True), 401: P}
    )
    def get(self, request: Request) -> Response:
        return Response(TokenSerializer(account_selectors.token_list(caller(request)), many=True).data)

    @extend_schema(
        operation_id="me_tokens_create",
        tags=["accounts"],
        request=InputSerializer,
        responses={201: CreatedSerializer, 400: P, 401: P},
        examples=[OpenApiExample("a script", {"label": "my bot"}, request_only=True)],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        token, key = account_services.token_create(caller(request), label=data.validated_data["label"])
        token.key = key  # type: ignore[attr-defined]  # shown once
        return Response(self.CreatedSerializer(token).data, status=status.HTTP_201_CREATED)


class MeTokenDetailApi(APIView):
    @extend_schema(
        operation_id="me_tokens_delete",
        tags=["accounts"],
        responses={204: OpenApiResponse(description="Revoked, at once."), 401: P, 404: P},
    )
    def delete(self, request: Request, token_id: int) -> Response:
        account_services.token_revoke(caller(request), int(token_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class MePasswordApi(APIView):
    class InputSerializer(serializers.Serializer):
        current_password = serializers.CharField(write_only=True, max_length=1024)
        new_password = serializers.CharField(write_only=True, min_length=8, max_length=128)

    @extend_schema(
        operation_id="me_password",
        tags=["accounts"],
        request=InputSerializer,
        responses={204: OpenApiResponse(description="Changed; every other token is revoked."), 400: P, 401: P},
        examples=[
            OpenApiExample(
                "change", {"current_password": "correct-horse-9", "new_password": "battery-staple-7"}, request_only=True
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        account_services.password_change(
            caller(request),
            current=data.validated_data["current_password"],
            new=data.validated_data["new_password"],
            keep=current_token(request),
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- invitations and rematch -----------------------------------------------------------------------


class InvitationSerializer(serializers.Serializer):
    match = MatchSerializer()
    invited_by = serializers.CharField(source="invited_by.public_name")
    seat = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=Invitation.Status.choices)
    created_at = serializers.DateTimeField()


def invitation_json(invitation: Invitation) -> dict[str, Any]:
    """One of the caller's invitations as ``InvitationSerializer`` shows it (it documents the answer):
    the match's summary is built by ``match_summary``, not by a nested ``MatchSerializer``."""
    return {
        "match": match_summary(invitation.match),
        "invited_by": invitation.invited_by.public_name,
        "seat": invitation.seat,
        "status": str(invitation.status),
        "created_at": drf_datetime(invitation.created_at),
    }


class MatchInvitationSerializer(serializers.Serializer):
    username = serializers.CharField(source="user.public_name")
    invited_by = serializers.CharField(source="invited_by.public_name")
    seat = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=Invitation.Status.choices)
    created_at = serializers.DateTimeField()


class MeInvitationsApi(APIView):
    @extend_schema(
        operation_id="me_invitations", tags=["matches"], responses={200: InvitationSerializer(many=True), 401: P}
    )
    def get(self, request: Request) -> Response:
        return Response([invitation_json(i) for i in selectors.invitation_list(caller(request))])


class MatchInvitationsApi(APIView):
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)

    class OutputSerializer(serializers.Serializer):
        invite_code = serializers.CharField(help_text="The invitation link's code: its holder may see and join.")
        invitations = MatchInvitationSerializer(many=True)

    @extend_schema(
        operation_id="matches_invitations_list",
        tags=["matches"],
        responses={200: OutputSerializer, 401: P, 403: P, 404: P},
    )
    def get(self, request: Request, match_id: str) -> Response:
        user = caller(request)
        match = selectors.match_get_for(match_id, user)
        invitations = selectors.match_invitations(match, user)
        return Response(
            {"invite_code": match.invite_code, "invitations": MatchInvitationSerializer(invitations, many=True).data}
        )

    @extend_schema(
        operation_id="matches_invitations_create",
        tags=["matches"],
        request=InputSerializer,
        responses={201: MatchInvitationSerializer, 400: P, 401: P, 403: P, 404: P, 409: P},
        examples=[OpenApiExample("invite", {"username": "bob"}, request_only=True)],
    )
    def post(self, request: Request, match_id: str) -> Response:
        user = caller(request)
        selectors.require_visible(match_id, user)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        invitation = lobby.invitation_create(match_id=match_id, by=user, username=data.validated_data["username"])
        return Response(MatchInvitationSerializer(invitation).data, status=status.HTTP_201_CREATED)


class MatchDeclineApi(APIView):
    @extend_schema(
        operation_id="matches_decline",
        tags=["matches"],
        request=None,
        responses={204: OpenApiResponse(description="Declined; the reserved seat is free."), 401: P, 404: P},
    )
    def post(self, request: Request, match_id: str) -> Response:
        lobby.invitation_decline(match_id=match_id, user=caller(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class MatchRematchApi(APIView):
    rate_scopes = {"POST": "create"}

    @extend_schema(
        operation_id="matches_rematch",
        tags=["matches"],
        request=None,
        responses={201: MatchSerializer, 401: P, 403: P, 404: P, 409: P, 429: P},
    )
    def post(self, request: Request, match_id: str) -> Response:
        user = caller(request)
        selectors.require_visible(match_id, user)
        match = lobby.match_rematch(match_id=match_id, user=user)
        return Response(match_summary(selectors.match_get(match.id)), status=status.HTTP_201_CREATED)


class InviteCodeApi(APIView):
    class InputSerializer(serializers.Serializer):
        code = serializers.CharField(max_length=64)

    @extend_schema(
        operation_id="invites_lookup",
        tags=["matches"],
        request=InputSerializer,
        responses={200: MatchSerializer, 400: P, 401: P, 404: P},
        description="The match an invitation code leads to (join it with `POST matches/{id}/join {code}`). "
        "A POST, so that the code never lands in a URL or an access log.",
        examples=[OpenApiExample("a link's code", {"code": "an-invitation-code"}, request_only=True)],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(match_summary(selectors.match_by_invite_code(data.validated_data["code"])))


# --- leaderboards and ratings ------------------------------------------------------------------------


class LeaderboardEntrySerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    username = serializers.CharField(source="user.username")
    rating = serializers.IntegerField(help_text="Displayed rating: mu − 3σ scaled so that a new player shows 1500.")
    games = serializers.IntegerField(source="matches", help_text="Rated games played.")
    provisional = serializers.BooleanField()

    def to_representation(self, instance: Rating) -> dict[str, Any]:
        out = super().to_representation(instance)
        out["rating"] = round(instance.rating)
        return out


def _entries(rows: list[account_selectors.Entry]) -> list[dict[str, Any]]:
    """``LeaderboardEntrySerializer``'s output, built directly from tuples: a page is up to 100 rows."""
    return [
        {"rank": rank, "username": name, "rating": round(rating), "games": games, "provisional": provisional(games)}
        for rank, rating, games, name in rows
    ]


class LeaderboardPageSerializer(serializers.Serializer):
    results = LeaderboardEntrySerializer(many=True)
    next = serializers.CharField(allow_null=True, help_text="The cursor of the next page; null on the last.")


class LeaderboardApi(APIView):
    @extend_schema(
        operation_id="leaderboards_read",
        tags=["players"],
        parameters=[
            OpenApiParameter("cursor", OpenApiTypes.INT, description="`next` of the previous page (a rank)."),
            OpenApiParameter("limit", OpenApiTypes.INT, description="1–100, default 50."),
        ],
        responses={200: LeaderboardPageSerializer, 400: P, 401: P, 404: P},
        description="Non-provisional players rated within the active window, best first; ranks are stored "
        "and refreshed after every rated match.",
    )
    def get(self, request: Request, game: str) -> Response:
        _game(game)
        after = query_int(request, "cursor", 0, 0, 2**31)
        limit = query_int(request, "limit", 50, 1, settings.TABULA_MAX_PAGE_SIZE)
        rows = account_selectors.leaderboard_page(game, after=after, limit=limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        return Response(
            {
                "results": _entries(rows),
                "next": str(rows[-1][0]) if more and rows else None,
            }
        )


class LeaderboardAroundApi(APIView):
    class OutputSerializer(serializers.Serializer):
        rank = serializers.IntegerField(allow_null=True, help_text="The player's rank; null while not listed.")
        provisional = serializers.BooleanField()
        results = LeaderboardEntrySerializer(many=True)

    @extend_schema(
        operation_id="leaderboards_around",
        tags=["players"],
        responses={200: OutputSerializer, 401: P, 404: P},
    )
    def get(self, request: Request, game: str, username: str) -> Response:
        _game(game)
        mine = account_selectors.leaderboard_around(game, username)
        if mine is None:
            selectors.user_get(username)  # 404 for no such user; else not rated yet
            return Response({"rank": None, "provisional": True, "results": []})
        return Response({"rank": mine.rank, "provisional": mine.provisional, "results": _entries(mine.entries)})


class RatingHistorySerializer(serializers.Serializer):
    match = serializers.CharField(source="match_id")
    rating = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    at = serializers.DateTimeField()


class UserRatingsApi(APIView):
    class OutputSerializer(serializers.Serializer):
        game = serializers.CharField()
        rating = serializers.FloatField(allow_null=True)
        rank = serializers.IntegerField(allow_null=True)
        provisional = serializers.BooleanField()
        games = serializers.IntegerField()
        history = RatingHistorySerializer(many=True)

    @extend_schema(operation_id="user_ratings", tags=["players"], responses={200: OutputSerializer, 401: P, 404: P})
    def get(self, request: Request, username: str, game: str) -> Response:
        _game(game)
        user = selectors.user_get(username)
        current = Rating.objects.filter(user=user, game=game).first()
        history = selectors.rating_history(user, game, viewer(request))
        return Response(
            {
                "game": game,
                "rating": round(current.rating, 1) if current else None,
                "rank": current.rank if current else None,
                "provisional": current.provisional if current else True,
                "games": current.matches if current else 0,
                "history": RatingHistorySerializer(history, many=True).data,
            }
        )


# --- history, statistics, export ----------------------------------------------------------------------


class UserMatchesApi(APIView):
    class OutputSerializer(serializers.Serializer):
        count = serializers.IntegerField()
        next = serializers.IntegerField(allow_null=True, help_text="The offset of the next page, or null.")
        results = MatchSerializer(many=True)

    @extend_schema(
        operation_id="user_matches",
        tags=["players"],
        parameters=[
            OpenApiParameter("game", OpenApiTypes.STR),
            OpenApiParameter("status", OpenApiTypes.STR, enum=[c for c, _ in Match.Status.choices]),
            OpenApiParameter("result", OpenApiTypes.STR, enum=["won", "lost", "drawn"]),
            OpenApiParameter("limit", OpenApiTypes.INT),
            OpenApiParameter("offset", OpenApiTypes.INT),
        ],
        responses={200: OutputSerializer, 400: P, 401: P, 404: P},
    )
    def get(self, request: Request, username: str) -> Response:
        q = request.query_params
        status_ = q.get("status") or None
        if status_ is not None and status_ not in Match.Status.values:
            raise serializers.ValidationError(
                {"status": [_("Must be one of %(choices)s.") % {"choices": ", ".join(Match.Status.values)}]}
            )
        result = q.get("result") or None
        if result is not None and result not in ("won", "lost", "drawn"):
            raise serializers.ValidationError({"result": [_("Must be won, lost or drawn.")]})
        limit = query_int(request, "limit", 20, 1, settings.TABULA_MAX_PAGE_SIZE)
        offset = query_int(request, "offset", 0, 0, 2**31)
        user = selectors.user_get(username, viewer(request))
        game = q.get("game") or None
        listing = None if result else selectors.user_matches_listing(user, viewer(request), game=game, status=status_)
        if listing is not None:  # the page and its count by hand (`api.summaries`)
            count, results = summaries.page(listing, limit, offset, request)
        else:
            matches = selectors.user_matches(user, viewer(request), game=game, status=status_, result=result)
            count = len(matches) if isinstance(matches, list) else matches.count()
            results = match_summaries(matches[offset : offset + limit])
        following = offset + limit if offset + limit < count else None
        return Response({"count": count, "next": following, "results": results})


class UserExportApi(APIView):
    @extend_schema(
        operation_id="user_export",
        tags=["players"],
        parameters=[OpenApiParameter("game", OpenApiTypes.STR)],
        responses={
            (200, "application/x-ndjson"): OpenApiResponse(
                response=OpenApiTypes.STR,
                description="One JSON object per line: a finished public match's summary and its full record log.",
            ),
            401: P,
            404: P,
            429: P,
        },
    )
    def get(self, request: Request, username: str) -> StreamingHttpResponse:
        user = caller(request)
        ratelimit.check(request, "export", str(user.pk))
        subject = selectors.user_get(username)
        game = request.query_params.get("game") or None
        ids = list(selectors.user_export_matches(subject, game).values_list("id", flat=True))

        def lines() -> Iterator[bytes]:
            for match_id in ids:
                match = selectors.match_get(match_id)
                line = {"summary": match_summary(match), **selectors.match_export(match)}
                yield json.dumps(line, default=str, separators=(",", ":")).encode() + b"\n"

        response = StreamingHttpResponse(lines(), content_type="application/x-ndjson")
        response["Content-Disposition"] = f'attachment; filename="{subject.username}.ndjson"'
        return response
