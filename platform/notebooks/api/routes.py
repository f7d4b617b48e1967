"""The notebooks app's API routes, included by config.urls (register on the shared router; extra paths)."""

from __future__ import annotations

from config.routing import ApiRouter
from django.urls import URLPattern


def register(router: ApiRouter) -> None:
    """Register this app's viewsets on the API router."""


urlpatterns: list[URLPattern] = []
