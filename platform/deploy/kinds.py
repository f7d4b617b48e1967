"""The deploy job kinds: building an on-prem server package or a device SDK; a batch prediction."""

from __future__ import annotations

from jobs.registry import PRIORITY_BATCH, JobKind, register
from rest_framework import serializers


class BuildPackageParams(serializers.Serializer):
    package = serializers.IntegerField(help_text="The package to build.")


BUILD_PACKAGE = register(
    JobKind(
        name="deploy.build_package",
        title="Package build",
        description=(
            "Builds the on-prem server package or the device SDK of a model version and stores the archive."
        ),
        task_name="deploy.build_package",
        params_serializer=BuildPackageParams,
        prefers_gpu=False,
        start_endpoint="/api/v1/packages/",
        priority=PRIORITY_BATCH,
    )
)


class BatchPredictParams(serializers.Serializer):
    batch_prediction = serializers.IntegerField(help_text="The batch prediction this job computes.")


BATCH_PREDICT = register(
    JobKind(
        name="deploy.batch_predict",
        title="Batch prediction",
        description=(
            "Predicts every input of a dataset version, a dataset or an uploaded file with a model "
            "version and stores the results (JSONL, CSV; Parquet for tables)."
        ),
        task_name="deploy.batch_predict",
        params_serializer=BatchPredictParams,
        prefers_gpu=False,
        start_endpoint="/api/v1/batch-predictions/",
        priority=PRIORITY_BATCH,
    )
)
