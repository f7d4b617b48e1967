"""Workspaces (tenants, with members and roles) and their projects."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from sampan import _schema as schema
from sampan._resource import Resource
from sampan._resource import id_of as _id

# set_limits: a limit not passed keeps its value (None is a value: the installation's default)
_KEEP: Any = object()

if TYPE_CHECKING:
    from sampan.client import Client
    from sampan.datasets import Dataset
    from sampan.models import ModelVersion


class Workspace(Resource[schema.Workspace]):
    _path = "workspaces/"

    def projects(self) -> list[Project]:
        return self._client.projects.list(workspace=self.id)

    def members(self) -> list[schema.Membership]:
        return list(self._client.http.paginate(f"workspaces/{self.id}/members/"))

    def add_member(self, username: str, role: str = "editor") -> schema.Membership:
        """Add a user as ``owner``, ``editor`` or ``viewer``."""
        member: schema.Membership = self._client.http.post(
            f"workspaces/{self.id}/members/", {"username": username, "role": role}
        )
        return member

    def invite(self, username: str, role: str = "editor") -> Invitation:
        """Invite an existing user by username (owners); they join as ``role`` once they accept.

        e.g. ``workspace.invite("mei", role="viewer")``; refused with ``user_not_found``,
        ``user_inactive``, ``already_member`` or ``already_invited`` (:class:`sampan.errors.ApiError`).
        """
        return Invitation(
            self._client,
            self._client.http.post(
                f"workspaces/{self.id}/invitations/", {"username": username, "role": role}
            ),
        )

    def invitations(self) -> list[Invitation]:
        """This workspace's pending invitations."""
        return [
            Invitation(self._client, i)
            for i in self._client.http.paginate(f"workspaces/{self.id}/invitations/")
        ]

    def limits(self) -> schema.WorkspaceLimits:
        """How many jobs this workspace may run at once, and how many it runs now
        (``client.workspaces.limits(workspace)``)."""
        return self._client.workspaces.limits(self)


class Invitation(Resource[schema.Invitation]):
    """An invitation to a workspace; ``status`` is pending, accepted, declined or revoked."""

    _path = "invitations/"

    def accept(self) -> Workspace:
        """Join the workspace with the invitation's role (the invitee only); returns the workspace."""
        answer: schema.InvitationAccepted = self._client.http.post(f"invitations/{self.id}/accept/", {})
        self.data = answer["invitation"]
        return self._client.workspaces.get(self.data["workspace"]["id"])

    def decline(self) -> Invitation:
        """Say no (the invitee only)."""
        self.data = self._client.http.post(f"invitations/{self.id}/decline/", {})
        return self

    def revoke(self) -> Invitation:
        """Withdraw a pending invitation (the workspace's owners)."""
        self.data = self._client.http.post(
            f"workspaces/{self.data['workspace']['id']}/invitations/{self.id}/revoke/", {}
        )
        return self


class Project(Resource[schema.Project]):
    _path = "projects/"

    def datasets(self) -> list[Dataset]:
        return self._client.datasets.list(project=self.id)

    def model_versions(self) -> list[ModelVersion]:
        return self._client.model_versions.list(project=self.id)


class Workspaces:
    """``client.workspaces``: list, get, create, update, delete; your pending invitations; a
    workspace's job limits (``limits``; ``set_limits`` for administrators)."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(self) -> builtins.list[Workspace]:
        return [Workspace(self._client, w) for w in self._client.http.paginate("workspaces/")]

    def get(self, workspace_id: int) -> Workspace:
        return Workspace(self._client, self._client.http.get(f"workspaces/{int(workspace_id)}/"))

    def create(self, name: str, description: str = "") -> Workspace:
        """e.g. ``client.workspaces.create("Vision team")`` (you become its owner)."""
        return Workspace(
            self._client, self._client.http.post("workspaces/", {"name": name, "description": description})
        )

    def update(self, workspace: int | Workspace, **fields: Any) -> Workspace:
        return Workspace(self._client, self._client.http.patch(f"workspaces/{_id(workspace)}/", fields))

    def delete(self, workspace: int | Workspace) -> None:
        self._client.http.delete(f"workspaces/{_id(workspace)}/")

    def limits(self, workspace: int | Workspace) -> schema.WorkspaceLimits:
        """The workspace's job limits (its members): ``effective_max_jobs`` and
        ``effective_max_gpu_jobs`` apply (0: unlimited), ``max_jobs`` / ``max_gpu_jobs`` are its own
        (None: the installation's default), ``running`` / ``running_gpu`` what it runs now and
        ``can_edit`` whether you may change them. A queued job over the limit waits with
        ``queue_state["reason"] == "workspace_limit"``.

        e.g. ``client.workspaces.limits(workspace)["effective_max_jobs"]``
        """
        limits: schema.WorkspaceLimits = self._client.http.get(f"workspaces/{_id(workspace)}/limits/")
        return limits

    def all_limits(self, search: str | None = None) -> builtins.list[schema.WorkspaceLimitsRow]:
        """Every workspace's job limits and what it runs now, by name (administrators, i.e. staff,
        whether members or not; anyone else gets :class:`sampan.PermissionDenied`). Each row is
        :meth:`limits` with ``workspace`` (its id), ``workspace_name`` and ``owners``; ``search``
        keeps the workspaces whose name contains it.

        e.g. ``[(r["workspace_name"], r["running"]) for r in client.workspaces.all_limits()]``
        """
        return builtins.list(self._client.http.paginate("workspace-limits/", search=search))

    def set_limits(
        self, workspace: int | Workspace, *, max_jobs: int | None = _KEEP, max_gpu_jobs: int | None = _KEEP
    ) -> schema.WorkspaceLimits:
        """Change the workspace's job limits (administrators, i.e. staff: anyone else gets
        :class:`sampan.PermissionDenied`). ``max_jobs``: jobs at once, ``max_gpu_jobs``: jobs on the
        ``gpu`` queue at once; 0 is unlimited, None the installation's default
        (``SAMPAN_WORKSPACE_MAX_JOBS``); a limit not passed keeps its value. Returns the new limits.

        e.g. ``client.workspaces.set_limits(workspace, max_jobs=4, max_gpu_jobs=1)``
        """
        body: schema.WorkspaceLimitsUpdateRequest = {}
        if max_jobs is not _KEEP:
            body["max_jobs"] = max_jobs
        if max_gpu_jobs is not _KEEP:
            body["max_gpu_jobs"] = max_gpu_jobs
        limits: schema.WorkspaceLimits = self._client.http.put(f"workspaces/{_id(workspace)}/limits/", body)
        return limits

    def invitations(self) -> builtins.list[Invitation]:
        """The invitations addressed to you that wait for your answer (``accept()`` or ``decline()``)."""
        return [Invitation(self._client, i) for i in self._client.http.paginate("invitations/")]


class Projects:
    """``client.projects``: list, get, create, update, delete."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(self, workspace: int | Workspace | None = None) -> builtins.list[Project]:
        return [
            Project(self._client, p)
            for p in self._client.http.paginate(
                "projects/", workspace=_id(workspace) if workspace is not None else None
            )
        ]

    def get(self, project_id: int) -> Project:
        return Project(self._client, self._client.http.get(f"projects/{int(project_id)}/"))

    def create(
        self, name: str, *, workspace: int | Workspace | None = None, description: str = ""
    ) -> Project:
        """A project in ``workspace`` (default: your first workspace).

        e.g. ``client.projects.create("Digits")``
        """
        if workspace is None:
            workspaces = self._client.workspaces.list()
            if not workspaces:
                workspaces = [self._client.workspaces.create("My workspace")]
            workspace = workspaces[0]
        return Project(
            self._client,
            self._client.http.post(
                "projects/", {"workspace": _id(workspace), "name": name, "description": description}
            ),
        )

    def update(self, project: int | Project, **fields: Any) -> Project:
        return Project(self._client, self._client.http.patch(f"projects/{_id(project)}/", fields))

    def delete(self, project: int | Project) -> None:
        self._client.http.delete(f"projects/{_id(project)}/")
