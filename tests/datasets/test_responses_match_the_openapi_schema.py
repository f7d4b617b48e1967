"""The datasets API answers what its OpenAPI schema says: a tour of every datasets operation through
the conforming client (tests/openapi_conformance.py), which checks each answer's status, content type
and body against the schema. The tour must reach every documented success status of every datasets
operation, and the documented 409s of label writes, so a new operation or a new status is covered
the day it is documented, and an answer documented but never given shows up too."""

from __future__ import annotations

import io

import pytest
from datasets.models import Dataset, Label, Sample
from datasets.services import dataset_version_create
from datasets.services.image_imports import import_files
from PIL import Image

from tests.datasets.factories import dataset_with_samples, digit_bytes, folder_layout, make_zip, upload
from tests.openapi_conformance import openapi_schema

pytestmark = pytest.mark.django_db

DATASETS = "/api/v1/datasets/"
# Documented answers only a race gives (the target label deleted while a merge waits for its lock).
RACES = {("post", "/api/v1/datasets/{dataset_id}/labels/{id}/merge/", 409)}


def tour(client, *, project, dataset, gone_creator_dataset, settings) -> None:
    """One or more requests for every datasets operation and status the schema promises."""
    smart_labeling_tour(client, project=project)  # first: it imports under the default upload limit
    activity_tour(client, dataset=dataset)
    quality_tour(client, project=project)
    base = f"{DATASETS}{dataset.pk}"
    # datasets
    client.get(DATASETS, {"project": project.pk})
    assert client.get(DATASETS, {"project": "x"}).status_code == 400
    created = client.post(DATASETS, {"project": project.pk, "name": "Tour"}, format="json")
    assert created.status_code == 201, created.json()
    new = created.json()["id"]
    client.put(
        f"{DATASETS}{new}/", {"project": project.pk, "name": "Tour 2", "description": "d"}, format="json"
    )
    client.patch(f"{DATASETS}{new}/", {"name": "Tour 3"}, format="json")
    assert client.delete(f"{DATASETS}{new}/").status_code == 204
    client.get(f"{base}/")
    client.get(f"{base}/statistics/")
    assert client.get(f"{base}/profile/").json() == {}  # image datasets have no table profile
    assert client.get(f"{base}/series/").json() == []  # nor series (forecasting: test_time_series_*)
    table = client.post(
        DATASETS,
        {"project": project.pk, "name": "Table", "task_type": "tabular_classification"},
        format="json",
    ).json()["id"]
    assert (
        client.post(
            f"{DATASETS}{table}/imports/preview/",
            {"file": upload("t.csv", b"a,y\n1,x\n2,z\n")},
            format="multipart",
        ).status_code
        == 200
    )
    assert (
        client.post(
            f"{DATASETS}{table}/imports/preview/", {"file": upload("t.pdf", b"%PDF")}, format="multipart"
        ).status_code
        == 400
    )
    assert client.get(f"{base}/export/").status_code == 200
    # creators deleted since: null, as documented
    gone = client.get(f"{DATASETS}{gone_creator_dataset.pk}/").json()
    assert gone["created_by"] is None
    client.get(f"{DATASETS}{gone_creator_dataset.pk}/imports/")
    client.get(f"{DATASETS}{gone_creator_dataset.pk}/versions/")

    # labels
    labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset)}
    client.get(f"{base}/labels/")
    cat = client.post(f"{base}/labels/", {"name": "cat"}, format="json").json()["id"]
    client.get(f"{base}/labels/{cat}/")
    client.put(f"{base}/labels/{cat}/", {"name": "kitten", "color": "#112233"}, format="json")
    client.patch(f"{base}/labels/{cat}/", {"name": "cat", "shortcut": "c"}, format="json")
    order = [cat, *(lab.pk for lab in labels.values())]
    assert client.post(f"{base}/labels/reorder/", {"label_ids": order}, format="json").status_code == 200
    assert (
        client.post(
            f"{base}/labels/{labels['0'].pk}/merge/", {"into": cat, "dry_run": True}, format="json"
        ).json()["affected_samples"]
        == 2
    )
    assert (
        client.post(f"{base}/labels/{labels['0'].pk}/merge/", {"into": cat}, format="json").status_code == 200
    )
    assert client.delete(f"{base}/labels/{cat}/?dry_run=true").json() == {
        "label": cat,
        "affected_samples": 2,
        "dry_run": True,
    }
    assert client.delete(f"{base}/labels/{cat}/").status_code == 200

    # samples
    samples = f"{base}/samples/"
    ids = list(Sample.objects.filter(dataset=dataset).order_by("pk").values_list("pk", flat=True))
    page = client.get(samples, {"page_size": 2}).json()
    assert page["count"] == len(ids) and len(page["results"]) == 2
    client.get(samples, {"ids": f"{ids[0]},{ids[1]}", "label": labels["1"].pk})
    client.get(samples, {"unlabeled": "true", "search": "loose"})
    version = client.post(f"{base}/versions/", {"seed": 1}, format="json").json()
    client.get(samples, {"version": version["id"], "split": "train"})
    assert client.get(samples, {"ids": "x"}).status_code == 400
    one = client.get(f"{samples}{ids[0]}/").json()
    written = client.patch(
        f"{samples}{ids[0]}/", {"label": labels["1"].pk, "label_version": one["label_version"]}, format="json"
    )
    assert written.status_code == 200
    stale = client.patch(
        f"{samples}{ids[0]}/", {"label": None, "label_version": one["label_version"]}, format="json"
    )
    assert (
        stale.status_code == 409
        and stale.json()["error"]["details"]["current"]["label_version"] == written.json()["label_version"]
    )
    no_label = client.patch(f"{samples}{ids[0]}/", {"label": 10**12, "label_version": 0}, format="json")
    assert no_label.status_code == 409 and no_label.json()["error"]["code"] == "label_deleted"
    items = [
        {"id": pk, "label_version": v}
        for pk, v in Sample.objects.filter(pk__in=ids[1:4]).order_by("pk").values_list("pk", "label_version")
    ]
    bulk = client.post(f"{samples}bulk-label/", {"label": labels["2"].pk, "items": items}, format="json")
    assert bulk.status_code == 200 and bulk.json()["samples"][0]["label"] == labels["2"].pk
    conflict = client.post(f"{samples}bulk-label/", {"label": None, "items": items}, format="json")
    assert conflict.status_code == 409 and len(conflict.json()["error"]["details"]["conflicts"]) == 3
    gone_label = client.post(f"{samples}bulk-label/", {"label": 10**12, "items": items}, format="json")
    assert gone_label.status_code == 409 and gone_label.json()["error"]["code"] == "label_deleted"
    sample = Sample.objects.get(pk=ids[0])
    assert client.get(f"{samples}{sample.pk}/image/").status_code == 200
    assert (
        client.get(f"{samples}{sample.pk}/image/", HTTP_IF_NONE_MATCH=f'"{sample.sha256}"').status_code == 304
    )
    assert client.get(f"{samples}{sample.pk}/thumbnail/").status_code == 200
    assert (
        client.get(
            f"{samples}{sample.pk}/thumbnail/", HTTP_IF_NONE_MATCH=f'"{sample.sha256}-thumb"'
        ).status_code
        == 304
    )
    assert client.delete(f"{samples}{ids[-1]}/").status_code == 204

    # imports
    png = io.BytesIO()
    Image.new("RGB", (40, 30), (10, 200, 30)).save(png, "PNG")
    done = client.post(
        f"{base}/imports/",
        {"files": [upload("green.png", png.getvalue())], "label": "green"},
        format="multipart",
    )
    assert done.status_code == 201, done.json()
    queued = client.post(
        f"{base}/imports/",
        {"archive": upload("more.zip", make_zip(folder_layout(1, range(2)))), "background": "true"},
        format="multipart",
    )
    assert queued.status_code == 202, queued.json()
    client.get(f"{base}/imports/")
    client.get(f"{base}/imports/{done.json()['id']}/")
    settings.SAMPAN_DATASET_MAX_UPLOAD_BYTES = 100
    too_large = client.post(
        f"{base}/imports/", {"files": [upload("big.png", png.getvalue())]}, format="multipart"
    )
    assert too_large.status_code == 413

    # versions
    client.get(f"{base}/versions/")
    client.get(f"{base}/versions/{version['id']}/")
    assert client.get(f"{base}/export/", {"version": version["id"]}).status_code == 200
    assert client.get(f"{base}/export/", {"version": "x"}).status_code == 400
    large_dataset_jobs_tour(client, base=base, version=version, settings=settings)
    detection_tour(client, project=project)


def large_dataset_jobs_tour(client, *, base: str, version: dict, settings) -> None:
    """Versions and exports above the sync thresholds: 202 with their jobs (the export's body run
    here), the 409s before the zip is ready and for a large export inside the request."""
    from datasets.services.dataset_jobs import dataset_export_job_run
    from jobs.models import Job, JobStatus

    from workers.progress import silent_report

    settings.SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES = 1
    settings.SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES = 1
    assert client.post(f"{base}/versions/", {"seed": 2}, format="json").status_code == 202
    assert client.get(f"{base}/export/").status_code == 409
    started = client.post(f"{base}/exports/", {"version": version["id"]}, format="json")
    assert started.status_code == 202
    job = Job.objects.get(pk=started.json()["id"])
    assert client.get(f"{base}/exports/{job.pk}/").status_code == 409
    job.result = dataset_export_job_run(job=job, report=silent_report)
    job.status = JobStatus.SUCCEEDED
    job.save(update_fields=["result", "status"])
    assert client.get(f"{base}/exports/{job.pk}/").status_code == 200
    settings.SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES = 5000
    settings.SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES = 5000


def smart_labeling_tour(client, *, project) -> None:
    """A smart-labeling round (its job's body run here), its suggestions, accepted and rejected."""
    from labeling.models import SmartLabelingRound
    from labeling.services.smart import smart_round_run

    dataset = dataset_with_samples(
        user=project.created_by, project=project, name="Smart", per_class=2, classes=range(2), unlabeled=3
    )
    base = f"{DATASETS}{dataset.pk}"
    started = client.post(f"{base}/smart-labeling/", {"batch_size": 2}, format="json")
    assert started.status_code == 202, started.json()
    assert client.post(f"{base}/smart-labeling/", {}, format="json").status_code == 409
    smart_round = SmartLabelingRound.objects.get(pk=started.json()["id"])
    smart_round_run(round_id=smart_round.pk, job=smart_round.job, report=lambda *args, **kwargs: None)
    client.get(f"{base}/smart-labeling/")
    assert client.get(f"{base}/smart-labeling/{smart_round.pk}/").json()["status"] == "succeeded"
    pending = client.get(f"{base}/suggestions/").json()["results"]
    assert len(pending) == 3
    accepted = client.post(f"{base}/suggestions/accept/", {"ids": [pending[0]["id"]]}, format="json")
    rejected = client.post(f"{base}/suggestions/reject/", {"ids": [pending[1]["id"]]}, format="json")
    assert accepted.json()["accepted"] == 1 and rejected.json() == {"rejected": 1}
    listed = client.get(f"{base}/samples/", {"unlabeled": "true"}).json()["results"]
    assert [s["suggestion"]["id"] for s in listed if s["suggestion"]] == [pending[2]["id"]]


def activity_tour(client, *, dataset) -> None:
    """A sample relabeled: its activity log, one entry, a revert and a refused revert."""
    base = f"{DATASETS}{dataset.pk}"
    sample = Sample.objects.filter(dataset=dataset).order_by("pk").first()
    one, other = Label.objects.filter(dataset=dataset).order_by("pk")[:2]
    for label in (None, one.pk, other.pk):  # unlabeled first: the other two writes change it
        current = client.get(f"{base}/samples/{sample.pk}/").json()["label_version"]
        client.patch(
            f"{base}/samples/{sample.pk}/", {"label": label, "label_version": current}, format="json"
        )
    latest, earlier = client.get(f"{base}/activity/", {"sample": sample.pk}).json()["results"][:2]
    assert client.get(f"{base}/activity/{latest['id']}/").json()["source"] == "manual"
    assert client.post(f"{base}/activity/{earlier['id']}/revert/").status_code == 409
    assert client.post(f"{base}/activity/{latest['id']}/revert/").status_code == 200


def quality_tour(client, *, project) -> None:
    """A quality report (its job's body run here): queued, refused while it runs, listed, read."""
    from datasets.models import QualityReport
    from datasets.services.quality import quality_report_run

    dataset = dataset_with_samples(
        user=project.created_by, project=project, name="Quality", per_class=3, classes=range(2), unlabeled=1
    )
    base = f"{DATASETS}{dataset.pk}/quality-reports/"
    started = client.post(base, {"params": {"min_per_class": 2}}, format="json")
    assert started.status_code == 202, started.json()
    assert client.post(base, {}, format="json").status_code == 409
    row = QualityReport.objects.get(pk=started.json()["id"])
    quality_report_run(report_id=row.pk, job=row.job, report=lambda *args, **kwargs: None)
    assert [r["status"] for r in client.get(base).json()["results"]] == ["succeeded"]
    assert client.get(f"{base}{row.pk}/").json()["report"]["samples"] == 7


def detection_tour(client, *, project) -> None:
    """An object-detection dataset's annotation routes, its sample list and statistics."""
    from tests.datasets import factories

    created = client.post(
        DATASETS, {"project": project.pk, "name": "Boxes", "task_type": "object_detection"}, format="json"
    )
    assert created.status_code == 201, created.json()
    dataset = created.json()["id"]
    base = f"{DATASETS}{dataset}"
    cat = client.post(f"{base}/labels/", {"name": "cat"}, format="json").json()["id"]
    rows = Dataset.objects.get(pk=dataset)
    first, second = factories.sample(rows), factories.sample(rows)
    box = {"kind": "box", "label": "cat", "geometry": {"x": 1, "y": 2, "width": 10, "height": 12}}
    url = f"{base}/samples/{first.pk}/annotations/"
    assert client.get(url).json()["revision"] == 0
    assert client.put(url, {"revision": 0, "annotations": [box]}, format="json").status_code == 200
    assert client.put(url, {"revision": 0, "annotations": []}, format="json").status_code == 409
    bulk = f"{base}/annotations/bulk/"
    items = [{"sample": second.pk, "revision": 0, "status": "no_objects", "annotations": []}]
    assert client.post(bulk, {"items": items}, format="json").status_code == 200
    assert client.post(bulk, {"items": items}, format="json").status_code == 409
    listed = client.get(f"{base}/samples/", {"box_label": cat}).json()
    assert [(s["id"], s["box_count"], s["box_labels"]) for s in listed["results"]] == [(first.pk, 1, [cat])]
    assert client.get(f"{base}/samples/", {"annotation_status": "no_objects"}).json()["count"] == 1
    assert client.get(f"{base}/statistics/").json()["detection"]["boxes"] == 1


def test_every_datasets_operation_answers_as_documented(tenants, api_client, isolated_storage, settings):
    alice, erin = tenants["alice"], tenants["erin"]
    dataset = dataset_with_samples(
        user=alice, project=tenants["project_a"], per_class=2, classes=range(3), unlabeled=2
    )
    orphaned = dataset_with_samples(
        user=erin, project=tenants["project_a"], name="Erin's", per_class=2, classes=range(2)
    )
    import_files(dataset=orphaned, files=[upload("one.png", digit_bytes(5))], user=erin)
    dataset_version_create(dataset=orphaned, user=erin, seed=1)
    erin.delete()

    tour(
        api_client(alice),
        project=tenants["project_a"],
        dataset=dataset,
        gone_creator_dataset=orphaned,
        settings=settings,
    )

    conformance = api_client.conformance
    missing = []
    for template, operations in openapi_schema()["paths"].items():
        if not template.startswith(DATASETS):
            continue
        for method, operation in operations.items():
            promised = {int(code) for code in operation["responses"] if int(code) < 400 or code == "409"}
            promised -= {code for race in RACES if race[:2] == (method, template) for code in race[2:]}
            seen = conformance.answered(method.upper(), template)
            if not promised <= seen:
                missing.append(
                    f"{method.upper()} {template}: documented {sorted(promised)}, answered {sorted(seen)}"
                )
    assert not missing, "the tour does not reach:\n" + "\n".join(missing)
