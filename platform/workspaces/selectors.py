"""Reads scoped by workspace membership: the single place tenancy is decided."""

from __future__ import annotations

from django.db.models import Count, Exists, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from workspaces.models import CONTENT_ROLES, Invitation, Membership, Project, Role, Workspace


def workspaces_for(*, user) -> QuerySet[Workspace]:
    """The user's workspaces with their ``role`` there and ``member_count``. The count is a subquery:
    counted over the join that the membership filter made, it would count only the caller's row."""
    role = Membership.objects.filter(workspace=OuterRef("pk"), user=user).values("role")[:1]
    members = (
        Membership.objects.filter(workspace=OuterRef("pk"))
        .order_by()
        .values("workspace")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        Workspace.objects.filter(memberships__user=user)
        .annotate(
            role=Subquery(role),
            member_count=Coalesce(Subquery(members, output_field=IntegerField()), 0),
        )
        .order_by("name", "id")
    )


def role_in(*, user, workspace_id: int) -> Role | None:
    if not user.is_authenticated:
        return None
    role = (
        Membership.objects.filter(workspace_id=workspace_id, user=user).values_list("role", flat=True).first()
    )
    return Role(role) if role else None


def scoped_to_member(queryset: QuerySet, *, user, workspace_field: str = "workspace") -> QuerySet:
    """Filter any queryset to rows in workspaces where the user sees content: an annotator is a
    member too, but sees only the labeling tasks assigned to them (labeling.selectors), so their
    workspace's projects, datasets, jobs, models and deployments do not exist for them (404).
    One ``filter`` call: the user and the role conditions apply to the same membership row."""
    return queryset.filter(
        **{
            f"{workspace_field}__memberships__user": user,
            f"{workspace_field}__memberships__role__in": CONTENT_ROLES,
        }
    )


def content_workspaces_for(*, user) -> QuerySet[Workspace]:
    """The workspaces whose content the user sees (every membership but an annotator's), annotated
    like ``workspaces_for``: what members, invitations and project lists are read through."""
    content = Membership.objects.filter(workspace=OuterRef("pk"), user=user, role__in=CONTENT_ROLES)
    return workspaces_for(user=user).filter(Exists(content))


def projects_for(*, user) -> QuerySet[Project]:
    return scoped_to_member(Project.objects.select_related("created_by"), user=user)


def memberships_of(*, workspace_id: int) -> QuerySet[Membership]:
    return Membership.objects.filter(workspace_id=workspace_id).select_related("user")


def invitations_of(*, workspace_id: int) -> QuerySet[Invitation]:
    """A workspace's pending invitations (what its members see)."""
    return Invitation.objects.filter(
        workspace_id=workspace_id, status=Invitation.Status.PENDING
    ).select_related("workspace", "user", "invited_by")


def invitations_for(*, user) -> QuerySet[Invitation]:
    """The invitations addressed to ``user`` that wait for their answer."""
    return Invitation.objects.filter(user=user, status=Invitation.Status.PENDING).select_related(
        "workspace", "user", "invited_by"
    )
