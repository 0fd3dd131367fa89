"""``me/away``: go away without losing (docs/api.md, *Away*; the service is `games.services.away`)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.authentication import caller
from api.serializers import ProblemSerializer
from games.services import away

P = ProblemSerializer


class AwaySerializer(serializers.Serializer):
    active = serializers.BooleanField(read_only=True, help_text="An absence is running.")
    until = serializers.DateTimeField(read_only=True, allow_null=True, help_text="When it ends; null when none runs.")
    balance_s = serializers.IntegerField(read_only=True, help_text="Seconds of absence left to spend.")
    auto = serializers.BooleanField(read_only=True, help_text="The running absence was started by auto-away.")


class MeAwayApi(APIView):
    class InputSerializer(serializers.Serializer):
        until = serializers.DateTimeField(help_text="When the absence ends (at least the minimum, at most a year).")

    @extend_schema(operation_id="me_away_read", tags=["accounts"], responses={200: AwaySerializer, 401: P})
    def get(self, request: Request) -> Response:
        return Response(AwaySerializer(away.away_status(caller(request))).data)

    @extend_schema(
        operation_id="me_away_start",
        tags=["accounts"],
        request=InputSerializer,
        responses={200: AwaySerializer, 400: P, 401: P, 409: P, 422: P},
        description="Start an absence now (or move the end of the running one). Your seats' clocks freeze "
        "in every match whose `time_control.away` is `allowed`. `422 away_too_long` names the latest "
        "`max_until` your balance allows; `409 away_not_now` says why not now (`reason`).",
    )
    def put(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        state = away.away_start(user=caller(request), until=data.validated_data["until"])
        return Response(AwaySerializer(state).data)

    @extend_schema(
        operation_id="me_away_end",
        tags=["accounts"],
        request=None,
        responses={204: None, 401: P},
        description="End the absence now: the clocks run again and unused time stays in the balance.",
    )
    def delete(self, request: Request) -> Response:
        away.away_end(user=caller(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
