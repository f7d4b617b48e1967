"""Stamp ``kind`` and ``version`` on what jobs stored before the contracts had them
(``workers.contracts.jobs``): the latest ``progress`` of a job, every event's ``data`` (by the
event's type: progress, job_status, job_log) and the ``result`` of training jobs (training.run,
training.evaluate_model). On PostgreSQL one UPDATE per table; elsewhere (SQLite) row by row."""

from django.db import migrations

BATCH = 500
EVENT_KINDS = {"progress": "progress", "status": "job_status", "log": "job_log"}
TRAINING_KINDS = ("training.run", "training.evaluate_model")


def _postgres(schema_editor, job_table: str, event_table: str) -> None:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {event_table} SET data = data || jsonb_build_object('kind', CASE type "
            "WHEN 'progress' THEN 'progress' WHEN 'status' THEN 'job_status' ELSE 'job_log' END, "
            "'version', 1) WHERE jsonb_typeof(data) = 'object' AND NOT data ? 'kind'"
        )
        cursor.execute(
            f'UPDATE {job_table} SET progress = progress || \'{{"kind": "progress", "version": 1}}\'::jsonb '
            "WHERE jsonb_typeof(progress) = 'object' AND progress <> '{}'::jsonb AND NOT progress ? 'kind'"
        )
        cursor.execute(
            f"UPDATE {job_table} SET result = result || "
            '\'{"kind": "training_job_result", "version": 1}\'::jsonb '
            "WHERE kind = ANY(%s) AND jsonb_typeof(result) = 'object' AND result ? 'model_version' "
            "AND NOT result ? 'kind'",
            [list(TRAINING_KINDS)],
        )


def stamp(apps, schema_editor):
    Job = apps.get_model("jobs", "Job")
    JobEvent = apps.get_model("jobs", "JobEvent")
    if schema_editor.connection.vendor == "postgresql":
        _postgres(schema_editor, Job._meta.db_table, JobEvent._meta.db_table)
        return
    changed = []
    for event in JobEvent.objects.only("pk", "type", "data").iterator(chunk_size=BATCH):
        data = event.data if isinstance(event.data, dict) else {}
        if "kind" not in data:
            event.data = {**data, "kind": EVENT_KINDS.get(event.type, "job_log"), "version": 1}
            changed.append(event)
        if len(changed) >= BATCH:
            JobEvent.objects.bulk_update(changed, ["data"])
            changed = []
    JobEvent.objects.bulk_update(changed, ["data"])
    for job in Job.objects.only("pk", "kind", "progress", "result").iterator(chunk_size=BATCH):
        fields = {}
        if isinstance(job.progress, dict) and job.progress and "kind" not in job.progress:
            fields["progress"] = {**job.progress, "kind": "progress", "version": 1}
        result = job.result
        if (
            job.kind in TRAINING_KINDS
            and isinstance(result, dict)
            and "model_version" in result
            and "kind" not in result
        ):
            fields["result"] = {**result, "kind": "training_job_result", "version": 1}
        if fields:
            Job.objects.filter(pk=job.pk).update(**fields)


class Migration(migrations.Migration):
    dependencies = [("jobs", "0002_fault_tolerance")]

    operations = [migrations.RunPython(stamp, migrations.RunPython.noop, elidable=False)]
