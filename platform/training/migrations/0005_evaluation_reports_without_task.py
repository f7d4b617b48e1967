"""Drop the legacy ``task`` key ("classification"/"regression") from the evaluation reports stored
before the contracts named their kind (``workers.contracts.evaluation``): model versions'
``evaluation`` and HPO trials' stored ``artifacts["evaluation"]``. A report's ``kind``
(``classification_report``/``regression_report``) says the same; consumers switch on it."""

from django.db import migrations

BATCH = 500
TASKS = {"classification_report": "classification", "regression_report": "regression"}


def _without_task(report):
    if isinstance(report, dict) and report.get("kind") in TASKS and "task" in report:
        return {key: value for key, value in report.items() if key != "task"}
    return None


def _with_task(report):
    if isinstance(report, dict) and report.get("kind") in TASKS and "task" not in report:
        return {**report, "task": TASKS[report["kind"]]}
    return None


def _rewrite(apps, change):
    ModelVersion = apps.get_model("training", "ModelVersion")
    changed = []
    for version in ModelVersion.objects.only("pk", "evaluation").iterator(chunk_size=BATCH):
        report = change(version.evaluation)
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
        report = change(artifacts.get("evaluation"))
        if report is not None:
            trial.artifacts = {**artifacts, "evaluation": report}
            changed.append(trial)
        if len(changed) >= BATCH:
            Trial.objects.bulk_update(changed, ["artifacts"])
            changed = []
    Trial.objects.bulk_update(changed, ["artifacts"])


def drop_task(apps, schema_editor):
    _rewrite(apps, _without_task)


def restore_task(apps, schema_editor):
    _rewrite(apps, _with_task)


class Migration(migrations.Migration):
    dependencies = [
        ("training", "0004_evaluation_report_kinds"),
        ("automl", "0001_initial"),
    ]

    operations = [migrations.RunPython(drop_task, restore_task, elidable=False)]
