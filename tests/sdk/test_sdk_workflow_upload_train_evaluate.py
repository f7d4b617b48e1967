"""The SDK's data and training namespaces against the live platform: uploads from a folder, a zip,
a list of files and a DataFrame; labels, versions, export; training with wait() and its progress
series; model versions, the evaluation report, comparison, the notebook views."""

from __future__ import annotations

import zipfile

import pandas as pd
import pytest
import sampan

from tests.datasets.factories import digits_by_class

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

FAST = {"epochs": 2, "image_size": 32}


def test_workspaces_and_projects(sdk, tenants):
    me = sdk.me()
    assert me["username"] == "alice"
    assert [w.name for w in sdk.workspaces.list()] == ["Workspace A"]
    workspace = sdk.workspaces.create("SDK workspace", description="made by the SDK")
    assert workspace.role == "owner" and workspace.description == "made by the SDK"
    created = sdk.projects.create("SDK project", workspace=workspace)
    assert created.workspace == workspace.id
    assert [p.name for p in workspace.projects()] == ["SDK project"]
    renamed = sdk.projects.update(created, description="edited")
    assert sdk.projects.get(created.id).description == "edited" == renamed.description
    assert {m["user"]["username"]: m["role"] for m in workspace.members()} == {"alice": "owner"}
    workspace.add_member("bob", "viewer")
    assert {m["user"]["username"] for m in workspace.members()} == {"alice", "bob"}
    sdk.projects.delete(created)
    with pytest.raises(sampan.NotFound):
        sdk.projects.get(created.id)


def test_uploads_from_folder_zip_files_and_dataframe(sdk, project, digits_folder, tmp_path):
    dataset = sdk.datasets.create("uploads", project=project)
    from_folder = dataset.upload(digits_folder, progress=False, batch_size=30)
    assert from_folder.imported == 80 and from_folder.failed == 0
    assert sorted(from_folder.labels_created) == [str(d) for d in range(10)]
    again = dataset.upload(digits_folder, progress=False)
    assert again.imported == 0 and again.duplicates == 80  # the server recognises what it has

    more = digits_by_class(12, [1, 7])
    archive = tmp_path / "more.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for label, images in more.items():
            for i, data in enumerate(images[8:10]):
                zf.writestr(f"{label}/z{i}.png", data)
    from_zip = dataset.upload(archive, progress=False)
    assert from_zip.imported == 4 and len(from_zip.imports) == 1
    in_background = sdk.datasets.create("archive job", project=project).upload_archive(
        archive, background=True, progress=False
    )
    assert in_background.imported == 4  # the server answered 202 and the SDK waited for its import job

    files = []
    for i, data in enumerate(more["1"][10:12]):
        path = tmp_path / f"one_{i}.png"
        path.write_bytes(data)
        files.append(path)
    assert dataset.upload(files, label="1", progress=False).imported == 2
    assert dataset.upload([("seven.png", more["7"][10])], progress=False).imported == 1  # unlabeled

    frame = pd.DataFrame(
        {"bytes": [more["7"][11], more["1"][11] + b""], "label": ["7", None], "name": ["a.png", "b.png"]}
    )
    result = dataset.upload(frame, progress=False)
    assert result.imported == 1 and result.duplicates == 1  # more["1"][11] was uploaded from a path above

    stats = dataset.statistics()
    assert stats["total"] == 80 + 4 + 2 + 1 + 1 and stats["unlabeled"] == 1
    unlabeled = list(dataset.samples(unlabeled=True))
    assert [s["original_name"] for s in unlabeled] == ["seven.png"]
    dataset.set_labels(unlabeled, "7")
    assert dataset.refresh().labeled_count == dataset.sample_count == 88
    assert {label.name: label.sample_count for label in dataset.labels()}["7"] == 8 + 2 + 1 + 1

    version = dataset.create_version(seed=3)
    assert version.name == "V1" and version.sample_count == 88 and sum(version.totals.values()) == 88
    assert [v.id for v in dataset.versions()] == [version.id] and dataset.version(version.id) == version
    exported = version.export(tmp_path / "v1.zip")
    with zipfile.ZipFile(exported) as zf:
        names = zf.namelist()
    assert "manifest.csv" in names and sum(n.endswith(".png") for n in names) == 88

    with pytest.raises(ValueError, match="'path' or a 'bytes' column"):
        dataset.upload(pd.DataFrame({"file": ["x.png"]}), progress=False)
    with pytest.raises(sampan.BadRequest) as bad:
        dataset.upload([("not-an-image.png", b"hello")], progress=False)
    assert bad.value.code == "nothing_imported" and "not-an-image.png" in bad.value.message


def test_train_wait_evaluate_compare(sdk, project, digits_folder, capsys):
    dataset = sdk.datasets.create("digits", project=project)
    dataset.upload(digits_folder, progress=False)
    version = dataset.create_version(seed=1)
    assert "image_classification" in [t["name"] for t in sdk.training.templates()]
    assert "fast" in [p["name"] for p in sdk.training.template()["presets"]]

    job = version.train("fast", params=FAST)
    assert job.kind == "training.run" and job.status == "queued"
    assert sdk.jobs.get(job.id) == job
    job.wait(progress=True, poll=0.3)
    assert job.status == "succeeded" and job.fraction == 1.0
    shown = capsys.readouterr().err
    assert f"job {job.id} training.run" in shown and "val_acc=" in shown and "100/100%" in shown

    series = job.progress_series()
    epochs = sorted({p["epoch"] for p in series if "val_acc" in p})
    assert epochs == [1, 2]
    frame = job.metrics_frame()
    assert {"fraction", "at"} <= set(frame.columns) and len(frame) == len(series)
    assert job.id in [j.id for j in sdk.jobs.list(project=project, kind="training.run", status="succeeded")]

    model = job.model_version()
    assert model.name == "V1" and model.source == "trained" and model.dataset_version == version.id
    assert model.params["epochs"] == 2 and model.preset == "fast"
    assert [m.id for m in project.model_versions()] == [model.id]
    report = model.evaluation()
    assert isinstance(report, sampan.EvaluationReport)
    assert report.samples == sum(version.counts["test"].values()) == sum(map(sum, report.confusion_matrix))
    assert report.accuracy == pytest.approx(model.metrics["test"]["accuracy"])
    table = report.to_dataframe()
    assert list(table.index) == [str(d) for d in range(10)] and list(table.columns) == [
        "precision",
        "recall",
        "f1",
        "support",
    ]
    assert int(table["support"].sum()) == report.samples
    assert report.confusion_dataframe().shape == (10, 10)

    import matplotlib

    matplotlib.use("Agg")
    ax = report.plot_confusion_matrix()
    assert len(ax.texts) == 100 and ax.get_xlabel() == "predicted"

    html = model._repr_html_()
    assert "Model version V1" in html and "Confusion matrix" in html and "test accuracy" in html
    job_html = job._repr_html_()
    assert "succeeded" in job_html and "100%" in job_html

    second_job = sdk.training.start(version, preset="fast", params={**FAST, "seed": 5}).wait(progress=False)
    second = second_job.model_version()

    # training jobs as a resource: what each trained and the model version it produced
    runs = sdk.training_jobs.list(dataset_version=version)
    assert sorted(run.id for run in runs) == sorted([job.id, second_job.id])
    assert all(isinstance(run, sampan.TrainingJob) for run in runs)
    run = sdk.training_jobs.get(job)
    assert (run.data["preset"], run.data["dataset_version"], run.data["params"]["epochs"]) == (
        "fast",
        version.id,
        2,
    )
    assert run.data["model_version"] == {"id": model.id, "name": "V1"} and run.model_version() == model
    assert sdk.training_jobs.list(dataset_version=version, status="failed") == []

    compared = model.compare(second)
    assert compared["a"] == model.id and compared["b"] == second.id
    assert compared["accuracy"]["delta"] == pytest.approx(
        compared["accuracy"]["b"] - compared["accuracy"]["a"]
    )
    frame = sdk.model_versions.compare_frame(model, second)
    assert len(frame) == 10 and "f1_delta" in frame.columns
    onnx = model.download_onnx(version_path := (digits_folder.parent / "v1.onnx"))
    assert onnx == version_path and version_path.read_bytes()[:2] != b'{"'


def test_cancel_and_failed_jobs(sdk, project, digits_folder):
    dataset = sdk.datasets.create("cancel", project=project)
    dataset.upload(digits_folder, progress=False)
    job = sdk.training_jobs.create(
        dataset.create_version(seed=2), preset="fast", params={"epochs": 200, "image_size": 32}
    )
    assert isinstance(job, sampan.TrainingJob) and job.data["template"] == "image_classification"
    job.cancel()
    assert job.data["cancel_requested"] or job.status == "cancelled"
    assert job.data["preset"] == "fast"  # still the training job's own fields after the /jobs/ action
    with pytest.raises(sampan.JobFailed) as caught:
        job.wait(progress=False, poll=0.3, timeout=120)
    assert caught.value.job.status == "cancelled" and caught.value.code == "job_cancelled"
    with pytest.raises(sampan.BadRequest) as bad:
        sdk.training.start(dataset.versions()[0], preset="turbo")
    assert "preset" in bad.value.details
