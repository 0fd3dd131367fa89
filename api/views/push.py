"""Web Push: the server's VAPID public key and the caller's push subscriptions (docs/notifications.md,
*Web Push*; the sender is `notify.push`)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.authentication import caller
from api.serializers import OutputModelSerializer, ProblemSerializer
from notify import push
from notify.models import PushSubscription

P = ProblemSerializer
EXAMPLE_KEYS = {
    "p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
    "auth": "tBHItJI5svbpez7KI4CCXg",
}


class VapidKeyApi(APIView):
    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        key = serializers.CharField(help_text="`applicationServerKey` for `PushManager.subscribe`: base64url.")

    @extend_schema(operation_id="push_vapid_key", tags=["push"], responses={200: OutputSerializer}, auth=[])
    def get(self, request: Request) -> Response:
        return Response({"key": push.public_key()})


class SubscriptionSerializer(OutputModelSerializer):
    class Meta:
        model = PushSubscription
        fields = ["id", "endpoint", "label", "created_at"]


class KeysSerializer(serializers.Serializer):
    p256dh = serializers.CharField(max_length=200, help_text="The browser's P-256 public key, base64url.")
    auth = serializers.CharField(max_length=64, help_text="The 16-byte authentication secret, base64url.")


class PushSubscriptionsApi(APIView):
    class InputSerializer(serializers.Serializer):
        endpoint = serializers.URLField(max_length=2000)
        keys = KeysSerializer()
        label = serializers.CharField(  # type: ignore[assignment]  # the field is named `label`
            max_length=100, required=False, allow_blank=True, default=""
        )

    @extend_schema(
        operation_id="me_push_subscriptions_list",
        tags=["push"],
        responses={200: SubscriptionSerializer(many=True), 401: P},
    )
    def get(self, request: Request) -> Response:
        rows = PushSubscription.objects.filter(user=caller(request))
        return Response(SubscriptionSerializer(rows, many=True).data)

    @extend_schema(
        operation_id="me_push_subscriptions_create",
        tags=["push"],
        request=InputSerializer,
        responses={200: SubscriptionSerializer, 201: SubscriptionSerializer, 400: P, 401: P, 409: P},
        examples=[
            OpenApiExample(
                "a browser",
                {"endpoint": "http://127.0.0.1:9/push/abc", "keys": EXAMPLE_KEYS, "label": "my phone"},
                request_only=True,
            )
        ],
        description="Subscribe a browser (what its `PushManager.subscribe` gave). `201` when new; `200` when the "
        "endpoint was subscribed already. At most 5 (`409 quota_exceeded`). An endpoint is `https://` to a public "
        "host (a loopback `http://` one under the development and test settings).",
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        row, created = push.subscribe(
            user=caller(request), endpoint=v["endpoint"], keys=dict(v["keys"]), label=v["label"]
        )
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(SubscriptionSerializer(row).data, status=code)


class PushSubscriptionDetailApi(APIView):
    @extend_schema(operation_id="me_push_subscriptions_delete", tags=["push"], responses={204: None, 401: P, 404: P})
    def delete(self, request: Request, subscription_id: str) -> Response:
        push.unsubscribe(user=caller(request), subscription_id=int(subscription_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
