"""Follow and block (docs/api.md, *Circles*). A follow of someone who blocks you is kept but counts
for nothing (they never see it, it makes no friends); nobody is told of a block."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from accounts.services import by_name
from circles import selectors
from circles.models import Block, Follow
from core.errors import Conflict, InvalidRequest, NotFound
from notify.inbox import notify

TYPES = ("followed",)  # someone began to follow you (not sent when you block them)


def _other(user: User, username: str) -> User:
    other = by_name(username)
    if other is None or other.deleted_at is not None:
        raise NotFound(_("No user %(username)s.") % {"username": repr(username)})
    if other.pk == user.pk:
        raise InvalidRequest(_("That is you."), errors={"username": [_("You cannot follow or block yourself.")]})
    return other


@transaction.atomic
def follow(user: User, username: str) -> tuple[Follow, bool]:
    """Follow ``username`` (idempotent); the second value tells whether the follow is new. They hear
    of it (``followed``) unless they block the follower."""
    other = _other(user, username)
    row, created = Follow.objects.get_or_create(follower=user, followee=other)
    if created and not selectors.blocks(other.pk, user.pk, "follow"):
        notify(other, "followed", {"by": user.username})
    return row, created


def unfollow(user: User, username: str) -> None:
    Follow.objects.filter(follower=user, followee=_other(user, username)).delete()


@transaction.atomic
def block(user: User, username: str, scope: str) -> tuple[Block, bool]:
    """Block ``username`` (or change the scope of a block); at most ``TABULA_MAX_BLOCKS`` each."""
    if scope not in Block.Scope.values:
        raise InvalidRequest(
            _("Unknown scope %(scope)s.") % {"scope": repr(scope)},
            errors={"scope": [_('Must be "all", "games" or "messages".')]},
        )
    other = _other(user, username)
    User.objects.select_for_update().filter(pk=user.pk).values_list("pk").first()  # racing blocks count each other
    row = Block.objects.filter(owner=user, blocked=other).first()
    if row is not None:
        if row.scope != scope:
            row.scope = scope
            row.save(update_fields=["scope"])
        return row, False
    cap = settings.TABULA_MAX_BLOCKS
    if Block.objects.filter(owner=user).count() >= cap:
        raise Conflict(
            "too_many_blocks",
            ngettext(
                "You block %(count)s user already: unblock one first.",
                "You block %(count)s users already: unblock one first.",
                cap,
            )
            % {"count": cap},
            limit=cap,
        )
    return Block.objects.create(owner=user, blocked=other, scope=scope), True


def unblock(user: User, username: str) -> None:
    Block.objects.filter(owner=user, blocked=_other(user, username)).delete()


def forget(user: User) -> None:
    """A deleted account's follows and blocks, both ways."""
    Follow.objects.filter(follower=user).delete()
    Follow.objects.filter(followee=user).delete()
    Block.objects.filter(owner=user).delete()
    Block.objects.filter(blocked=user).delete()
