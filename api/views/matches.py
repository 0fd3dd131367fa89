"""The game catalogue, matches, their state, moves and record stream."""

from __future__ import annotations

from functools import partial
from typing import Any
from urllib.parse import urlencode

import django_filters
from django.conf import settings
from django.db.models import Count, Exists, F, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpResponse
from django.utils.translation import gettext as _
from django_filters.constants import EMPTY_VALUES
from django_filters.utils import translate_validation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import idempotency, summaries
from api.authentication import caller, viewer
from api.pagination import CappedLimitOffsetPagination
from api.params import query_int
from api.representations import match_summaries, match_summary
from api.schema import MoveJSONField, OptionsJSONField, OptionValueField, StateJSONField
from api.serializers import EventSerializer, MatchSerializer, ProblemSerializer, TimeControlSerializer
from core.errors import Forbidden, InvalidRequest, NotFound
from games import selectors
from games.models import Invitation, Match, Seat
from games.services import agreements, away, lobby, play
from rules import RULES
from talk import chat

P = ProblemSerializer
INVITE_CODE = OpenApiParameter(
    "Invite-Code",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="A match's invitation code: lets its holder see a private match (a header, so that it never "
    "lands in a URL or an access log).",
)


def invite_code(request: Request) -> str | None:
    return request.headers.get("Invite-Code") or None


STATE = {"$ref": "#/components/schemas/MatchState"}  # api.schema: per game, discriminated by `game`


# --- catalogue -----------------------------------------------------------------------------------


class GameOptionSerializer(serializers.Serializer):
    """One match option of a game (``rules.base.Option``)."""

    name = serializers.CharField()
    type = serializers.ChoiceField(choices=["integer", "boolean", "string", "seat_or_random", "object"])
    default = serializers.JSONField(help_text="Any JSON value; null when the option is unset by default.")
    description = serializers.CharField()
    minimum = serializers.IntegerField(required=False)
    maximum = serializers.IntegerField(required=False)
    choices = serializers.ListField(child=OptionValueField(), required=False)
    restricted = serializers.BooleanField(required=False, help_text="`setup`: test settings or staff only.")


class GameSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    rules_version = serializers.IntegerField()
    options = GameOptionSerializer(many=True)
    moves = serializers.ListField(child=serializers.CharField(), help_text="Move types; schemas under `Move`.")


def _game_json(game: str) -> dict[str, Any]:
    rules = RULES[game]
    return {
        "id": rules.name,
        "name": rules.title,
        "min_players": rules.seats.start,
        "max_players": rules.seats.stop - 1,
        "rules_version": rules.version,
        "options": [o.to_json() for o in rules.options],
        "moves": [m.type for m in rules.moves],
    }


class GameListApi(APIView):
    permission_classes = [AllowAny]  # the catalogue is public

    @extend_schema(operation_id="games_list", tags=["games"], responses={200: GameSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response([_game_json(g) for g in RULES])


class GameDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(operation_id="games_read", tags=["games"], responses={200: GameSerializer, 404: P})
    def get(self, request: Request, game: str) -> Response:
        if game not in RULES:
            raise NotFound(_("No game %(game)s.") % {"game": repr(game)})
        return Response(_game_json(game))


# --- matches -------------------------------------------------------------------------------------


#: A list's paging parameters and ``mine``: with only these, and ``mine=true`` as clients send it,
#: there is nothing for `MatchFilter`'s form to check, and building it cost more than the page's SQL.
_PAGING = frozenset({"mine", "limit", "offset"})


class MatchFilter(django_filters.FilterSet):
    game = django_filters.CharFilter(label="A game id")
    status = django_filters.ChoiceFilter(choices=Match.Status.choices)
    player = django_filters.CharFilter(field_name="seats__user__username", label="A player's username")
    mine = django_filters.BooleanFilter(method="filter_mine", label="Only matches the caller sits in")
    joinable = django_filters.BooleanFilter(method="filter_joinable", label="Open matches with a free seat")
    spectate = django_filters.BooleanFilter(
        method="filter_spectate", label="Public live matches to watch (the caller's own left out)"
    )

    class Meta:
        model = Match
        fields = ["game", "status", "player", "mine", "joinable", "spectate"]

    def filter_spectate(self, qs: QuerySet[Match], name: str, value: bool) -> QuerySet[Match]:
        if not value:
            return qs
        return qs.filter(private=False, status=Match.Status.ACTIVE).exclude(seats__user=self.request.user)

    def filter_mine(self, qs: QuerySet[Match], name: str, value: bool) -> QuerySet[Match]:
        # A semi-join (EXISTS): no DISTINCT over whole match rows, jsonb columns included.
        return qs.filter(Exists(Seat.objects.filter(match=OuterRef("pk"), user=self.request.user))) if value else qs

    def filter_joinable(self, qs: QuerySet[Match], name: str, value: bool) -> QuerySet[Match]:
        if not value:
            return qs
        user = self.request.user
        free = Seat.objects.filter(match=OuterRef("pk"), user__isnull=True, bot="")
        reserved = Invitation.objects.filter(
            match=OuterRef("pk"), status=Invitation.Status.PENDING, seat__isnull=False
        ).exclude(user=user)
        return (
            qs.filter(status=Match.Status.OPEN)
            .exclude(seats__user=user)
            .annotate(free_seats=_count(free), reserved_seats=_count(reserved))
            .filter(free_seats__gt=F("reserved_seats"))  # a seat left that is not reserved for someone else
        )


def _count(qs: QuerySet[Any]) -> Coalesce:
    return Coalesce(Subquery(qs.values("match").annotate(n=Count("id")).values("n")), 0)


@extend_schema_field(TimeControlSerializer)
class TimeControlField(serializers.JSONField):
    """Validated by the service, which names the key at fault."""


class MatchCreateSerializer(serializers.Serializer):
    class BotSerializer(serializers.Serializer):
        seat = serializers.IntegerField()
        level = serializers.ChoiceField(choices=lobby.BOT_LEVELS, default=play.TAKEOVER_BOT_LEVEL)

    game = serializers.CharField(help_text="A game id from GET /api/v1/games.")
    players = serializers.IntegerField(min_value=1, max_value=16)
    options = OptionsJSONField(required=False, default=dict)
    bots = BotSerializer(many=True, required=False)
    time_control = TimeControlField(required=False, allow_null=True, default=None)
    private = serializers.BooleanField(
        required=False, default=False, help_text="Only seated players, invitees and invitation-code holders see it."
    )
    invite = serializers.ListField(
        child=serializers.CharField(max_length=150),
        required=False,
        default=list,
        max_length=15,
        help_text="Usernames to invite: a free seat is reserved for each.",
    )


class MatchListCreateApi(generics.ListAPIView):
    rate_scopes = {"POST": "create"}
    serializer_class = MatchSerializer
    filterset_class = MatchFilter
    queryset = Match.objects.none()  # for the schema; requests use get_queryset

    def get_queryset(self) -> QuerySet[Match]:
        if getattr(self, "swagger_fake_view", False):
            return Match.objects.none()
        # `mine=true` as the filter reads it: the caller's own matches need no visibility rule
        form = MatchFilter(self.request.query_params, queryset=Match.objects.none(), request=self.request).form
        mine = form.is_valid() and form.cleaned_data.get("mine") is True
        return selectors.match_list(user=caller(self.request), mine=mine)

    @extend_schema(operation_id="matches_list", tags=["matches"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # ListAPIView.list with one FilterSet (the filter backend and get_queryset built one each, and
        # `mine` ran twice) and the plain summaries: MatchSerializer only documents the page. (A comment:
        # drf-spectacular would publish a docstring as the operation's description.)
        params = request.query_params
        if set(params) <= _PAGING and params.getlist("mine") == ["true"]:  # nothing else for the form to check
            mine_page = self._my_page(request)
            if mine_page is not None:
                return mine_page
        filterset = MatchFilter(params, queryset=Match.objects.none(), request=request)
        if not filterset.is_valid():
            raise translate_validation(filterset.errors)  # as DjangoFilterBackend: a 400 problem
        cleaned = filterset.form.cleaned_data
        mine = cleaned.get("mine") is True
        others = any(value not in EMPTY_VALUES for name, value in cleaned.items() if name != "mine")
        if mine and not others:
            mine_page = self._my_page(request)
            if mine_page is not None:
                return mine_page
        cleaned["mine"] = None  # applied by the selector, without the visibility rule
        matches = filterset.filter_queryset(selectors.match_list(user=caller(request), mine=mine))
        page = self.paginate_queryset(matches)
        if page is None:
            return Response(match_summaries(matches))
        return self.get_paginated_response(match_summaries(page))

    def _my_page(self, request: Request) -> Response | None:
        """The caller's own matches, no other filter: the page and its count by hand (`games.sql`);
        None when pages are off (no ``limit`` setting)."""
        paginator = self.paginator
        if not isinstance(paginator, CappedLimitOffsetPagination):
            return None
        read = paginator.paginate_read(
            request, partial(summaries.page, selectors.my_matches(caller(request)), request=request)
        )
        return None if read is None else paginator.get_paginated_response(read)

    @extend_schema(
        operation_id="matches_create",
        tags=["matches"],
        request=MatchCreateSerializer,
        responses={201: MatchSerializer, 400: P, 403: P, 409: P, 413: P, 429: P},
        examples=[
            OpenApiExample(
                "two people", {"game": "ekko", "players": 2, "time_control": {"per_move_s": 86400}}, request_only=True
            ),
            OpenApiExample(
                "against a bot",
                {"game": "enka", "players": 2, "bots": [{"seat": 1, "level": "greedy"}]},
                request_only=True,
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        data = MatchCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        match = lobby.match_create(user=caller(request), **data.validated_data)
        return Response(match_summary(selectors.match_get(match.id)), status=status.HTTP_201_CREATED)


class MatchDetailApi(APIView):
    permission_classes = [AllowAny]  # a public match may be watched without an account (rate-limited per address)

    @extend_schema(
        operation_id="matches_read",
        tags=["matches"],
        parameters=[INVITE_CODE],
        responses={200: MatchSerializer, 404: P},
    )
    def get(self, request: Request, match_id: str) -> Response:
        match = selectors.match_get_for(match_id, viewer(request), invite_code(request))
        return Response(match_summary(match))


class MatchJoinApi(APIView):
    class InputSerializer(serializers.Serializer):
        seat = serializers.IntegerField(required=False, allow_null=True, default=None)
        code = serializers.CharField(
            required=False, allow_blank=True, default="", max_length=64, help_text="The invitation code."
        )

    @extend_schema(
        operation_id="matches_join",
        tags=["matches"],
        request=InputSerializer,
        responses={200: MatchSerializer, 400: P, 404: P, 409: P},
        examples=[OpenApiExample("take seat 1", {"seat": 1}, request_only=True)],
    )
    def post(self, request: Request, match_id: str) -> Response:
        data = self.InputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        selectors.require_visible(match_id, caller(request), data.validated_data["code"] or None)
        lobby.match_join(match_id=match_id, user=caller(request), seat=data.validated_data["seat"])
        return Response(match_summary(selectors.match_get(match_id)))


class MatchLeaveApi(APIView):
    @extend_schema(
        operation_id="matches_leave",
        tags=["matches"],
        request=None,
        responses={200: MatchSerializer, 403: P, 404: P, 409: P},
    )
    def post(self, request: Request, match_id: str) -> Response:
        selectors.require_visible(match_id, caller(request))
        lobby.match_leave(match_id=match_id, user=caller(request))
        return Response(match_summary(selectors.match_get(match_id)))


class MatchResignApi(APIView):
    @extend_schema(
        operation_id="matches_resign",
        tags=["matches"],
        request=None,
        responses={200: MatchSerializer, 403: P, 404: P, 409: P},
    )
    def post(self, request: Request, match_id: str) -> Response:
        selectors.require_visible(match_id, caller(request))
        play.match_resign(match_id=match_id, user=caller(request))
        return Response(match_summary(selectors.match_get(match_id)))


class MatchBotAddApi(APIView):
    class InputSerializer(serializers.Serializer):
        seat = serializers.IntegerField(required=False, allow_null=True, default=None)
        level = serializers.ChoiceField(choices=lobby.BOT_LEVELS, default=play.TAKEOVER_BOT_LEVEL)

    @extend_schema(
        operation_id="matches_bots_add",
        tags=["matches"],
        request=InputSerializer,
        responses={200: MatchSerializer, 400: P, 403: P, 404: P, 409: P},
        examples=[OpenApiExample("a random bot", {"seat": 1, "level": "random"}, request_only=True)],
    )
    def post(self, request: Request, match_id: str) -> Response:
        selectors.require_visible(match_id, caller(request))
        data = self.InputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        lobby.bot_add(match_id=match_id, user=caller(request), **data.validated_data)
        return Response(match_summary(selectors.match_get(match_id)))


class MatchStateApi(APIView):
    permission_classes = [AllowAny]  # a public match may be watched without an account (rate-limited per address)

    @extend_schema(
        operation_id="matches_state",
        tags=["play"],
        parameters=[
            OpenApiParameter("If-None-Match", OpenApiTypes.STR, OpenApiParameter.HEADER, required=False),
            INVITE_CODE,
            OpenApiParameter(
                "at",
                OpenApiTypes.INT,
                required=False,
                description="Replay: the state as you saw it just after record `at` (1 to `version`), with `at` "
                "and that `record`; no legal moves, no clocks.",
            ),
            OpenApiParameter(
                "seat",
                OpenApiTypes.INT,
                required=False,
                description="With `at`, once the match is over: any seat's view (the seed is public by then).",
            ),
        ],
        responses={200: STATE, 304: OpenApiResponse(description="Unchanged since the ETag"), 400: P, 403: P, 404: P},
    )
    def get(self, request: Request, match_id: str) -> Response:
        match = selectors.match_with_seat_of(match_id, viewer(request))
        seat: int | None = getattr(match, "caller_seat", None)
        if seat is None and not selectors.match_visible_to(match, viewer(request), invite_code(request)):
            raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)})
        if "at" in request.query_params or "seat" in request.query_params:
            return _replay_at(request, match, seat)
        etag = selectors.state_etag(match, seat)
        if _etag_matches(request, etag):
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
        return Response(selectors.match_state_view(match, seat), headers={"ETag": etag})


def _etag_matches(request: Request, etag: str) -> bool:
    """``If-None-Match`` compared weakly (RFC 9110 §13.1.2): a gzipped answer's ETag came back weak."""
    given = {t.strip().removeprefix("W/") for t in request.headers.get("If-None-Match", "").split(",")}
    return etag in given or "*" in given


def _query_int(request: Request, name: str, low: int, high: int) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 12) or not low <= int(raw) <= high:
        bounds = {"name": name, "low": low, "high": high}
        message = _("%(name)s must be an integer from %(low)s to %(high)s.") % bounds
        raise InvalidRequest(message, errors={name: [_("From %(low)s to %(high)s.") % bounds]})
    return int(raw)


def _replay_at(request: Request, match: Match, seat: int | None) -> Response:
    """``GET state?at=`` (and ``&seat=`` after the end): a past view, the same for ever (records never change)."""
    if match.version == 0:
        raise InvalidRequest(_("This match has no records yet."), errors={"at": [_("No records yet.")]})
    at = _query_int(request, "at", 1, match.version)
    if at is None:
        raise InvalidRequest(_("seat goes with at."), errors={"at": [_("Required with seat.")]})
    other = _query_int(request, "seat", 0, match.players - 1)
    if other is not None and other != seat:
        if match.is_live:
            raise Forbidden(_("During a match you replay your own view only; any seat's view once it is over."))
        seat = other
    etag = f'"{match.id}.at{at}.{"s" if seat is None else seat}"'
    headers = {"ETag": etag, "Cache-Control": "private, max-age=86400"}
    if _etag_matches(request, etag):
        return Response(status=status.HTTP_304_NOT_MODIFIED, headers=headers)
    return Response(selectors.replay_at_view(match, at, seat), headers=headers)


class TimelineEntrySerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    actor = serializers.CharField(allow_null=True)
    at = serializers.DateTimeField()
    effects = serializers.ListField(child=serializers.CharField(), help_text="The kinds of the effects you saw.")
    text = serializers.CharField(
        help_text="A short line for a scrubber, in your language (`Content-Language`); each effect in its game's "
        "words (`effect.<kind>` of `GET games/{game}/i18n/{lang}`)."
    )


class MatchTimelineApi(APIView):
    permission_classes = [AllowAny]  # a public match may be watched without an account (rate-limited per address)

    @extend_schema(
        operation_id="matches_timeline",
        tags=["play"],
        parameters=[
            INVITE_CODE,
            OpenApiParameter("after", OpenApiTypes.INT, required=False, description="Records after this seq."),
            OpenApiParameter("limit", OpenApiTypes.INT, required=False, description="At most (default 1000, ≤ 5000)."),
        ],
        responses={200: TimelineEntrySerializer(many=True), 400: P, 404: P},
        description="One entry per record, as your seat sees it (a spectator's view when you are not seated; "
        "after the end, everyone's): what a replay's scrubber shows. Step through it with `GET state?at=<seq>`.",
    )
    def get(self, request: Request, match_id: str) -> Response:
        match = selectors.match_with_seat_of(match_id, viewer(request))
        seat: int | None = getattr(match, "caller_seat", None)
        if seat is None and not selectors.match_visible_to(match, viewer(request), invite_code(request)):
            raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)})
        after = _query_int(request, "after", 0, 2**31 - 1) or 0
        limit = _query_int(request, "limit", 1, 5000) or 1000
        return Response(selectors.timeline(match, seat, after=after, limit=limit))


class MoveSubmitApi(APIView):
    rate_scopes = {"POST": "moves"}

    class InputSerializer(serializers.Serializer):
        move = MoveJSONField()  # a plain $ref to `Move` (a description would wrap it in allOf)
        expected_version = serializers.IntegerField(min_value=0, help_text="The version the move was decided at.")

    class OutputSerializer(serializers.Serializer):
        version = serializers.IntegerField()
        state = StateJSONField()  # a plain $ref to `MatchState`: openapi-typescript keeps its `game`

    @extend_schema(
        operation_id="matches_moves_create",
        tags=["play"],
        request=InputSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                required=False,
                description="A retry with the same key returns the first answer (1 to 255 printable ASCII characters).",
            )
        ],
        responses={201: OutputSerializer, 400: P, 403: P, 404: P, 409: P, 413: P, 422: P, 429: P},
    )
    def post(self, request: Request, match_id: str) -> HttpResponse:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        key = request.headers.get("Idempotency-Key") or None
        if key is not None:
            idempotency.validate_key(key)
        print_ = idempotency.fingerprint(request.path, request.data) if key else ""
        user = caller(request)
        move, expected = data.validated_data["move"], data.validated_data["expected_version"]

        def answer(played: play.Played) -> dict[str, Any]:
            state = selectors.state_payload(played.match, played.rules, played.state, played.seat, played.seats)
            return {"version": played.match.version, "state": state}

        away.back_if_away(user)  # a move anywhere ends the caller's absence
        # The services answer 404 for a match the caller may not see.
        if not key:
            played = play.move_submit(match_id=match_id, user=user, move=move, expected_version=expected)
            return Response(answer(played), status=status.HTTP_201_CREATED)
        try:
            with play.move_turn(match_id=match_id, user=user) as turn:  # one transaction, the match locked
                idempotency.replay_if_answered(user, key, print_)
                response = idempotency.render(self, request, status.HTTP_201_CREATED, answer(turn.play(move, expected)))
                idempotency.remember(user, key, print_, response)  # with the move, or neither
        except idempotency.Replay as answered:
            return answered.response()  # the first answer's bytes
        return response


class MatchUndoApi(APIView):
    rate_scopes = {"POST": "moves"}

    class InputSerializer(serializers.Serializer):
        expected_version = serializers.IntegerField(min_value=0, help_text="The version you saw your move at.")

    @extend_schema(
        operation_id="matches_undo",
        tags=["play"],
        request=InputSerializer,
        responses={201: MoveSubmitApi.OutputSerializer, 400: P, 403: P, 404: P, 409: P, 422: P},
        description="Take back your own last input (an `undone` record), when the match's `takebacks` option "
        "is `own_input`, nothing was recorded since, and it showed nobody anything hidden: else `422 "
        "undo_unsafe` with `reason` (`revealed`, `random`, `others_moved`, `not_yours`, `disabled`) and `seq`. "
        "The state's `can_undo` says beforehand.",
    )
    def post(self, request: Request, match_id: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        played = agreements.match_undo(
            match_id=match_id, user=caller(request), expected_version=data.validated_data["expected_version"]
        )
        state = selectors.state_payload(played.match, played.rules, played.state, played.seat, played.seats)
        return Response({"version": played.match.version, "state": state}, status=status.HTTP_201_CREATED)


class EventListApi(APIView):
    permission_classes = [AllowAny]  # a public match may be watched without an account (rate-limited per address)

    @extend_schema(
        operation_id="matches_events",
        tags=["play"],
        parameters=[
            INVITE_CODE,
            OpenApiParameter("after", OpenApiTypes.INT, description="Only records after this seq (default 0)."),
            OpenApiParameter(
                "limit",
                OpenApiTypes.INT,
                description=f"At most this many records (default {settings.TABULA_EVENTS_PAGE_SIZE}, "
                f"at most {settings.TABULA_EVENTS_MAX_PAGE_SIZE}).",
            ),
            OpenApiParameter(
                "Link",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                response=[200],
                description='`<…/events?after=N&limit=M>; rel="next"` when more records follow this page: '
                "follow it until there is none.",
            ),
        ],
        responses={200: EventSerializer(many=True), 400: P, 404: P},
    )
    def get(self, request: Request, match_id: str) -> Response:
        after = query_int(request, "after", 0, 0, 2**31)
        limit = query_int(request, "limit", settings.TABULA_EVENTS_PAGE_SIZE, 1, settings.TABULA_EVENTS_MAX_PAGE_SIZE)
        # One statement: the match, the caller's seat and the page (seated: visible; else shown only if visible).
        match = selectors.match_and_seat_of(match_id, viewer(request), page=(after, limit + 1))
        seated = getattr(match, "caller_seat", None) is not None
        if not seated and not selectors.match_visible_to(match, viewer(request), invite_code(request)):
            raise NotFound(_("No match %(id)s.") % {"id": repr(match_id)})
        events = selectors.event_list(match=match, user=viewer(request), after=after, limit=limit + 1)
        headers = {}
        if len(events) > limit:
            events = events[:limit]
            query = urlencode({"after": events[-1]["seq"], "limit": limit})
            headers["Link"] = f'<{request.build_absolute_uri(request.path)}?{query}>; rel="next"'
        return Response(events, headers=headers)


class MatchExportApi(APIView):
    @extend_schema(
        operation_id="matches_export",
        tags=["play"],
        parameters=[INVITE_CODE],
        responses={200: OpenApiTypes.OBJECT, 404: P, 409: P},
        description="Once the match is over: the whole unredacted log, the seed, and `chat` (every channel's "
        "messages merged in order, without whispers; a hidden message without its text).",
    )
    def get(self, request: Request, match_id: str) -> Response:
        match = selectors.match_get_for(match_id, viewer(request), invite_code(request))
        return Response({**selectors.match_export(match), "chat": chat.export(match)})
