"""The model smart labeling and the quality report reuse: the newest image classifier trained (job
succeeded) on a version of THIS dataset; another dataset's, a failed run's, a detector or an upload
is never picked. Its file is handed to the compute plane with its preprocessing."""

from __future__ import annotations

from pathlib import Path

import pytest
from datasets.models import DatasetVersion
from jobs.models import JobStatus
from training.model_files import dataset_model_features
from training.selectors import latest_model_for_dataset

from tests.datasets.factories import dataset as make_dataset
from tests.jobs.factories import job as make_job
from tests.training.factories import model_version

pytestmark = pytest.mark.django_db


def version_of(dataset, number: int = 1) -> DatasetVersion:
    return DatasetVersion.objects.create(
        dataset=dataset,
        number=number,
        seed=1,
        train_ratio=0.8,
        val_ratio=0.1,
        test_ratio=0.1,
        classes=["a", "b"],
    )


def trained(project, version, *, status=JobStatus.SUCCEEDED, **fields):
    run = make_job(project, kind="training.run", status=status)
    return model_version(project, dataset_version=version, job=run, **fields)


def test_the_newest_succeeded_classifier_of_this_dataset_is_picked(tenants, isolated_storage):
    project = tenants["project_a"]
    mine, other = make_dataset(project), make_dataset(project)
    assert latest_model_for_dataset(mine) is None
    old = trained(project, version_of(mine, 1), preprocessing={"image_size": [32, 32]})
    newest = trained(project, version_of(mine, 2), preprocessing={"image_size": [64, 64]})
    trained(project, version_of(other, 1))  # another dataset's, newer still
    trained(project, version_of(mine, 3), status=JobStatus.FAILED)
    trained(project, version_of(mine, 4), template="object_detection")
    trained(project, version_of(mine, 5), source="uploaded")
    trained(project, version_of(mine, 6), onnx_key="")  # no file kept
    assert latest_model_for_dataset(mine) == newest
    assert latest_model_for_dataset(other) not in (None, old, newest)
    newest.delete()
    assert latest_model_for_dataset(mine) == old


def test_the_model_file_is_handed_over_with_its_preprocessing(tenants, isolated_storage, tmp_path: Path):
    project = tenants["project_a"]
    mine = make_dataset(project)
    assert dataset_model_features(dataset=mine, work_dir=tmp_path) is None
    picked = trained(project, version_of(mine), onnx=b"onnx bytes", preprocessing={"image_size": [32, 32]})
    found = dataset_model_features(dataset=mine, work_dir=tmp_path)
    assert found is not None
    assert found["name"] == f"model version {picked.name}"
    assert found["preprocessing"] == {"image_size": [32, 32]}
    assert "checkpoint_path" not in found
    assert Path(found["onnx_path"]).read_bytes() == b"onnx bytes"


def test_a_smart_round_uses_the_datasets_model_and_names_it(
    tenants, api_client, isolated_storage, trained_digits
):
    """The round's job body (in-process, real compute plane): the model's checkpoint joins the image
    features and the summary says so; a round of another dataset without a model does not."""
    import json

    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage
    from labeling.models import SmartLabelingRound
    from labeling.services.smart import smart_round_run

    from tests.datasets.factories import dataset_with_samples

    project = tenants["project_a"]
    digits = dataset_with_samples(
        user=tenants["alice"], project=project, name="Few", per_class=3, classes=range(3), unlabeled=12
    )
    checkpoint = default_storage.save(
        "models/test/checkpoint.pt", ContentFile((trained_digits / "model.pt").read_bytes())
    )
    preprocessing = json.loads((trained_digits / "preprocess.json").read_text())
    picked = trained(project, version_of(digits), checkpoint_key=checkpoint, preprocessing=preprocessing)
    alice = api_client(tenants["alice"])
    started = alice.post(
        f"/api/v1/datasets/{digits.pk}/smart-labeling/", {"batch_size": 4}, format="json"
    ).json()
    smart_round = SmartLabelingRound.objects.get(pk=started["id"])
    smart_round_run(round_id=smart_round.pk, job=smart_round.job, report=lambda *a, **k: None)
    summary = alice.get(f"/api/v1/datasets/{digits.pk}/smart-labeling/{started['id']}/").json()["summary"]
    assert (
        summary["model"] == f"logistic regression on image features + model version {picked.name}'s embedding"
    )
    assert summary["unlabeled"] == 12 and "unreadable" not in summary
