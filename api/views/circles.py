"""Circles: follow, block, the feed (docs/api.md, *Circles*; the services are `circles`)."""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from api.authentication import caller
from api.representations import match_summary
from api.serializers import MatchSerializer, ProblemSerializer
from circles import selectors, services
from circles.models import Block
from games import selectors as games

P = ProblemSerializer


class FollowSerializer(serializers.Serializer):
    username = serializers.CharField()
    since = serializers.DateTimeField()
    mutual = serializers.BooleanField(help_text="You follow each other: friends.")


def _follows(user: User, rows: Sequence[tuple[User, object]]) -> list[dict[str, object]]:
    friends = selectors.friend_ids(user.pk)
    return [{"username": u.username, "since": at, "mutual": u.pk in friends} for u, at in rows]


class MeFollowingApi(APIView):
    @extend_schema(operation_id="me_following", tags=["circles"], responses={200: FollowSerializer(many=True), 401: P})
    def get(self, request: Request) -> Response:
        user = caller(request)
        rows = [(f.followee, f.created_at) for f in selectors.following(user)]
        return Response(_follows(user, rows))


class MeFollowersApi(APIView):
    @extend_schema(operation_id="me_followers", tags=["circles"], responses={200: FollowSerializer(many=True), 401: P})
    def get(self, request: Request) -> Response:
        user = caller(request)
        rows = [(f.follower, f.created_at) for f in selectors.followers(user)]
        return Response(_follows(user, rows))


class MeFollowingDetailApi(APIView):
    @extend_schema(
        operation_id="me_follow",
        tags=["circles"],
        request=None,
        responses={200: FollowSerializer, 201: FollowSerializer, 400: P, 401: P, 404: P},
        description="Follow a player: their public matches come to your feed. `201` when new, `200` when you "
        "already did.",
    )
    def put(self, request: Request, username: str) -> Response:
        user = caller(request)
        row, created = services.follow(user, username)
        body = _follows(user, [(row.followee, row.created_at)])[0]
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(operation_id="me_unfollow", tags=["circles"], responses={204: None, 400: P, 401: P, 404: P})
    def delete(self, request: Request, username: str) -> Response:
        services.unfollow(caller(request), username)
        return Response(status=status.HTTP_204_NO_CONTENT)


class BlockSerializer(serializers.Serializer):
    username = serializers.CharField()
    scope = serializers.ChoiceField(choices=Block.Scope.values)
    since = serializers.DateTimeField()


def _block_json(row: Block) -> dict[str, object]:
    return {"username": row.blocked.username, "scope": row.scope, "since": row.created_at}


class MeBlocksApi(APIView):
    @extend_schema(
        operation_id="me_blocks",
        tags=["circles"],
        responses={200: BlockSerializer(many=True), 401: P},
        description="Whom you block: visible to you alone.",
    )
    def get(self, request: Request) -> Response:
        return Response([_block_json(b) for b in selectors.block_list(caller(request))])


class MeBlockDetailApi(APIView):
    class InputSerializer(serializers.Serializer):
        scope = serializers.ChoiceField(choices=Block.Scope.values, default="all")

    @extend_schema(
        operation_id="me_block",
        tags=["circles"],
        request=InputSerializer,
        responses={200: BlockSerializer, 201: BlockSerializer, 400: P, 401: P, 404: P, 409: P},
        examples=[OpenApiExample("block", {"scope": "all"}, request_only=True)],
        description="Block a player: `games` (their open matches and yours hidden from each other, no joins, "
        "invitations or rematches between you), `messages` (their chat hidden from you, no nudges), or `all`. "
        f"They are not told. At most {settings.TABULA_MAX_BLOCKS} (`409 too_many_blocks`). A block never "
        "removes anyone from a live match.",
    )
    def put(self, request: Request, username: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        row, created = services.block(caller(request), username, data.validated_data["scope"])
        return Response(_block_json(row), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(operation_id="me_unblock", tags=["circles"], responses={204: None, 400: P, 401: P, 404: P})
    def delete(self, request: Request, username: str) -> Response:
        services.unblock(caller(request), username)
        return Response(status=status.HTTP_204_NO_CONTENT)


class FeedEntrySerializer(serializers.Serializer):
    event = serializers.ChoiceField(choices=["started", "finished"])
    at = serializers.DateTimeField()
    players = serializers.ListField(child=serializers.CharField(), help_text="The people you follow in it.")
    match = MatchSerializer()


class MeFeedApi(APIView):
    @extend_schema(
        operation_id="me_feed",
        tags=["circles"],
        responses={200: FeedEntrySerializer(many=True), 401: P},
        description=f"Public matches that people you follow started or finished in the last "
        f"{settings.TABULA_FEED_DAYS} days, the latest first (at most 50).",
    )
    def get(self, request: Request) -> Response:
        ids = selectors.following_ids(caller(request).pk)
        out = []
        for match, event, at in games.feed(ids, days=settings.TABULA_FEED_DAYS):
            players = [s.user.username for s in match.seats.all() if s.user_id in ids and s.user is not None]
            out.append({"event": event, "at": at, "players": players, "match": match_summary(match)})
        return Response(out)  # already serialized; FeedEntrySerializer documents it
