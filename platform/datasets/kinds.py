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


class QualityReportParams(serializers.Serializer):
    quality_report = serializers.IntegerField(help_text="The quality report this job computes.")


DATASET_QUALITY_REPORT = register(
    JobKind(
        name="datasets.quality_report",
        title="Data quality report",
        description=(
            "Finds duplicates, likely mislabeled samples, class imbalance and problem images, texts or "
            "columns in a dataset or a dataset version."
        ),
        task_name="datasets.quality_report",
        params_serializer=QualityReportParams,
        prefers_gpu=False,
        retryable=True,
        start_endpoint="/api/v1/datasets/{id}/quality-reports/",
    )
)
