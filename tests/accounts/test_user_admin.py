"""Administrators (is_staff) manage accounts from the users page: create, deactivate and reactivate,
reset a password, make or remove administrators; never themselves out, never the last admin."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

USERS = "/api/v1/users/"


def test_admin_creates_users_and_administrators(make_user, api_client, client):
    admin = api_client(make_user("root", is_staff=True))
    created = admin.post(
        USERS,
        {"username": "mei", "email": "mei@example.com", "password": "a-long-passphrase-1"},
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["is_staff"] is False and body["is_active"] is True and "password" not in body
    assert client.login(username="mei", password="a-long-passphrase-1")

    second = admin.post(
        USERS, {"username": "li", "password": "another-passphrase-2", "is_staff": True}, format="json"
    ).json()
    assert second["is_staff"] is True
    listed = {u["username"]: u for u in admin.get(USERS).json()["results"]}
    assert set(listed) == {"li", "mei", "root"} and listed["li"]["is_staff"]


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"username": "root", "password": "a-long-passphrase-1"}, "username_taken", "username"),
        ({"username": "bad name", "password": "a-long-passphrase-1"}, "invalid", "username"),
        ({"username": "rae", "password": "12345678"}, "password_too_weak", "password"),
        ({"username": "rae", "password": "rae-rae"}, "password_too_weak", "password"),
    ],
)
def test_bad_new_users_are_refused_with_a_code(body, code, field, make_user, api_client):
    refused = api_client(make_user("root", is_staff=True)).post(USERS, body, format="json")
    assert refused.status_code == 400, refused.content
    assert refused.json()["error"]["code"] == code and field in refused.json()["error"]["details"]


def test_ordinary_users_cannot_manage_users(make_user, api_client):
    target = make_user("mei")
    api = api_client(make_user("sam"))
    assert api.get(USERS).status_code == 403
    for action in ("deactivate", "reactivate", "make-admin", "remove-admin", "reset-password"):
        refused = api.post(f"{USERS}{target.pk}/{action}/", {}, format="json")
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "permission_denied", action
    target.refresh_from_db()
    assert target.is_active and not target.is_staff


def test_a_deactivated_user_cannot_sign_in_nor_use_a_session_or_token(
    make_user, api_client, client, token_for
):
    admin = api_client(make_user("root", is_staff=True))
    mei = make_user("mei")
    key = token_for(mei)
    assert client.login(username="mei", password="correct-horse-battery")
    assert client.get("/api/v1/auth/me/").status_code == 200

    off = admin.post(f"{USERS}{mei.pk}/deactivate/")
    assert off.status_code == 200 and off.json()["is_active"] is False
    assert client.get("/api/v1/auth/me/").status_code in (401, 403), "the open session ends"
    assert client.get("/api/v1/auth/me/", HTTP_AUTHORIZATION=f"Bearer {key}").status_code == 401
    login = client.post(
        "/api/v1/auth/login/",
        {"username": "mei", "password": "correct-horse-battery"},
        content_type="application/json",
    )
    assert login.status_code == 400 and login.json()["error"]["code"] == "invalid_credentials"

    on = admin.post(f"{USERS}{mei.pk}/reactivate/")
    assert on.status_code == 200 and on.json()["is_active"] is True
    assert client.get("/api/v1/auth/me/", HTTP_AUTHORIZATION=f"Bearer {key}").status_code == 200


def test_admins_cannot_lock_themselves_or_everyone_out(make_user, api_client):
    root = make_user("root", is_staff=True)
    api = api_client(root)
    last = api.post(f"{USERS}{root.pk}/deactivate/")
    assert last.status_code == 409 and last.json()["error"]["code"] == "last_admin"
    last = api.post(f"{USERS}{root.pk}/remove-admin/")
    assert last.status_code == 409 and last.json()["error"]["code"] == "last_admin"

    li = make_user("li")
    assert api.post(f"{USERS}{li.pk}/make-admin/").json()["is_staff"] is True
    own = api.post(f"{USERS}{root.pk}/deactivate/")
    assert own.status_code == 409 and own.json()["error"]["code"] == "cannot_deactivate_self"
    own = api.post(f"{USERS}{root.pk}/remove-admin/")
    assert own.status_code == 409 and own.json()["error"]["code"] == "cannot_demote_self"
    root.refresh_from_db()
    assert root.is_active and root.is_staff

    # another admin may; then li is the last one
    li.refresh_from_db()
    li_api = api_client(li)
    assert li_api.post(f"{USERS}{root.pk}/remove-admin/").json()["is_staff"] is False
    assert li_api.post(f"{USERS}{li.pk}/remove-admin/").json()["error"]["code"] == "last_admin"


def test_deactivated_admins_do_not_count_as_the_remaining_admin(make_user, api_client):
    root, li = make_user("root", is_staff=True), make_user("li", is_staff=True)
    api = api_client(root)
    assert api.post(f"{USERS}{li.pk}/deactivate/").status_code == 200
    assert api.post(f"{USERS}{root.pk}/remove-admin/").json()["error"]["code"] == "last_admin"


def test_reset_password_given_or_generated_once(make_user, api_client, client):
    api = api_client(make_user("root", is_staff=True))
    mei = make_user("mei")
    assert client.login(username="mei", password="correct-horse-battery")

    weak = api.post(f"{USERS}{mei.pk}/reset-password/", {"password": "password"}, format="json")
    assert weak.status_code == 400 and weak.json()["error"]["code"] == "password_too_weak"
    given = api.post(f"{USERS}{mei.pk}/reset-password/", {"password": "a-new-passphrase-7"}, format="json")
    assert given.status_code == 200 and given.json()["password"] is None
    assert client.get("/api/v1/auth/me/").status_code in (401, 403), "old sessions end with the old password"
    assert client.login(username="mei", password="a-new-passphrase-7")

    generated = api.post(f"{USERS}{mei.pk}/reset-password/", {}, format="json")
    assert generated.status_code == 200
    password = generated.json()["password"]
    assert len(password) >= 12 and generated.json()["user"]["username"] == "mei"
    assert client.login(username="mei", password=password)
    assert password not in api.get(f"{USERS}{mei.pk}/").content.decode()
