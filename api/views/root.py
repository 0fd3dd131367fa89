"""``GET /api/v1/``: where everything is, for a client (or a person) starting from the root."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

#: (name, url name, what it is).
LINKS = [
    ("games", "game-list", "The game catalogue"),
    ("matches", "match-list", "Matches: list (filters game, status, player, mine, joinable) and create"),
    ("me", "me", "The caller's profile"),
    ("register", "auth-register", "Create an account and get a token"),
    ("token", "auth-token", "A token for a username and password"),
    ("schema", "schema", "The OpenAPI 3.1 document"),
    ("docs", "docs", "The browsable documentation (Swagger UI)"),
    ("redoc", "redoc", "The same document in ReDoc"),
    ("web", "web-client", "The web client: play in a browser"),
]


class LinkSerializer(serializers.Serializer):
    href = serializers.URLField()
    title = serializers.CharField()


class ApiRootSerializer(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.CharField()
    links = serializers.DictField(child=LinkSerializer(), help_text="By name: " + ", ".join(n for n, *_ in LINKS))


class ApiRootApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(operation_id="api_root", tags=["root"], responses={200: ApiRootSerializer})
    def get(self, request: Request) -> Response:
        links = {name: {"href": request.build_absolute_uri(reverse(url)), "title": title} for name, url, title in LINKS}
        return Response({"name": "Tabula API", "version": "v1", "links": links})


@extend_schema(exclude=True)  # documented once, as /api/v1/
class ApiRootWithoutSlashApi(ApiRootApi):
    """``GET /api/v1`` (config/urls.py): every path answers with and without its slash, with no redirect."""
