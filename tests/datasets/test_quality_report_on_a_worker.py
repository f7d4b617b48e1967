"""A data quality report runs as a ``datasets.quality_report`` job on a real Celery worker (Redis,
PostgreSQL): on digits with planted near duplicates (copies with a few pixels changed) and planted
mislabels (a digit filed under another class) the report finds both, with the true class as the
suggested label; a version's report finds a duplicate pair split across train and test."""

from __future__ import annotations

import io

import numpy as np
import pytest
from datasets.models import QualityReport, Sample, VersionSample
from datasets.services import dataset_create, dataset_version_create
from datasets.services.image_imports import import_archive
from jobs.models import Job, JobEvent, JobStatus
from PIL import Image

from tests.datasets.factories import digit_class, digit_image, make_zip, upload
from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

PER_CLASS = 30
# (digit index in sklearn's digits, the folder it is filed under): a 0, a 6, a 2 and a 4 mislabeled
MISLABELS_FROM = {0: "5", 6: "1", 2: "7", 4: "3"}


def png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def touched(image: Image.Image) -> Image.Image:
    """A copy with a few pixels changed: a near duplicate, not the same file."""
    pixels = np.asarray(image).copy()
    pixels[0, 0:3] = 255 - pixels[0, 0:3]
    pixels[31, 30] = 128
    return Image.fromarray(pixels, mode="L")


def planted_digits() -> tuple[dict[str, bytes], list[tuple[str, str]], dict[str, int]]:
    """The archive's entries, the near-duplicate pairs (file names) and each mislabel's true class."""
    entries: dict[str, bytes] = {}
    counts = {str(c): 0 for c in range(10)}
    mislabels: dict[str, int] = {}
    pairs: list[tuple[str, str]] = []
    index = 0
    while min(counts.values()) < PER_CLASS:
        key = str(digit_class(index))
        if counts[key] < PER_CLASS:
            entries[f"{key}/{index}.png"] = png(digit_image(index))
            counts[key] += 1
        index += 1
    for true_class, folder in MISLABELS_FROM.items():
        while digit_class(index) != true_class:
            index += 1
        name = f"{folder}/planted-{index}.png"
        entries[name] = png(digit_image(index))
        mislabels[name] = true_class
        index += 1
    for original in ("3/3.png", "8/8.png", "9/9.png"):
        folder, file = original.split("/")
        copy = f"{folder}/copy-of-{file}"
        entries[copy] = png(touched(digit_image(int(file.split(".")[0]))))
        pairs.append((original, copy))
    return entries, pairs, mislabels


def run_report(client, dataset_id: int, body: dict) -> dict:
    made = client.post(f"/api/v1/datasets/{dataset_id}/quality-reports/", body, format="json")
    assert made.status_code == 202, made.content
    job_id = made.json()["job"]
    wait_for(
        lambda: Job.objects.get(pk=job_id).status in (JobStatus.SUCCEEDED, JobStatus.FAILED),
        timeout=120,
        what=f"quality report job {job_id} to finish",
    )
    job = Job.objects.get(pk=job_id)
    assert job.status == JobStatus.SUCCEEDED, job.error
    detail = client.get(f"/api/v1/datasets/{dataset_id}/quality-reports/{made.json()['id']}/").json()
    assert detail["status"] == "succeeded" and detail["progress"]["fraction"] == 1.0
    assert job.result["quality_report"] == detail["id"] and job.result["findings"] == len(
        detail["report"]["findings"]
    )
    assert JobEvent.objects.filter(job=job, type="progress").count() >= 2
    return detail


def by_code(report: dict, code: str) -> dict:
    found = [f for f in report["findings"] if f["code"] == code]
    assert found, f"no {code} finding in {[f['code'] for f in report['findings']]}"
    return found[0]


def test_report_finds_planted_duplicates_mislabels_and_split_leakage(
    live_worker, tenants, api_client, settings
):
    settings.SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES = 1000  # import here, in the request
    client = api_client(tenants["alice"])
    dataset = dataset_create(
        user=tenants["alice"],
        project=tenants["project_a"],
        name="Planted digits",
        task_type="image_classification",
    )
    entries, pairs, mislabels = planted_digits()
    import_archive(dataset=dataset, upload=upload("digits.zip", make_zip(entries)), user=tenants["alice"])
    id_of = dict(Sample.objects.filter(dataset=dataset).values_list("original_name", "pk"))
    assert len(id_of) == len(entries)

    detail = run_report(client, dataset.pk, {})
    report = detail["report"]
    assert report["samples"] == len(entries) and report["classes"] == [str(c) for c in range(10)]

    near = by_code(report, "near_duplicates")
    groups = [set(group) for group in near["groups"]]
    for original, copy in pairs:
        assert any({id_of[original], id_of[copy]} <= group for group in groups), (original, copy, groups)

    mislabeled = by_code(report, "likely_mislabeled")
    planted = {id_of[name]: true_class for name, true_class in mislabels.items()}
    found = set(mislabeled["sample_ids"]) & set(planted)
    assert len(found) >= 3, f"found {len(found)} of 4 planted mislabels: {mislabeled['items'][:10]}"
    assert len(mislabeled["sample_ids"]) <= 2 * len(planted), "mostly false alarms"
    suggested = {item["sample"]: item["suggested_label"] for item in mislabeled["items"]}
    assert all(suggested[sample] == planted[sample] for sample in found)

    # A version whose split puts one near-duplicate pair's members in train and test: leakage.
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=5)
    original, copy = pairs[0]
    # the split is seeded and stratified; pin this pair across train and test (what a split can do)
    VersionSample.objects.filter(version=version, sample_id=id_of[original]).update(split="train")
    VersionSample.objects.filter(version=version, sample_id=id_of[copy]).update(split="test")
    split_of = dict(VersionSample.objects.filter(version=version).values_list("sample_id", "split"))
    crossing = {frozenset((id_of[a], id_of[b])) for a, b in pairs if split_of[id_of[a]] != split_of[id_of[b]]}

    of_version = run_report(client, dataset.pk, {"version": version.pk})
    assert of_version["version"] == version.pk and of_version["version_name"] == "V1"
    leakage = by_code(of_version["report"], "split_leakage")
    leaked = [frozenset(group) for group in leakage["groups"]]
    assert frozenset((id_of[original], id_of[copy])) in crossing
    assert all(any(pair <= group for group in leaked) for pair in crossing), (crossing, leaked)
    assert all(len({split_of[sample] for sample in group}) > 1 for group in leaked)
    assert QualityReport.objects.filter(dataset=dataset, status="succeeded").count() == 2
