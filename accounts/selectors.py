"""Read-side queries of accounts: tokens, leaderboards, rating histories."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import ApiToken, Rating, RatingChange, User


def token_list(user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-id")


def leaderboard_page(game: str, *, after: int = 0, limit: int = 50) -> list[Rating]:
    """Listed players of ``game`` ranked after ``after`` (a keyset cursor): an index range on (game, rank)."""
    return list(
        Rating.objects.filter(game=game, rank__gt=after)
        .select_related("user")
        .only("rank", "rating", "matches", "user__username", "game")
        .order_by("rank")[:limit]
    )


def leaderboard_around(game: str, user: User, *, span: int = 5) -> tuple[Rating | None, list[Rating]]:
    """The user's rating and the listed players ``span`` places either side of them."""
    mine = Rating.objects.filter(game=game, user=user).first()
    if mine is None or mine.rank is None:
        return mine, []
    rows = (
        Rating.objects.filter(game=game, rank__gte=max(1, mine.rank - span), rank__lte=mine.rank + span)
        .select_related("user")
        .only("rank", "rating", "matches", "user__username", "game")
        .order_by("rank")
    )
    return mine, list(rows)


def rating_history(user: User, game: str) -> QuerySet[RatingChange]:
    return RatingChange.objects.filter(user=user, game=game).order_by("at", "id")
