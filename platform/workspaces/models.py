from __future__ import annotations

from django.conf import settings
from django.db import models


class Role(models.TextChoices):
    OWNER = "owner", "Owner"
    EDITOR = "editor", "Editor"
    VIEWER = "viewer", "Viewer"
    # Labels the samples of labeling tasks assigned to them, and sees nothing else of the workspace.
    ANNOTATOR = "annotator", "Annotator"


WRITE_ROLES = frozenset({Role.OWNER, Role.EDITOR})
#: Roles that see the workspace's content (projects, datasets, jobs, models, deployments).
#: An annotator is a member too but sees only the labeling tasks assigned to them.
CONTENT_ROLES = frozenset({Role.OWNER, Role.EDITOR, Role.VIEWER})
#: Roles that review labeled samples of labeling tasks (accept or reject).
REVIEW_ROLES = WRITE_ROLES


class Workspace(models.Model):
    """The tenant boundary: every dataset, job, model and deployment belongs to one."""

    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, max_length=2000)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["workspace", "user"], name="one_membership_per_user")]

    def __str__(self) -> str:
        return f"{self.user_id}@{self.workspace_id}:{self.role}"


class Project(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="projects")
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, max_length=2000)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "name"], name="project_name_unique_in_workspace")
        ]

    def __str__(self) -> str:
        return self.name


class Invitation(models.Model):
    """An owner's invitation of an existing user, by username, to join a workspace with a role.
    The invitee accepts (a membership with that role) or declines; the owners may revoke it while
    it is pending. At most one pending invitation per user and workspace."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"
        REVOKED = "revoked", "Revoked"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="workspace_invitations"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    responded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "user"],
                condition=models.Q(status="pending"),
                name="one_pending_invitation_per_user",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id}@{self.workspace_id}:{self.role} ({self.status})"
