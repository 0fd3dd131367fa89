"""Account and rating services."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from openskill.models import PlackettLuce
from rest_framework.authtoken.models import Token

from accounts.errors import Conflict, InvalidRequest
from accounts.models import Rating, User

_MODEL = PlackettLuce()


@transaction.atomic
def user_register(*, username: str, password: str, email: str = "") -> tuple[User, str]:
    """Create an account and its first token."""
    user = User(username=username, email=email)
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise InvalidRequest("The password is too weak.", errors={"password": list(exc.messages)}) from exc
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise Conflict("username_taken", f"The username {username!r} is taken.") from None
    token = Token.objects.create(user=user)
    return user, token.key


def token_for(user: User) -> str:
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


def user_login(*, username: str, password: str) -> str:
    """The token of the account with these credentials; one answer for every way of being wrong."""
    user = User.objects.filter(username=username).first()
    if user is None:
        User().set_password(password)  # hash anyway: an unknown name takes as long as a wrong password
        correct = False
    else:
        correct = user.check_password(password)
    if user is None or not correct or not user.is_active:
        raise InvalidRequest(
            "Wrong username or password.", errors={"non_field_errors": ["Wrong username or password."]}
        )
    return token_for(user)


def user_update(user: User, **fields: Any) -> User:
    """Change the caller's own settings (validated by the API: email, display_name, preferences)."""
    for name, value in fields.items():
        setattr(user, name, value)
    user.save(update_fields=list(fields))
    return user


def ratings_update(match: Any) -> None:
    """Rate a finished, rated match among its human seats (OpenSkill Plackett–Luce; ties share a rank)."""
    if not match.rated or not match.result:
        return
    seats = {s.index: s for s in match.seats.select_related("user") if s.user_id and not s.bot}
    if len(seats) < 2:
        return
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
    for i, (new,) in zip(order, rated, strict=True):
        r = ratings[i]
        r.mu, r.sigma, r.matches = new.mu, new.sigma, r.matches + 1
        r.save(update_fields=["mu", "sigma", "matches", "updated_at"])
