"""A workspace's member_count counts every member, whoever asks (it once counted only the caller's
own membership: the count was taken over the join that filtered the workspaces by that membership)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_member_count_counts_every_member_for_every_member(tenants, api_client):
    # workspace A: alice (owner), carol (viewer), erin (editor); workspace B: bob
    for who in ("alice", "carol", "erin"):
        listed = {w["name"]: w for w in api_client(tenants[who]).get("/api/v1/workspaces/").json()["results"]}
        assert listed["Workspace A"]["member_count"] == 3, who
        detail = api_client(tenants[who]).get(f"/api/v1/workspaces/{tenants['ws_a'].pk}/").json()
        assert detail["member_count"] == 3, who
    assert api_client(tenants["bob"]).get("/api/v1/workspaces/").json()["results"][0]["member_count"] == 1


def test_member_count_follows_members_joining_and_leaving(make_user, api_client):
    from tests.workspaces.factories import membership, workspace

    owner = make_user("pat")
    ws = workspace(owner, name="Two")
    joined = membership(ws, make_user("quinn"), "editor")
    api = api_client(owner)
    assert api.get(f"/api/v1/workspaces/{ws.pk}/").json()["member_count"] == 2
    joined.delete()
    assert api.get(f"/api/v1/workspaces/{ws.pk}/").json()["member_count"] == 1
