"""The notebooks app's blob references (blobs.services): each notebook's files under its prefix."""

from __future__ import annotations

from blobs.registry import BlobReferences, blob_references_register

blob_references_register("notebooks", BlobReferences(prefix_fields=("Notebook.storage_prefix",)))
