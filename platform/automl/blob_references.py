"""The automl app's blob references (blobs.services): each trial's stored model and ONNX files (its
``artifacts``), kept while the trial exists so it can be promoted later."""

from __future__ import annotations

from collections.abc import Iterator

from blobs.registry import BlobReferences, blob_references_register, keys_in_json

from automl.models import Trial


def _keys() -> Iterator[str]:
    for artifacts in Trial.objects.values_list("artifacts", flat=True).iterator():
        yield from keys_in_json(artifacts)


blob_references_register("automl", BlobReferences(computed_fields=("Trial.artifacts",), keys=_keys))
