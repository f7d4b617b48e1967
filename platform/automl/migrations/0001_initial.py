from __future__ import annotations

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# Optuna's own tables live in this schema of the platform's PostgreSQL database (see automl.engine).
CREATE_OPTUNA_SCHEMA = "CREATE SCHEMA IF NOT EXISTS optuna"


def create_optuna_schema(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE_OPTUNA_SCHEMA)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("datasets", "0001_initial"),
        ("jobs", "0001_initial"),
        ("training", "0001_initial"),
        ("workspaces", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(create_optuna_schema, migrations.RunPython.noop),
        migrations.CreateModel(
            name="Study",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=200)),
                ("template", models.CharField(max_length=64)),
                ("preset", models.CharField(help_text="The preset every trial starts from.", max_length=32)),
                (
                    "fixed_params",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="Parameters every trial uses as they are (not searched).",
                    ),
                ),
                (
                    "search_space",
                    models.JSONField(
                        default=list,
                        help_text="Optuna-shaped dimensions: [{name, type, low, high, log, step} | {name, type: categorical, choices}].",
                    ),
                ),
                (
                    "objective",
                    models.JSONField(default=dict, help_text="{metric, direction} from the template."),
                ),
                (
                    "sampler",
                    models.CharField(
                        choices=[
                            ("sde", "SDE (Sampan's swarm sampler)"),
                            ("tpe", "TPE"),
                            ("cmaes", "CMA-ES"),
                            ("random", "Random"),
                        ],
                        default="sde",
                        max_length=16,
                    ),
                ),
                (
                    "pruner",
                    models.CharField(
                        choices=[
                            ("none", "No pruning"),
                            ("median", "Median"),
                            ("successive_halving", "Successive halving"),
                        ],
                        default="median",
                        max_length=24,
                    ),
                ),
                ("n_trials", models.PositiveIntegerField()),
                (
                    "timeout_seconds",
                    models.PositiveIntegerField(
                        blank=True, help_text="Wall-time budget: no trial starts after it.", null=True
                    ),
                ),
                (
                    "parallelism",
                    models.PositiveIntegerField(default=1, help_text="Trials in flight at once."),
                ),
                ("seed", models.IntegerField(default=0)),
                (
                    "report_seeds",
                    models.PositiveIntegerField(
                        default=3, help_text="Seeds of the honest-lift report (0: none)."
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("running", "Running"),
                            ("paused", "Paused"),
                            ("stopped", "Stopped"),
                            ("completed", "Completed"),
                        ],
                        db_index=True,
                        default="running",
                        max_length=16,
                    ),
                ),
                ("optuna_name", models.CharField(max_length=100, unique=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "dataset_version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="studies",
                        to="datasets.datasetversion",
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="studies",
                        to="workspaces.project",
                    ),
                ),
                (
                    "workspace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="studies",
                        to="workspaces.workspace",
                    ),
                ),
            ],
            options={"verbose_name_plural": "studies", "ordering": ["-created_at", "-id"]},
        ),
        migrations.CreateModel(
            name="Trial",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField(help_text="Optuna's trial number within the study.")),
                ("optuna_trial_id", models.BigIntegerField()),
                (
                    "params",
                    models.JSONField(default=dict, help_text="The sampled values of the search space."),
                ),
                (
                    "train_params",
                    models.JSONField(default=dict, help_text="Every parameter the trainer used."),
                ),
                (
                    "state",
                    models.CharField(
                        choices=[
                            ("running", "Running"),
                            ("complete", "Complete"),
                            ("pruned", "Pruned"),
                            ("failed", "Failed"),
                        ],
                        db_index=True,
                        default="running",
                        max_length=16,
                    ),
                ),
                (
                    "value",
                    models.FloatField(
                        blank=True, help_text="The objective (best validation metric).", null=True
                    ),
                ),
                (
                    "intermediate",
                    models.JSONField(blank=True, default=dict, help_text="{epoch: validation metric}."),
                ),
                ("pruned_at_epoch", models.PositiveIntegerField(blank=True, null=True)),
                (
                    "test_metrics",
                    models.JSONField(
                        blank=True, default=dict, help_text="Headline metrics on the test split."
                    ),
                ),
                (
                    "artifacts",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="Blob keys of the model file and its ONNX export, plus the evaluation and the trainer's result, for promotion.",
                    ),
                ),
                ("error", models.TextField(blank=True)),
                ("started_at", models.DateTimeField(auto_now_add=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "job",
                    models.OneToOneField(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="automl_trial",
                        to="jobs.job",
                    ),
                ),
                (
                    "model_version",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="automl_trial",
                        to="training.modelversion",
                    ),
                ),
                (
                    "study",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="trials", to="automl.study"
                    ),
                ),
            ],
            options={"ordering": ["study", "number"]},
        ),
        migrations.AddConstraint(
            model_name="trial",
            constraint=models.UniqueConstraint(
                fields=("study", "number"), name="trial_number_unique_in_study"
            ),
        ),
        migrations.CreateModel(
            name="ReportRun",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "role",
                    models.CharField(
                        choices=[("baseline", "Default preset"), ("best", "Best trial's parameters")],
                        max_length=16,
                    ),
                ),
                ("seed", models.IntegerField()),
                ("params", models.JSONField(default=dict)),
                ("test_metric", models.FloatField(blank=True, null=True)),
                ("error", models.TextField(blank=True)),
                ("finished", models.BooleanField(default=False)),
                (
                    "job",
                    models.OneToOneField(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="automl_report_run",
                        to="jobs.job",
                    ),
                ),
                (
                    "study",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="report_runs",
                        to="automl.study",
                    ),
                ),
            ],
            options={"ordering": ["study", "role", "seed"]},
        ),
        migrations.AddConstraint(
            model_name="reportrun",
            constraint=models.UniqueConstraint(fields=("study", "role", "seed"), name="report_run_unique"),
        ),
    ]
