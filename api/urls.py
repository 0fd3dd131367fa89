"""/api/v1/… Every path answers with and without a trailing slash, with no redirect."""

from typing import Any

from django.urls import URLPattern, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from api import streams
from api.views import accounts, components, matches, notifications, root

ID = r"(?P<match_id>[A-Za-z0-9_-]+)"
WH = r"(?P<webhook_id>[A-Za-z0-9_-]+)"


def route(pattern: str, view: Any, name: str) -> URLPattern:
    return re_path(rf"^{pattern}/?$", view.as_view(), name=name)


urlpatterns = [
    re_path(r"^$", root.ApiRootApi.as_view(), name="api-root"),
    route("auth/register", accounts.AuthRegisterApi, "auth-register"),
    route("auth/token", accounts.AuthTokenApi, "auth-token"),
    route("auth/logout", accounts.AuthLogoutApi, "auth-logout"),
    route("me", accounts.MeApi, "me"),
    route(r"users/(?P<username>[\w.@+-]+)", accounts.UserDetailApi, "user-detail"),
    route("games", matches.GameListApi, "game-list"),
    route(r"games/(?P<game>[\w-]+)", matches.GameDetailApi, "game-detail"),
    route(r"games/(?P<game>[\w-]+)/components", components.GameComponentsApi, "game-components"),
    route("matches", matches.MatchListCreateApi, "match-list"),
    route(f"matches/{ID}", matches.MatchDetailApi, "match-detail"),
    route(f"matches/{ID}/join", matches.MatchJoinApi, "match-join"),
    route(f"matches/{ID}/leave", matches.MatchLeaveApi, "match-leave"),
    route(f"matches/{ID}/resign", matches.MatchResignApi, "match-resign"),
    route(f"matches/{ID}/bots", matches.MatchBotAddApi, "match-bots"),
    route(f"matches/{ID}/state", matches.MatchStateApi, "match-state"),
    route(f"matches/{ID}/moves", matches.MoveSubmitApi, "match-moves"),
    route(f"matches/{ID}/events", matches.EventListApi, "match-events"),
    route(f"matches/{ID}/export", matches.MatchExportApi, "match-export"),
    route("me/turns", notifications.TurnListApi, "me-turns"),
    route("me/notifications", notifications.NotificationListApi, "me-notifications"),
    route("me/stream-tickets", notifications.StreamTicketApi, "me-stream-tickets"),
    route("me/webhooks", notifications.WebhookListCreateApi, "me-webhooks"),
    route(f"me/webhooks/{WH}", notifications.WebhookDetailApi, "me-webhook"),
    route(f"me/webhooks/{WH}/deliveries", notifications.WebhookDeliveriesApi, "me-webhook-deliveries"),
    route(f"me/webhooks/{WH}/test", notifications.WebhookTestApi, "me-webhook-test"),
    re_path(r"^me/stream/?$", streams.me_stream, name="me-stream"),
    re_path(rf"^matches/{ID}/stream/?$", streams.match_stream, name="match-stream"),
    re_path(r"^email/unsubscribe/?$", notifications.email_unsubscribe, name="email-unsubscribe"),
    re_path(r"^schema/?$", SpectacularAPIView.as_view(), name="schema"),
    re_path(r"^docs/?$", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    re_path(r"^redoc/?$", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
]
