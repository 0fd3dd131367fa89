"""Read-side of tournaments: who may see one, lists, standings and rounds."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.utils.translation import gettext as _

from accounts.models import User
from core.errors import NotFound
from tournaments import pairing
from tournaments.models import Bye, Entrant, Invitee, Round, Table, Tournament


def visible_to(t: Tournament, user: User | None) -> bool:
    """A public tournament: everyone. A private one: its entrants, its invitees, its creator, staff."""
    if not t.private:
        return True
    if user is None or not user.is_authenticated:
        return False
    return (
        user.is_staff
        or user.pk == t.created_by_id
        or Invitee.objects.filter(tournament=t, user=user).exists()
        or Entrant.objects.filter(tournament=t, user=user).exists()
    )


def _visible_q(user: User | None) -> Q:
    if user is None or not user.is_authenticated:
        return Q(private=False)
    if user.is_staff:
        return Q()
    entered = Entrant.objects.filter(tournament=OuterRef("pk"), user=user)
    invited = Invitee.objects.filter(tournament=OuterRef("pk"), user=user)
    return Q(private=False) | Q(created_by=user) | Q(Exists(invited)) | Q(Exists(entered))


def tournament_get(tournament_id: str, user: User | None) -> Tournament:
    t = Tournament.objects.filter(id=tournament_id).select_related("created_by").first()
    if t is None or not visible_to(t, user):
        raise NotFound(_("No tournament %(id)s.") % {"id": repr(tournament_id)})
    return t


def tournament_list(user: User | None, *, game: str | None = None, status: str | None = None) -> QuerySet[Tournament]:
    # what a list shows of each row, read with it (no query per row): entrants, the round's deadline, yours
    deadline = Round.objects.filter(tournament=OuterRef("pk"), number=OuterRef("round")).values("deadline")[:1]
    rows = Tournament.objects.select_related("created_by").annotate(
        entered=Count("entrants"), deadline_now=Subquery(deadline)
    )
    if user is not None and user.is_authenticated:
        rows = rows.annotate(is_entrant=Exists(Entrant.objects.filter(tournament=OuterRef("pk"), user=user)))
    rows = rows.filter(_visible_q(user))
    if game:
        rows = rows.filter(game=game)
    if status:
        rows = rows.filter(status=status)
    return rows.order_by("-created_at", "id")


def mine(user: User) -> QuerySet[Tournament]:
    """``GET me/tournaments``: the tournaments ``user`` entered, the latest first."""
    return Tournament.objects.filter(entrants__user=user).select_related("created_by").order_by("-created_at", "id")


def tournament_ids_of(user_id: int) -> Any:
    """The ids of the tournaments a user is in, as a query (the audience of private tables, `games.selectors`)."""
    return Entrant.objects.filter(user_id=user_id).values("tournament_id")


def entrants(t: Tournament) -> list[Entrant]:
    return list(t.entrants.select_related("user").order_by("number"))


def compute_standings(
    t: Tournament, tables: list[Table], byes: list[Bye], entrants_: list[Entrant]
) -> list[pairing.Row]:
    """The standings from finished tables and byes (`tournaments.pairing.standings`)."""
    results = [
        (list(tb.entrants), {int(k): float(v) for k, v in (tb.points or {}).items()})
        for tb in tables
        if tb.finished_at is not None
    ]
    return pairing.standings(
        results, [(b.entrant_id, b.points) for b in byes], t.table_size, [e.pk for e in entrants_], t.points
    )


def standings(t: Tournament) -> list[dict[str, Any]]:
    """``GET tournaments/{id}/standings``: rank, user, points, tie-breaks, matches played and the
    seats taken (how often in each position). Elimination: by the round one went out in (the
    champion, then the final's loser…), then seed; points are the tables won."""
    everyone = entrants(t)
    by_id = {e.pk: e for e in everyone}
    tables = list(Table.objects.filter(round__tournament=t))
    byes = list(Bye.objects.filter(round__tournament=t))
    rows = compute_standings(t, tables, byes, everyone)
    if t.format == Tournament.Format.ELIMINATION:
        won = {r.entrant: sum(1 for tb in tables if tb.ranking and r.entrant in tb.ranking[0]) for r in rows}
        for r in rows:
            r.points = float(won[r.entrant])
        last = t.round + 1

        def key(r: pairing.Row) -> tuple[int, int, int]:
            e = by_id[r.entrant]
            return (-(e.out_after if e.out_after is not None else last), e.seed or 0, e.number)

        rows.sort(key=key)
        for i, r in enumerate(rows):
            r.rank = i + 1
    out = []
    for r in rows:
        e = by_id.get(r.entrant)
        if e is None:
            continue
        out.append(
            {
                "rank": r.rank,
                "username": e.user.username,
                "user_id": e.user_id,
                "seed": e.seed,
                "points": r.points,
                "buchholz": round(r.buchholz, 4),
                "sonneborn_berger": round(r.sonneborn_berger, 4),
                "played": r.played,
                "seats": r.seats,
                "byes": sum(1 for b in byes if b.entrant_id == r.entrant),
                "withdrawn": e.withdrawn_at is not None,
            }
        )
    return out


def round_detail(t: Tournament, number: int) -> dict[str, Any]:
    """``GET tournaments/{id}/rounds/{n}``: its tables (seats in order, match ids, points) and byes."""
    r = Round.objects.filter(tournament=t, number=number).first()
    if r is None:
        raise NotFound(_("Round %(round)s of this tournament is not paired.") % {"round": number})
    names = {e.pk: e.user.username for e in entrants(t)}
    tables = []
    for tb in r.tables.select_related("match").order_by("index"):
        tables.append(
            {
                "index": tb.index,
                "match": tb.match_id,
                "status": tb.match.status,
                "seats": [names.get(e) for e in tb.entrants],
                "points": None
                if tb.points is None
                else [tb.points.get(str(e)) for e in tb.entrants],  # by seat, as `seats`
                "adjudicated": tb.adjudicated,
                "finished_at": tb.finished_at,
            }
        )
    byes = [{"username": names.get(b.entrant_id), "points": b.points} for b in r.byes.all()]
    return {
        "number": r.number,
        "paired_at": r.paired_at,
        "deadline": r.deadline,
        "finished_at": r.finished_at,
        "pairing_ms": round(r.pairing_ms, 2),
        "tables": tables,
        "byes": byes,
    }


def next_match(t: Tournament, user: User | None) -> str | None:
    """The caller's live match in this tournament, if any (the earliest round's)."""
    if user is None or not user.is_authenticated:
        return None
    entrant = Entrant.objects.filter(tournament=t, user=user).first()
    if entrant is None:
        return None
    for tb in Table.objects.filter(round__tournament=t, finished_at__isnull=True).order_by("round__number", "index"):
        if entrant.pk in tb.entrants:
            return tb.match_id
    return None


def standings_from_matches(t: Tournament) -> list[tuple[str, float]]:
    """(username, points) in rank order, recomputed from the matches' own results rather than the
    points the tables stored: an audit (`verify` in the bench, the tests) of the stored standings.
    A match that asked for a rematch is read through its rematch, as the tournament scores it."""
    from games.models import Match

    results = []
    for tb in Table.objects.filter(round__tournament=t, finished_at__isnull=False).select_related("match"):
        match = tb.match
        while (match.result or {}).get("rematch") and Match.objects.filter(rematch_of=match).exists():
            match = Match.objects.get(rematch_of=match)
        groups = (match.result or {}).get("ranking") if match.status == "finished" else None
        ranking = [[tb.entrants[s] for s in g] for g in groups] if groups else [list(tb.entrants)]
        results.append((list(tb.entrants), pairing.table_points(ranking, t.points)))
    byes = [(b.entrant_id, b.points) for b in Bye.objects.filter(round__tournament=t)]
    everyone = entrants(t)
    names = {e.pk: e.user.username for e in everyone}
    rows = pairing.standings(results, byes, t.table_size, list(names), t.points)
    return [(names[r.entrant], r.points) for r in rows]
