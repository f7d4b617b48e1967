"""Row builders for workspaces: a workspace with its owner's membership, members, projects (plain
functions through the real services)."""

from __future__ import annotations

import itertools

_serial = itertools.count(1)


def workspace(owner=None, *, name: str | None = None):
    """A workspace owned by ``owner`` (a new user when none), with the owner's membership."""
    from workspaces.services import workspace_create

    from tests.accounts.factories import user

    return workspace_create(user=owner or user(), name=name or f"Workspace {next(_serial)}")


_workspace = workspace


def membership(workspace, member=None, role: str = "viewer"):
    """``member`` (a new user when none) joins ``workspace`` as ``role``."""
    from workspaces.models import Membership

    from tests.accounts.factories import user

    return Membership.objects.create(workspace=workspace, user=member or user(), role=role)


def project(workspace=None, *, name: str | None = None, by=None):
    """A project in ``workspace`` (a new one when none), created by ``by`` (default: its creator)."""
    from workspaces.services import project_create

    workspace = workspace or _workspace()
    return project_create(
        user=by or workspace.created_by, workspace=workspace, name=name or f"Project {next(_serial)}"
    )
