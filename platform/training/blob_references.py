"""The training app's blob references (blobs.services): model versions' checkpoint and ONNX files,
uploaded backbones, the outputs of a compression whose job is still active, and the checkpoints
mirrored from a run (training.checkpoint_mirror) that a retry may still resume from."""

from __future__ import annotations

from collections.abc import Iterator

from blobs.registry import BlobReferences, blob_references_register
from jobs.models import Job, JobStatus

from training.models import Compression
from training.services import run_dir_for


def _markers() -> Iterator[str]:
    # models/project-<p>/v<n>-compression-<id>/: stored before the versions that name them commit
    active = Compression.objects.filter(
        report__isnull=True, job__status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
    )
    for pk in active.values_list("pk", flat=True).iterator():
        yield f"compression-{pk}"


def _prefixes() -> Iterator[str]:
    # runs/<run dir name>/: a failed or cancelled job keeps its mirror (a retry resumes from it), as
    # it keeps its run directory; a succeeded job's body deletes it (checkpoint_mirror_forget)
    for job in Job.objects.exclude(status=JobStatus.SUCCEEDED).only("pk", "created_at").iterator():
        yield f"runs/{run_dir_for(job).name}/"


blob_references_register(
    "training",
    BlobReferences(
        key_fields=("ModelVersion.checkpoint_key", "ModelVersion.onnx_key", "Backbone.blob_key"),
        prefixes=_prefixes,
        markers=_markers,
    ),
)
