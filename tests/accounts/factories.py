"""Row builders for accounts: users and personal API tokens (plain functions; fixtures in
tests/conftest.py use them)."""

from __future__ import annotations

import itertools

_serial = itertools.count(1)


def user(
    username: str | None = None, *, password: str = "correct-horse-battery", is_staff: bool = False, **fields
):
    """A user (``user-<n>`` unless named) with ``<username>@example.com``."""
    from accounts.models import User

    username = username or f"user-{next(_serial)}"
    return User.objects.create_user(
        username=username, password=password, email=f"{username}@example.com", is_staff=is_staff, **fields
    )


def api_token(owner, name: str | None = None):
    """(token row, its secret) for ``owner``, through the real service (the secret is shown once)."""
    from accounts.services import api_token_create

    issued = api_token_create(user=owner, name=name or f"token {next(_serial)}")
    return issued.token, issued.key
