"""The training app's blob references (blobs.services): model versions' checkpoint and ONNX files,
uploaded backbones, and the outputs of a compression whose job is still active."""

from __future__ import annotations

from collections.abc import Iterator

from blobs.registry import BlobReferences, blob_references_register
from jobs.models import JobStatus

from training.models import Compression


def _markers() -> Iterator[str]:
    # models/project-<p>/v<n>-compression-<id>/: stored before the versions that name them commit
    active = Compression.objects.filter(
        report__isnull=True, job__status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
    )
    for pk in active.values_list("pk", flat=True).iterator():
        yield f"compression-{pk}"


blob_references_register(
    "training",
    BlobReferences(
        key_fields=("ModelVersion.checkpoint_key", "ModelVersion.onnx_key", "Backbone.blob_key"),
        markers=_markers,
    ),
)
