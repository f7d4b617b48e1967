"""API tokens (hashed at rest, shown once, revocable) and workspace membership management."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_token_is_shown_once_and_stored_only_as_a_digest(make_user, api_client, client):
    from accounts.models import ApiToken

    user = make_user("nia")
    api = api_client(user)
    created = api.post("/api/v1/tokens/", {"name": "notebook"}, format="json")
    assert created.status_code == 201
    key = created.json()["key"]
    assert key.startswith("spk_") and created.json()["status"] == "active"
    row = ApiToken.objects.get(pk=created.json()["id"])
    stored = [str(getattr(row, f.attname)) for f in ApiToken._meta.fields]
    assert all(key not in value for value in stored), "the key itself must never be stored"
    listed = api.get("/api/v1/tokens/").json()["results"]
    assert [t["name"] for t in listed] == ["notebook"] and "key" not in listed[0]
    assert client.get("/api/v1/auth/me/", HTTP_AUTHORIZATION=f"Bearer {key}").json()["username"] == "nia"
    row.refresh_from_db()
    assert row.last_used_at is not None

    revoked = api.post(f"/api/v1/tokens/{row.pk}/revoke/")
    assert revoked.status_code == 200 and revoked.json()["status"] == "revoked"
    assert client.get("/api/v1/auth/me/", HTTP_AUTHORIZATION=f"Bearer {key}").status_code == 401


def test_token_expiry_in_the_past_is_rejected(make_user, api_client):
    response = api_client(make_user("oli")).post(
        "/api/v1/tokens/", {"name": "old", "expires_at": "2001-01-01T00:00:00Z"}, format="json"
    )
    assert response.status_code == 400 and "expires_at" in response.json()["error"]["details"]


def test_owner_manages_members_and_the_last_owner_stays(tenants, api_client):
    alice, ws = api_client(tenants["alice"]), tenants["ws_a"]
    members = f"/api/v1/workspaces/{ws.pk}/members/"
    added = alice.post(members, {"username": "bob", "role": "viewer"}, format="json")
    assert added.status_code == 201 and added.json()["user"]["username"] == "bob"
    assert alice.post(members, {"username": "bob", "role": "viewer"}, format="json").status_code == 400
    assert (
        "nobody"
        in alice.post(members, {"username": "nobody", "role": "viewer"}, format="json").json()["error"][
            "message"
        ]
    )
    bob_membership = added.json()["id"]
    assert (
        alice.patch(f"{members}{bob_membership}/", {"role": "editor"}, format="json").json()["role"]
        == "editor"
    )
    # bob now sees workspace A with his role
    roles = {
        w["name"]: w["role"] for w in api_client(tenants["bob"]).get("/api/v1/workspaces/").json()["results"]
    }
    assert roles == {"Workspace A": "editor", "Workspace B": "owner"}

    own = next(m for m in alice.get(members).json()["results"] if m["user"]["username"] == "alice")
    demote = alice.patch(f"{members}{own['id']}/", {"role": "viewer"}, format="json")
    assert demote.status_code == 400 and "owner" in demote.json()["error"]["message"]
    assert alice.delete(f"{members}{own['id']}/").status_code == 400
    assert alice.delete(f"{members}{bob_membership}/").status_code == 204


def test_creating_a_workspace_makes_the_creator_owner(make_user, api_client):
    api = api_client(make_user("pat"))
    created = api.post("/api/v1/workspaces/", {"name": "Mine", "description": "d"}, format="json").json()
    assert created["role"] == "owner" and created["member_count"] == 1
    project = api.post("/api/v1/projects/", {"workspace": created["id"], "name": "P"}, format="json")
    assert project.status_code == 201 and project.json()["created_by"] == "pat"
    duplicate = api.post("/api/v1/projects/", {"workspace": created["id"], "name": "P"}, format="json")
    assert duplicate.status_code == 400 and "already exists" in duplicate.json()["error"]["message"]


def test_only_admins_create_users(make_user, api_client):
    admin = api_client(make_user("root", is_staff=True))
    created = admin.post(
        "/api/v1/users/", {"username": "quinn", "password": "a-long-passphrase-1"}, format="json"
    )
    assert created.status_code == 201
    weak = admin.post("/api/v1/users/", {"username": "rae", "password": "12345678"}, format="json")
    assert weak.status_code == 400
    assert (
        api_client(make_user("sam"))
        .post("/api/v1/users/", {"username": "x", "password": "a-long-passphrase-1"}, format="json")
        .status_code
        == 403
    )
