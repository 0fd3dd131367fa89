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

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.serializers import ProblemSerializer
from core.errors import NotFound
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
            raise NotFound(f"No game {game!r}.")
        return Response(_components(game))
