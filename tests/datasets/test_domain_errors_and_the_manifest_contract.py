"""The data service refuses with domain errors (config.exceptions), never DRF's: a refusal carries
its code, message and details, and a background import records exactly those on its batch. The
manifest a version hands the compute plane is the contract of workers.contracts.manifest for each
modality, and the workers' own readers accept it."""

from __future__ import annotations

import logging

import pytest
from config.contracts import contract_serializer
from config.exceptions import DomainError, InvalidInput, TooLarge
from datasets.exceptions import ImportRejected, UploadTooLarge
from datasets.models import ImportBatch
from datasets.services import dataset_create, dataset_version_create, dataset_version_manifest
from datasets.services.image_imports import import_files
from datasets.services.labels import label_name
from datasets.services.table_imports import import_table
from django.core.files.storage import default_storage
from jobs.models import Job, JobStatus
from jobs.runner import run_job
from rest_framework.exceptions import APIException

from tests.datasets.factories import dataset_with_samples, upload
from workers.contracts.manifest import MANIFEST_VERSION, ImageManifest, TabularManifest, TextManifest
from workers.image_classification.manifest import parse_manifest
from workers.tabular.trainer import check_manifest as check_tabular_manifest
from workers.text_classification.trainer import check_manifest as check_text_manifest

pytestmark = pytest.mark.django_db

IRIS = b"sepal,petal,species\n" + b"".join(
    f"{1 + i * 0.1:.1f},{0.2 + (i % 3) * 0.5:.1f},{['setosa', 'versicolor', 'virginica'][i % 3]}\n".encode()
    for i in range(30)
)
REVIEWS = b"review,sentiment\n" + b"".join(
    f"review number {i} was {'great' if i % 2 else 'awful'},{'pos' if i % 2 else 'neg'}\n".encode()
    for i in range(20)
)


def new_dataset(tenants, task_type: str, name: str = "Data"):
    return dataset_create(user=tenants["alice"], project=tenants["project_a"], name=name, task_type=task_type)


def test_refusals_are_domain_errors_with_code_message_and_details(tenants, isolated_storage, settings):
    new_dataset(tenants, "image_classification", name="Taken")
    with pytest.raises(InvalidInput) as taken:
        new_dataset(tenants, "image_classification", name=" Taken ")
    assert not isinstance(taken.value, APIException)
    assert (taken.value.status, taken.value.code) == (400, "invalid")
    assert taken.value.message == "name: A dataset named 'Taken' already exists in this project."
    assert taken.value.details == {"name": ["A dataset named 'Taken' already exists in this project."]}

    with pytest.raises(InvalidInput) as bad_label:
        label_name(" a/b ", field="label")
    assert bad_label.value.message.startswith("label: 'a/b' cannot be a label")
    assert bad_label.value.details["label"][0].startswith("'a/b' cannot be a label")

    images = new_dataset(tenants, "image_classification", name="Images")
    with pytest.raises(ImportRejected) as empty:
        import_files(dataset=images, files=[], user=tenants["alice"])
    assert isinstance(empty.value, InvalidInput) and (empty.value.status, empty.value.code) == (
        400,
        "empty_upload",
    )
    assert empty.value.details == {"files": ["No files were uploaded."]}

    settings.SAMPAN_DATASET_MAX_TABLE_BYTES = 10
    table = new_dataset(tenants, "tabular_classification", name="Table")
    with pytest.raises(UploadTooLarge) as big:
        import_table(dataset=table, upload=upload("iris.csv", IRIS), user=tenants["alice"])
    assert isinstance(big.value, TooLarge) and (big.value.status, big.value.code) == (413, "upload_too_large")
    assert big.value.details["limit_bytes"] == 10 and big.value.details["size_bytes"] == len(IRIS)


def test_a_background_import_records_the_domain_errors_message_and_details(
    tenants, isolated_storage, monkeypatch, caplog
):
    from datasets.tasks import _import

    monkeypatch.setattr("jobs.runner.close_old_connections", lambda: None)  # the test's own transaction
    dataset = new_dataset(tenants, "tabular_classification")
    queued = import_table(
        dataset=dataset,
        upload=upload("iris.csv", IRIS),
        user=tenants["alice"],
        target_column="colour",
        background=True,
    )
    assert queued.status == "queued" and default_storage.exists(queued.upload_key)
    with caplog.at_level(logging.INFO):
        run_job(queued.job_id, _import)
    batch, job = ImportBatch.objects.get(pk=queued.pk), Job.objects.get(pk=queued.job_id)
    with pytest.raises(DomainError) as refused:  # the same file imported now: the same refusal
        import_table(
            dataset=dataset, upload=upload("iris.csv", IRIS), user=tenants["alice"], target_column="colour"
        )
    assert refused.value.message.startswith("target_column: The file has no column named 'colour'")
    assert (batch.status, batch.error_code, batch.error) == (
        "failed",
        "no_target_column",
        refused.value.message,
    )
    assert (job.status, job.error) == (JobStatus.FAILED, refused.value.message)
    assert "Traceback" not in caplog.text and not default_storage.exists(queued.upload_key)


def test_an_image_versions_manifest_is_the_image_contract(tenants, isolated_storage):
    dataset = dataset_with_samples(user=tenants["alice"], project=tenants["project_a"], per_class=4)
    manifest = dataset_version_manifest(version=dataset_version_create(dataset=dataset, user=None, seed=1))
    assert (manifest["kind"], manifest["version"]) == ("image", MANIFEST_VERSION)
    checked = contract_serializer(ImageManifest)(data=manifest)
    assert checked.is_valid(), checked.errors
    parsed = parse_manifest(manifest, min_samples_per_class=1)
    assert parsed.classes == tuple(manifest["classes"]) and len(parsed.samples) == 12


@pytest.mark.parametrize(
    ("task_type", "data", "mapping", "contract", "check"),
    [
        ("text_classification", REVIEWS, {"text_column": "review"}, TextManifest, check_text_manifest),
        (
            "tabular_classification",
            IRIS,
            {"target_column": "species"},
            TabularManifest,
            check_tabular_manifest,
        ),
    ],
    ids=["text", "tabular"],
)
def test_a_table_versions_manifest_is_its_modalitys_contract(
    tenants, isolated_storage, task_type, data, mapping, contract, check
):
    dataset = new_dataset(tenants, task_type)
    import_table(dataset=dataset, upload=upload("data.csv", data), user=tenants["alice"], **mapping)
    manifest = dataset_version_manifest(version=dataset_version_create(dataset=dataset, user=None, seed=1))
    assert (manifest["kind"], manifest["version"]) == (task_type.split("_")[0], MANIFEST_VERSION)
    checked = contract_serializer(contract)(data=manifest)
    assert checked.is_valid(), checked.errors
    assert check(manifest)["samples"] == len(manifest["samples"]) == len(data.splitlines()) - 1
