"""The deploy app's blob references (blobs.services): packages, captured requests, batch predictions'
uploads and result files."""

from __future__ import annotations

from collections.abc import Iterator

from blobs.registry import BlobReferences, blob_references_register, keys_in_json

from deploy.models import BatchPrediction


def _keys() -> Iterator[str]:
    for files in BatchPrediction.objects.values_list("files", flat=True).iterator():
        yield from keys_in_json(files)


blob_references_register(
    "deploy",
    BlobReferences(
        key_fields=("Package.blob_key", "CapturedRequest.blob_key", "BatchPrediction.upload_key"),
        computed_fields=("BatchPrediction.files",),
        not_blob_fields=("DeploymentKey.prefix",),
        keys=_keys,
    ),
)
