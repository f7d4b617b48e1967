"""The job kinds of smart labeling."""

from __future__ import annotations

from jobs.registry import JobKind, register
from rest_framework import serializers


class SmartRoundParams(serializers.Serializer):
    smart_round = serializers.IntegerField(help_text="The smart-labeling round this job computes.")


SMART_ROUND = register(
    JobKind(
        name="labeling.smart_round",
        title="Smart labeling round",
        description=(
            "Trains a quick model on a dataset's labeled samples, suggests a label for every unlabeled "
            "sample and ranks them by how much labeling them would help."
        ),
        task_name="labeling.smart_round",
        params_serializer=SmartRoundParams,
        prefers_gpu=False,
        start_endpoint="/api/v1/datasets/{id}/smart-labeling/",
    )
)
