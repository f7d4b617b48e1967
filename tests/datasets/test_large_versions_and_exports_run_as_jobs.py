"""Above SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES a dataset version is made by a ``datasets.version``
job (202 with the job); above SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES an export is a
``datasets.export`` job whose zip is stored and downloaded afterwards. The job bodies copy batch by
batch with progress, stay hidden until done, clean up when cancelled and answer the same thing when
delivered twice. Bad input is refused in the request exactly as before."""

from __future__ import annotations

import io
import zipfile

import pytest
from datasets.models import DatasetVersion, Sample, VersionSample
from datasets.services import versions
from datasets.services.dataset_jobs import dataset_export_job_run, dataset_version_job_run
from datasets.services.versions import dataset_version_create
from jobs.models import Job, JobStatus

from tests.datasets.factories import bulk_text_dataset, dataset_with_samples
from workers.progress import JobCancelled

pytestmark = pytest.mark.django_db


@pytest.fixture
def many(tenants, api_client, isolated_storage, settings):
    """60 labeled texts, and thresholds low enough that they count as a large dataset."""
    settings.SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES = 20
    settings.SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES = 20
    dataset = bulk_text_dataset(user=tenants["alice"], project=tenants["project_a"], samples=60, classes=3)
    return {
        "dataset": dataset,
        "client": api_client(tenants["alice"]),
        "url": f"/api/v1/datasets/{dataset.pk}/",
    }


class Reports(list):
    """A job's report that remembers every call (and can cancel after ``cancel_after`` of them)."""

    def __init__(self, cancel_after: int | None = None) -> None:
        super().__init__()
        self.cancel_after = cancel_after

    def __call__(self, message="", *, fraction=None, milestone=False, **metrics):
        self.append({"message": message, "fraction": fraction, **metrics})
        if self.cancel_after is not None and len(self) > self.cancel_after:
            raise JobCancelled("cancelled by the test")


def entries(version: DatasetVersion) -> list[tuple]:
    return list(
        VersionSample.objects.filter(version=version)
        .order_by("sample_id")
        .values_list("sample_id", "split", "label_index", "label_name", "text")
    )


def test_a_small_dataset_still_gets_its_version_in_the_request(tenants, api_client, isolated_storage):
    dataset = bulk_text_dataset(user=tenants["alice"], project=tenants["project_a"], samples=30)
    response = api_client(tenants["alice"]).post(
        f"/api/v1/datasets/{dataset.pk}/versions/", {"seed": 3}, format="json"
    )
    assert response.status_code == 201, response.json()
    assert (response.json()["name"], response.json()["sample_count"]) == ("V1", 30)
    assert not Job.objects.filter(kind="datasets.version").exists()


def test_a_large_dataset_queues_a_version_job_that_makes_the_same_version(many, tenants, monkeypatch):
    client, dataset = many["client"], many["dataset"]
    response = client.post(f"{many['url']}versions/", {"seed": 11, "note": "big"}, format="json")
    assert response.status_code == 202, response.json()
    job = Job.objects.get(pk=response.json()["id"])
    assert (job.kind, job.status, job.queue) == ("datasets.version", JobStatus.QUEUED, "cpu")
    assert job.params["seed"] == 11 and job.params["samples"] == 60
    assert response.json()["params"]["kind"] == "datasets.version"
    assert client.get(f"{many['url']}versions/").json()["count"] == 0, "no version before the job ran"

    monkeypatch.setattr(versions, "VERSION_BATCH", 25)  # 60 samples: three batches
    report = Reports()
    result = dataset_version_job_run(job=job, report=report)
    made = DatasetVersion.objects.get(pk=result["dataset_version"])
    assert (made.name, made.sample_count, made.job_id, made.note) == ("V1", 60, job.pk, "big")
    copied = [r for r in report if r["message"].startswith("copied")]
    assert [(r["processed"], r["total"]) for r in copied] == [(25, 60), (50, 60), (60, 60)]
    assert all(r["eta_s"] >= 0 for r in copied) and copied[-1]["fraction"] == 1.0

    # the request path (one batch) with the same seed gives the very same snapshot
    monkeypatch.setattr(versions, "VERSION_BATCH", 5000)
    inline = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=11)
    assert (
        entries(inline) == entries(made) and inline.counts == made.counts and inline.classes == made.classes
    )
    assert sum(sum(c.values()) for c in made.counts.values()) == 60

    # delivered again: the same version, nothing new
    again = dataset_version_job_run(job=job, report=Reports())
    assert again["dataset_version"] == made.pk
    assert DatasetVersion.all_objects.filter(dataset=dataset).count() == 2


def test_a_version_being_filled_is_hidden_and_a_cancel_removes_it(many, monkeypatch):
    client = many["client"]
    job = Job.objects.get(pk=client.post(f"{many['url']}versions/", {"seed": 1}, format="json").json()["id"])
    monkeypatch.setattr(versions, "VERSION_BATCH", 10)
    seen: list[tuple] = []

    def watch(message="", *, fraction=None, milestone=False, **metrics):
        if metrics.get("processed") == 20:  # mid-way: the version exists but nobody sees it
            partial = DatasetVersion.all_objects.get(job=job)
            seen.append((partial.ready, VersionSample.objects.filter(version=partial).count()))
            seen.append((client.get(f"{many['url']}versions/").json()["count"],))
            seen.append((client.get(f"{many['url']}versions/{partial.pk}/").status_code,))
            raise JobCancelled("cancelled by the test")

    with pytest.raises(JobCancelled):
        dataset_version_job_run(job=job, report=watch)
    assert seen == [(False, 20), (0,), (404,)]
    assert not DatasetVersion.all_objects.filter(job=job).exists(), "the half-made version was kept"
    assert VersionSample.objects.count() == 0


def test_a_redelivery_after_a_lost_attempt_starts_the_copy_over(many, monkeypatch):
    client, dataset = many["client"], many["dataset"]
    job = Job.objects.get(pk=client.post(f"{many['url']}versions/", {"seed": 5}, format="json").json()["id"])
    lost = DatasetVersion.all_objects.create(
        dataset=dataset,
        number=1,
        seed=5,
        train_ratio=0.8,
        val_ratio=0.1,
        test_ratio=0.1,
        ready=False,
        job=job,
    )
    VersionSample.objects.create(
        version=lost, sample=Sample.objects.filter(dataset=dataset).first(), split="train", label_index=0
    )
    result = dataset_version_job_run(job=job, report=Reports())
    assert not DatasetVersion.all_objects.filter(pk=lost.pk).exists()
    made = DatasetVersion.objects.get(pk=result["dataset_version"])
    assert made.sample_count == 60 and VersionSample.objects.filter(version=made).count() == 60


def test_a_version_job_of_a_deleted_dataset_fails_with_a_message(many):
    from jobs.runner import JobInputRejected

    job = Job.objects.get(pk=many["client"].post(f"{many['url']}versions/", {}, format="json").json()["id"])
    assert isinstance(job.params["seed"], int), "the seed is drawn when the job is queued"
    many["dataset"].delete()
    with pytest.raises(JobInputRejected, match="deleted"):
        dataset_version_job_run(job=job, report=Reports())


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({"train_ratio": 0.5, "val_ratio": 0.1, "test_ratio": 0.1}, "train_ratio", "must be 1"),
        ({"train_ratio": 0, "val_ratio": 0.5, "test_ratio": 0.5}, "train_ratio", "above 0"),
        ({"reviewed_only": True}, "reviewed_only", "accepted by a reviewer"),
    ],
)
def test_bad_input_is_refused_in_the_request_as_before(many, body, field, says):
    response = many["client"].post(f"{many['url']}versions/", body, format="json")
    assert response.status_code == 400, response.json()
    assert says in str(response.json()) and field in str(response.json())
    assert not Job.objects.filter(kind="datasets.version").exists()


def test_a_large_export_is_a_job_whose_zip_is_downloaded_afterwards(many, tenants, api_client, settings):
    client, url = many["client"], many["url"]
    refused = client.get(f"{url}export/")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "export_needs_job", (
        refused.json()
    )
    assert "POST /api/v1/datasets/" in refused.json()["error"]["message"]
    response = client.post(f"{url}exports/", {}, format="json")
    assert response.status_code == 202, response.json()
    job = Job.objects.get(pk=response.json()["id"])
    assert (job.kind, job.params["dataset_version"], job.params["format"]) == ("datasets.export", None, "")
    early = client.get(f"{url}exports/{job.pk}/")
    assert early.status_code == 409 and early.json()["error"]["code"] == "export_not_ready"

    report = Reports()
    result = dataset_export_job_run(job=job, report=report)
    assert result["blob_key"].startswith(f"exports/{job.pk}/") and result["filename"].endswith(".zip")
    assert report[-1]["size_bytes"] == result["size_bytes"] > 0
    assert [r["processed"] for r in report if r.get("processed")][-1] == 60
    Job.objects.filter(pk=job.pk).update(status=JobStatus.SUCCEEDED, result=result)
    download = client.get(f"{url}exports/{job.pk}/")
    assert download.status_code == 200 and download["Content-Type"] == "application/zip"
    stored = b"".join(download.streaming_content)

    settings.SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES = 1000  # the same export inside the request
    inline = client.get(f"{url}export/")
    assert inline.status_code == 200
    assert stored == b"".join(inline.streaming_content), "the job's zip differs from the request's"
    table = zipfile.ZipFile(io.BytesIO(stored)).read("data.csv").decode()
    assert table.count("\n") == 61 and "'=" in table, "rows or formula escaping lost"

    # a zip no longer stored (removed from the storage): a 404 that says so, not a 500
    from django.core.files.storage import default_storage

    default_storage.delete(result["blob_key"])
    gone = client.get(f"{url}exports/{job.pk}/")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "export_gone"

    # another tenant, another dataset's export, an unknown job: 404
    assert api_client(tenants["bob"]).get(f"{url}exports/{job.pk}/").status_code == 404
    assert client.get(f"{url}exports/{job.pk + 1000}/").status_code == 404


def test_a_stored_export_expires_after_its_retention_and_says_so(many, settings):
    from datetime import timedelta

    from datasets.services.dataset_jobs import dataset_exports_expire
    from django.core.files.storage import default_storage
    from django.utils import timezone
    from jobs.services import job_create

    settings.SAMPAN_DATASET_EXPORT_RETENTION_HOURS = 24
    client, url = many["client"], many["url"]
    now = timezone.now()

    def export(finished_hours_ago: float | None, status=JobStatus.SUCCEEDED) -> Job:
        job = Job.objects.get(pk=client.post(f"{url}exports/", {}, format="json").json()["id"])
        result = dataset_export_job_run(job=job, report=Reports())
        finished = None if finished_hours_ago is None else now - timedelta(hours=finished_hours_ago)
        Job.objects.filter(pk=job.pk).update(status=status, result=result, finished_at=finished)
        return Job.objects.get(pk=job.pk)

    old, young = export(25), export(23)
    assert default_storage.exists(old.result["blob_key"]) and default_storage.exists(young.result["blob_key"])
    other = job_create(  # another kind of job with a blob_key in its result: not an export, kept
        workspace=many["dataset"].workspace, kind="system.check", params={"seconds": 0.1}
    )
    Job.objects.filter(pk=other.pk).update(
        status=JobStatus.SUCCEEDED,
        result={"blob_key": young.result["blob_key"]},
        finished_at=now - timedelta(days=9),
    )

    assert dataset_exports_expire(now=now) == 1
    assert dataset_exports_expire(now=now) == 0  # once
    old.refresh_from_db()
    assert not default_storage.exists(f"exports/{old.pk}/{old.result['filename']}")
    assert old.result["blob_key"] is None and old.result["expired_at"] == now.isoformat()
    assert old.result["filename"].endswith(".zip") and old.result["size_bytes"] > 0  # what it was, kept
    gone = client.get(f"{url}exports/{old.pk}/")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "export_expired", gone.json()
    assert "SAMPAN_DATASET_EXPORT_RETENTION_HOURS" in gone.json()["error"]["message"]
    # the younger export and the other job are untouched; the younger one still downloads
    assert client.get(f"{url}exports/{young.pk}/").status_code == 200
    assert Job.objects.get(pk=other.pk).result == {"blob_key": young.result["blob_key"]}
    # a day later the younger one expires too
    assert dataset_exports_expire(now=now + timedelta(hours=2)) == 1
    assert client.get(f"{url}exports/{young.pk}/").json()["error"]["code"] == "export_expired"


def test_a_viewer_may_export_as_a_job_and_bad_input_is_refused(many, tenants, api_client):
    url = many["url"]
    viewer = api_client(tenants["carol"])
    assert viewer.post(f"{url}exports/", {}, format="json").status_code == 202
    bad_format = many["client"].post(f"{url}exports/", {"format": "yolo"}, format="json")
    assert bad_format.status_code == 400 and bad_format.json()["error"]["code"] == "unsupported_export_format"
    bad_version = many["client"].post(f"{url}exports/", {"version": 99999}, format="json")
    assert bad_version.status_code == 400 and "No such version" in str(bad_version.json())
    assert api_client(tenants["bob"]).post(f"{url}exports/", {}, format="json").status_code == 404
    assert Job.objects.filter(kind="datasets.export").count() == 1


def test_an_image_version_export_job_writes_the_folder_layout(tenants, isolated_storage, settings):
    settings.SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES = 1000
    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=4, classes=range(2)
    )
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=2)
    from datasets.services.dataset_jobs import dataset_export_job_create, dataset_export_request

    job = dataset_export_job_create(dataset=dataset, version=version, format=None, user=tenants["alice"])
    result = dataset_export_job_run(job=job, report=Reports())
    from django.core.files.storage import default_storage

    with default_storage.open(result["blob_key"], "rb") as stored:
        archive = zipfile.ZipFile(io.BytesIO(stored.read()))
    inline, _ = dataset_export_request(dataset=dataset, version=version, format=None)
    assert archive.namelist() == zipfile.ZipFile(inline).namelist()
    assert sorted(n.split("/")[0] for n in archive.namelist() if "/" in n) == ["0"] * 4 + ["1"] * 4
