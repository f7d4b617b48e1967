"""The SDK's invitations against a live web process: an owner invites, the invitee accepts or
declines with their own token, refusals arrive as typed errors with the server's code."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_invite_accept_decline_and_revoke_through_the_sdk(live_web, tenants, make_user, token_for):
    import sampan

    make_user("dana")
    alice = sampan.Client(live_web, token_for(tenants["alice"]), timeout=30)
    bob = sampan.Client(live_web, token_for(tenants["bob"]), timeout=30)
    dana = sampan.Client(
        live_web, token_for(tenants["alice"].__class__.objects.get(username="dana")), timeout=30
    )
    workspace = alice.workspaces.get(tenants["ws_a"].pk)

    to_bob = workspace.invite("bob", role="editor")
    assert to_bob.status == "pending" and to_bob.workspace["name"] == "Workspace A"
    with pytest.raises(sampan.Conflict) as taken:
        workspace.invite("bob", role="viewer")
    assert taken.value.code == "already_invited"
    with pytest.raises(sampan.BadRequest) as unknown:
        workspace.invite("nobody")
    assert unknown.value.code == "user_not_found"

    [mine] = bob.workspaces.invitations()
    joined = mine.accept()
    assert joined.name == "Workspace A" and joined.role == "editor" and joined.member_count == 4
    assert mine.status == "accepted"

    to_dana = workspace.invite("dana", role="viewer")
    assert [i.user["username"] for i in workspace.invitations()] == ["dana"]
    assert to_dana.revoke().status == "revoked"
    assert dana.workspaces.invitations() == []
    again = workspace.invite("dana", role="viewer")
    assert dana.workspaces.invitations()[0].decline().status == "declined"
    assert again.id not in {i.id for i in workspace.invitations()}
