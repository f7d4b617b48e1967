"""Workspace invitations by username: an owner invites an existing user with a role, the invitee
sees it and accepts (a membership with that role) or declines, an owner may revoke it while pending.
Refusals carry a code; another workspace's invitations are invisible."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def invitations_url(ws) -> str:
    return f"/api/v1/workspaces/{ws.pk}/invitations/"


def test_invite_accept_makes_a_member_with_the_role(tenants, make_user, api_client):
    dana = make_user("dana")
    alice, ws = api_client(tenants["alice"]), tenants["ws_a"]
    sent = alice.post(invitations_url(ws), {"username": "dana", "role": "editor"}, format="json")
    assert sent.status_code == 201, sent.content
    body = sent.json()
    assert body["status"] == "pending" and body["role"] == "editor"
    assert body["user"]["username"] == "dana" and body["invited_by"]["username"] == "alice"
    assert body["workspace"] == {"id": ws.pk, "name": "Workspace A"}

    # members of A see the pending invitation; dana sees it addressed to her, not yet the workspace
    listed = api_client(tenants["carol"]).get(invitations_url(ws)).json()["results"]
    assert [i["user"]["username"] for i in listed] == ["dana"]
    mine = api_client(dana).get("/api/v1/invitations/").json()
    assert mine["count"] == 1 and mine["results"][0]["workspace"]["name"] == "Workspace A"
    assert api_client(dana).get("/api/v1/workspaces/").json()["count"] == 0

    accepted = api_client(dana).post(f"/api/v1/invitations/{body['id']}/accept/")
    assert accepted.status_code == 200, accepted.content
    assert accepted.json()["invitation"]["status"] == "accepted"
    assert accepted.json()["membership"]["role"] == "editor"
    workspaces = api_client(dana).get("/api/v1/workspaces/").json()["results"]
    assert [(w["name"], w["role"], w["member_count"]) for w in workspaces] == [("Workspace A", "editor", 4)]
    assert api_client(dana).get("/api/v1/invitations/").json()["count"] == 0
    assert alice.get(invitations_url(ws)).json()["count"] == 0
    # answered: no second answer
    assert api_client(dana).post(f"/api/v1/invitations/{body['id']}/decline/").status_code == 404


def test_decline_and_revoke(tenants, make_user, api_client):
    dana, finn = make_user("dana"), make_user("finn")
    alice, ws = api_client(tenants["alice"]), tenants["ws_a"]
    to_dana = alice.post(invitations_url(ws), {"username": "dana", "role": "viewer"}, format="json").json()
    to_finn = alice.post(invitations_url(ws), {"username": "finn", "role": "viewer"}, format="json").json()

    declined = api_client(dana).post(f"/api/v1/invitations/{to_dana['id']}/decline/")
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    revoked = alice.post(f"{invitations_url(ws)}{to_finn['id']}/revoke/")
    assert revoked.status_code == 200 and revoked.json()["status"] == "revoked"
    assert api_client(finn).get("/api/v1/invitations/").json()["count"] == 0
    assert api_client(finn).post(f"/api/v1/invitations/{to_finn['id']}/accept/").status_code == 404
    members = {
        m["user"]["username"] for m in alice.get(f"/api/v1/workspaces/{ws.pk}/members/").json()["results"]
    }
    assert members == {"alice", "carol", "erin"}

    # declined or revoked, they can be invited again
    again = alice.post(invitations_url(ws), {"username": "dana", "role": "editor"}, format="json")
    assert again.status_code == 201


@pytest.mark.parametrize(
    ("username", "status", "code"),
    [
        ("nobody", 400, "user_not_found"),
        ("gone", 400, "user_inactive"),
        ("carol", 409, "already_member"),
        ("dana", 409, "already_invited"),
    ],
)
def test_bad_invitations_are_refused_with_a_code(username, status, code, tenants, make_user, api_client):
    from accounts.models import User

    make_user("dana")
    User.objects.filter(pk=make_user("gone").pk).update(is_active=False)
    alice, ws = api_client(tenants["alice"]), tenants["ws_a"]
    assert (
        alice.post(invitations_url(ws), {"username": "dana", "role": "viewer"}, format="json").status_code
        == 201
    )
    refused = alice.post(invitations_url(ws), {"username": username, "role": "viewer"}, format="json")
    assert refused.status_code == status, refused.content
    assert refused.json()["error"]["code"] == code and "username" in refused.json()["error"]["details"]


def test_bad_role_is_refused(tenants, make_user, api_client):
    make_user("dana")
    refused = api_client(tenants["alice"]).post(
        invitations_url(tenants["ws_a"]), {"username": "dana", "role": "boss"}, format="json"
    )
    assert refused.status_code == 400 and "role" in refused.json()["error"]["details"]


def test_only_owners_invite_and_revoke(tenants, make_user, api_client):
    make_user("dana")
    ws = tenants["ws_a"]
    for who in ("carol", "erin"):
        refused = api_client(tenants[who]).post(
            invitations_url(ws), {"username": "dana", "role": "viewer"}, format="json"
        )
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "permission_denied", who
    sent = api_client(tenants["alice"]).post(
        invitations_url(ws), {"username": "dana", "role": "viewer"}, format="json"
    )
    revoke = f"{invitations_url(ws)}{sent.json()['id']}/revoke/"
    assert api_client(tenants["erin"]).post(revoke).status_code == 403


def test_invitations_of_another_workspace_are_invisible(tenants, make_user, api_client):
    dana = make_user("dana")
    alice, bob = api_client(tenants["alice"]), api_client(tenants["bob"])
    sent = alice.post(
        invitations_url(tenants["ws_a"]), {"username": "dana", "role": "viewer"}, format="json"
    ).json()
    bob.post(invitations_url(tenants["ws_b"]), {"username": "dana", "role": "viewer"}, format="json")

    assert bob.get(invitations_url(tenants["ws_a"])).status_code == 404
    assert bob.post(f"{invitations_url(tenants['ws_a'])}{sent['id']}/revoke/").status_code == 404
    assert [i["workspace"]["name"] for i in bob.get(invitations_url(tenants["ws_b"])).json()["results"]] == [
        "Workspace B"
    ]
    # alice's workspace cannot revoke B's invitation through its own path either
    b_invitation = bob.get(invitations_url(tenants["ws_b"])).json()["results"][0]["id"]
    assert alice.post(f"{invitations_url(tenants['ws_a'])}{b_invitation}/revoke/").status_code == 404
    # only the invitee answers an invitation
    assert bob.post(f"/api/v1/invitations/{sent['id']}/accept/").status_code == 404
    assert api_client(tenants["carol"]).get("/api/v1/invitations/").json()["count"] == 0
    assert api_client(dana).get("/api/v1/invitations/").json()["count"] == 2
