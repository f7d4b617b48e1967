"""The datasets app's blob references (blobs.services): samples' images and thumbnails, versions'
samples (content-addressed, so shared with the live dataset's), and pending import uploads."""

from __future__ import annotations

from blobs.registry import BlobReferences, blob_references_register

blob_references_register(
    "datasets",
    BlobReferences(
        key_fields=(
            "Sample.blob_key",
            "Sample.thumbnail_key",
            "VersionSample.blob_key",
            "ImportBatch.upload_key",
        ),
    ),
)
