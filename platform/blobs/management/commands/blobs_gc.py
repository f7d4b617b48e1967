"""Delete the stored blobs that nothing references (what the periodic ``blobs-gc`` sweep does)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from blobs.services import blobs_collect_garbage


class Command(BaseCommand):
    help = (
        "Delete blobs no dataset, version, model version, package, job or notebook references and that "
        "are older than the grace period; prints counts and bytes."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="count what would be deleted, delete nothing"
        )
        parser.add_argument(
            "--grace-hours",
            type=float,
            default=None,
            help="keep blobs younger than this many hours "
            f"(default SAMPAN_BLOB_GC_GRACE_HOURS, here {settings.SAMPAN_BLOB_GC_GRACE_HOURS})",
        )

    def handle(self, *args, dry_run: bool, grace_hours: float | None, **options):
        if grace_hours is not None and grace_hours < 0:
            raise CommandError("--grace-hours must be 0 or more")
        grace = None if grace_hours is None else timedelta(hours=grace_hours)
        result = blobs_collect_garbage(grace=grace, dry_run=dry_run)
        verb = "would delete" if dry_run else "deleted"
        self.stdout.write(
            f"scanned {result['scanned']} blob(s) ({result['scanned_bytes']} bytes): "
            f"{verb} {result['deleted']} ({result['freed_bytes']} bytes), "
            f"kept {result['referenced']} referenced and {result['young']} within the grace period"
            + (f", {result['failed']} could not be deleted" if result["failed"] else "")
        )
