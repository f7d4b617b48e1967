"""Training a detector (tiny: 60 synthetic 64x64 scenes, 2 epochs, shared with other tests): the
model directory it leaves serves boxes, progress follows the training contract, the ONNX file
matches torch, bad manifests and backbones are refused by name."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from detection_models import TINY_SPEC, tiny_run
from PIL import Image

from workers.image_classification.models import BackboneError
from workers.image_classification.models import build_model as build_classifier
from workers.image_classification.preprocessing import preprocess_batch
from workers.object_detection.decode import decode
from workers.object_detection.export import load_detector
from workers.object_detection.manifest import ManifestError, check_manifest, parse_manifest
from workers.object_detection.models import DetectionOutputs, build_model, load_detector_backbone
from workers.object_detection.predictor import Detector
from workers.object_detection.template import TEMPLATE
from workers.templates import registry
from workers.templates.declaration import TemplateParamError


def test_training_leaves_a_servable_model_directory_and_a_result():
    run = tiny_run()
    result, model_dir = run.result, run.model_dir
    assert result["template"] == "object_detection" and result["epochs"] == 2
    assert result["params"]["model"] == "det_small" and result["params"]["image_size"] == 64
    assert [h["epoch"] for h in result["history"]] == [1, 2]
    for entry in result["history"]:
        assert (
            0.0 <= entry["val_map50"] <= 1.0 and math.isfinite(entry["val_loss"]) and entry["train_loss"] > 0
        )
    assert result["metrics"]["best_val_map50"] == max(h["val_map50"] for h in result["history"])
    assert json.loads((model_dir / "labels.json").read_text()) == run.manifest["classes"]
    assert json.loads((model_dir / "preprocess.json").read_text())["image_size"] == [64, 64]
    assert json.loads((model_dir / "manifest.json").read_text()) == {"template": "object_detection"}
    export = result["export"]
    assert [o["name"] for o in export["outputs"]] == ["scores", "boxes"]
    assert export["outputs"][0]["shape"] == ["batch", 10, 16, 16] and export["input"]["shape"] == [
        "batch",
        3,
        64,
        64,
    ]
    assert export["verified"]["batch_sizes"] == [1, 7]
    assert result["data"]["images"]["train"] == 42


def test_progress_reports_steps_and_epoch_ends_with_val_map50():
    reports = tiny_run().reports
    epoch_ends = [r for r in reports if r["milestone"] and "val_map50" in r]
    assert [r["epoch"] for r in epoch_ends] == [1, 2]
    for end in epoch_ends:
        assert {"loss", "val_loss", "lr", "samples_per_s", "eta_s", "best_epoch", "steps"} <= set(end)
        assert end["steps"] == 4
    assert epoch_ends[-1]["eta_s"] == pytest.approx(0.0, abs=1e-6)
    assert reports[-1]["message"] == "exporting the model to ONNX" and reports[-1]["fraction"] == 1.0
    fractions = [r["fraction"] for r in reports if r["fraction"] is not None]
    assert fractions == sorted(fractions)


def test_the_onnx_model_and_the_detector_agree_with_torch():
    run = tiny_run()
    model, state = load_detector(run.model_dir / "model.pt")
    assert state["classes"] == run.manifest["classes"]
    test = [s for s in run.manifest["samples"] if s["split"] == "test"][:5]
    images = [Image.open(s["path"]).convert("RGB").resize((80, 48)) for s in test]
    batch = preprocess_batch(images, state["preprocessing"])
    with torch.inference_mode():
        expected = [t.numpy() for t in DetectionOutputs(model)(torch.from_numpy(batch))]
    detector = Detector(run.model_dir)
    scores, boxes = detector.raw_outputs(batch)
    np.testing.assert_allclose(scores, expected[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(boxes, expected[1], rtol=1e-4, atol=1e-3)
    decoded = decode(scores, boxes, scale_x=80 / 64, scale_y=48 / 64, score_threshold=0.01)
    answers = detector.detect(images, score_threshold=0.01)
    for answer, wanted in zip(answers, decoded, strict=True):
        assert (answer["width"], answer["height"]) == (80, 48)
        got = [(b["index"], b["score"], b["x"], b["y"], b["width"], b["height"]) for b in answer["boxes"]]
        assert got == wanted


def test_the_template_is_registered_with_its_presets_and_checks():
    assert registry.get("object_detection") is TEMPLATE
    description = TEMPLATE.as_dict()
    assert description["objective"] == {"metric": "val_map50", "direction": "maximize"}
    assert [p["name"] for p in description["presets"]] == ["fast", "balanced", "accurate"]
    assert {d["name"] for d in description["search_space"]} == {
        "learning_rate",
        "image_size",
        "model",
        "augmentation",
        "epochs",
    }
    assert TEMPLATE.validate_params("fast", TINY_SPEC)["epochs"] == 2
    with pytest.raises(TemplateParamError, match="multiple of 32"):
        TEMPLATE.validate_params("fast", {"image_size": 100})


def test_bad_manifests_are_refused_naming_the_sample_and_box(tmp_path):
    image = tmp_path / "a.png"
    Image.new("RGB", (32, 32)).save(image)

    def manifest(**box):
        return {
            "kind": "detection",
            "version": 1,
            "classes": ["cat"],
            "samples": [
                {"path": str(image), "width": 32, "height": 32, "split": "train", "boxes": [box] * 3},
            ],
        }

    good = {"label": 0, "x": 1.0, "y": 2.0, "width": 10.0, "height": 12.0}
    assert check_manifest(manifest(**good))["counts"]["train"] == [3]
    assert parse_manifest(manifest(**good)).samples[0].boxes[0] == (0, 1.0, 2.0, 10.0, 12.0)
    for bad, words in (
        ({**good, "label": 1}, r"samples\[0\]\.boxes\[0\]\.label must be a class index in 0\.\.0"),
        ({**good, "width": 0}, r"samples\[0\]\.boxes\[0\] has zero or negative size"),
        ({**good, "x": 30.0}, r"samples\[0\]\.boxes\[0\] .* lies outside the 32 x 32 image"),
        ({**good, "y": "2"}, r"samples\[0\]\.boxes\[0\]: x, y, width and height must be numbers"),
    ):
        with pytest.raises(ManifestError, match=words):
            parse_manifest(manifest(**bad))
    few = manifest(**good)
    few["samples"][0]["boxes"] = [good]
    with pytest.raises(ManifestError, match="class 'cat' has 1 box; at least 3 are needed"):
        parse_manifest(few)
    missing = manifest(**good)
    missing["samples"][0]["path"] = str(tmp_path / "gone.png")
    with pytest.raises(ManifestError, match="1 image file is missing"):
        parse_manifest(missing)


def test_a_classifiers_backbone_initialises_the_detector(tmp_path):
    torch.manual_seed(0)
    classifier = build_classifier("resnet_narrow", 7)
    torch.save(classifier.state_dict(), tmp_path / "narrow.pt")
    detector = build_model("det_medium", 3)
    loaded = load_detector_backbone(detector, tmp_path / "narrow.pt")
    assert loaded["ignored_head"] == ["fc.bias", "fc.weight"]
    torch.testing.assert_close(detector.backbone.layer3[0].conv1.weight, classifier.layer3[0].conv1.weight)
    with pytest.raises(BackboneError, match="does not fit"):
        load_detector_backbone(build_model("det_small", 3), tmp_path / "narrow.pt")
