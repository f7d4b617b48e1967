"""The SDK methods no other test covers, against the live platform: label rename/merge/delete,
dataset, project and workspace update/delete (viewer 403), backbones and training from one, study
pause/resume/stop, predictions from table rows (and the request body for texts), and device SDK
packages (build, wait, download)."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
import sampan
from sampan.deployments import prediction_instances

from tests.templates_tabular.tables import csv_bytes
from tests.templates_text.corpus import balanced

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_labels_datasets_projects_workspaces_update_and_delete(
    sdk, project, digits_folder, live_web, tenants, token_for
):
    dataset = sdk.datasets.create("labels", project=project)
    dataset.upload(digits_folder, progress=False)
    labels = {label.name: label for label in dataset.labels()}
    assert sorted(labels) == [str(d) for d in range(10)]
    assert [d.id for d in project.datasets()] == [dataset.id]
    assert sum(batch["imported"] for batch in dataset.imports()) == 80
    health = sdk.health()  # "degraded" only says no worker heartbeat is recorded yet
    assert health["database"]["ok"] and health["broker"]["ok"] and health["status"] in ("ok", "degraded")
    assert {"training.run", "deploy.build_package"} <= {kind["name"] for kind in sdk.jobs.kinds()}

    renamed = dataset.rename_label(labels["0"], "zero")
    assert renamed.name == "zero" and renamed.id == labels["0"].id
    with pytest.raises(sampan.SampanError) as caught:
        dataset.rename_label(labels["1"], "zero")  # a name already taken
    assert caught.value.status in (400, 409)

    with pytest.raises(sampan.BadRequest) as caught:
        dataset.merge_labels(labels["1"], into=999_999)
    assert "No label 999999" in str(caught.value)
    preview = dataset.merge_labels(labels["1"], into=labels["7"], dry_run=True)
    assert (preview["affected_samples"], preview["dry_run"]) == (8, True)
    assert {label.name for label in dataset.labels()} >= {"1", "7"}, "a dry run changes nothing"
    merged = dataset.merge_labels(labels["1"], into=labels["7"])
    assert (merged["affected_samples"], merged["into"], merged["dry_run"]) == (8, labels["7"].id, False)
    assert "1" not in {label.name for label in dataset.labels()}
    assert len(list(dataset.samples(label="7"))) == 16

    counted = dataset.delete_label(labels["2"], dry_run=True)
    assert (counted["affected_samples"], counted["dry_run"]) == (8, True)
    assert "2" in {label.name for label in dataset.labels()}
    assert dataset.delete_label(labels["2"])["affected_samples"] == 8
    assert "2" not in {label.name for label in dataset.labels()}
    assert len(list(dataset.samples(unlabeled=True))) == 8
    with pytest.raises(sampan.NotFound):
        dataset.delete_label(labels["2"])

    updated = sdk.datasets.update(dataset, name="renamed", description="eight per class")
    assert (updated.name, updated.description) == ("renamed", "eight per class")
    assert sdk.datasets.get(dataset.id).name == "renamed"

    viewer = sampan.Client(live_web, token_for(tenants["carol"]), timeout=60, backoff=0.1, max_backoff=2)
    with pytest.raises(sampan.PermissionDenied):
        viewer.datasets.update(dataset.id, name="nope")
    with pytest.raises(sampan.PermissionDenied):
        viewer.datasets.delete(dataset.id)
    with pytest.raises(sampan.PermissionDenied):
        viewer.projects.update(project.id, name="nope")
    with pytest.raises(sampan.PermissionDenied):
        viewer.workspaces.delete(tenants["ws_a"].pk)

    sdk.datasets.delete(dataset)
    with pytest.raises(sampan.NotFound):
        sdk.datasets.get(dataset.id)

    workspace = sdk.workspaces.create("Scratch")
    assert sdk.workspaces.update(workspace, name="Scratch 2").name == "Scratch 2"
    scratch = sdk.projects.create("Scratch project", workspace=workspace)
    assert sdk.projects.update(scratch, description="tmp").description == "tmp"
    sdk.projects.delete(scratch)
    with pytest.raises(sampan.NotFound):
        sdk.projects.get(scratch.id)
    sdk.workspaces.delete(workspace)
    with pytest.raises(sampan.NotFound):
        sdk.workspaces.get(workspace.id)


def test_backbones_train_from_one_and_study_pause_resume_stop(sdk, project, digits_folder, tmp_path):
    import torch

    from workers.image_classification.models import build_model

    path = tmp_path / "cnn.pt"
    torch.save(build_model("cnn_small", 1000).state_dict(), path)
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not weights" * 20)

    backbone = sdk.backbones.upload(path, project=project, name="small-cnn")
    assert backbone.status == "valid" and backbone.summary["fits"] == ["cnn_small"]
    invalid = sdk.backbones.upload(garbage, project=project, name="garbage")
    assert invalid.status == "invalid" and invalid.error
    assert {b.name for b in sdk.backbones.list(project=project)} == {"small-cnn", "garbage"}
    assert sdk.backbones.get(backbone.id).sha256 == backbone.sha256

    dataset = sdk.datasets.create("backbone digits", project=project)
    dataset.upload(digits_folder, progress=False)
    version = dataset.create_version(seed=3)
    with pytest.raises(sampan.SampanError) as caught:
        sdk.training.start(version, preset="fast", params={"epochs": 1}, backbone=invalid)
    assert caught.value.status == 400
    job = sdk.training.start(version, preset="fast", params={"epochs": 1}, backbone=backbone)
    assert job.params["backbone"] == backbone.id
    model = job.wait(progress=False, timeout=600).model_version()
    assert model.backbone["id"] == backbone.id
    sdk.backbones.delete(invalid)
    sdk.backbones.delete(backbone)  # the lineage outlives it
    assert sdk.model_versions.get(model.id).backbone["name"] == "small-cnn"
    with pytest.raises(sampan.NotFound):
        sdk.backbones.get(backbone.id)

    study = sdk.studies.create(
        version,
        n_trials=6,
        parallelism=1,
        preset="fast",
        report_seeds=0,
        fixed_params={"epochs": 1, "image_size": 32},
        search_space=[{"name": "learning_rate", "type": "float", "low": 1e-3, "high": 1e-2, "log": True}],
    )
    assert study.pause().status == "paused"
    assert sdk.studies.get(study.id).status == "paused"
    assert study.resume().status == "running"
    assert study.stop().status in ("stopping", "stopped")
    study.wait(progress=False, poll=1, timeout=600)
    assert study.status == "stopped"
    with pytest.raises(sampan.SampanError) as caught:
        study.resume()
    assert caught.value.status in (400, 409)


def test_text_instances_are_sent_as_the_protocol_says():
    assert prediction_instances(texts=["great film", "dull"]) == [{"text": "great film"}, {"text": "dull"}]
    assert prediction_instances(rows=[{"alcohol": 13.2}]) == [{"alcohol": 13.2}]
    with pytest.raises(ValueError, match="exactly one"):
        prediction_instances(["a.png"], texts=["x"])
    with pytest.raises(TypeError, match="list of strings"):
        prediction_instances(texts="one text")
    with pytest.raises(TypeError, match="mapping"):
        prediction_instances(rows=[[1, 2]])


def test_texts_predicted_by_a_text_classification_deployment(sdk, project):
    dataset = sdk.datasets.create("docstrings", project=project, task_type="text_classification")
    out = io.StringIO()
    csv.writer(out).writerows([("text", "area"), *balanced(10)])
    imported = sdk.http.post(
        f"datasets/{dataset.id}/imports/",
        None,
        data={"label_column": "area"},
        files={"file": ("docstrings.csv", out.getvalue().encode(), "text/csv")},
    )
    assert imported["imported"] == 40, imported
    version = dataset.create_version(seed=5, train_ratio=0.6, val_ratio=0.2, test_ratio=0.2)
    model = version.train("fast", params={"epochs": 2}).wait(progress=False, timeout=600).model_version()

    deployment = model.deploy("docstrings")
    deployment.create_key("texts")
    areas = {"files", "network", "numbers", "text"}
    one = deployment.predict(text="Return the square root of x.", top_k=2)
    assert one.label in areas and len(one.top_k) == 2 and one.value is None
    assert one.model_version["id"] == model.id
    many = deployment.predict_batch(texts=["Open a TCP connection.", "Read the file.", "Split the string."])
    assert len(many) == 3 and all(p.label in areas for p in many)
    with pytest.raises(sampan.SampanError) as caught:
        deployment.predict(text="   ")
    assert (caught.value.status, caught.value.code) == (400, "empty_input")
    with pytest.raises(sampan.SampanError) as caught:
        deployment.predict(row={"text": 3})
    assert caught.value.status == 400


def test_tabular_rows_predicted_and_a_device_sdk_built_and_downloaded(sdk, project, tmp_path):
    dataset = sdk.datasets.create("wine", project=project, task_type="tabular_classification")
    data = csv_bytes("wine")
    batch = sdk.http.post(
        f"datasets/{dataset.id}/imports/",
        None,
        data={"target_column": "target", "background": "true"},
        files={"file": ("wine.csv", data, "text/csv")},
    )
    sdk.jobs.get(batch["job"]).wait(progress=False, timeout=300)
    version = dataset.create_version(seed=11)
    model = version.train("fast").wait(progress=False, timeout=600).model_version()

    deployment = model.deploy("wine")
    deployment.create_key("rows")
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    features = [{k: float(v) for k, v in row.items() if k != "target"} for row in rows]
    one = deployment.predict(row=features[0], top_k=3)
    assert one.label in {"class_0", "class_1", "class_2"} and len(one.top_k) == 3
    answers = deployment.predict_batch(rows=features[::4], batch_size=16)
    accuracy = sum(p.label == r["target"] for p, r in zip(answers, rows[::4], strict=True)) / len(answers)
    assert len(answers) == len(features[::4]) and accuracy > 0.8, accuracy
    with pytest.raises(sampan.SampanError) as caught:
        deployment.predict(text="a text sent to a table model")
    assert caught.value.status == 400
    with pytest.raises(ValueError, match="exactly one"):
        deployment.predict(row=features[0], text="both")

    package = sdk.packages.create(model, kind="device")
    assert package.kind == "device"
    with pytest.raises(sampan.Conflict):
        package.download(tmp_path / "early.zip")  # 409 package_not_ready while it builds
    package.wait(progress=False, timeout=600)
    assert package.status == "succeeded" and package.size_bytes > 0
    saved = package.download(tmp_path / "device.zip")
    names = zipfile.ZipFile(saved).namelist()
    assert any(name.endswith(".onnx") for name in names), names
    assert [p.id for p in sdk.packages.list(model_version=model, kind="device")] == [package.id]
    sdk.packages.delete(package)
    with pytest.raises(sampan.NotFound):
        sdk.packages.get(package.id)
