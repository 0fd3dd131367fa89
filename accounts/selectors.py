"""Read-side queries of accounts: tokens, leaderboards, rating histories."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts import usernames
from accounts.models import ApiToken, Rating, RatingChange, User


def token_list(user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-id")


Entry = tuple[int, float, int, str]  # rank, rating, rated games, username
_ENTRY = ("rank", "rating", "matches", "user__username")


def leaderboard_page(game: str, *, after: int = 0, limit: int = 50) -> list[Entry]:
    """Listed players of ``game`` ranked after ``after`` (a keyset cursor): an index range on (game, rank)."""
    return list(Rating.objects.filter(game=game, rank__gt=after).order_by("rank").values_list(*_ENTRY)[:limit])


def rating_of(game: str, username: str) -> Rating | None:
    """An active user's rating in ``game`` by username (NFKC, case-insensitive), in one query."""
    return (
        Rating.objects.filter(game=game, user__username_key=usernames.key(username), user__is_active=True)
        .select_related("user")
        .first()
    )


def leaderboard_around(game: str, mine: Rating | None, *, span: int = 5) -> list[Entry]:
    """The listed players ``span`` places either side of ``mine``: an index range on (game, rank)."""
    if mine is None or mine.rank is None:
        return []
    rows = Rating.objects.filter(game=game, rank__gte=max(1, mine.rank - span), rank__lte=mine.rank + span)
    return list(rows.order_by("rank").values_list(*_ENTRY))


def rating_history(user: User, game: str) -> QuerySet[RatingChange]:
    return RatingChange.objects.filter(user=user, game=game).order_by("at", "id")
