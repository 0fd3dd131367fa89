"""Ratings: a finished match rates its human seats (OpenSkill), and the leaderboards store their ranks.

The rows are `accounts`' (``Rating``, ``RatingChange``: a user's figures, read by the leaderboards
and the profiles); what changes them is play, so it lives here, where a match is a `Match`.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from openskill.models import PlackettLuce

from accounts import sql as accounts_sql
from accounts.models import Rating, RatingChange
from games.models import Match

_MODEL = PlackettLuce(limit_sigma=True)  # sigma never grows: with the clamp below a loss never raises a rating
RATING_BASE = 1500.0
RATING_SCALE = RATING_BASE / _MODEL.mu  # a new player (mu − 3σ = 0) shows 1500; mu − 3σ = mu shows 3000


def displayed(mu: float, sigma: float) -> float:
    """The displayed rating: the conservative estimate ``mu − 3σ``, scaled so that a new player shows 1500."""
    return RATING_BASE + RATING_SCALE * (mu - 3 * sigma)


def ratings_update(match: Match) -> bool:
    """Rate a finished, rated match among its human seats (OpenSkill Plackett–Luce; ties share a rank).

    ``limit_sigma`` keeps sigma from growing, and a seat that lost to everyone rated never sees its
    displayed rating rise (mu is lowered to keep ``mu − 3σ`` where it was). Ranks are refreshed
    after the commit (``games.tasks.leaderboards_refresh``).
    """
    if not match.rated or not match.result:
        return False
    seats = {s.index: s for s in match.seats.select_related("user") if s.user_id and not s.bot}
    if len(seats) < 2:
        return False
    rank_of = {seat: i for i, group in enumerate(match.result["ranking"]) for seat in group}
    order = sorted(seats)
    ratings = {
        i: Rating.objects.select_for_update().get_or_create(
            user=seats[i].user, game=match.game, defaults={"mu": _MODEL.mu, "sigma": _MODEL.sigma}
        )[0]
        for i in order
    }
    teams = [[_MODEL.create_rating([ratings[i].mu, ratings[i].sigma], name=str(i))] for i in order]
    rated = _MODEL.rate(teams, ranks=[rank_of[i] for i in order])
    worst = max(rank_of[i] for i in order)
    now = timezone.now()
    for i, (new,) in zip(order, rated, strict=True):
        r = ratings[i]
        mu, sigma = new.mu, min(new.sigma, r.sigma)
        lost = rank_of[i] == worst and any(rank_of[j] < worst for j in order)
        if lost and mu - 3 * sigma > r.mu - 3 * r.sigma:
            mu = r.mu - 3 * r.sigma + 3 * sigma  # a loss never raises the displayed rating
        r.mu, r.sigma, r.matches, r.rated_at = mu, sigma, r.matches + 1, now
        r.rating = displayed(mu, sigma)
        r.save(update_fields=["mu", "sigma", "matches", "rated_at", "rating", "updated_at"])
        RatingChange.objects.create(
            user_id=r.user_id, game=match.game, match_id=match.id, mu=mu, sigma=sigma, rating=r.rating, at=now
        )
    return True


def leaderboard_refresh(game: str | None = None) -> int:
    """Store each listed player's rank (non-provisional, rated within the active window), in one
    statement per board (`accounts.sql.leaderboard_ranks`); players no longer listed lose theirs.
    Returns the rows changed."""
    since = timezone.now() - timedelta(days=settings.TABULA_LEADERBOARD_ACTIVE_DAYS)
    games = [game] if game else list(Rating.objects.values_list("game", flat=True).distinct())
    provisional = settings.TABULA_PROVISIONAL_GAMES
    return sum(accounts_sql.leaderboard_ranks(g, provisional=provisional, since=since) for g in games)
