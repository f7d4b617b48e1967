"""The AutoML job kinds: a study's trial (a training run with sampled parameters, reporting each
epoch's validation value for pruning) and a run of the study's honest-lift report."""

from __future__ import annotations

from jobs.registry import PRIORITY_AUTOML, JobKind, register
from rest_framework import serializers


class TrialParams(serializers.Serializer):
    study = serializers.IntegerField()
    trial = serializers.IntegerField(help_text="The trial's number in the study.")


class ReportRunParams(serializers.Serializer):
    study = serializers.IntegerField()
    report_run = serializers.IntegerField()


TRIAL = register(
    JobKind(
        name="automl.trial",
        title="AutoML trial",
        description=(
            "Trains one trial of a hyperparameter study, reports each epoch's validation value (the pruner "
            "may stop it early) and evaluates the finished model on the test split."
        ),
        task_name="automl.trial",
        params_serializer=TrialParams,
        prefers_gpu=True,
        start_endpoint="/api/v1/studies/",
        preemptible=True,  # a worker shutdown hands the trial back; the next attempt resumes its checkpoint
        priority=PRIORITY_AUTOML,
    )
)

REPORT_RUN = register(
    JobKind(
        name="automl.report_run",
        title="AutoML lift run",
        description="Trains the default preset or the best trial's parameters with one seed for a study's "
        "honest-lift report and scores it on the test split.",
        task_name="automl.report_run",
        params_serializer=ReportRunParams,
        prefers_gpu=True,
        start_endpoint="/api/v1/studies/",
        priority=PRIORITY_AUTOML,
    )
)
