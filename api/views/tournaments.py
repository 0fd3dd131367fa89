"""Tournaments (docs/api.md, *Tournaments*; the services are `tournaments`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from api.authentication import caller, viewer
from api.serializers import OPTIONS, ProblemSerializer, TimeControlSerializer
from core.errors import InvalidRequest
from rules import RULES
from tournaments import selectors, services
from tournaments.models import Round, Tournament

P = ProblemSerializer
TC = settings.TABULA_TOURNAMENTS


class EntrantSerializer(serializers.Serializer):
    username = serializers.CharField()
    seed = serializers.IntegerField(allow_null=True, help_text="From the start: by rating, then entry order.")
    withdrawn = serializers.BooleanField()


class ConditionsSerializer(serializers.Serializer):
    min_rating = serializers.IntegerField(required=False)
    max_rating = serializers.IntegerField(required=False)
    min_rated_matches = serializers.IntegerField(required=False)
    max_recent_timeouts = serializers.IntegerField(required=False, help_text="Timeouts in the last 90 days.")


@extend_schema_field(OPTIONS)
class OptionsField(serializers.DictField):
    pass


class TournamentSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    game = serializers.CharField()
    options = OptionsField(help_text="The engine's options of every table (and `takebacks`).")
    time_control = TimeControlSerializer(help_text="Every table's; `away` is `disallowed` unless set `allowed`.")
    format = serializers.ChoiceField(choices=Tournament.Format.values)
    table_size = serializers.IntegerField()
    max_players = serializers.IntegerField()
    rounds = serializers.IntegerField(allow_null=True, help_text="Swiss: the rounds; the other formats: null.")
    pool_size = serializers.IntegerField(allow_null=True, help_text="Round robin: entrants per pool (null: one pool).")
    concurrent = serializers.BooleanField(help_text="Round robin: every round's matches start at once.")
    points = serializers.ListField(child=serializers.FloatField(), help_text="Points by place at a table, best first.")
    bye_points = serializers.FloatField(help_text="Swiss: the points of a bye.")
    round_hours = serializers.IntegerField(help_text="A round's deadline after its pairing; then it is adjudicated.")
    start = serializers.CharField(help_text='"when_full", or the ISO time it starts at.')
    entry = serializers.ChoiceField(choices=Tournament.Entry.values)
    private = serializers.BooleanField(help_text="Its tables are seen by its entrants only.")
    conditions = ConditionsSerializer()
    status = serializers.ChoiceField(choices=Tournament.Status.values)
    round = serializers.IntegerField(help_text="The last round paired (0 before the start).")
    round_deadline = serializers.DateTimeField(allow_null=True)
    players = serializers.IntegerField(help_text="Entrants so far.")
    entrants = EntrantSerializer(many=True)
    entered = serializers.BooleanField(help_text="Whether you are in it.")
    next_match = serializers.CharField(allow_null=True, help_text="Your live match in it, if any.")
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


def tournament_json(t: Tournament, user: User | None, *, full: bool = True) -> dict[str, Any]:
    """A tournament as `TournamentSerializer` documents it (lists leave the entrants out)."""
    people = selectors.entrants(t) if full else []
    if hasattr(t, "deadline_now"):  # a list read it with the rows
        deadline = t.deadline_now
    else:
        deadline = Round.objects.filter(tournament=t, number=t.round).values_list("deadline", flat=True).first()
    if full:
        mine = user is not None and any(e.user_id == user.pk for e in people)
    else:
        mine = bool(getattr(t, "is_entrant", False))
    return {
        "id": t.id,
        "name": t.name,
        "game": t.game,
        "options": t.options,
        "time_control": t.time_control,
        "format": t.format,
        "table_size": t.table_size,
        "max_players": t.max_players,
        "rounds": t.rounds,
        "pool_size": t.pool_size,
        "concurrent": t.concurrent,
        "points": t.points,
        "bye_points": t.bye_points,
        "round_hours": t.round_hours,
        "start": t.start_at.isoformat() if t.start_at else "when_full",
        "entry": t.entry,
        "private": t.private,
        "conditions": t.conditions,
        "status": t.status,
        "round": t.round,
        "round_deadline": deadline.isoformat() if deadline else None,
        "players": len(people) if full else getattr(t, "entered", t.entrants.count()),
        "entrants": [
            {"username": e.user.username, "seed": e.seed, "withdrawn": e.withdrawn_at is not None} for e in people
        ],
        "entered": bool(mine),
        "next_match": selectors.next_match(t, user) if full and mine else None,
        "created_by": t.created_by.username,
        "created_at": t.created_at.isoformat(),
        "started_at": t.started_at.isoformat() if t.started_at else None,
        "finished_at": t.finished_at.isoformat() if t.finished_at else None,
    }


class TournamentCreateSerializer(serializers.Serializer):
    """What ``POST tournaments`` takes (documentation: the service checks every field itself)."""

    name = serializers.CharField(max_length=100)
    game = serializers.ChoiceField(choices=sorted(RULES))
    options = OptionsField(required=False)
    time_control = TimeControlSerializer(required=False, help_text=f"Default {TC['time_control']}.")
    format = serializers.ChoiceField(choices=Tournament.Format.values)
    table_size = serializers.IntegerField(help_text="Within the game's player range; elimination: 2.")
    max_players = serializers.IntegerField(help_text=f"From table_size to {TC['max_players']}.")
    rounds = serializers.IntegerField(required=False, help_text="Swiss only; default ⌈log2 max_players⌉.")
    pool_size = serializers.IntegerField(required=False, help_text="Round robin only: entrants per pool.")
    concurrent = serializers.BooleanField(required=False, help_text="Round robin: every round at once (default).")
    start = serializers.CharField(required=False, help_text='"when_full" (default) or an ISO time with offset.')
    entry = serializers.ChoiceField(choices=Tournament.Entry.values, required=False)
    invite = serializers.ListField(
        child=serializers.CharField(), required=False, help_text='entry "invite": usernames.'
    )
    private = serializers.BooleanField(required=False, help_text='Default: true for entry "invite".')
    conditions = ConditionsSerializer(required=False)
    points = serializers.ListField(child=serializers.FloatField(), required=False, help_text="By place, best first.")
    bye_points = serializers.FloatField(required=False)
    round_hours = serializers.IntegerField(required=False, help_text=f"Default {TC['round_hours']}.")


STATUS = OpenApiParameter("status", OpenApiTypes.STR, enum=Tournament.Status.values, required=False)
GAME = OpenApiParameter("game", OpenApiTypes.STR, required=False)


class TournamentListCreateApi(generics.GenericAPIView):
    rate_scopes = {"POST": "create"}
    queryset = Tournament.objects.none()
    serializer_class = TournamentCreateSerializer  # what OPTIONS describes (the service reads the body itself)

    def get_queryset(self) -> QuerySet[Tournament]:
        game = self.request.query_params.get("game") or None
        state = self.request.query_params.get("status") or None
        if game is not None and game not in RULES:
            raise InvalidRequest(
                _("Unknown game %(game)s.") % {"game": repr(game)}, errors={"game": [_("Unknown game.")]}
            )
        if state is not None and state not in Tournament.Status.values:
            raise InvalidRequest(
                _("Unknown status %(status)s.") % {"status": repr(state)}, errors={"status": [_("Unknown status.")]}
            )
        return selectors.tournament_list(viewer(self.request), game=game, status=state)

    @extend_schema(
        operation_id="tournaments_list",
        tags=["tournaments"],
        parameters=[GAME, STATUS],
        responses={200: TournamentSerializer(many=True), 400: P, 401: P},
        description="The tournaments you may see (public ones, and private ones you are in or invited to), "
        "newest first, paginated. Entrants are left out: `GET tournaments/{id}` has them.",
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None
        user = viewer(request)
        return self.get_paginated_response([tournament_json(t, user, full=False) for t in page])

    @extend_schema(
        operation_id="tournaments_create",
        tags=["tournaments"],
        request=TournamentCreateSerializer,
        responses={201: TournamentSerializer, 400: P, 401: P, 403: P, 409: P, 429: P},
        examples=[
            OpenApiExample(
                "Enka Swiss",
                {
                    "name": "Winter Swiss",
                    "game": "enka",
                    "format": "swiss",
                    "table_size": 4,
                    "max_players": 20,
                    "rounds": 4,
                    "time_control": {"per_move_s": 86400},
                },
                request_only=True,
            ),
            OpenApiExample(
                "Ekö round robin",
                {"name": "Hex pool", "game": "eko", "format": "round_robin", "table_size": 3, "max_players": 12},
                request_only=True,
            ),
        ],
        description="Create a tournament; you are not entered until you join. Validated like a match: "
        "`table_size` within the game's player range, `options` by the engine; `400` names the field.",
    )
    def post(self, request: Request) -> Response:
        user = caller(request)
        t = services.tournament_create(user=user, data=request.data)
        return Response(tournament_json(t, user), status=status.HTTP_201_CREATED)


class TournamentDetailApi(APIView):
    @extend_schema(operation_id="tournaments_read", tags=["tournaments"], responses={200: TournamentSerializer, 404: P})
    def get(self, request: Request, tournament_id: str) -> Response:
        user = viewer(request)
        return Response(tournament_json(selectors.tournament_get(tournament_id, user), user))


class TournamentJoinApi(APIView):
    rate_scopes = {"POST": "create"}

    @extend_schema(
        operation_id="tournaments_join",
        tags=["tournaments"],
        request=None,
        responses={200: TournamentSerializer, 401: P, 403: P, 404: P, 409: P},
        description="Enter the tournament. `409 tournament_full`, `409 tournament_started`, `409 already_entered`; "
        "`403` for an invitation-only tournament, unmet `conditions` (listed) or a no-show ban "
        "(`tournament_banned`, with `until`). The last entry of a tournament that starts when full starts it.",
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        user = caller(request)
        t = services.join(tournament_id=tournament_id, user=user)
        return Response(tournament_json(selectors.tournament_get(t.id, user), user))


class TournamentWithdrawApi(APIView):
    @extend_schema(
        operation_id="tournaments_withdraw",
        tags=["tournaments"],
        request=None,
        responses={200: TournamentSerializer, 401: P, 404: P, 409: P},
        description="Leave the tournament. Before the start the entry is gone; once running, your live matches in "
        "it are resigned (a table of two is lost, a larger table plays on without you) and you are paired no more.",
    )
    def post(self, request: Request, tournament_id: str) -> Response:
        user = caller(request)
        t = services.withdraw(tournament_id=tournament_id, user=user)
        return Response(tournament_json(selectors.tournament_get(t.id, user), user))


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    seed = serializers.IntegerField(allow_null=True)
    points = serializers.FloatField()
    buchholz = serializers.FloatField(help_text="The sum, over your tables, of your opponents' mean final points.")
    sonneborn_berger = serializers.FloatField(
        help_text="Buchholz, each table weighted by your share of its top points."
    )
    played = serializers.IntegerField()
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="How often you sat in each seat.")
    byes = serializers.IntegerField()
    withdrawn = serializers.BooleanField()


class TournamentStandingsApi(APIView):
    @extend_schema(
        operation_id="tournaments_standings",
        tags=["tournaments"],
        responses={200: StandingSerializer(many=True), 404: P},
        description="Ranked by points, then Buchholz, then Sonneborn–Berger (elimination: by the round one went "
        "out in, then seed). Finished tables only.",
    )
    def get(self, request: Request, tournament_id: str) -> Response:
        t = selectors.tournament_get(tournament_id, viewer(request))
        rows = [{k: v for k, v in r.items() if k != "user_id"} for r in selectors.standings(t)]
        return Response(rows)


RoundSerializer = inline_serializer(
    "TournamentRound",
    {
        "number": serializers.IntegerField(),
        "paired_at": serializers.DateTimeField(),
        "deadline": serializers.DateTimeField(),
        "finished_at": serializers.DateTimeField(allow_null=True),
        "pairing_ms": serializers.FloatField(help_text="How long the server took to pair it."),
        "tables": inline_serializer(
            "TournamentTable",
            {
                "index": serializers.IntegerField(),
                "match": serializers.CharField(),
                "status": serializers.CharField(),
                "seats": serializers.ListField(child=serializers.CharField(), help_text="Usernames, seat 0 first."),
                "points": serializers.ListField(
                    child=serializers.FloatField(), allow_null=True, help_text="By seat, once finished."
                ),
                "adjudicated": serializers.BooleanField(),
                "finished_at": serializers.DateTimeField(allow_null=True),
            },
            many=True,
        ),
        "byes": inline_serializer(
            "TournamentBye", {"username": serializers.CharField(), "points": serializers.FloatField()}, many=True
        ),
    },
)


class TournamentRoundApi(APIView):
    @extend_schema(operation_id="tournaments_round", tags=["tournaments"], responses={200: RoundSerializer, 404: P})
    def get(self, request: Request, tournament_id: str, number: str) -> Response:
        t = selectors.tournament_get(tournament_id, viewer(request))
        return Response(selectors.round_detail(t, int(number)))


class MeTournamentsApi(APIView):
    @extend_schema(
        operation_id="me_tournaments",
        tags=["tournaments"],
        responses={200: TournamentSerializer(many=True), 401: P},
        description="The tournaments you entered, the latest first (at most 100), each with your next match.",
    )
    def get(self, request: Request) -> Response:
        user = caller(request)
        return Response([tournament_json(t, user) for t in selectors.mine(user)[:100]])
