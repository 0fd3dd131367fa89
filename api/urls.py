"""/api/v1/… Every path answers with and without a trailing slash, with no redirect."""

from typing import Any

from django.urls import URLPattern, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from api.views import accounts, components, matches, players, root

ID = r"(?P<match_id>[A-Za-z0-9_-]+)"


def route(pattern: str, view: Any, name: str) -> URLPattern:
    return re_path(rf"^{pattern}/?$", view.as_view(), name=name)


urlpatterns = [
    re_path(r"^$", root.ApiRootApi.as_view(), name="api-root"),
    route("auth/register", accounts.AuthRegisterApi, "auth-register"),
    route("auth/token", accounts.AuthTokenApi, "auth-token"),
    route("auth/logout", accounts.AuthLogoutApi, "auth-logout"),
    route("me", accounts.MeApi, "me"),
    route("me/tokens", players.MeTokensApi, "me-tokens"),
    route(r"me/tokens/(?P<token_id>[0-9]{1,18})", players.MeTokenDetailApi, "me-token-detail"),
    route("me/password", players.MePasswordApi, "me-password"),
    route("me/invitations", players.MeInvitationsApi, "me-invitations"),
    route(r"users/(?P<username>[\w.@+-]+)", accounts.UserDetailApi, "user-detail"),
    route(r"users/(?P<username>[\w.@+-]+)/matches", players.UserMatchesApi, "user-matches"),
    route(r"users/(?P<username>[\w.@+-]+)/export", players.UserExportApi, "user-export"),
    route(r"users/(?P<username>[\w.@+-]+)/ratings/(?P<game>[\w-]+)", players.UserRatingsApi, "user-ratings"),
    route(r"leaderboards/(?P<game>[\w-]+)", players.LeaderboardApi, "leaderboard"),
    route(r"leaderboards/(?P<game>[\w-]+)/around/(?P<username>[\w.@+-]+)", players.LeaderboardAroundApi, "around"),
    route("invites", players.InviteCodeApi, "invites"),
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
    route(f"matches/{ID}/invitations", players.MatchInvitationsApi, "match-invitations"),
    route(f"matches/{ID}/decline", players.MatchDeclineApi, "match-decline"),
    route(f"matches/{ID}/rematch", players.MatchRematchApi, "match-rematch"),
    re_path(r"^schema/?$", SpectacularAPIView.as_view(), name="schema"),
    re_path(r"^docs/?$", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    re_path(r"^redoc/?$", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
]
