"""Django admin: an administrator sets each workspace's job limits here (or over REST, staff only)."""

from __future__ import annotations

from django.contrib import admin

from jobs.models import WorkspaceLimits


@admin.register(WorkspaceLimits)
class WorkspaceLimitsAdmin(admin.ModelAdmin):
    list_display = ("workspace", "max_jobs", "max_gpu_jobs", "updated_at")
    search_fields = ("workspace__name",)
    autocomplete_fields = ()
    raw_id_fields = ("workspace",)
