"""The caller's turns and inbox, stream tickets, webhooks, and the e-mail unsubscribe endpoint."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.authentication import caller, current_token
from api.exceptions import PROBLEM, problem
from api.params import query_int
from api.serializers import OutputModelSerializer, ProblemSerializer
from games import notices
from notify import inbox, mail, webhooks
from notify.models import Delivery, StreamTicket, Webhook

P = ProblemSerializer


class TurnSerializer(serializers.Serializer):
    match = serializers.CharField()
    game = serializers.CharField()
    version = serializers.IntegerField()
    seat = serializers.IntegerField()
    deadline = serializers.DateTimeField(allow_null=True)
    waiting_since = serializers.DateTimeField()


class NotificationSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The caller's own number for this entry (the stream's `id:`).")
    type = serializers.CharField(
        help_text="your_turn, match_started, match_finished, clock_low, timed_out, bot_took_over, invited, "
        "webhook_disabled…"
    )
    match = serializers.CharField(allow_null=True)
    payload = serializers.JSONField(help_text="Shows only what the caller's seat may see (as `events`).")
    at = serializers.DateTimeField()


class TurnListApi(APIView):
    @extend_schema(operation_id="me_turns", tags=["notifications"], responses={200: TurnSerializer(many=True), 401: P})
    def get(self, request: Request) -> Response:
        return Response(notices.turns(caller(request)))


class NotificationListApi(APIView):
    @extend_schema(
        operation_id="me_notifications",
        tags=["notifications"],
        parameters=[
            OpenApiParameter("after", OpenApiTypes.INT, description="Only entries after this id (default 0)."),
            OpenApiParameter("limit", OpenApiTypes.INT, description="At most this many (default 100, at most 500)."),
            OpenApiParameter(
                "Link",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                response=[200],
                description='`<…/notifications?after=N&limit=M>; rel="next"` when more entries follow.',
            ),
        ],
        responses={200: NotificationSerializer(many=True), 400: P, 401: P},
    )
    def get(self, request: Request) -> Response:
        after = query_int(request, "after", 0, 0, 2**31)
        limit = query_int(request, "limit", 100, 1, 500)
        rows = inbox.inbox(caller(request), after=after, limit=limit + 1)
        headers = {}
        if len(rows) > limit:
            rows = rows[:limit]
            query = urlencode({"after": rows[-1].seq, "limit": limit})
            headers["Link"] = f'<{request.build_absolute_uri(request.path)}?{query}>; rel="next"'
        return Response([n.to_json() for n in rows], headers=headers)


class TicketSerializer(serializers.Serializer):
    ticket = serializers.CharField(help_text="Pass as `?ticket=` on a stream path; single use.")
    expires_at = serializers.DateTimeField()


class StreamTicketApi(APIView):
    @extend_schema(
        operation_id="me_stream_tickets",
        tags=["notifications"],
        request=None,
        responses={201: TicketSerializer, 401: P},
    )
    def post(self, request: Request) -> Response:
        expires = timezone.now() + timedelta(seconds=settings.TABULA_STREAM_TICKET_TTL_S)
        StreamTicket.objects.filter(expires_at__lt=timezone.now()).delete()
        ticket = StreamTicket.objects.create(
            key=secrets.token_urlsafe(32), user=caller(request), token=current_token(request), expires_at=expires
        )
        return Response({"ticket": ticket.key, "expires_at": expires.isoformat()}, status=status.HTTP_201_CREATED)


class WebhookSerializer(OutputModelSerializer):
    class Meta:
        model = Webhook
        fields = ["id", "url", "events", "format", "active", "disabled_reason", "created_at"]


class WebhookCreatedSerializer(WebhookSerializer):
    secret = serializers.CharField(help_text="`whsec_…`: shown once, here. Verify deliveries with it.")

    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]


class WebhookCreateSerializer(serializers.Serializer):
    url = serializers.URLField(max_length=2000)
    events = serializers.ListField(child=serializers.CharField(max_length=32), required=False, max_length=20)
    format = serializers.ChoiceField(choices=Webhook.Format.values, required=False, default="standard")


class DeliverySerializer(serializers.Serializer):
    msg_id = serializers.CharField(help_text="The `webhook-id` header: the same on every retry.")
    type = serializers.CharField()
    status = serializers.ChoiceField(choices=Delivery.Status.values)
    attempts = serializers.IntegerField(min_value=0)
    last_status = serializers.IntegerField(allow_null=True, help_text="The receiver's last HTTP status.")
    last_error = serializers.CharField(allow_blank=True)
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    delivered_at = serializers.DateTimeField(allow_null=True)


class WebhookListCreateApi(APIView):
    @extend_schema(operation_id="me_webhooks_list", tags=["webhooks"], responses={200: WebhookSerializer(many=True)})
    def get(self, request: Request) -> Response:
        hooks = Webhook.objects.filter(user=caller(request))
        return Response(WebhookSerializer(hooks, many=True).data)

    @extend_schema(
        operation_id="me_webhooks_create",
        tags=["webhooks"],
        request=WebhookCreateSerializer,
        responses={201: WebhookCreatedSerializer, 400: P},
    )
    def post(self, request: Request) -> Response:
        given = WebhookCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data: dict[str, Any] = given.validated_data
        hook = webhooks.webhook_create(
            user=caller(request), url=data["url"], events=data.get("events"), format=data["format"]
        )
        return Response(WebhookCreatedSerializer(hook).data, status=status.HTTP_201_CREATED)


class WebhookDetailApi(APIView):
    @extend_schema(operation_id="me_webhooks_delete", tags=["webhooks"], responses={204: None, 404: P})
    def delete(self, request: Request, webhook_id: str) -> Response:
        webhooks.webhook_get(caller(request), webhook_id).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveriesApi(APIView):
    @extend_schema(
        operation_id="me_webhooks_deliveries", tags=["webhooks"], responses={200: DeliverySerializer(many=True), 404: P}
    )
    def get(self, request: Request, webhook_id: str) -> Response:
        hook = webhooks.webhook_get(caller(request), webhook_id)
        return Response(DeliverySerializer(hook.deliveries.all()[:100], many=True).data)


class WebhookTestApi(APIView):
    @extend_schema(
        operation_id="me_webhooks_test", tags=["webhooks"], request=None, responses={202: DeliverySerializer, 404: P}
    )
    def post(self, request: Request, webhook_id: str) -> Response:
        hook = webhooks.webhook_get(caller(request), webhook_id)
        delivery = webhooks.test_send(hook)
        return Response(DeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)


@csrf_exempt
def email_unsubscribe(request: HttpRequest) -> HttpResponse:
    """RFC 8058 one-click unsubscribe: POST turns the e-mail off; GET shows a button that does."""
    token = request.GET.get("token", "")
    if request.method == "POST":
        outcome = mail.unsubscribe(token)
        if outcome == "ok":
            return HttpResponse(_("Unsubscribed.") + "\n", status=200, content_type="text/plain")
        if outcome == "expired":
            days = settings.TABULA_UNSUBSCRIBE_MAX_AGE_S // 86400
            body = problem(
                400,
                "link_expired",
                _("Link expired"),
                ngettext(
                    "This unsubscribe link is older than %(days)s day; use a newer mail's.",
                    "This unsubscribe link is older than %(days)s days; use a newer mail's.",
                    days,
                )
                % {"days": days},
            )
        else:
            body = problem(400, "invalid_link", _("Invalid link"), _("This unsubscribe link is not valid."))
        return JsonResponse(body, status=400, content_type=PROBLEM)
    if request.method != "GET":
        return HttpResponse(status=405)
    title, question = escape(_("Unsubscribe")), escape(_("Stop the Tabula “your turn” e-mails?"))
    page = f"<!doctype html><title>{title}</title><form method=post><p>{question}</p><button>{title}</button></form>"
    return HttpResponse(page, content_type="text/html")
