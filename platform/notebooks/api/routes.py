"""The notebooks app's API routes, included by config.urls (register on the shared router; extra paths)."""

from __future__ import annotations

from config.routing import ApiRouter
from django.urls import URLPattern


def register(router: ApiRouter) -> None:
    """Register this app's viewsets on the API router."""
    from notebooks.api.views import NotebookViewSet

    router.register("notebooks", NotebookViewSet, basename="notebook")


urlpatterns: list[URLPattern] = []
