"""``GET games/{game}/components``: a game's printed components, for clients that draw them.

Added for the web client (issue 14): Ecos' views name cards by id (``brn-17``) only, while a
client must show a card's name, its element slots, its uses and its text. This is the public,
printed card list of ``rules/ecos/cards.json`` (never a deck order, a hand or the seed).
The other games' components are all in their views, so they answer ``{"game": …}`` only.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from django.http import HttpResponse
from django.utils.translation import get_language, gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

import languages
from api.serializers import ProblemSerializer
from core.errors import InvalidRequest, NotFound
from rules import RULES
from rules.ecos import cards as ecos_cards

PRINTED = ("id", "name", "back", "leaves", "slots", "effects")  # what is on a card (not `preset`/`active`)


@cache
def _components(game: str) -> dict[str, Any]:
    if game == "ecos":
        data = json.loads(ecos_cards.CARD_FILE.read_text(encoding="utf-8"))
        return {"game": game, "cards": [{k: card[k] for k in PRINTED} for card in data["cards"]]}
    return {"game": game}


class GameComponentsApi(APIView):
    permission_classes = [AllowAny]  # printed components are public, like the catalogue

    @extend_schema(
        operation_id="games_components",
        tags=["games"],
        responses={200: OpenApiTypes.OBJECT, 404: ProblemSerializer},
        description="A game's printed components (Ecos: `cards`, each with id, name, back, leaves, slots, effects).",
    )
    def get(self, request: Request, game: str) -> Response:
        if game not in RULES:
            raise NotFound(gettext("No game %(game)r.") % {"game": game})
        return Response(_components(game))


def _language(value: str | None, *, what: str) -> str:
    code = languages.normalize(value) if value else None
    if code is None or (value and value.lower() != code):
        raise InvalidRequest(
            gettext("%(what)s must be one of %(codes)s.") % {"what": what, "codes": ", ".join(languages.CODES)}
        )
    return code


class GameCatalogueApi(APIView):
    """A game's words in one language (issue 33), so that any client can say every move, effect,
    component and refusal from codes alone: keys such as ``move.play``, ``event.<type>``,
    ``reason.<code>`` (an ``illegal_move``'s ``reason``, its ``params`` as the placeholders) and
    Ecos' ``card.<id>.name``/``.text``. A message is a string with ``{name}`` placeholders or an
    object of CLDR plural categories chosen by the ``count`` parameter."""

    permission_classes = [AllowAny]  # printed words, as public as the rules

    @extend_schema(
        operation_id="games_i18n",
        tags=["games"],
        responses={200: OpenApiTypes.OBJECT, 404: ProblemSerializer},
        description="A game's catalogue in `en`, `pl` or `es`: `{game, language, plural_categories, messages}`.",
    )
    def get(self, request: Request, game: str, language: str) -> Response:
        if game not in RULES:
            raise NotFound(gettext("No game %(game)r.") % {"game": game})
        if language not in languages.CODES:
            raise NotFound(
                gettext("No language %(language)r: the catalogues are en, pl and es.") % {"language": language}
            )
        try:
            messages = languages.catalogue(game, language)
        except FileNotFoundError:
            raise NotFound(gettext("No catalogue for %(game)r.") % {"game": game}) from None
        body = {
            "game": game,
            "language": language,
            "plural_categories": languages.plural_categories(language),
            "messages": messages,
        }
        response = Response(body, headers={"Content-Language": language, "Cache-Control": "public, max-age=300"})
        return response


class GameRulesApi(APIView):
    """A game's rules page for players (issue 33): Markdown, or an HTML fragment whose pictures are
    the board's own components (the web client's rules pages show it)."""

    permission_classes = [AllowAny]

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        # `?format=` is the page's (markdown or html), not DRF's renderer override, which would 404 on it.
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        operation_id="games_rules",
        tags=["games"],
        parameters=[
            OpenApiParameter("lang", str, enum=list(languages.CODES), description="By default the request's language."),
            OpenApiParameter("format", str, enum=["markdown", "html"], description="`markdown` by default."),
        ],
        responses={
            (200, "text/markdown"): OpenApiTypes.STR,
            (200, "text/html"): OpenApiTypes.STR,
            400: ProblemSerializer,
            404: ProblemSerializer,
        },
    )
    def get(self, request: Request, game: str) -> HttpResponse:
        if game not in RULES:
            raise NotFound(gettext("No game %(game)r.") % {"game": game})
        asked = request.query_params.get("lang")
        language = _language(asked, what="lang") if asked is not None else languages.normalize(get_language()) or "en"
        kind = request.query_params.get("format", "markdown")
        if kind not in ("markdown", "html"):
            raise InvalidRequest(gettext("format must be markdown or html."))
        try:
            if kind == "html":
                from languages import markup  # Markdown and its extensions load with the first page

                body, media = markup.rules_html(game, language), "text/html"
            else:
                body, media = languages.rules_markdown(game, language), "text/markdown"
        except FileNotFoundError:
            raise NotFound(gettext("No rules page for %(game)r.") % {"game": game}) from None
        response = HttpResponse(body, content_type=f"{media}; charset=utf-8")
        response["Content-Language"] = language
        response["Cache-Control"] = "public, max-age=300"
        return response
