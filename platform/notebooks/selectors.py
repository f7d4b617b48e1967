"""Reads of notebooks: a notebook exists only for its owner (anyone else, even in the same workspace,
gets a 404), and only while the owner still sees the workspace's content."""

from __future__ import annotations

from django.db.models import QuerySet
from workspaces.selectors import scoped_to_member

from notebooks.models import Notebook, NotebookStatus

LIVE = (NotebookStatus.STARTING, NotebookStatus.RUNNING, NotebookStatus.STOPPING)


def notebooks_for(*, user) -> QuerySet[Notebook]:
    if not user.is_authenticated:
        return Notebook.objects.none()
    return scoped_to_member(
        Notebook.objects.filter(owner=user).select_related("project", "job"), user=user
    ).distinct()


def live_notebook(*, user, project) -> Notebook | None:
    """The owner's notebook in ``project`` that is starting or running (one per user and project)."""
    return (
        Notebook.objects.filter(owner=user, project=project, status__in=LIVE[:2])
        .order_by("-created_at")
        .first()
    )
