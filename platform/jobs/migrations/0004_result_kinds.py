"""Stamp ``kind`` and ``version`` on the results jobs stored before each job kind's result had a
contract (``workers.contracts.job_kinds``): the result kind is the job kind's. A package build's
result named the package's kind ``kind``; it becomes ``package_kind``. Training results were
stamped by 0003. On PostgreSQL one UPDATE per job kind; elsewhere (SQLite) row by row."""

from django.db import migrations

BATCH = 500
RESULT_KINDS = {
    "system.check": "system_check_result",
    "datasets.import": "dataset_import_result",
    "training.check_backbone": "backbone_check_result",
    "training.import_model": "model_import_result",
    "automl.trial": "automl_trial_result",
    "automl.report_run": "automl_report_run_result",
    "deploy.build_package": "package_build_result",
}
PACKAGE_BUILD = "deploy.build_package"


def _postgres(schema_editor, job_table: str) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {job_table} SET result = (result - 'kind') || jsonb_build_object('package_kind', "
            "result -> 'kind') WHERE kind = %s AND jsonb_typeof(result) = 'object' AND result ? 'kind' "
            "AND result ->> 'kind' <> 'package_build_result'",
            [PACKAGE_BUILD],
        )
        for job_kind, result_kind in RESULT_KINDS.items():
            cursor.execute(
                f"UPDATE {job_table} SET result = jsonb_build_object('kind', %s::text, 'version', 1) || result "
                "WHERE kind = %s AND jsonb_typeof(result) = 'object' AND NOT result ? 'kind'",
                [result_kind, job_kind],
            )


def stamped(job_kind: str, result):
    if job_kind not in RESULT_KINDS or not isinstance(result, dict):
        return None
    if job_kind == PACKAGE_BUILD and result.get("kind") not in (None, RESULT_KINDS[PACKAGE_BUILD]):
        result = {**{k: v for k, v in result.items() if k != "kind"}, "package_kind": result["kind"]}
    if "kind" in result:
        return None
    return {"kind": RESULT_KINDS[job_kind], "version": 1, **result}


def stamp(apps, schema_editor):
    Job = apps.get_model("jobs", "Job")
    if schema_editor.connection.vendor == "postgresql":
        _postgres(schema_editor, Job._meta.db_table)
        return
    jobs = Job.objects.filter(kind__in=list(RESULT_KINDS)).only("pk", "kind", "result")
    for job in jobs.iterator(chunk_size=BATCH):
        result = stamped(job.kind, job.result)
        if result is not None:
            Job.objects.filter(pk=job.pk).update(result=result)


class Migration(migrations.Migration):
    dependencies = [("jobs", "0003_contract_kinds")]

    operations = [migrations.RunPython(stamp, migrations.RunPython.noop, elidable=False)]
