"""Compressing an image classifier: pruning, distillation and int8 make smaller models that still
export, answer like their torch networks and are evaluated and measured beside the parent.

One tiny parent (digits, the fast preset, a few epochs) and one ``compress`` call with three recipes
serve the tests of this module; recipes fine-tune for one or two epochs (these tests check the
mechanics; benchmarks/compression_image.py measures the accuracy).
"""

from __future__ import annotations

import copy
import typing
from pathlib import Path
from typing import Any, cast

import numpy as np
import onnx
import onnxruntime
import pytest
import torch
from onnx import TensorProto, helper

from tests.workers.digits_data import write_digits
from workers.compression import CompressionError, compress, count_flops, count_parameters, validate_spec
from workers.compression.distillation import distillation_loss
from workers.contracts.compression import CompressionRecipe, CompressionResult
from workers.contracts.manifest import ImageManifest
from workers.image_classification.export import load_classifier
from workers.image_classification.models import build_model, default_channels
from workers.image_classification.preprocessing import open_image, preprocess_batch
from workers.image_classification.trainer import train

RECIPES: list[CompressionRecipe] = [
    {"name": "int8", "quantize": "static"},
    {"name": "pruned-50", "prune": {"flops_ratio": 0.5}, "fine_tune_epochs": 1},
    {"name": "distilled", "distill": {"student": "cnn_small@0.5"}, "fine_tune_epochs": 3},
]


@pytest.fixture(scope="module")
def parent(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("compression-image")
    manifest = write_digits(root / "data", per_class=20)
    params = {"preset": "fast", "epochs": 4, "batch_size": 16, "validation": "holdout"}
    result = train(params, cast(ImageManifest, manifest), root / "parent", num_workers=0)
    return {"root": root, "manifest": manifest, "model": Path(result["model"]), "onnx": Path(result["onnx"])}


@pytest.fixture(scope="module")
def compressed(parent: dict[str, Any]) -> tuple[CompressionResult, list[tuple[str, float | None]]]:
    events: list[tuple[str, float | None]] = []

    def report(
        message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        events.append((message, fraction))

    result = compress(
        template="image_classification",
        parent_checkpoint=parent["model"],
        parent_onnx=parent["onnx"],
        manifest=parent["manifest"],
        spec={"kind": "compression_spec", "version": 1, "recipes": RECIPES, "seed": 0},
        out_dir=parent["root"] / "compressed",
        report=report,
    )
    return result, events


def variant(result: CompressionResult, name: str) -> Any:
    return next(v for v in result["variants"] if v["name"] == name)


def check_contract(value: Any, hint: Any, where: str = "result") -> None:
    """``value`` has the shape of the type ``hint`` (TypedDicts recursively, lists, literals, unions)."""
    origin = typing.get_origin(hint)
    if origin in (typing.NotRequired, typing.Required):
        check_contract(value, typing.get_args(hint)[0], where)
    elif typing.is_typeddict(hint):
        assert isinstance(value, dict), where
        hints = typing.get_type_hints(hint, include_extras=True)
        required = {k for k, h in hints.items() if typing.get_origin(h) is not typing.NotRequired}
        assert required <= set(value), f"{where}: missing {sorted(required - set(value))}"
        assert set(value) <= set(hints), f"{where}: unexpected {sorted(set(value) - set(hints))}"
        for key, item in value.items():
            check_contract(item, hints[key], f"{where}.{key}")
    elif origin is list:
        assert isinstance(value, list), where
        for index, item in enumerate(value):
            check_contract(item, typing.get_args(hint)[0], f"{where}[{index}]")
    elif origin is dict:
        assert isinstance(value, dict), where
    elif origin is typing.Literal:
        assert value in typing.get_args(hint), f"{where}: {value!r}"
    elif origin in (typing.Union, __import__("types").UnionType):
        errors = []
        for option in typing.get_args(hint):
            try:
                check_contract(value, option, where)
                return
            except AssertionError as exc:
                errors.append(str(exc))
        raise AssertionError(f"{where}: {value!r} fits none of {hint}: {errors}")
    elif hint is type(None):
        assert value is None, where
    elif hint is float:
        assert isinstance(value, int | float) and not isinstance(value, bool), where
    else:
        assert isinstance(value, hint), f"{where}: {value!r} is not {hint}"


def test_the_result_follows_the_contract_and_progress_rises(compressed) -> None:
    result, events = compressed
    check_contract(result, CompressionResult)
    assert [v["name"] for v in result["variants"]] == ["int8", "pruned-50", "distilled"]
    assert result["skipped"] == []
    fractions = [f for _, f in events if f is not None]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any(message.startswith("pruned-50: fine-tuning epoch") for message, _ in events)
    parent = result["parent"]
    assert parent["precision"] == "fp32" and parent["delta"] == 0.0 and parent["metric"] == "accuracy"
    for v in result["variants"]:
        assert v["summary"]["delta"] == pytest.approx(v["summary"]["value"] - parent["value"])
        assert v["evaluation"]["split"] == "test"
        assert v["classes"] == [str(d) for d in range(10)]
        assert v["summary"]["latency"]["runs"] > 0 and v["summary"]["latency"]["median_ms"] > 0


def test_static_int8_is_a_quarter_of_the_size_with_the_same_graph_arithmetic(compressed) -> None:
    result, _ = compressed
    int8, parent = variant(result, "int8"), result["parent"]
    assert int8["checkpoint"] is None  # the parent's own weights
    assert int8["summary"]["precision"] == "int8"
    assert int8["summary"]["size_bytes"] < 0.4 * parent["size_bytes"]
    assert int8["summary"]["flops"] == parent["flops"]
    ops = {node.op_type for node in onnx.load(int8["onnx"]).graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= ops
    # the int8 model agrees with the fp32 parent on most test images
    assert abs(int8["summary"]["value"] - parent["value"]) <= 0.15


def test_pruning_halves_flops_and_the_pruned_model_answers_like_its_torch_network(compressed, parent) -> None:
    result, _ = compressed
    pruned, summary = variant(result, "pruned-50"), result["parent"]
    ratio = pruned["summary"]["flops"] / summary["flops"]
    assert 0.4 <= ratio <= 0.6, ratio
    assert pruned["summary"]["parameters"] < 0.65 * summary["parameters"]
    assert pruned["summary"]["size_bytes"] < 0.65 * summary["size_bytes"]
    # the model file stores the channel configuration and rebuilds through build_model
    model, state = load_classifier(pruned["checkpoint"])
    assert state["channels"] != default_channels("cnn_small") and len(state["channels"]) == 6
    assert all(c < full for c, full in zip(state["channels"], default_channels("cnn_small"), strict=True))
    images = [open_image(s["path"]) for s in parent["manifest"]["samples"] if s["split"] == "test"][:16]
    batch = preprocess_batch(images, pruned["preprocessing"])
    session = onnxruntime.InferenceSession(pruned["onnx"], providers=["CPUExecutionProvider"])
    (served,) = session.run(None, {"input": batch})
    with torch.inference_mode():
        expected = model(torch.from_numpy(batch)).numpy()
    np.testing.assert_allclose(served, expected, rtol=1e-4, atol=1e-4)


def test_a_distilled_student_is_smaller_and_learned_from_its_teacher(compressed) -> None:
    result, _ = compressed
    student = variant(result, "distilled")
    _, state = load_classifier(student["checkpoint"])
    assert state["channels"] == default_channels("cnn_small", 0.5)
    assert student["params"]["model"] == "cnn_small"
    assert student["summary"]["parameters"] < 0.35 * result["parent"]["parameters"]
    # far better than the 10 % of chance after three epochs on 140 images
    assert student["summary"]["value"] >= 0.2
    assert "distilled from the parent" in student["notes"][0]


def test_the_distillation_loss_mixes_soft_and_hard_targets() -> None:
    labels = torch.tensor([0, 1])
    teacher = torch.tensor([[4.0, 0.0], [0.0, 4.0]])
    assert float(distillation_loss(teacher, teacher, labels, temperature=4.0, alpha=1.0)) == pytest.approx(
        0.0
    )
    hard = float(torch.nn.functional.cross_entropy(-teacher, labels))
    assert float(distillation_loss(-teacher, teacher, labels, temperature=4.0, alpha=0.0)) == pytest.approx(
        hard
    )
    assert float(distillation_loss(-teacher, teacher, labels, temperature=4.0, alpha=0.5)) > hard / 2


def test_build_model_rebuilds_narrow_and_pruned_networks() -> None:
    narrow = build_model("resnet_narrow", 10, width=0.5)
    full = build_model("resnet_narrow", 10)
    assert sum(p.numel() for p in narrow.parameters()) < 0.3 * sum(p.numel() for p in full.parameters())
    channels = {"stages": [8, 16, 24, 40], "inner": [[4], [12], [20], [36]]}
    pruned: Any = build_model("resnet_narrow", 10, channels=channels)
    assert pruned.fc.in_features == 40 and pruned.layer3[0].conv1.out_channels == 20
    assert pruned(torch.zeros(2, 3, 32, 32)).shape == (2, 10)
    with pytest.raises(ValueError, match="do not fit"):
        build_model("resnet_narrow", 10, channels={"stages": [8, 16], "inner": [[4], [12]]})


def test_flops_and_parameters_are_read_from_the_onnx_graph(tmp_path: Path) -> None:
    # input [1, 3, 8, 8] -> Conv 4x3x3x3 (pad 1) -> [1, 4, 8, 8] -> Flatten -> Gemm 256 -> 5
    weight = helper.make_tensor("w", TensorProto.FLOAT, [4, 3, 3, 3], np.zeros(108, dtype=np.float32))
    fc = helper.make_tensor("fc", TensorProto.FLOAT, [5, 256], np.zeros(1280, dtype=np.float32))
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Flatten", ["c"], ["f"]),
            helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1),
        ],
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 5])],
        [weight, fc],
    )
    path = tmp_path / "tiny.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), str(path))
    assert count_flops(path) == 2 * (4 * 8 * 8 * 27 + 5 * 256)
    assert count_parameters(path) == 108 + 1280


@pytest.mark.parametrize(
    ("recipe", "message"),
    [
        ({"name": "x"}, "nothing to do"),
        ({"name": "x", "prune": {"flops_ratio": 1.5}}, "flops_ratio must be in"),
        ({"name": "x", "prune": {"flops_ratio": 0.5, "latency_ms": 2}}, "exactly one of"),
        ({"name": "x", "quantize": "int4"}, "quantize must be one of"),
        ({"name": "x", "distill": {"student": "cnn_small", "alpha": 2}}, "alpha must be in"),
        ({"name": "x", "quantize": "static", "epochs": 3}, "unknown keys epochs"),
        ({"name": "bad name", "quantize": "static"}, "name must be"),
    ],
)
def test_a_broken_recipe_is_refused_naming_the_problem(recipe: dict[str, Any], message: str) -> None:
    with pytest.raises(CompressionError, match=message) as caught:
        validate_spec({"kind": "compression_spec", "version": 1, "recipes": [recipe]})
    assert caught.value.code == "compression_bad_recipe"


def test_an_unknown_student_fails_clearly(parent, tmp_path: Path) -> None:
    with pytest.raises(CompressionError, match="unknown student 'vgg16'"):
        compress(
            template="image_classification",
            parent_checkpoint=parent["model"],
            parent_onnx=parent["onnx"],
            manifest=parent["manifest"],
            spec={
                "kind": "compression_spec",
                "version": 1,
                "recipes": [{"name": "s", "distill": {"student": "vgg16"}}],
            },
            out_dir=tmp_path,
            report=lambda *args, **kwargs: None,
        )


def test_a_latency_target_no_pruning_reaches_skips_the_recipe_with_the_reason(parent, tmp_path: Path) -> None:
    result = compress(
        template="image_classification",
        parent_checkpoint=parent["model"],
        parent_onnx=parent["onnx"],
        manifest=parent["manifest"],
        spec={
            "kind": "compression_spec",
            "version": 1,
            "recipes": [{"name": "instant", "prune": {"latency_ms": 1e-6}}],
        },
        out_dir=tmp_path,
        report=lambda *args, **kwargs: None,
    )
    assert result["variants"] == []
    assert result["skipped"] == [
        {
            "name": "instant",
            "reason": "pruning cannot reach 1e-06 ms: 5% of the FLOPs still takes longer on the target",
        }
    ]


@pytest.mark.parametrize("arch", ["cnn_small", "resnet_narrow"])
def test_qat_folds_batch_norms_and_writes_back_the_same_function(arch: str) -> None:
    from workers.compression.quantization import finish_qat, prepare_qat

    torch.manual_seed(0)
    model = build_model(arch, 10)
    for module in model.modules():  # trained-looking statistics
        if isinstance(module, torch.nn.BatchNorm2d):
            assert module.running_mean is not None and module.running_var is not None
            module.weight.data.uniform_(0.2, 1.5)
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    model.eval()
    prepared = prepare_qat(copy.deepcopy(model))
    assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in prepared.modules())
    prepared.eval()
    images = torch.randn(4, 3, 32, 32)
    with torch.no_grad():
        expected, fake_quantized = model(images), prepared(images)
    # the fake-quant network computes nearly the same function (int8 rounding only)
    assert float((fake_quantized - expected).abs().max()) < 0.1 * float(expected.abs().max())
    plain = finish_qat(prepared, build_model(arch, 10))
    with torch.no_grad():
        np.testing.assert_allclose(plain(images).numpy(), expected.numpy(), rtol=1e-4, atol=1e-4)
