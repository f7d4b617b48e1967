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


class DatasetVersionParams(serializers.Serializer):
    dataset = serializers.IntegerField(help_text="The dataset to snapshot.")
    train_ratio = serializers.FloatField(required=False)
    val_ratio = serializers.FloatField(required=False)
    test_ratio = serializers.FloatField(required=False)
    seed = serializers.IntegerField(help_text="Drawn when the job was queued when none was given.")
    note = serializers.CharField(required=False, allow_blank=True)
    reviewed_only = serializers.BooleanField(required=False)
    samples = serializers.IntegerField(help_text="Samples the version was expected to hold when queued.")


DATASET_VERSION = register(
    JobKind(
        name="datasets.version",
        title="Dataset version",
        description="Snapshots a large dataset's labeled samples as a new version, batch by batch.",
        task_name="datasets.version",
        params_serializer=DatasetVersionParams,
        prefers_gpu=False,
        retryable=True,
        preemptible=True,  # a shutdown removes the half-filled version; the next attempt starts over
        start_endpoint="/api/v1/datasets/{id}/versions/",
    )
)


class DatasetExportParams(serializers.Serializer):
    dataset = serializers.IntegerField(help_text="The dataset exported.")
    dataset_version = serializers.IntegerField(
        allow_null=True, help_text="The version exported (null: current)."
    )
    format = serializers.CharField(allow_blank=True, help_text="Object detection: coco, voc or yolo.")
    samples = serializers.IntegerField(help_text="Samples the export was expected to hold when queued.")


DATASET_EXPORT = register(
    JobKind(
        name="datasets.export",
        title="Dataset export",
        description="Writes a dataset (or a version) as a zip to blob storage, to download when done.",
        task_name="datasets.export",
        params_serializer=DatasetExportParams,
        prefers_gpu=False,
        retryable=True,
        preemptible=True,
        start_endpoint="/api/v1/datasets/{id}/exports/",
    )
)
