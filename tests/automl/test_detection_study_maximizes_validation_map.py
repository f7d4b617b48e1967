"""AutoML for object detection: a study of a detection dataset version takes the template's objective
(validation mAP@.5, maximized) and default search space (learning rate, image size, model size,
augmentation, epochs); a trial trains the detector, is scored by the best epoch's val_map50 and
records its test mAP; the lift report speaks of test mAP@.5."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.datasets.factories import upload

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def detection_version(tenants, tmp_path):
    """A detection dataset imported (synchronously) from a COCO archive of 36 synthetic 48x48 scenes."""
    from datasets.services import dataset_create, dataset_version_create
    from datasets.services.image_imports import import_archive

    from workers.object_detection.synthetic import digit_scenes, write_scenes

    write_scenes(digit_scenes(36, size=48, seed=3, classes="one"), tmp_path / "coco", "coco", classes="one")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for path in sorted((tmp_path / "coco").rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(tmp_path / "coco").as_posix())
    dataset = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Scenes", task_type="object_detection"
    )
    batch = import_archive(
        dataset=dataset,
        upload=upload("scenes.zip", out.getvalue()),
        user=tenants["alice"],
        annotation_format="coco",
    )
    assert batch.status == "succeeded" and batch.imported == 36, (batch.status, batch.error)
    return dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)


def test_detection_study_searches_the_templates_space_for_validation_map(
    tenants, api_client, detection_version
):
    from automl.models import Study
    from jobs.models import Job

    from workers.templates import registry

    client = api_client(tenants["alice"])
    created = client.post(
        "/api/v1/studies/",
        {"dataset_version": detection_version.pk, "n_trials": 4, "parallelism": 2, "preset": "fast"},
        format="json",
    )
    assert created.status_code == 201, created.content
    study = created.json()
    assert study["template"] == "object_detection"
    assert study["objective"] == {"metric": "val_map50", "direction": "maximize"}
    template = registry.get("object_detection")

    def axes(space) -> list[tuple]:
        return [(d["name"], d.get("low"), d.get("high"), d.get("choices")) for d in space]

    assert axes(study["search_space"]) == axes(template.as_dict()["search_space"])
    names = {d["name"] for d in study["search_space"]}
    assert {"learning_rate", "image_size", "model", "augmentation", "epochs"} <= names
    trials = client.get(f"/api/v1/studies/{study['id']}/trials/").json()
    assert len(trials) == 2
    space = {d["name"]: d for d in study["search_space"]}
    for trial in trials:
        for name, value in trial["params"].items():
            dimension = space[name]
            if dimension["type"] == "categorical":
                assert value in dimension["choices"], (name, value)
            else:
                assert dimension["low"] <= value <= dimension["high"], (name, value)
    assert Job.objects.filter(kind="automl.trial", params__study=study["id"]).count() == 2
    assert Study.objects.get(pk=study["id"]).objective["metric"] == "val_map50"
    lift = client.get(f"/api/v1/studies/{study['id']}/results/").json()["lift"]
    assert lift["metric"] == "test mAP@.5"


def test_a_detection_trial_is_scored_by_its_best_validation_map(tenants, detection_version):
    from automl.models import Trial
    from automl.services import study_create, trial_run
    from jobs.models import Job

    study = study_create(
        user=tenants["alice"],
        dataset_version=detection_version,
        preset="fast",
        fixed_params={"epochs": 2, "image_size": 32, "model": "det_small", "augmentation": "none"},
        search_space=[{"name": "learning_rate", "type": "float", "low": 1e-3, "high": 5e-3, "log": True}],
        n_trials=1,
        parallelism=1,
        report_seeds=0,
    )
    job = Job.objects.get(kind="automl.trial", params__study=study.pk)
    values: list[float] = []

    def report(message: str = "", **metrics) -> None:
        if metrics.get("milestone") and metrics.get("val_map50") is not None:
            values.append(float(metrics["val_map50"]))

    result = trial_run(job=job, report=report)
    trial = Trial.objects.get(study=study, number=0)
    assert result["state"] == "complete" and trial.state == "complete", (result, trial.error)
    assert len(values) == 2, "one validation mAP@.5 per epoch reaches the study"
    assert trial.value == pytest.approx(max(values))
    assert set(trial.test_metrics) == {"map", "map50"} and 0.0 <= trial.test_metrics["map50"] <= 1.0
    assert result["test_map50"] == pytest.approx(trial.test_metrics["map50"])
    assert trial.artifacts["evaluation"]["kind"] == "detection_report"
