"""Stamp ``kind`` and ``version`` on the evaluation reports stored before the contracts had them
(``workers.contracts.evaluation``): model versions' ``evaluation`` and HPO trials' stored
``artifacts["evaluation"]``. From here on consumers switch on ``kind``; this is the one place that
tells an old report's kind by its keys."""

from django.db import migrations

BATCH = 500


def _kind_of(report) -> str | None:
    if not isinstance(report, dict) or not report or "kind" in report:
        return None
    if report.get("task") == "regression" or (
        {"mae", "rmse", "r2"} <= report.keys() and "accuracy" not in report
    ):
        return "regression_report"
    if {"accuracy", "per_class"} <= report.keys():
        return "classification_report"
    return None


def _stamped(report):
    kind = _kind_of(report)
    return None if kind is None else {"kind": kind, "version": 1, **report}


def stamp(apps, schema_editor):
    ModelVersion = apps.get_model("training", "ModelVersion")
    changed = []
    for version in ModelVersion.objects.only("pk", "evaluation").iterator(chunk_size=BATCH):
        report = _stamped(version.evaluation)
        if report is not None:
            version.evaluation = report
            changed.append(version)
        if len(changed) >= BATCH:
            ModelVersion.objects.bulk_update(changed, ["evaluation"])
            changed = []
    ModelVersion.objects.bulk_update(changed, ["evaluation"])

    Trial = apps.get_model("automl", "Trial")
    changed = []
    for trial in Trial.objects.only("pk", "artifacts").iterator(chunk_size=BATCH):
        artifacts = trial.artifacts if isinstance(trial.artifacts, dict) else {}
        report = _stamped(artifacts.get("evaluation"))
        if report is not None:
            trial.artifacts = {**artifacts, "evaluation": report}
            changed.append(trial)
        if len(changed) >= BATCH:
            Trial.objects.bulk_update(changed, ["artifacts"])
            changed = []
    Trial.objects.bulk_update(changed, ["artifacts"])


def unstamp(apps, schema_editor):
    def strip(report):
        if isinstance(report, dict) and report.get("kind") in ("classification_report", "regression_report"):
            return {k: v for k, v in report.items() if k not in ("kind", "version")}
        return report

    ModelVersion = apps.get_model("training", "ModelVersion")
    for version in ModelVersion.objects.only("pk", "evaluation").iterator(chunk_size=BATCH):
        ModelVersion.objects.filter(pk=version.pk).update(evaluation=strip(version.evaluation))
    Trial = apps.get_model("automl", "Trial")
    for trial in Trial.objects.only("pk", "artifacts").iterator(chunk_size=BATCH):
        if isinstance(trial.artifacts, dict) and "evaluation" in trial.artifacts:
            artifacts = {**trial.artifacts, "evaluation": strip(trial.artifacts["evaluation"])}
            Trial.objects.filter(pk=trial.pk).update(artifacts=artifacts)


class Migration(migrations.Migration):
    dependencies = [
        ("training", "0003_model_version_source"),
        ("automl", "0001_initial"),
    ]

    operations = [migrations.RunPython(stamp, unstamp, elidable=False)]
