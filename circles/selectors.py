"""The one rule of blocks, and the reads of follows. Every path that lets one user reach another
asks `between` (or `between_q`, its SQL form): the lobby, joining, invitations, rematches, chat,
nudges, follows and the notifications they cause (tests/circles/test_block_walk.py walks them all).

A block has a scope, and each path a concern:

- ``games``: seeing the other's open matches, joining them, inviting, rematches, tournament pairing
  (blocked by the scopes ``all`` and ``games``);
- ``messages``: chat, nudges (``all`` and ``messages``);
- ``follow``: following, and a follow making friends (any block).
"""

from __future__ import annotations

from typing import Literal

from django.db.models import Exists, OuterRef, Q, QuerySet

from accounts.models import User
from circles.models import Block, Follow

Concern = Literal["games", "messages", "follow"]
SCOPES_OF: dict[str, tuple[str, ...]] = {
    "games": ("all", "games"),
    "messages": ("all", "messages"),
    "follow": ("all", "games", "messages"),
}


def blocks(owner_id: int, other_id: int, concern: Concern) -> bool:
    """Whether ``owner_id`` blocks ``other_id`` for ``concern``."""
    return Block.objects.filter(owner_id=owner_id, blocked_id=other_id, scope__in=SCOPES_OF[concern]).exists()


def between(a_id: int | None, b_id: int | None, concern: Concern) -> bool:
    """Whether either of two users blocks the other for ``concern`` (never for a missing user)."""
    if a_id is None or b_id is None or a_id == b_id:
        return False
    pair = Q(owner_id=a_id, blocked_id=b_id) | Q(owner_id=b_id, blocked_id=a_id)
    return Block.objects.filter(pair, scope__in=SCOPES_OF[concern]).exists()


def between_q(user_id: int, field: str, concern: Concern) -> Exists:
    """`between` as a condition on rows whose column ``field`` names a user: true when ``user_id``
    and that user block each other, either way."""
    pair = Q(owner_id=user_id, blocked_id=OuterRef(field)) | Q(owner_id=OuterRef(field), blocked_id=user_id)
    return Exists(Block.objects.filter(pair, scope__in=SCOPES_OF[concern]))


def blocked_pairs(user_ids: set[int], concern: Concern) -> list[tuple[int, int]]:
    """(owner, blocked) of every block among ``user_ids`` for ``concern`` (a tournament keeps them apart)."""
    rows = Block.objects.filter(owner_id__in=user_ids, blocked_id__in=user_ids, scope__in=SCOPES_OF[concern])
    return list(rows.values_list("owner_id", "blocked_id"))


def blocked_ids(owner_id: int, concern: Concern) -> set[int]:
    """The users ``owner_id`` blocks for ``concern`` (chat hides their messages from the owner)."""
    rows = Block.objects.filter(owner_id=owner_id, scope__in=SCOPES_OF[concern]).values_list("blocked_id", flat=True)
    return set(rows)


def block_list(owner: User) -> QuerySet[Block]:
    return Block.objects.filter(owner=owner).select_related("blocked").order_by("-created_at", "-id")


def following(user: User) -> QuerySet[Follow]:
    """Whom ``user`` follows (a follow the other blocks is kept, as if it counted: nobody is told)."""
    return Follow.objects.filter(follower=user, followee__is_active=True).select_related("followee")


def followers(user: User) -> QuerySet[Follow]:
    """Who follows ``user``, without those ``user`` blocks (their follow counts for nothing)."""
    hidden = Block.objects.filter(owner=user, blocked=OuterRef("follower_id"))
    return (
        Follow.objects.filter(followee=user, follower__is_active=True)
        .exclude(Exists(hidden))
        .select_related("follower")
    )


def following_ids(user_id: int) -> set[int]:
    """Whom ``user_id`` follows, as far as it counts: not those who block ``user_id``."""
    hidden = Block.objects.filter(owner=OuterRef("followee_id"), blocked_id=user_id)
    return set(Follow.objects.filter(follower_id=user_id).exclude(Exists(hidden)).values_list("followee_id", flat=True))


def friend_ids(user_id: int) -> set[int]:
    """Mutual follows, neither blocking the other."""
    theirs = Follow.objects.filter(follower=OuterRef("followee_id"), followee_id=user_id)
    mutual = set(
        Follow.objects.filter(follower_id=user_id).filter(Exists(theirs)).values_list("followee_id", flat=True)
    )
    if not mutual:
        return mutual
    pair = Q(owner_id=user_id, blocked_id__in=mutual) | Q(owner_id__in=mutual, blocked_id=user_id)
    blocked = Block.objects.filter(pair).values_list("owner_id", "blocked_id")
    return mutual - {b for pair_ in blocked for b in pair_}
