"""The ONNX export: dynamic batch, parity with torch, self-contained files only, and a verification
that really rejects a model that disagrees with torch."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch
from digits_data import trained_digits

from workers.image_classification import export
from workers.image_classification.export import OnnxVerificationError, export_onnx, load_classifier
from workers.image_classification.predictor import ImageClassifier
from workers.image_classification.preprocessing import open_image, preprocess_batch
from workers.shared.onnx_model import OnnxRejected, check_onnx_self_contained


def test_export_has_a_dynamic_batch_and_describes_itself():
    manifest, result, _, _ = trained_digits()
    model = onnx.load(result["onnx"])
    assert max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")) >= 17
    (graph_input,) = model.graph.input
    dims = graph_input.type.tensor_type.shape.dim
    assert (
        graph_input.name == "input" and dims[0].dim_param and [d.dim_value for d in dims[1:]] == [3, 32, 32]
    )
    assert model.graph.output[0].name == "logits"
    metadata = {p.key: p.value for p in model.metadata_props}
    assert json.loads(metadata["sampan.classes"]) == manifest["classes"]
    assert json.loads(metadata["sampan.preprocessing"]) == result["preprocessing"]
    info = result["export"]
    assert info["input"]["shape"] == ["batch", 3, 32, 32] and info["output"]["shape"] == ["batch", 10]
    assert info["verified"]["batch_sizes"] == [1, 7] and info["verified"]["max_abs_diff"] < 1e-4
    check_onnx_self_contained(result["onnx"])
    assert not [p for p in Path(result["onnx"]).parent.iterdir() if p.suffix == ".data"]


@pytest.mark.parametrize("batch_size", [1, 7])
def test_onnx_runtime_matches_torch_on_real_images_at_any_batch_size(batch_size):
    manifest, result, _, _ = trained_digits()
    torch_model, _ = load_classifier(result["model"])
    classifier = ImageClassifier(result["onnx"])
    images = [open_image(s["path"]) for s in manifest["samples"] if s["split"] == "test"][:batch_size]
    batch = preprocess_batch(images, result["preprocessing"])
    with torch.inference_mode():
        expected = torch_model(torch.from_numpy(batch)).numpy()
    actual = classifier.logits(batch)
    assert actual.shape == (batch_size, 10)
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)
    predictions = classifier.predict(images, top_k=3)
    assert [p[0]["index"] for p in predictions] == expected.argmax(axis=1).tolist()
    assert all(len(p) == 3 and p[0]["score"] >= p[1]["score"] >= p[2]["score"] for p in predictions)


def test_onnx_with_external_data_is_rejected(tmp_path):
    _, result, _, _ = trained_digits()
    model = onnx.load(result["onnx"])
    outside = tmp_path / "model_external.onnx"
    onnx.save_model(
        model,
        str(outside),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="weights.bin",
        size_threshold=0,
    )
    assert (tmp_path / "weights.bin").is_file()
    with pytest.raises(
        OnnxRejected,
        match=r"model_external.onnx: refused: \d+ tensors reference external data "
        r"files \(.* -> weights.bin;",
    ):
        check_onnx_self_contained(outside)
    with pytest.raises(OnnxRejected):
        ImageClassifier(outside)
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"\x08\x07not a protobuf at all" * 10)
    with pytest.raises(OnnxRejected, match="garbage.onnx: not"):
        check_onnx_self_contained(garbage)


def test_export_fails_and_keeps_no_file_when_onnx_runtime_disagrees_with_torch(tmp_path, monkeypatch):
    _, result, _, _ = trained_digits()
    real_export = torch.onnx.export

    def export_then_damage(*args, **kwargs):  # a wrong graph: one weight tensor scaled after export
        real_export(*args, **kwargs)
        path = args[2]
        model = onnx.load(path)
        weights = max(model.graph.initializer, key=lambda t: len(t.raw_data))
        values = onnx.numpy_helper.to_array(weights).copy()
        values *= 1.5
        weights.CopyFrom(onnx.numpy_helper.from_array(values, weights.name))
        onnx.save(model, path)

    monkeypatch.setattr(export.torch.onnx, "export", export_then_damage)
    target = tmp_path / "model.onnx"
    with pytest.raises(OnnxVerificationError, match="ONNX Runtime and torch disagree at batch 1"):
        export_onnx(result["model"], target)
    assert list(tmp_path.iterdir()) == []


def test_export_refuses_old_opsets(tmp_path):
    _, result, _, _ = trained_digits()
    with pytest.raises(ValueError, match="opset must be 17 or newer"):
        export_onnx(result["model"], tmp_path / "m.onnx", opset=13)
