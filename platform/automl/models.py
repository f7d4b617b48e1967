from __future__ import annotations

from django.conf import settings
from django.db import models


class SamplerKind(models.TextChoices):
    SDE = "sde", "SDE (Sampan's swarm sampler)"
    TPE = "tpe", "TPE"
    CMAES = "cmaes", "CMA-ES"
    RANDOM = "random", "Random"
    NSGA2 = "nsga2", "NSGA-II (multi-objective)"
    GP = "gp", "Gaussian process"


class PrunerKind(models.TextChoices):
    NONE = "none", "No pruning"
    MEDIAN = "median", "Median"
    SUCCESSIVE_HALVING = "successive_halving", "Successive halving"


class StudyStatus(models.TextChoices):
    RUNNING = "running", "Running"
    PAUSED = "paused", "Paused"
    STOPPED = "stopped", "Stopped"
    COMPLETED = "completed", "Completed"


CUSTOM_TEMPLATE = "custom"


class Study(models.Model):
    """A hyperparameter search (HPO) over one template on one dataset version, or over a user's
    own training code (``template="custom"``: each trial runs the code with sampled
    hyperparameters; ``custom_code`` holds what to run).

    Optuna's own record of the study lives in its RDB storage (the platform's PostgreSQL, schema
    ``optuna``; a SQLite file in embedded mode) under ``optuna_name``; this row holds what the
    platform needs: the configuration, the status and the links to jobs and model versions.
    """

    workspace = models.ForeignKey("workspaces.Workspace", on_delete=models.CASCADE, related_name="studies")
    project = models.ForeignKey("workspaces.Project", on_delete=models.CASCADE, related_name="studies")
    name = models.CharField(max_length=200)
    dataset_version = models.ForeignKey(
        "datasets.DatasetVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="studies",
        help_text="The data every trial trains on (a custom-code study may have none).",
    )
    template = models.CharField(max_length=64, help_text='A task template, or "custom" (the user\'s code).')
    custom_code = models.JSONField(
        null=True,
        blank=True,
        help_text="A custom-code study's code: {code_archive, code_name, code_sha256, code_kind, "
        "entry_point, args, requirements, limits, network, queue} (null for a template study).",
    )
    preset = models.CharField(max_length=32, help_text="The preset every trial starts from.")
    fixed_params = models.JSONField(
        default=dict, blank=True, help_text="Parameters every trial uses as they are (not searched)."
    )
    search_space = models.JSONField(
        default=list,
        help_text="Optuna-shaped dimensions: [{name, type, low, high, "
        "log, step} | {name, type: categorical, choices}].",
    )
    objective = models.JSONField(default=dict, help_text="{metric, direction} from the template.")
    objectives = models.JSONField(
        default=list,
        blank=True,
        help_text="[{metric, direction}] (1 to 3): the template's metric, latency_ms (on the target), "
        "size_bytes. Empty: the single objective above. More than one: a multi-objective study.",
    )
    constraints = models.JSONField(
        default=list,
        blank=True,
        help_text='[{metric, op: "<=" | ">=", value}]: a trial outside any is infeasible.',
    )
    target_profile = models.JSONField(
        null=True,
        blank=True,
        help_text="Snapshot of the target profile latency is measured with (a TargetProfile contract).",
    )
    space_notes = models.JSONField(
        default=list,
        blank=True,
        help_text="How the default search space was adapted to the study's target, in sentences.",
    )
    target_profile_ref = models.ForeignKey(
        "deploy.TargetProfile", null=True, blank=True, on_delete=models.SET_NULL, related_name="studies"
    )
    sampler = models.CharField(max_length=16, choices=SamplerKind.choices, default=SamplerKind.SDE)
    pruner = models.CharField(max_length=24, choices=PrunerKind.choices, default=PrunerKind.MEDIAN)
    n_trials = models.PositiveIntegerField()
    timeout_seconds = models.PositiveIntegerField(
        null=True, blank=True, help_text="Wall-time budget: no trial starts after it."
    )
    parallelism = models.PositiveIntegerField(default=1, help_text="Trials in flight at once.")
    seed = models.IntegerField(default=0)
    report_seeds = models.PositiveIntegerField(
        default=3, help_text="Seeds of the honest-lift report (0: none)."
    )
    status = models.CharField(
        max_length=16, choices=StudyStatus.choices, default=StudyStatus.RUNNING, db_index=True
    )
    optuna_name = models.CharField(max_length=100, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return f"study {self.pk} {self.name}"

    @property
    def goals(self) -> list[dict]:
        """The objectives, in order (a single-objective study: its ``objective``)."""
        return list(self.objectives) if self.objectives else [dict(self.objective)]

    @property
    def is_multi_objective(self) -> bool:
        return len(self.objectives) > 1

    @property
    def measures_deployment(self) -> bool:
        """Trials measure their ONNX on the target (latency, size) after training."""
        metrics = {g["metric"] for g in self.goals} | {c["metric"] for c in self.constraints}
        quantized = any(d.get("name") == "quantization" for d in self.search_space)
        return bool(metrics & {"latency_ms", "size_bytes"}) or quantized or self.target_profile is not None


class TrialState(models.TextChoices):
    RUNNING = "running", "Running"
    COMPLETE = "complete", "Complete"
    PRUNED = "pruned", "Pruned"
    FAILED = "failed", "Failed"


class Trial(models.Model):
    """One point of a study: a training run (an ``automl.trial`` job) with sampled parameters."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="trials")
    number = models.PositiveIntegerField(help_text="Optuna's trial number within the study.")
    optuna_trial_id = models.BigIntegerField()
    params = models.JSONField(default=dict, help_text="The sampled values of the search space.")
    train_params = models.JSONField(default=dict, help_text="Every parameter the trainer used.")
    state = models.CharField(
        max_length=16, choices=TrialState.choices, default=TrialState.RUNNING, db_index=True
    )
    value = models.FloatField(null=True, blank=True, help_text="The objective (best validation metric).")
    values = models.JSONField(
        default=list, blank=True, help_text="One value per objective (a multi-objective study)."
    )
    measurements = models.JSONField(
        default=dict,
        blank=True,
        help_text="{latency_ms, size_bytes, flops, latency: LatencyMeasurement}: "
        "the trial's ONNX on the target.",
    )
    feasible = models.BooleanField(null=True, blank=True, help_text="Within every constraint (null: none).")
    quantized = models.BooleanField(default=False, help_text="The trial measures and serves the int8 ONNX.")
    intermediate = models.JSONField(default=dict, blank=True, help_text="{epoch: validation metric}.")
    pruned_at_epoch = models.PositiveIntegerField(null=True, blank=True)
    test_metrics = models.JSONField(default=dict, blank=True, help_text="Headline metrics on the test split.")
    artifacts = models.JSONField(
        default=dict,
        blank=True,
        help_text="Blob keys of the model file and its ONNX export, plus the evaluation "
        "and the trainer's result, for promotion.",
    )
    error = models.TextField(blank=True)
    job = models.OneToOneField("jobs.Job", null=True, on_delete=models.SET_NULL, related_name="automl_trial")
    model_version = models.OneToOneField(
        "training.ModelVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="automl_trial"
    )
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["study", "number"]
        constraints = [
            models.UniqueConstraint(fields=["study", "number"], name="trial_number_unique_in_study")
        ]

    @property
    def duration_seconds(self) -> float | None:
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


class ReportRole(models.TextChoices):
    BASELINE = "baseline", "Default preset"
    BEST = "best", "Best trial's parameters"


class ReportRun(models.Model):
    """One run of the honest-lift report: the default preset or the best trial's parameters,
    trained again with one of the report's seeds on the same data, scored on the test split."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="report_runs")
    role = models.CharField(max_length=16, choices=ReportRole.choices)
    seed = models.IntegerField()
    params = models.JSONField(default=dict)
    job = models.OneToOneField(
        "jobs.Job", null=True, on_delete=models.SET_NULL, related_name="automl_report_run"
    )
    test_metric = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True)
    finished = models.BooleanField(default=False)

    class Meta:
        ordering = ["study", "role", "seed"]
        constraints = [models.UniqueConstraint(fields=["study", "role", "seed"], name="report_run_unique")]
