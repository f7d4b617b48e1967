"""Deployment targets: profiles validate with a named field, and latency is measured with the profile's
settings on a real ONNX Runtime session."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from workers.deployment_targets import (
    BUILTIN_TARGETS,
    TargetProfileError,
    measure_latency,
    model_size,
    target_profile,
)


def _matmul_model(path, width: int) -> None:
    weight = numpy_helper.from_array(
        np.random.default_rng(0).standard_normal((width, width)).astype(np.float32), "w"
    )
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Relu", ["h"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", width])],
        [weight],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def test_a_partial_profile_gets_the_device_sdk_defaults() -> None:
    profile = target_profile({"name": " phone ", "slowdown": 3, "latency_budget_ms": 5})
    assert profile["name"] == "phone"
    assert profile["intra_op_threads"] == 1 and profile["batch_size"] == 1
    assert profile["slowdown"] == 3.0 and profile["latency_budget_ms"] == 5.0
    assert profile["size_budget_bytes"] is None
    assert target_profile("worker-cpu") == BUILTIN_TARGETS["worker-cpu"]


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "x", "slowdown": 0}, "slowdown"),
        ({"name": "x", "slowdown": "fast"}, "slowdown"),
        ({"name": "x", "intra_op_threads": 1000}, "intra_op_threads"),
        ({"name": "x", "runtime": "tflite"}, "runtime"),
        ({"name": "x", "execution_provider": "gpu"}, "execution_provider"),
        ("no-such-target", "target_profile"),
    ],
)
def test_a_bad_profile_names_its_field(value, field) -> None:
    with pytest.raises(TargetProfileError) as error:
        target_profile(value)
    assert error.value.field == field


def test_latency_grows_with_the_model_and_the_slowdown(tmp_path) -> None:
    small, large = tmp_path / "small.onnx", tmp_path / "large.onnx"
    _matmul_model(small, 16)
    _matmul_model(large, 768)
    assert model_size(large) > model_size(small) * 100
    profile = target_profile({"name": "slow board", "slowdown": 4})
    fast = measure_latency(small, profile, runs=20)
    slow = measure_latency(large, profile, runs=20)
    assert fast["runs"] == 20 and fast["threads"] == 1 and fast["provider"] == "CPUExecutionProvider"
    assert slow["median_ms"] > fast["median_ms"]
    # both are rounded to 4 decimals: the median's rounding (up to 5e-5) is multiplied by the slowdown
    assert slow["target_ms"] == pytest.approx(slow["median_ms"] * 4, rel=1e-3, abs=4 * 5e-5 + 5e-5)
    assert slow["p90_ms"] >= slow["median_ms"]


def test_a_provider_the_worker_lacks_is_named(tmp_path) -> None:
    path = tmp_path / "m.onnx"
    _matmul_model(path, 8)
    profile = target_profile({"name": "gpu box", "execution_provider": "TensorrtExecutionProvider"})
    with pytest.raises(TargetProfileError, match="TensorrtExecutionProvider is not available"):
        measure_latency(path, profile)
