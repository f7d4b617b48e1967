"""Role checks. Reads are decided by scoped querysets (another tenant's object is a 404);
writes need a role in the object's workspace (a viewer's write is a 403)."""

from __future__ import annotations

from rest_framework import permissions
from rest_framework.exceptions import PermissionDenied

from workspaces.models import WRITE_ROLES, Role
from workspaces.selectors import role_in


def require_role(
    *, user, workspace_id: int, roles=WRITE_ROLES, action: str = "change this workspace's content"
) -> Role:
    role = role_in(user=user, workspace_id=workspace_id)
    if role is None or role not in roles:
        needed = " or ".join(sorted(str(r) for r in roles))
        raise PermissionDenied(f"Your role ({role or 'none'}) cannot {action}; it needs {needed}.")
    return role


class WorkspaceRolePermission(permissions.IsAuthenticated):
    """Object-level: safe methods for any member, writes for ``write_roles`` (view attribute)."""

    def has_object_permission(self, request, view, obj):
        if request.method in permissions.SAFE_METHODS:
            return True
        workspace_id = view.workspace_id_of(obj)
        require_role(
            user=request.user, workspace_id=workspace_id, roles=getattr(view, "write_roles", WRITE_ROLES)
        )
        return True
