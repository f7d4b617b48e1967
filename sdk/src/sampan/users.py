"""Accounts on the platform, for administrators (is_staff): ``client.users``."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from sampan import _schema as schema
from sampan._resource import Resource
from sampan._resource import id_of as _id

if TYPE_CHECKING:
    from sampan.client import Client


class User(Resource[schema.AdminUser]):
    """An account: ``username``, ``email``, ``is_staff`` (administrator), ``is_active``."""

    _path = "users/"

    def __repr__(self) -> str:
        return f"<User {self.id} {self.data['username']!r}>"


class Users:
    """``client.users`` (administrators only; others get :class:`sampan.errors.PermissionDenied`):
    list, get, create, deactivate, reactivate, make_admin, remove_admin, reset_password.

    Refusals carry a code: ``username_taken``, ``password_too_weak`` (400), ``last_admin``,
    ``cannot_deactivate_self``, ``cannot_demote_self`` (409).
    """

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(self) -> builtins.list[User]:
        return [User(self._client, u) for u in self._client.http.paginate("users/")]

    def get(self, user_id: int) -> User:
        return User(self._client, self._client.http.get(f"users/{int(user_id)}/"))

    def create(self, username: str, password: str, *, email: str = "", admin: bool = False) -> User:
        """e.g. ``client.users.create("mei", "a-long-passphrase-1")``; Django's password rules apply."""
        body = {"username": username, "password": password, "email": email, "is_staff": admin}
        return User(self._client, self._client.http.post("users/", body))

    def _action(self, user: int | User, action: str) -> User:
        return User(self._client, self._client.http.post(f"users/{_id(user)}/{action}/", {}))

    def deactivate(self, user: int | User) -> User:
        """No sign-in; their sessions and API tokens are refused. Nothing they made is deleted."""
        return self._action(user, "deactivate")

    def reactivate(self, user: int | User) -> User:
        return self._action(user, "reactivate")

    def make_admin(self, user: int | User) -> User:
        return self._action(user, "make-admin")

    def remove_admin(self, user: int | User) -> User:
        return self._action(user, "remove-admin")

    def reset_password(self, user: int | User, password: str | None = None) -> str | None:
        """Set ``password``, or generate one when None: the generated password is returned (the only
        time it is shown); None when you gave one."""
        body = {} if password is None else {"password": password}
        result: schema.PasswordResetResult = self._client.http.post(
            f"users/{_id(user)}/reset-password/", body
        )
        return result["password"]
