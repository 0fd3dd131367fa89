"""Account services: registration, sign-in, API tokens, passwords, deletion (ratings: `games.ratings`)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import sql, tokencache, usernames
from accounts.models import ApiToken, Rating, RatingChange, User
from core.errors import Conflict, InvalidRequest, NotFound

# --- tokens ---------------------------------------------------------------------------------------


def token_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()


def token_create(user: User, *, label: str = "") -> tuple[ApiToken, str]:
    """A new API token; the key is returned once and only its hash is kept."""
    key = secrets.token_urlsafe(32)
    now = timezone.now()
    token = ApiToken.objects.create(
        user=user,
        key_hash=token_hash(key),
        label=label,
        created_at=now,
        expires_at=now + timedelta(days=settings.TABULA_TOKEN_TTL_DAYS),
    )
    return token, key


def token_for(user: User) -> str:
    """A fresh key for ``user`` (tests, benches, the sign-in answer)."""
    return token_create(user, label="sign-in")[1]


def token_authenticate(key: str) -> tuple[User, ApiToken] | None:
    """The active user and token of ``key``, or None (unknown, expired or deactivated). The lookup
    is cached per process with Redis, stale the moment a user or token changes (`tokencache`)."""
    key_hash = token_hash(key)
    token = tokencache.lookup(key_hash, sql.token_with_user)  # one precompiled query (`accounts.sql`)
    now = timezone.now()
    if token is None or not token.user.is_active or (token.expires_at is not None and token.expires_at <= now):
        return None
    touch = timedelta(seconds=settings.TABULA_TOKEN_TOUCH_S)
    if token.last_used_at is None or now - token.last_used_at >= touch:  # at most one write a minute
        token.last_used_at = now
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)  # no signal: nothing cached goes stale
        tokencache.touched(key_hash, now)
    return token.user, token


def token_revoke(user: User, token_id: int) -> None:
    deleted = ApiToken.objects.filter(user=user, pk=token_id).delete()[0]
    if not deleted:
        raise NotFound(_("No token %(id)s.") % {"id": token_id})


# --- accounts -------------------------------------------------------------------------------------


def by_name(username: str, viewer: User | None = None) -> User | None:
    """The active account a name designates: by its normalised key, or exactly (an account older than
    the keys whose name collided with an earlier one keeps no key). ``viewer``, the signed-in account
    (current: sessions read it per request, the token cache drops it on any change), is the answer
    without a query when the name's key is its own: keys are unique, so no other account comes first
    (a player reading their own history or profile, the commonest of these reads: issue 31)."""
    key = usernames.key(username)
    if viewer is not None and viewer.username_key == key and viewer.is_active and viewer.deleted_at is None:
        return viewer
    return sql.active_by_name(key, username)


def _username_free(username: str) -> None:
    taken = (
        User.objects.filter(username_key=usernames.key(username)).exists()
        or User.objects.filter(username_skeleton=usernames.skeleton(username)).exists()
    )
    if taken:
        raise Conflict(
            "username_taken",
            _("The username %(username)s is taken (or looks like one that is).") % {"username": repr(username)},
        )


@transaction.atomic
def user_register(*, username: str, password: str, email: str = "", language: str = "en") -> tuple[User, str]:
    """Create an account and its first token. A name equal to another up to case, NFKC or confusable
    look-alikes (TR39 skeleton) is taken."""
    username = usernames.normalise(username)
    user = User(username=username, email=email, language=language)
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise InvalidRequest(_("The password is too weak."), errors={"password": list(exc.messages)}) from exc
    user.set_password(password)
    _username_free(username)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise Conflict(
            "username_taken", _("The username %(username)s is taken.") % {"username": repr(username)}
        ) from None
    return user, token_for(user)


def user_login(*, username: str, password: str) -> str:
    """A new token of the account with these credentials; one answer for every way of being wrong.

    An unknown name hashes the password anyway, so that it takes as long as a wrong password
    (the backoff after repeated failures is ``api.ratelimit.login_failed``).
    """
    user = by_name(username)
    if user is None:
        User().set_password(password)
        correct = False
    else:
        correct = user.check_password(password)
    if user is None or not correct or not user.is_active:
        raise InvalidRequest(
            _("Wrong username or password."), errors={"non_field_errors": [_("Wrong username or password.")]}
        )
    return token_for(user)


@transaction.atomic
def password_change(user: User, *, current: str, new: str, keep: ApiToken | None) -> None:
    """Change the password and revoke every token but ``keep`` (the one the request came with)."""
    if not user.check_password(current):
        raise InvalidRequest(_("The current password is wrong."), errors={"current_password": [_("Wrong password.")]})
    try:
        validate_password(new, user)
    except ValidationError as exc:
        raise InvalidRequest(_("The password is too weak."), errors={"new_password": list(exc.messages)}) from exc
    user.set_password(new)
    user.save(update_fields=["password"])
    others = ApiToken.objects.filter(user=user)
    if keep is not None:
        others = others.exclude(pk=keep.pk)
    others.delete()


def user_update(user: User, **fields: Any) -> User:
    """Change the caller's own settings (validated by the API: email, display_name, preferences)."""
    for name, value in fields.items():
        setattr(user, name, value)
    user.save(update_fields=list(fields))
    return user


@transaction.atomic
def user_anonymise(user: User) -> None:
    """The account's last step (``games.services.lobby.account_delete`` leaves its live matches first):
    tokens, settings and ratings go; the row stays, renamed, so finished matches keep their seats."""
    ApiToken.objects.filter(user=user).delete()
    Rating.objects.filter(user=user).delete()
    RatingChange.objects.filter(user=user).delete()
    user.username = f"deleted-{user.pk}-{secrets.token_hex(4)}"
    user.email, user.display_name, user.preferences = "", "", {}
    user.first_name = user.last_name = ""
    user.is_active, user.is_staff, user.is_superuser = False, False, False
    user.deleted_at = timezone.now()
    user.set_unusable_password()
    user.save()
