"""The customjobs app's API routes, included by config.urls (register on the shared router; extra paths)."""

from __future__ import annotations

from config.routing import ApiRouter
from django.urls import URLPattern

from customjobs.api.views import CodeArchiveViewSet, CustomJobViewSet


def register(router: ApiRouter) -> None:
    """Register this app's viewsets on the API router."""
    router.register("code-archives", CodeArchiveViewSet, basename="code-archive")
    router.register("custom-jobs", CustomJobViewSet, basename="custom-job")


urlpatterns: list[URLPattern] = []
