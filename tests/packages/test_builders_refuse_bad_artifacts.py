"""The package builders refuse, by name, what they cannot package: an ONNX file that points at external
data, a template no predictor serves, test inputs of the wrong kind, a device SDK without calibration
images, and artifacts whose labels do not fit their classes. Nothing is written at out_path."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from workers.image_classification.preprocessing import make_spec
from workers.packaging import ModelArtifacts, PackagingError, build_device_sdk, build_server_package


def tiny_model(path, *, external: bool = False):
    weight = numpy_helper.from_array(np.ones((3 * 8 * 8, 2), dtype=np.float32), name="weight")
    graph = helper.make_graph(
        [
            helper.make_node("Flatten", ["input"], ["flat"]),
            helper.make_node("MatMul", ["flat", "weight"], ["logits"]),
        ],
        "tiny",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 2])],
        [weight],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    if external:
        onnx.save_model(
            model,
            str(path),
            save_as_external_data=True,
            all_tensors_to_one_file=True,
            location="weights.bin",
            size_threshold=0,
        )
    else:
        onnx.save_model(model, str(path))
    return path


def artifacts(model, template="image_classification", **overrides):
    values = {
        "model_path": model,
        "preprocessing": make_spec(8),
        "classes": ["a", "b"],
        "template": template,
        "model_version": {"id": 1, "name": "V1"},
        "test_images": [],
        "test_labels": None,
    }
    values.update(overrides)
    return ModelArtifacts(**values)


def test_a_model_with_external_data_is_refused(tmp_path):
    model = tiny_model(tmp_path / "model.onnx", external=True)
    for build in (
        lambda: build_server_package(artifacts=artifacts(model), out_path=tmp_path / "server.zip"),
        lambda: build_device_sdk(
            artifacts=artifacts(model), out_path=tmp_path / "device.zip", calibration_images=[str(model)]
        ),
    ):
        with pytest.raises(PackagingError, match="external data"):
            build()
    assert not list(tmp_path.glob("*.zip"))


def test_templates_without_an_image_predictor_are_refused(tmp_path):
    model = tiny_model(tmp_path / "model.onnx")
    with pytest.raises(PackagingError, match="no predictor serves template 'speech'"):
        build_server_package(artifacts=artifacts(model, "speech"), out_path=tmp_path / "server.zip")
    # a text or tabular model takes texts or rows as test inputs, not images; and must be one
    with pytest.raises(PackagingError, match="takes tabular input: give test_instances"):
        build_server_package(
            artifacts=artifacts(model, "tabular_classification", test_images=["x.png"]),
            out_path=tmp_path / "server.zip",
        )
    with pytest.raises(PackagingError, match="cannot be served as tabular_classification"):
        build_server_package(
            artifacts=artifacts(model, "tabular_classification", test_instances=[{"a": 1}]),
            out_path=tmp_path / "server.zip",
        )
    with pytest.raises(PackagingError, match="cannot be served as tabular_classification"):
        build_device_sdk(
            artifacts=artifacts(model, "tabular_classification"),
            out_path=tmp_path / "device.zip",
            calibration_images=[str(model)],
        )
    with pytest.raises(PackagingError, match="no predictor serves template 'speech'"):
        build_device_sdk(
            artifacts=artifacts(model, "speech"),
            out_path=tmp_path / "device.zip",
            calibration_images=[str(model)],
        )
    assert not list(tmp_path.glob("*.zip"))


def test_device_sdk_needs_calibration_images(tmp_path):
    model = tiny_model(tmp_path / "model.onnx")
    with pytest.raises(PackagingError, match="calibration images"):
        build_device_sdk(artifacts=artifacts(model), out_path=tmp_path / "device.zip", calibration_images=[])


def test_artifacts_check_their_own_consistency(tmp_path):
    model = tiny_model(tmp_path / "model.onnx")
    with pytest.raises(ValueError, match="does not exist"):
        artifacts(tmp_path / "missing.onnx")
    with pytest.raises(ValueError, match="2 test labels for 1 test inputs"):
        artifacts(model, test_images=["x.png"], test_labels=[0, 1])
    with pytest.raises(ValueError, match="class indices"):
        artifacts(model, test_images=["x.png"], test_labels=[2])
    with pytest.raises(ValueError, match="at least one class"):
        artifacts(model, classes=[])
