"""Reads for custom code: the code archives a user may see (their workspaces' content)."""

from __future__ import annotations

from django.db.models import QuerySet
from workspaces.selectors import scoped_to_member

from customjobs.models import CodeArchive


def code_archives_for(*, user) -> QuerySet[CodeArchive]:
    """Code archives in the user's workspaces, newest first."""
    return scoped_to_member(CodeArchive.objects.select_related("created_by"), user=user)
