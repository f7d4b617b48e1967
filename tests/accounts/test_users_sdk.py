"""client.users against a live web process: an administrator creates, deactivates, reactivates,
promotes users and resets passwords; codes arrive as typed errors; others are refused."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_administrators_manage_users_through_the_sdk(live_web, make_user, token_for):
    import sampan

    root = make_user("root", is_staff=True)
    admin = sampan.Client(live_web, token_for(root), timeout=30)
    mei = admin.users.create("mei", "a-long-passphrase-1", email="mei@example.com")
    assert (mei.username, mei.is_staff, mei.is_active) == ("mei", False, True)
    with pytest.raises(sampan.BadRequest) as weak:
        admin.users.create("rae", "12345678")
    assert weak.value.code == "password_too_weak"

    as_mei = sampan.Client(live_web, token_for(make_user_from(mei.id)), timeout=30)
    assert as_mei.me()["username"] == "mei"
    with pytest.raises(sampan.PermissionDenied):
        as_mei.users.list()
    assert admin.users.deactivate(mei).is_active is False
    with pytest.raises(sampan.AuthenticationError):
        as_mei.me()
    assert admin.users.reactivate(mei.id).is_active is True

    assert admin.users.make_admin(mei).is_staff is True
    assert admin.users.remove_admin(mei).is_staff is False
    with pytest.raises(sampan.Conflict) as last:
        admin.users.remove_admin(root.pk)
    assert last.value.code == "last_admin"

    generated = admin.users.reset_password(mei)
    assert generated and len(generated) >= 12
    assert admin.users.reset_password(mei, "another-passphrase-2") is None
    assert sorted(u.username for u in admin.users.list()) == ["mei", "root"]


def make_user_from(user_id: int):
    from accounts.models import User

    return User.objects.get(pk=user_id)
