"""The accounts app references no blobs; an API token's ``prefix`` only names the token."""

from __future__ import annotations

from blobs.registry import BlobReferences, blob_references_register

blob_references_register("accounts", BlobReferences(not_blob_fields=("ApiToken.prefix",)))
