"""Proposals: agreements the seats vote on (docs/api.md, *Proposals*; the service is
`games.services.agreements`). Undo is `matches.MatchUndoApi`."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.authentication import caller
from api.serializers import ProblemSerializer
from games.services import agreements

P = ProblemSerializer


class ProposalSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    kind = serializers.ChoiceField(choices=agreements.KINDS, read_only=True)
    by = serializers.IntegerField(read_only=True, help_text="The proposer's seat.")
    status = serializers.ChoiceField(choices=["open", "passed", "rejected", "expired", "withdrawn"], read_only=True)
    needed = serializers.ListField(
        child=serializers.IntegerField(), read_only=True, help_text="Seats whose yes it takes."
    )
    votes = serializers.DictField(child=serializers.BooleanField(), read_only=True, help_text="By seat: yes or no.")
    created_at = serializers.DateTimeField(read_only=True)
    expires_at = serializers.DateTimeField(read_only=True)
    # The members of one kind only: not read-only, so that the schema does not call them always there.
    to_seq = serializers.IntegerField(required=False, help_text="`takeback`: back to this record.")
    seat = serializers.IntegerField(required=False, help_text="`concede_to`, `extend`: the seat.")
    until = serializers.DateTimeField(required=False, help_text="`pause`: until when.")
    seconds = serializers.IntegerField(required=False, help_text="`extend`: how much more time.")


class ProposalInputSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=agreements.KINDS)
    to_seq = serializers.IntegerField(required=False, help_text="`takeback`: the record to go back to.")
    seat = serializers.IntegerField(required=False, help_text="`concede_to`: the winner; `extend`: whose clock.")
    until = serializers.DateTimeField(required=False, help_text="`pause`: when the clocks run again.")
    seconds = serializers.IntegerField(required=False, help_text="`extend`: seconds to add.")


class ProposalListApi(APIView):
    @extend_schema(
        operation_id="matches_proposals_list",
        tags=["play"],
        parameters=[OpenApiParameter("status", OpenApiTypes.STR, enum=["open", "all"], required=False)],
        responses={200: ProposalSerializer(many=True), 400: P, 401: P, 404: P},
    )
    def get(self, request: Request, match_id: str) -> Response:
        wanted = request.query_params.get("status", "open")
        if wanted not in ("open", "all"):
            raise serializers.ValidationError({"status": [_('Must be "open" or "all".')]})
        return Response(agreements.proposal_list(match_id=match_id, user=caller(request), status=wanted))

    @extend_schema(
        operation_id="matches_proposals_create",
        tags=["play"],
        request=ProposalInputSerializer,
        responses={201: ProposalSerializer, 400: P, 401: P, 403: P, 404: P, 409: P, 422: P},
        examples=[OpenApiExample("a draw", {"kind": "draw"}, request_only=True)],
        description="Put an agreement to the seats: `takeback {to_seq}`, `draw`, `concede_to {seat}`, `cancel`, "
        "`pause {until}`, `extend {seat, seconds}`. It passes once every needed seat said yes (an opponent's "
        "`extend` at once). `422 takeback_unsafe` names the record a takeback cannot cross.",
    )
    def post(self, request: Request, match_id: str) -> Response:
        ProposalInputSerializer(data=request.data).is_valid(raise_exception=True)
        answer = agreements.proposal_create(match_id=match_id, user=caller(request), body=dict(request.data))
        return Response(answer, status=status.HTTP_201_CREATED)


class ProposalVoteApi(APIView):
    class InputSerializer(serializers.Serializer):
        accept = serializers.BooleanField()

    @extend_schema(
        operation_id="matches_proposals_vote",
        tags=["play"],
        request=InputSerializer,
        responses={200: ProposalSerializer, 400: P, 401: P, 403: P, 404: P, 409: P},
    )
    def put(self, request: Request, match_id: str, pid: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer = agreements.proposal_vote(
            match_id=match_id, user=caller(request), pid=int(pid), accept=data.validated_data["accept"]
        )
        return Response(answer)


class ProposalDetailApi(APIView):
    @extend_schema(
        operation_id="matches_proposals_withdraw",
        tags=["play"],
        request=None,
        responses={204: None, 401: P, 403: P, 404: P, 409: P},
    )
    def delete(self, request: Request, match_id: str, pid: str) -> Response:
        agreements.proposal_withdraw(match_id=match_id, user=caller(request), pid=int(pid))
        return Response(status=status.HTTP_204_NO_CONTENT)
