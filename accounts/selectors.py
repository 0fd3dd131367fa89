"""Read-side queries of accounts: tokens, leaderboards, rating histories."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from accounts import sql, usernames
from accounts.models import ApiToken, Rating, RatingChange, User, provisional


def token_list(user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-id")


Entry = tuple[int, float, int, str]  # rank, rating, rated games, username
_ENTRY = ("rank", "rating", "matches", "user__username")


def leaderboard_page(game: str, *, after: int = 0, limit: int = 50) -> list[Entry]:
    """Listed players of ``game`` ranked after ``after`` (a keyset cursor): an index range on (game, rank)."""
    return list(Rating.objects.filter(game=game, rank__gt=after).order_by("rank").values_list(*_ENTRY)[:limit])


@dataclass(frozen=True)
class Around:
    """A listed player's neighbourhood on a leaderboard: their rank (None while not listed), whether
    they are still provisional, and the entries ``span`` places either side, in rank order."""

    rank: int | None
    provisional: bool
    entries: list[Entry]


def leaderboard_around(game: str, username: str, *, span: int = 5) -> Around | None:
    """The active user ``username`` (NFKC, case-insensitive) on ``game``'s leaderboard and the
    players ``span`` places either side (an index range on (game, rank)), in one statement; None
    when they have no rating in ``game`` (or no such active user)."""
    found = sql.around(game, usernames.key(username), span)
    if found is None:
        return None
    rank, matches, entries = found
    return Around(rank, provisional(matches), entries)


def rating_history(user: User, game: str) -> QuerySet[RatingChange]:
    return RatingChange.objects.filter(user=user, game=game).order_by("at", "id")
