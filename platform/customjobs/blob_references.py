"""The customjobs app's blob references (blobs.services): uploaded code. A run's kept artifacts are
named by its job's result (jobs/blobs.py)."""

from __future__ import annotations

from blobs.registry import BlobReferences, blob_references_register

blob_references_register("customjobs", BlobReferences(key_fields=("CodeArchive.blob_key",)))
