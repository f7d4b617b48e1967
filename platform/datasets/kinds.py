"""The job kinds the data service owns."""

from __future__ import annotations

from jobs.registry import JobKind, register
from rest_framework import serializers


class DatasetImportParams(serializers.Serializer):
    import_batch = serializers.IntegerField(help_text="The import batch whose stored archive to import.")


DATASET_IMPORT = register(
    JobKind(
        name="datasets.import",
        title="Dataset import",
        description=(
            "Verifies, re-encodes and thumbnails the images of an uploaded archive and adds them to a "
            "dataset."
        ),
        task_name="datasets.import",
        params_serializer=DatasetImportParams,
        prefers_gpu=False,
        # The batch, its stored upload and the job are created together by the import service.
        start_endpoint="/api/v1/datasets/{id}/imports/",
    )
)
