"""Writes for users and API tokens."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from config.exceptions import field_error
from django.db import transaction
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


def user_create(*, username: str, password: str, email: str = "") -> User:
    """An ordinary account; an administrator then adds it to workspaces."""
    return User.objects.create_user(username=username, email=email, password=password)
