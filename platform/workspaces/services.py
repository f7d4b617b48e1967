"""Writes for workspaces, memberships and projects."""

from __future__ import annotations

from config.exceptions import Conflict, field_error
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from workspaces.models import Invitation, Membership, Project, Role, Workspace


@transaction.atomic
def workspace_create(*, user, name: str, description: str = "") -> Workspace:
    """Create a workspace owned by ``user``; e.g. ``workspace_create(user=u, name="Vision team")``."""
    workspace = Workspace.objects.create(name=name.strip(), description=description, created_by=user)
    Membership.objects.create(workspace=workspace, user=user, role=Role.OWNER)
    return workspace


def _owners(workspace_id: int, *, exclude: int | None = None) -> int:
    qs = Membership.objects.filter(workspace_id=workspace_id, role=Role.OWNER)
    if exclude is not None:
        qs = qs.exclude(pk=exclude)
    return qs.count()


@transaction.atomic
def membership_add(*, workspace: Workspace, username: str, role: str) -> Membership:
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise field_error("username", f"No user is named {username!r}.")
    if Membership.objects.filter(workspace=workspace, user=user).exists():
        raise field_error("username", f"{username!r} is already a member of this workspace.")
    return Membership.objects.create(workspace=workspace, user=user, role=role)


@transaction.atomic
def membership_set_role(*, membership: Membership, role: str) -> Membership:
    Membership.objects.select_for_update().filter(workspace_id=membership.workspace_id).exists()
    if (
        membership.role == Role.OWNER
        and role != Role.OWNER
        and _owners(membership.workspace_id, exclude=membership.pk) == 0
    ):
        raise field_error("role", "A workspace needs at least one owner; make someone else owner first.")
    membership.role = role
    membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def membership_remove(*, membership: Membership) -> None:
    Membership.objects.select_for_update().filter(workspace_id=membership.workspace_id).exists()
    if membership.role == Role.OWNER and _owners(membership.workspace_id, exclude=membership.pk) == 0:
        raise field_error("role", "The last owner cannot be removed; make someone else owner first.")
    membership.delete()


def project_create(*, user, workspace: Workspace, name: str, description: str = "") -> Project:
    try:
        with transaction.atomic():
            return Project.objects.create(
                workspace=workspace, name=name.strip(), description=description, created_by=user
            )
    except IntegrityError:
        raise field_error(
            "name", f"A project named {name.strip()!r} already exists in this workspace."
        ) from None


def project_update(*, project: Project, **fields) -> Project:
    for key, value in fields.items():
        setattr(project, key, value.strip() if key == "name" else value)
    try:
        with transaction.atomic():
            project.save()
    except IntegrityError:
        raise field_error(
            "name", f"A project named {project.name!r} already exists in this workspace."
        ) from None
    return project


def invitation_create(*, workspace: Workspace, username: str, role: str, by) -> Invitation:
    """Invite an existing, active user by username; e.g.
    ``invitation_create(workspace=ws, username="mei", role="editor", by=owner)``."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise field_error("username", f"No user is named {username!r}.", code="user_not_found")
    if not user.is_active:
        raise field_error("username", f"{username!r} is deactivated.", code="user_inactive")
    if Membership.objects.filter(workspace=workspace, user=user).exists():
        raise field_error(
            "username",
            f"{username!r} is already a member of this workspace.",
            error=Conflict,
            code="already_member",
        )
    already = field_error(
        "username",
        f"{username!r} already has a pending invitation to this workspace.",
        error=Conflict,
        code="already_invited",
    )
    if Invitation.objects.filter(workspace=workspace, user=user, status=Invitation.Status.PENDING).exists():
        raise already
    try:
        with transaction.atomic():
            return Invitation.objects.create(workspace=workspace, user=user, role=role, invited_by=by)
    except IntegrityError:  # invited by a concurrent request since the check
        raise already from None


def _answer(invitation: Invitation, status: str) -> Invitation:
    locked = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if locked.status != Invitation.Status.PENDING:
        raise Conflict(
            f"This invitation is {locked.status}, no longer pending.",
            code="invitation_not_pending",
            status=locked.status,
        )
    invitation.status = status
    invitation.responded_at = timezone.now()
    invitation.save(update_fields=["status", "responded_at"])
    return invitation


@transaction.atomic
def invitation_accept(*, invitation: Invitation) -> Membership:
    """The invitee joins the workspace with the invitation's role."""
    _answer(invitation, Invitation.Status.ACCEPTED)
    try:
        with transaction.atomic():
            return Membership.objects.create(
                workspace_id=invitation.workspace_id, user_id=invitation.user_id, role=invitation.role
            )
    except IntegrityError:
        raise Conflict("You are already a member of this workspace.", code="already_member") from None


@transaction.atomic
def invitation_decline(*, invitation: Invitation) -> Invitation:
    return _answer(invitation, Invitation.Status.DECLINED)


@transaction.atomic
def invitation_revoke(*, invitation: Invitation) -> Invitation:
    return _answer(invitation, Invitation.Status.REVOKED)
