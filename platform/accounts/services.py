"""Writes for users and API tokens."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from config.exceptions import Conflict, field_error
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import ApiToken, User

TOKEN_PREFIX = "spk_"


def token_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    key: str  # shown to the user once, never stored


def api_token_create(*, user: User, name: str, expires_at: datetime | None = None) -> IssuedToken:
    """Issue a token; e.g. ``api_token_create(user=u, name="laptop").key`` -> 'spk_3f9a…'."""
    if expires_at is not None and expires_at <= timezone.now():
        raise field_error("expires_at", "Expiry must be in the future.")
    prefix = secrets.token_hex(4)
    key = f"{TOKEN_PREFIX}{prefix}_{secrets.token_urlsafe(32)}"
    token = ApiToken.objects.create(
        user=user, name=name.strip(), prefix=prefix, digest=token_digest(key), expires_at=expires_at
    )
    return IssuedToken(token=token, key=key)


def api_token_revoke(*, token: ApiToken) -> ApiToken:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def api_token_touch(*, token: ApiToken) -> None:
    """Record use at most once a minute, so reads do not turn into writes on every request."""
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > timedelta(minutes=1):
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)


@transaction.atomic
def admin_ensure(*, username: str, email: str, password: str | None) -> tuple[User, str | None]:
    """Create the first administrator if no superuser exists.

    Returns the user and the generated password when one had to be generated (embedded mode);
    returns (existing admin, None) when one already exists.
    """
    existing = User.objects.filter(is_superuser=True).order_by("id").first()
    if existing is not None:
        return existing, None
    generated = None
    if password is None:
        generated = password = secrets.token_urlsafe(12)
    user = User.objects.create_superuser(username=username, email=email, password=password)
    return user, generated


def password_check(password: str, *, user: User) -> None:
    """Django's password validators (AUTH_PASSWORD_VALIDATORS), refused as one field error."""
    try:
        validate_password(password, user=user)
    except DjangoValidationError as exc:
        raise field_error("password", " ".join(exc.messages), code="password_too_weak") from None


def user_create(*, username: str, password: str, email: str = "", is_staff: bool = False) -> User:
    """An account (an administrator when ``is_staff``); workspace owners then invite it.

    e.g. ``user_create(username="mei", password="a-long-passphrase-1")``
    """
    if User.objects.filter(username=username).exists():
        raise field_error("username", f"The username {username!r} is taken.", code="username_taken")
    password_check(password, user=User(username=username, email=email))
    try:
        with transaction.atomic():
            return User.objects.create_user(
                username=username, email=email, password=password, is_staff=is_staff, is_superuser=is_staff
            )
    except IntegrityError:  # created by a concurrent request since the check
        raise field_error("username", f"The username {username!r} is taken.", code="username_taken") from None


def _lock_admins() -> int:
    """Lock the active administrators' rows and count them, so two requests cannot each remove
    'another' admin and leave none."""
    return len(list(User.objects.select_for_update().filter(is_staff=True, is_active=True).values_list("pk")))


def _refuse_last_admin(user: User, what: str) -> None:
    if user.is_staff and user.is_active and _lock_admins() <= 1:
        raise Conflict(
            f"{user.username!r} is the last active administrator and cannot be {what}; "
            "make another user an administrator first.",
            code="last_admin",
        )


@transaction.atomic
def user_deactivate(*, user: User, by: User) -> User:
    """A deactivated user can no longer sign in, and their sessions and API tokens are refused.
    Nothing they made is deleted; ``user_reactivate`` lets them in again."""
    _refuse_last_admin(user, "deactivated")
    if user.pk == by.pk:
        raise Conflict("You cannot deactivate your own account.", code="cannot_deactivate_self")
    if user.is_active:
        user.is_active = False
        user.save(update_fields=["is_active"])
    return user


def user_reactivate(*, user: User) -> User:
    if not user.is_active:
        user.is_active = True
        user.save(update_fields=["is_active"])
    return user


def user_set_admin(*, user: User, by: User, admin: bool) -> User:
    """Make ``user`` a platform administrator (Django's staff and superuser) or an ordinary user."""
    with transaction.atomic():
        if not admin:
            _refuse_last_admin(user, "made an ordinary user")
            if user.pk == by.pk:
                raise Conflict(
                    "You cannot remove your own administrator rights; ask another administrator.",
                    code="cannot_demote_self",
                )
        user.is_staff = user.is_superuser = admin
        user.save(update_fields=["is_staff", "is_superuser"])
    return user


def user_set_password(*, user: User, password: str | None) -> tuple[User, str | None]:
    """Set ``password`` (checked by Django's validators) or, when None, a generated one.

    Returns the user and the generated password (None when one was given); the user's browser
    sessions end (Django checks the password hash on each request), their API tokens stay.
    """
    generated = None
    if password is None:
        generated = password = secrets.token_urlsafe(12)
    else:
        password_check(password, user=user)
    user.set_password(password)
    user.save(update_fields=["password"])
    return user, generated
