"""Bring your own model through the SDK (and so the REST API): an ONNX file with its preprocessing
and labels (external data refused, shapes checked against the labels), or a state_dict of a template
architecture imported by a worker job (weights_only=True); either is a model version that deploys."""

from __future__ import annotations

import json

import pytest
import sampan

from tests.sdk.live_platform import web_process_has_torch
from tests.sdk.onnx_models import PLAIN, brightness_classifier

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_onnx_file_becomes_a_model_version(sdk, project, tmp_path):
    path = brightness_classifier(tmp_path / "brightness.onnx")
    model = sdk.model_versions.upload_onnx(
        path, project=project, classes=["dark", "bright"], preprocessing=PLAIN
    )
    assert model.source == "uploaded" and model.name == "V1" and model.dataset_version is None
    assert model.classes == ["dark", "bright"] and model.template == "image_classification"
    assert model.preprocessing["image_size"] == [16, 16] and model.preprocessing["mean"] == [0.0, 0.0, 0.0]
    assert model.params["format"] == "onnx" and model.params["filename"] == "brightness.onnx"
    assert [m.id for m in sdk.model_versions.list(project=project, source="uploaded")] == [model.id]
    assert sdk.model_versions.list(project=project, source="trained") == []

    # the stored file describes itself like an export, so it re-uploads without classes
    stored = model.download_onnx(tmp_path / "stored.onnx")
    import onnx

    meta = {p.key: p.value for p in onnx.load(str(stored)).metadata_props}
    assert json.loads(meta["sampan.classes"]) == ["dark", "bright"]
    again = sdk.model_versions.upload_onnx(stored, project=project)
    assert (
        again.name == "V2"
        and again.classes == ["dark", "bright"]
        and again.preprocessing == model.preprocessing
    )
    assert "uploaded" in model._repr_html_()
    with pytest.raises(ValueError, match="no evaluation report"):
        model.evaluation()
    assert not web_process_has_torch(sdk.base_url), "the ONNX checks ran without torch in the web process"


def test_bad_onnx_uploads_are_refused_with_the_reason(sdk, project, tmp_path):
    external = brightness_classifier(tmp_path / "external.onnx", external=True)
    with pytest.raises(sampan.BadRequest) as caught:
        sdk.model_versions.upload_onnx(external, project=project, classes=["dark", "bright"])
    assert "external data" in caught.value.message and "external.onnx" in caught.value.message
    assert str(tmp_path) not in caught.value.message

    three = brightness_classifier(tmp_path / "three.onnx", outputs=3)
    with pytest.raises(sampan.BadRequest) as caught:
        sdk.model_versions.upload_onnx(three, project=project, classes=["dark", "bright"])
    assert "3 scores" in caught.value.message and "2 class names" in caught.value.message
    two = brightness_classifier(tmp_path / "two.onnx")
    with pytest.raises(sampan.BadRequest) as caught:
        sdk.model_versions.upload_onnx(two, project=project)
    assert "classes" in caught.value.details
    with pytest.raises(sampan.BadRequest) as caught:
        sdk.model_versions.upload_onnx(
            two, project=project, classes=["a", "b"], preprocessing={"image_size": [32, 32]}
        )
    assert "differs from the model's input [16, 16]" in caught.value.message
    with pytest.raises(sampan.BadRequest) as caught:
        sdk.model_versions.upload_onnx(two, project=project, classes=["a", "b"], preprocessing=[16, 16])  # type: ignore[arg-type]
    assert "JSON object" in caught.value.message
    with pytest.raises(sampan.BadRequest) as caught:
        sdk.model_versions.upload_onnx(two, project=project, classes=["a", "a"])
    assert "unique" in caught.value.message
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\x08\x07not a protobuf at all" * 10)
    with pytest.raises(sampan.BadRequest) as caught:
        sdk.model_versions.upload_onnx(garbage, project=project, classes=["a", "b"])
    assert "garbage.onnx" in caught.value.message
    assert sdk.model_versions.list(project=project) == []


def test_state_dict_is_imported_by_a_worker_with_weights_only(sdk, project, digits_folder, tmp_path):
    import torch

    from workers.image_classification.models import build_model

    dataset = sdk.datasets.create("state_dict evaluation", project=project)
    dataset.upload(digits_folder, progress=False)
    version = dataset.create_version(seed=5)
    torch.manual_seed(0)
    net = build_model("cnn_small", 10)
    weights = tmp_path / "mine.pt"
    torch.save(net.state_dict(), weights)
    model = sdk.model_versions.upload_state_dict(
        weights,
        project=project,
        architecture="cnn_small",
        classes=version.classes,
        image_size=32,
        progress=False,
        dataset_version=version,
    )
    assert model.source == "uploaded" and model.classes == version.classes and model.job is not None
    assert model.dataset_version == version.id
    assert model.evaluation().samples == sum(version.counts["test"].values())
    assert model.params["format"] == "state_dict" and model.params["architecture"] == "cnn_small"
    assert model.preprocessing["image_size"] == [32, 32] and model.onnx_sha256

    # the exported model computes what the uploaded weights compute
    import numpy as np
    import onnxruntime

    stored = model.download_onnx(tmp_path / "imported.onnx")
    session = onnxruntime.InferenceSession(str(stored), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).standard_normal((2, 3, 32, 32)).astype(np.float32)  # batch of 2, 10 scores
    net.eval()
    with torch.no_grad():
        expected = net(torch.from_numpy(x)).numpy()
    assert np.allclose(session.run(None, {session.get_inputs()[0].name: x})[0], expected, atol=1e-4)


class Exploit:
    """Unpickling it without weights_only would create ``marker``."""

    def __init__(self, marker) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (eval, (f"open({self.marker!r}, 'w').close()",))


def test_state_dicts_that_are_unsafe_or_do_not_fit_fail_their_job(sdk, project, tmp_path):
    import torch

    from workers.image_classification.models import build_model

    pickled = tmp_path / "exploit.pt"
    marker = tmp_path / "owned"
    torch.save({"conv.weight": torch.zeros(1), "evil": Exploit(marker)}, pickled)
    job = sdk.model_versions.upload_state_dict(
        pickled, project=project, architecture="cnn_small", classes=["a", "b"], wait=False
    )
    assert isinstance(job, sampan.Job) and job.kind == "training.import_model"
    with pytest.raises(sampan.JobFailed) as caught:
        job.wait(progress=False, poll=0.3)
    error = caught.value.job.error
    assert (
        "exploit.pt: refused: it holds a pickled" in error
        and "uploads are read with weights_only=True" in error
    )
    assert not marker.exists()

    wrong = tmp_path / "resnet.pt"
    torch.save(build_model("resnet_narrow", 2).state_dict(), wrong)
    with pytest.raises(sampan.JobFailed) as caught:
        sdk.model_versions.upload_state_dict(
            wrong, project=project, architecture="cnn_small", classes=["a", "b"], progress=False
        )
    assert "does not fit cnn_small" in caught.value.job.error
    with pytest.raises(sampan.BadRequest) as bad:
        sdk.model_versions.upload_state_dict(wrong, project=project, architecture="vgg", classes=["a", "b"])
    assert "architecture" in bad.value.details
    assert sdk.model_versions.list(project=project) == []


def test_an_uploaded_model_is_evaluated_on_a_dataset_version(sdk, project, digits_folder, tmp_path):
    dataset = sdk.datasets.create("evaluation set", project=project)
    dataset.upload(digits_folder, progress=False)
    version = dataset.create_version(seed=2)
    path = brightness_classifier(tmp_path / "ten.onnx", outputs=10)
    with pytest.raises(sampan.BadRequest) as caught:
        sdk.model_versions.upload_onnx(
            path, project=project, classes=[f"c{i}" for i in range(10)], dataset_version=version
        )
    assert "differ from dataset version V1" in caught.value.message
    model = sdk.model_versions.upload_onnx(
        path, project=project, classes=version.classes, preprocessing=PLAIN, dataset_version=version
    )
    assert model.dataset_version == version.id and model.source == "uploaded"
    report = model.evaluation()
    assert report.samples == sum(version.counts["test"].values()) == sum(map(sum, report.confusion_matrix))
    assert model.metrics["test"]["accuracy"] == pytest.approx(report.accuracy)
    assert sdk.jobs.get(model.job).kind == "training.evaluate_model"
    compared = sdk.model_versions.compare(model, model)
    assert compared["accuracy"]["delta"] == 0
