"""Table talk: chat, private notes, nudges and chat moderation (docs/api.md, *Table talk*; the
services are `talk`)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.authentication import caller
from api.params import query_int
from api.serializers import ProblemSerializer
from api.views.matches import INVITE_CODE, invite_code
from games.models import Match
from talk import chat, moderation, notes, nudges

P = ProblemSerializer
CHANNEL = serializers.ChoiceField(choices=chat.CHANNELS)


class ChatMessageSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The message's number in its match and channel, from 1.")
    channel = serializers.ChoiceField(choices=chat.CHANNELS)
    seat = serializers.IntegerField(allow_null=True, help_text="The author's seat; null for a spectator or staff.")
    author = serializers.CharField(help_text='A username, or "deleted player".')
    text = serializers.CharField(allow_blank=True, help_text="Empty when staff hid the message.")
    at = serializers.DateTimeField()
    to = serializers.IntegerField(allow_null=True, help_text="A whisper: the one seat it is for; else null.")
    hidden = serializers.BooleanField(help_text="Staff hid it: its text is gone for everyone but staff.")
    flagged = serializers.BooleanField(required=False, help_text="Staff only: the word list matched.")
    hidden_reason = serializers.CharField(required=False, help_text="Staff only: why it was hidden.")


class ChatPageSerializer(serializers.Serializer):
    messages = ChatMessageSerializer(many=True)
    read = serializers.IntegerField(help_text="How far you have read this channel (`PUT chat/read`).")


class ChatApi(APIView):
    rate_scopes = {"POST": "chat"}

    class InputSerializer(serializers.Serializer):
        channel = CHANNEL
        text = serializers.CharField(help_text="1 to 1,000 characters after trimming; no control characters.")
        to = serializers.IntegerField(
            required=False,
            allow_null=True,
            help_text="`table` only: whisper to this seat (not in rated matches of 3+).",
        )

    @extend_schema(
        operation_id="matches_chat_list",
        tags=["talk"],
        parameters=[
            INVITE_CODE,
            OpenApiParameter("channel", OpenApiTypes.STR, enum=list(chat.CHANNELS), description="Default `table`."),
            OpenApiParameter("after", OpenApiTypes.INT, description="Only messages after this seq (default 0)."),
            OpenApiParameter("limit", OpenApiTypes.INT, description="At most this many (default 100, at most 200)."),
            OpenApiParameter(
                "Link",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                response=[200],
                description='`<…/chat?channel=C&after=N&limit=M>; rel="next"` when more messages follow.',
            ),
        ],
        responses={200: ChatPageSerializer, 400: P, 401: P, 403: P, 404: P},
    )
    def get(self, request: Request, match_id: str) -> Response:
        params = request.query_params
        after = query_int(request, "after", 0, 0, 2**31)
        limit = query_int(request, "limit", 100, 1, 200)
        channel = params.get("channel", "table")
        page = chat.chat_list(
            match_id=match_id,
            user=caller(request),
            channel=channel,
            after=after,
            limit=limit,
            code=invite_code(request),
        )
        headers = {}
        if page.more:
            query = urlencode({"channel": channel, "after": page.last_seq, "limit": limit})
            headers["Link"] = f'<{request.build_absolute_uri(request.path)}?{query}>; rel="next"'
        return Response({"messages": page.messages, "read": page.read or 0}, headers=headers)

    @extend_schema(
        operation_id="matches_chat_post",
        tags=["talk"],
        request=InputSerializer,
        responses={201: ChatMessageSerializer, 400: P, 401: P, 403: P, 404: P, 409: P, 429: P},
        examples=[OpenApiExample("to the table", {"channel": "table", "text": "Good luck!"}, request_only=True)],
        description="Say something. `table`: the seated players and staff; `spectators`: those who watch (never "
        "the players while the match is live); `sealed`: yours alone until the match ends. Never changes the "
        "match's `version`. `403 muted` carries `until`; `409 whispers_not_allowed` in a rated match of three or more.",
    )
    def post(self, request: Request, match_id: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        message = chat.chat_post(
            match_id=match_id, user=caller(request), channel=v["channel"], text=v["text"], to=v.get("to")
        )
        return Response(message, status=status.HTTP_201_CREATED)


class ChatReadApi(APIView):
    class InputSerializer(serializers.Serializer):
        channel = CHANNEL
        seq = serializers.IntegerField(min_value=0, max_value=2**31 - 1, help_text="The last message you have read.")

    @extend_schema(
        operation_id="matches_chat_read",
        tags=["talk"],
        request=InputSerializer,
        responses={204: None, 400: P, 401: P, 404: P},
        examples=[OpenApiExample("read", {"channel": "table", "seq": 3}, request_only=True)],
        description="Mark a channel read up to `seq`: the match's unread `chat` inbox entry is done, and the next "
        "message writes a new one.",
    )
    def put(self, request: Request, match_id: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        chat.chat_read(match_id=match_id, user=caller(request), channel=v["channel"], seq=v["seq"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=200)


class ChatReportApi(APIView):
    @extend_schema(
        operation_id="matches_chat_report",
        tags=["talk"],
        request=ReasonSerializer,
        responses={202: None, 400: P, 401: P, 404: P},
        examples=[OpenApiExample("report", {"reason": "insults"}, request_only=True)],
        description="Report a message you can read, for staff review (once per message).",
    )
    def post(self, request: Request, match_id: str, channel: str, seq: str) -> Response:
        data = ReasonSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        chat.chat_report(
            match_id=match_id, user=caller(request), channel=channel, seq=int(seq), reason=data.validated_data["reason"]
        )
        return Response(status=status.HTTP_202_ACCEPTED)


class ChatHideApi(APIView):
    @extend_schema(
        operation_id="matches_chat_hide",
        tags=["moderation"],
        request=ReasonSerializer,
        responses={200: ChatMessageSerializer, 400: P, 401: P, 403: P, 404: P},
        examples=[OpenApiExample("hide", {"reason": "insults"}, request_only=True)],
        description="Staff: hide a message (the text gone for everyone else; the audit keeps who and why).",
    )
    def post(self, request: Request, match_id: str, channel: str, seq: str) -> Response:
        data = ReasonSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user, reason = caller(request), data.validated_data["reason"]
        answer = chat.chat_hide(match_id=match_id, user=user, channel=channel, seq=int(seq), reason=reason, hidden=True)
        return Response(answer)

    @extend_schema(
        operation_id="matches_chat_unhide",
        tags=["moderation"],
        responses={200: ChatMessageSerializer, 401: P, 403: P, 404: P},
        description="Staff: show a hidden message again (audited).",
    )
    def delete(self, request: Request, match_id: str, channel: str, seq: str) -> Response:
        user = caller(request)
        answer = chat.chat_hide(
            match_id=match_id, user=user, channel=channel, seq=int(seq), reason="shown", hidden=False
        )
        return Response(answer)


class NotesApi(APIView):
    class NotesSerializer(serializers.Serializer):
        text = serializers.CharField(allow_blank=True, max_length=10_000, help_text="At most 10,000 characters.")
        updated_at = serializers.DateTimeField(read_only=True, allow_null=True)

    @extend_schema(
        operation_id="matches_notes_read",
        tags=["talk"],
        responses={200: NotesSerializer, 401: P, 404: P},
        description="Your private notes on this match: yours alone, shown nowhere else.",
    )
    def get(self, request: Request, match_id: str) -> Response:
        return Response(notes.note_get(match_id=match_id, user=caller(request)))

    @extend_schema(
        operation_id="matches_notes_write",
        tags=["talk"],
        request=NotesSerializer,
        responses={200: NotesSerializer, 400: P, 401: P, 404: P},
        examples=[OpenApiExample("notes", {"text": "She keeps her 7s."}, request_only=True)],
        description="Replace your notes on this match; an empty text deletes them.",
    )
    def put(self, request: Request, match_id: str) -> Response:
        data = self.NotesSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(notes.note_put(match_id=match_id, user=caller(request), text=request.data["text"]))


class NudgesApi(APIView):
    class InputSerializer(serializers.Serializer):
        seat = serializers.IntegerField(min_value=0)

    class OutputSerializer(serializers.Serializer):
        seat = serializers.IntegerField()
        at = serializers.DateTimeField()

    @extend_schema(
        operation_id="matches_nudges_create",
        tags=["talk"],
        request=InputSerializer,
        responses={202: OutputSerializer, 400: P, 401: P, 403: P, 404: P, 409: P, 422: P},
        examples=[OpenApiExample("nudge", {"seat": 1}, request_only=True)],
        description="Remind a seat that has been awaited at least max(12 h, 25 % of its per-move time) and is not "
        "away. Once per turn and per 24 h: else `409 nudge_too_soon` with `retry_after` (seconds).",
    )
    def post(self, request: Request, match_id: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer = nudges.nudge(match_id=match_id, user=caller(request), seat=data.validated_data["seat"])
        return Response(answer, status=status.HTTP_202_ACCEPTED)


# --- moderation --------------------------------------------------------------------------------------


class QueueEntrySerializer(ChatMessageSerializer):
    flagged = serializers.BooleanField(help_text="The word list matched.")
    hidden_reason = serializers.CharField(allow_blank=True, help_text="Empty: not hidden.")
    match = serializers.CharField()
    reports = serializers.ListField(child=serializers.CharField(), help_text="The open reports' reasons.")


class ModerationQueueApi(APIView):
    @extend_schema(
        operation_id="moderation_chat_queue",
        tags=["moderation"],
        responses={200: QueueEntrySerializer(many=True), 401: P, 403: P},
        description="Staff: reported or flagged messages not yet dealt with, newest first.",
    )
    def get(self, request: Request) -> Response:
        return Response(chat.queue_json(caller(request)))


class MuteInputSerializer(serializers.Serializer):
    username = serializers.CharField()
    match = serializers.CharField(required=False, allow_null=True, help_text="Only in this match; omit: everywhere.")
    until = serializers.DateTimeField()
    reason = serializers.CharField(max_length=200)


class MuteSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    match = serializers.CharField(allow_null=True, help_text="Only in this match; null: everywhere.")
    until = serializers.DateTimeField()
    reason = serializers.CharField()


def _mute_json(mute: object) -> dict[str, object]:
    from talk.models import Mute

    assert isinstance(mute, Mute)
    return {
        "id": mute.pk,
        "username": mute.user.username,
        "match": mute.match_id,
        "until": mute.until.isoformat(),
        "reason": mute.reason,
    }


class ModerationMutesApi(APIView):
    @extend_schema(
        operation_id="moderation_mutes_list",
        tags=["moderation"],
        responses={200: MuteSerializer(many=True), 401: P, 403: P},
    )
    def get(self, request: Request) -> Response:
        return Response([_mute_json(m) for m in moderation.mutes(caller(request))])

    @extend_schema(
        operation_id="moderation_mutes_create",
        tags=["moderation"],
        request=MuteInputSerializer,
        responses={201: MuteSerializer, 400: P, 401: P, 403: P, 404: P},
        examples=[
            OpenApiExample(
                "a day", {"username": "ann", "until": "2030-01-01T00:00:00Z", "reason": "insults"}, request_only=True
            )
        ],
        description="Staff: a user may not chat until `until`, everywhere or in one `match`.",
    )
    def post(self, request: Request) -> Response:
        user = caller(request)
        moderation.require_staff(user)
        data = MuteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        match = None
        if v.get("match"):
            match = Match.objects.filter(id=v["match"]).first()
            if match is None:
                raise serializers.ValidationError({"match": [_("No such match.")]})
        mute = moderation.mute(by=user, username=v["username"], until=v["until"], reason=v["reason"], match=match)
        return Response(_mute_json(mute), status=status.HTTP_201_CREATED)


class ModerationMuteApi(APIView):
    @extend_schema(
        operation_id="moderation_mutes_end", tags=["moderation"], responses={204: None, 401: P, 403: P, 404: P}
    )
    def delete(self, request: Request, mute_id: str) -> Response:
        moderation.unmute(by=caller(request), mute_id=int(mute_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
