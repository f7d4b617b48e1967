"""Compressing text classifiers (workers/compression/text.py) through ``workers.compression.compress``:
the MiniLM classifier distilled into the small bag of embeddings (soft labels from the teacher), and
dynamic int8 of the parent and of the student; the variants evaluate with the template's evaluation
and serve with its predictor; pruning is skipped with the reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from tests.templates_text.corpus import balanced
from workers.compression.core import compress
from workers.progress import silent_report
from workers.text_classification.predictor import TextClassifier
from workers.text_classification.trainer import train


def manifest(per_class: int) -> dict[str, Any]:
    pairs = balanced(per_class, seed=3)
    classes = sorted({area for _, area in pairs})
    splits = ("train", "train", "val", "test", "train")
    samples = [
        {"id": i, "text": text, "label": classes.index(area), "split": splits[i % len(splits)]}
        for i, (text, area) in enumerate(pairs)
    ]
    return {"kind": "text", "classes": classes, "samples": samples}


@pytest.fixture(scope="module")
def compressed(tmp_path_factory):
    root = tmp_path_factory.mktemp("text")
    data = manifest(20)
    parent = train({"preset": "balanced", "max_length": 64, "validation": "holdout"}, data, root / "run")
    spec = {
        "kind": "compression_spec",
        "version": 1,
        "seed": 0,
        "recipes": [
            {"name": "int8", "quantize": "dynamic"},
            {"name": "distilled", "distill": {"student": "bag_of_embeddings"}, "fine_tune_epochs": 25},
            {
                "name": "distilled-int8",
                "distill": {"student": "bag_of_embeddings", "temperature": 3.0, "alpha": 0.8},
                "fine_tune_epochs": 25,
                "quantize": "auto",
            },
            {"name": "pruned", "prune": {"flops_ratio": 0.5}},
            {"name": "wide-student", "distill": {"student": "minilm_head"}},
        ],
    }
    result = compress(
        template="text_classification",
        parent_checkpoint=Path(parent["model"]),
        parent_onnx=Path(parent["onnx"]),
        manifest=data,
        spec=spec,
        out_dir=root / "compressed",
        report=silent_report,
    )
    return data, parent, result


def test_the_distilled_student_is_far_smaller_and_still_classifies(compressed):
    data, parent, result = compressed
    summary = result["parent"]
    variants = {v["name"]: v for v in result["variants"]}
    assert set(variants) == {"int8", "distilled", "distilled-int8"}
    student = variants["distilled"]
    assert student["params"]["model"] == "bag_of_embeddings"
    assert student["summary"]["size_bytes"] < 0.2 * summary["size_bytes"]
    assert student["summary"]["flops"] < 0.1 * summary["flops"]
    test = [s for s in data["samples"] if s["split"] == "test"]
    assert student["evaluation"]["kind"] == "classification_report"
    # a bag of embeddings from 20 texts a class: well above the 1-in-N guess of its classes
    assert student["summary"]["value"] > 2.0 / len(data["classes"]), student["summary"]
    # it learned from the teacher: it agrees with the teacher on most test texts
    teacher = TextClassifier(parent["onnx"], preprocessing=parent["preprocessing"])
    served = TextClassifier(student["onnx"], preprocessing=student["preprocessing"])
    texts = [s["text"] for s in test]
    agreement = np.mean(teacher.probabilities(texts).argmax(1) == served.probabilities(texts).argmax(1))
    assert agreement >= 0.5, agreement
    state = torch.load(student["checkpoint"], weights_only=True)
    assert state["model"] == "bag_of_embeddings" and state["classes"] == data["classes"]


def test_dynamic_int8_shrinks_parent_and_student(compressed):
    _, _, result = compressed
    parent = result["parent"]
    variants = {v["name"]: v for v in result["variants"]}
    int8, student, both = variants["int8"], variants["distilled"], variants["distilled-int8"]
    assert int8["checkpoint"] is None and int8["summary"]["precision"] == "int8"
    assert int8["summary"]["size_bytes"] < 0.5 * parent["size_bytes"]
    assert abs(int8["summary"]["delta"]) <= 0.1
    assert both["summary"]["precision"] == "int8"
    assert both["summary"]["size_bytes"] < 0.5 * student["summary"]["size_bytes"]
    assert any("tolerance" in note for note in both["notes"])


def test_what_does_not_apply_is_skipped_with_the_reason(compressed):
    _, _, result = compressed
    reasons = {s["name"]: s["reason"] for s in result["skipped"]}
    assert "pruning" in reasons["pruned"] and "bag_of_embeddings" in reasons["pruned"]
    assert "minilm_head" in reasons["wide-student"]


def test_a_teacher_of_other_classes_is_refused(compressed, tmp_path):
    from workers.compression.core import CompressionError
    from workers.compression.text import compress_variant

    data, parent, _ = compressed
    order = list(reversed(data["classes"]))
    relabelled = {
        **data,
        "classes": order,
        "samples": [{**s, "label": order.index(data["classes"][s["label"]])} for s in data["samples"]],
    }
    other = train({"preset": "fast", "epochs": 2}, relabelled, tmp_path / "other")
    with pytest.raises(CompressionError) as refused:
        compress_variant(
            recipe={"name": "distilled", "distill": {"student": "bag_of_embeddings"}},
            parent_checkpoint=Path(parent["model"]),
            manifest=data,
            out_dir=tmp_path / "variant",
            report=silent_report,
            teacher_checkpoint=Path(other["model"]),
            spec={"kind": "compression_spec", "version": 1, "recipes": []},
        )
    assert refused.value.code == "teacher_mismatch" and "classes" in str(refused.value)
