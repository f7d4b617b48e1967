"""Compressing tabular models (workers/compression/tabular.py) through ``workers.compression.compress``:
the MLP's hidden units pruned by magnitude and fine-tuned, and dynamic int8; the variants evaluate
with the template's evaluation and serve with its predictor; a tree ensemble is skipped with the
reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from workers.compression.core import compress
from workers.progress import silent_report
from workers.tabular.mlp import TabularMLP
from workers.tabular.predictor import TabularPredictor
from workers.tabular.trainer import train


def manifest(name: str) -> dict[str, Any]:
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, f"load_{name}")()
    regression = name == "diabetes"
    columns = [{"name": str(c).replace(" ", "_"), "type": "numeric"} for c in bunch.feature_names]
    splits = ("train", "train", "val", "test", "train")
    samples = []
    for i, (row, target) in enumerate(zip(bunch.data, bunch.target, strict=True)):
        sample: dict[str, Any] = {
            "id": i,
            "values": {c["name"]: float(v) for c, v in zip(columns, row, strict=True)},
            "split": splits[i % len(splits)],
        }
        sample["target" if regression else "label"] = float(target) if regression else int(target)
        samples.append(sample)
    return {
        "kind": "tabular",
        "version": 1,
        "task": "regression" if regression else "classification",
        "columns": columns,
        "target": "target",
        "classes": [] if regression else [str(c) for c in bunch.target_names],
        "samples": samples,
    }


def run_compress(root: Path, data: dict[str, Any], result: dict[str, Any], recipes: list[dict]) -> dict:
    return compress(
        template="tabular_regression" if data["task"] == "regression" else "tabular_classification",
        parent_checkpoint=Path(result["model"]),
        parent_onnx=Path(result["onnx"]),
        manifest=data,
        spec={"kind": "compression_spec", "version": 1, "seed": 0, "recipes": recipes},
        out_dir=root / "compressed",
        report=silent_report,
    )


PRUNE = [
    {"name": "pruned-25", "prune": {"flops_ratio": 0.25}, "fine_tune_epochs": 30},
    {"name": "int8", "quantize": "dynamic"},
    {"name": "pruned-25-int8", "prune": {"flops_ratio": 0.25}, "fine_tune_epochs": 30, "quantize": "auto"},
    {"name": "qat", "quantize": "qat"},
]


@pytest.mark.parametrize("dataset", ["wine", "diabetes"])
def test_a_pruned_mlp_keeps_its_quality_with_a_quarter_of_the_flops(tmp_path, dataset):
    data = manifest(dataset)
    parent = train({"preset": "neural", "validation": "holdout", "epochs": 60}, data, tmp_path / "run")
    result = run_compress(tmp_path, data, parent, PRUNE)
    summary = result["parent"]
    variants = {v["name"]: v for v in result["variants"]}
    assert set(variants) == {"pruned-25", "int8", "pruned-25-int8"}
    pruned = variants["pruned-25"]
    assert pruned["summary"]["flops"] <= 0.25 * summary["flops"] * 1.05  # the graph's FLOPs, softmax aside
    assert pruned["summary"]["size_bytes"] < 0.4 * summary["size_bytes"]
    assert pruned["params"]["hidden_size"] < 128
    # the quality holds: accuracy within 5 points on wine; R^2 within 0.1 on diabetes (88 noisy test
    # rows: R^2 near 0.45 moves by several hundredths from one fine-tune to the next)
    tolerance = 0.1 if data["task"] == "regression" else 0.05
    assert pruned["summary"]["delta"] >= -tolerance, (summary, pruned["summary"], pruned["notes"])
    state = torch.load(pruned["checkpoint"], weights_only=True)
    model = TabularMLP(**state["config"])
    model.load_state_dict(state["state_dict"])  # the trainer's model.pt format
    predictor = TabularPredictor(pruned["onnx"])
    rows = [s["values"] for s in data["samples"] if s["split"] == "test"][:3]
    assert len(predictor.predict(rows)) == 3
    for name in ("int8", "pruned-25-int8"):
        assert variants[name]["summary"]["precision"] == "int8"
    assert variants["pruned-25-int8"]["summary"]["size_bytes"] < pruned["summary"]["size_bytes"]
    assert {s["name"] for s in result["skipped"]} == {"qat"}
    assert "quantization-aware" in result["skipped"][0]["reason"]


def test_a_tree_ensemble_is_skipped_with_the_reason(tmp_path):
    data = manifest("wine")
    parent = train({"preset": "fast"}, data, tmp_path / "run")
    recipes = [
        {"name": "pruned", "prune": {"flops_ratio": 0.5}},
        {"name": "int8", "quantize": "dynamic"},
        {"name": "distilled", "distill": {"student": "mlp"}},
    ]
    result = run_compress(tmp_path, data, parent, recipes)
    assert result["variants"] == []
    reasons = {s["name"]: s["reason"] for s in result["skipped"]}
    assert "tree ensemble" in reasons["pruned"] and "MLP" in reasons["pruned"]
    assert "tree ensembles" in reasons["int8"] and "int8" in reasons["int8"]
    assert "distillation" in reasons["distilled"]


def test_pruning_to_a_latency_target(tmp_path):
    data = manifest("wine")
    parent = train({"preset": "neural", "validation": "holdout", "epochs": 20}, data, tmp_path / "run")
    recipes = [
        {"name": "easy", "prune": {"latency_ms": 1000.0}, "fine_tune_epochs": 2},
        {"name": "impossible", "prune": {"latency_ms": 1e-6}},
    ]
    result = run_compress(tmp_path, data, parent, recipes)
    (easy,) = result["variants"]
    assert easy["name"] == "easy" and easy["params"]["hidden_size"] == 96  # the first size tried fits
    assert "ms on the target" in easy["notes"][0]
    (impossible,) = result["skipped"]
    assert impossible["name"] == "impossible" and "no pruning of this MLP reaches" in impossible["reason"]
