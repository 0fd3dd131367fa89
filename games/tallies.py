"""Tallies: each player's finished public matches of each game (`games.models.Tally`), kept as each
match ends, so that a public profile reads a row per game rather than folding its whole history
(`selectors.user_profile`: a player of 425 matches cost 22 ms, and the cost grew with each match).

`count` is the step of `selectors.user_stats`'s fold, one match at a time: `tally_update` applies it
as a match ends, `rebuild` to every finished match again, in the order they finished (after an
operator deleted matches, or after bulk loads: ``manage.py tallies_rebuild``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import datetime
from typing import Any

from django.apps import apps as global_apps
from django.apps.registry import Apps
from django.db import connection, transaction

from games.models import Match, Seat, Tally
from games.selectors import outcome_of

#: What a match changes in a tally (the first match's fields are set once, when the row is made).
COUNTED = (
    "played",
    "won",
    "drawn",
    "lost",
    "winners",
    "placement_sum",
    "placement_count",
    "score_sum",
    "score_count",
    "current_streak",
    "longest_streak",
)

#: A player's finished match as `fold` reads it: (user id, game, match id, finished at, seat index, result).
Row = tuple[int, str, str, datetime | None, int, dict[str, Any] | None]


def count(tally: Tally, index: int, result: dict[str, Any] | None) -> None:
    """Add one finished match, where the player sat at ``index``, to ``tally``, as `user_stats`
    folds a row (a match with no outcome is a loss; a score counts only if it is a number)."""
    outcome = outcome_of(index, result) or "lost"
    result = result or {}
    tally.played += 1
    setattr(tally, outcome, getattr(tally, outcome) + 1)
    tally.winners += index in (result.get("winners") or [])
    tally.current_streak = tally.current_streak + 1 if outcome == "won" else 0
    tally.longest_streak = max(tally.longest_streak, tally.current_streak)
    ranking = result.get("ranking") or []
    place = next((i + 1 for i, group in enumerate(ranking) if index in group), None)
    if place is not None:
        tally.placement_sum += place
        tally.placement_count += 1
    scores = result.get("scores") or []
    if index < len(scores) and isinstance(scores[index], int | float):
        tally.score_sum += scores[index]
        tally.score_count += 1


def tally_update(match: Match) -> bool:
    """Count a match that has just ended in the tallies of the players seated at it, in the
    transaction that ended it (as `ratings.ratings_update`): only a finished public match, as only
    those are on a profile. Each tally is read ``FOR UPDATE`` (made if it is the player's first
    match of the game: of two transactions making it, the second reads the first's), in the order
    of the players' ids, so that two matches of the same players ending at once are both counted and
    never wait for each other crosswise. Whether any tally changed."""
    if match.status != Match.Status.FINISHED or match.private:
        return False
    seated = Seat.objects.filter(match_id=match.id, user_id__isnull=False).order_by("user_id")
    changed = False
    for user_id, index in seated.values_list("user_id", "index"):
        tally, _ = Tally.objects.select_for_update().get_or_create(
            user_id=user_id,
            game=match.game,
            defaults={"first_finished_at": match.finished_at, "first_match_id": match.id},
        )
        count(tally, index, match.result)
        tally.save(update_fields=COUNTED)
        changed = True
    return changed


def fold(rows: Iterable[Row], model: Any = Tally) -> dict[tuple[int, str], Any]:
    """The tallies of ``rows`` (in the order the matches finished) by (user id, game), unsaved:
    ``model`` is `Tally`, or its historical twin in a migration."""
    tallies: dict[tuple[int, str], Any] = {}
    for user_id, game, match_id, finished_at, index, result in rows:
        tally = tallies.get((user_id, game))
        if tally is None:
            tally = tallies[user_id, game] = model(
                user_id=user_id, game=game, first_finished_at=finished_at, first_match_id=match_id
            )
        count(tally, index, result)
    return tallies


def rebuild(user_ids: Collection[int] | None = None, *, apps: Apps = global_apps) -> int:
    """Recompute the tallies of ``user_ids`` (None: everyone's) from their finished public matches,
    in the order `selectors.finished_rows` reads them (finished at, then match id); a player with
    none keeps no row. ``apps``: a migration's models. The tallies replaced are locked first
    (PostgreSQL), so that a match ending meanwhile is counted after the rebuild rather than lost
    (one that is a player's first of its game may make the rebuild fail: run it again). The number
    of tallies written."""
    tally_model, seat_model = apps.get_model("games", "Tally"), apps.get_model("games", "Seat")
    tallies = tally_model.objects.all()
    seats = seat_model.objects.filter(
        user_id__isnull=False, match__status=Match.Status.FINISHED.value, match__private=False
    )
    if user_ids is not None:
        tallies, seats = tallies.filter(user_id__in=user_ids), seats.filter(user_id__in=user_ids)
    rows = seats.order_by("match__finished_at", "match_id").values_list(
        "user_id", "match__game", "match_id", "match__finished_at", "index", "match__result"
    )
    with transaction.atomic():
        _unbounded()
        list(tallies.select_for_update().values_list("pk", flat=True))
        folded = fold(rows.iterator(chunk_size=2000), tally_model)
        tallies.delete()
        tally_model.objects.bulk_create(folded.values(), batch_size=1000)
    return len(folded)


def _unbounded() -> None:
    """No bound on this transaction's statements (PostgreSQL): the service's, a few seconds, is for
    requests, and a rebuild reads every finished match at once."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 0")
