from __future__ import annotations

from django.db import models


class BlobSweep(models.Model):
    """One run of the blob garbage collector (blobs.services): what it found and what it deleted.
    Listed in the Django admin (/admin/blobs/blobsweep/)."""

    started_at = models.DateTimeField(db_index=True)
    finished_at = models.DateTimeField()
    dry_run = models.BooleanField(default=False)
    grace_hours = models.FloatField()
    scanned = models.PositiveBigIntegerField(default=0)
    scanned_bytes = models.PositiveBigIntegerField(default=0)
    young = models.PositiveBigIntegerField(default=0, help_text="Within the grace period, referenced or not.")
    referenced = models.PositiveBigIntegerField(
        default=0, help_text="Older than the grace period and in use."
    )
    deleted = models.PositiveBigIntegerField(default=0, help_text="Deleted, or would be on a dry run.")
    freed_bytes = models.PositiveBigIntegerField(default=0)
    failed = models.PositiveBigIntegerField(default=0, help_text="Deletions the storage refused.")

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return (
            f"blob sweep {self.started_at:%Y-%m-%d %H:%M}: {self.deleted} deleted ({self.freed_bytes} bytes)"
        )
