"""The jobs app's blob references (blobs.services): keys a job's params or result name, and a
marker for every queued or running job."""

from __future__ import annotations

from collections.abc import Iterator

from blobs.registry import BlobReferences, blob_references_register, keys_in_json

from jobs.models import Job, JobStatus

ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)


def _keys() -> Iterator[str]:
    # an active job's params may name a blob it is about to read (a model upload's blob_key)
    for params in Job.objects.filter(status__in=ACTIVE).values_list("params", flat=True).iterator():
        yield from keys_in_json(params)
    # a finished job's result names what it kept (a custom run's artifacts)
    for result in Job.objects.filter(result__isnull=False).values_list("result", flat=True).iterator():
        yield from keys_in_json(result)


def _markers() -> Iterator[str]:
    for pk in Job.objects.filter(status__in=ACTIVE).values_list("pk", flat=True).iterator():
        yield f"job-{pk}"


blob_references_register(
    "jobs",
    BlobReferences(
        computed_fields=("Job.params", "Job.result"),
        not_blob_fields=("IdempotencyRecord.key",),
        keys=_keys,
        markers=_markers,
    ),
)
