from __future__ import annotations

from django.contrib import admin

from blobs.models import BlobSweep


@admin.register(BlobSweep)
class BlobSweepAdmin(admin.ModelAdmin):
    """Read-only: the record of each sweep, newest first."""

    list_display = [
        "started_at",
        "dry_run",
        "grace_hours",
        "scanned",
        "referenced",
        "young",
        "deleted",
        "freed_bytes",
        "failed",
    ]
    list_filter = ["dry_run"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
