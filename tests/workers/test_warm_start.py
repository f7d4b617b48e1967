"""Warm start (retrain from a model version): the trainers start from a version's model.pt.

A small CNN at 32x32 pixels is trained for 6 epochs on scikit-learn's digits (the parent). A run
warm-started from it on the same data validates far better after its first epoch than a run from
scratch; a run on the same digits with the class list reversed (labels remapped) does too, because
the head's rows are matched by class name. Another model or image size is refused with a message
naming the difference. The detector's heatmap head and the text classifier's head map the same way,
and both trainers warm-start end to end.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path
from typing import Any

import pytest
import torch
from digits_data import shared_digits

from workers.image_classification.models import build_model
from workers.image_classification.trainer import train
from workers.shared.warm_start import WarmStartError, warm_start

SPEC = {"preset": "fast", "image_size": 32, "horizontal_flip": False, "seed": 3, "validation": "holdout"}


def _train(spec: dict[str, Any], manifest: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    out = Path(tempfile.mkdtemp(prefix="sampan-warm-"))
    return train(spec, manifest, out, num_workers=0, **kwargs)


@functools.cache
def parent() -> dict[str, Any]:
    return _train({**SPEC, "epochs": 6}, shared_digits())


def first_val_acc(result: dict[str, Any]) -> float:
    return float(result["history"][0]["val_acc"])


def reversed_classes(manifest: dict[str, Any]) -> dict[str, Any]:
    """The same digits with the class list in reverse order (each label remapped to its new index)."""
    classes = list(manifest["classes"])
    last = len(classes) - 1
    return {
        "classes": classes[::-1],
        "samples": [{**s, "label": last - s["label"]} for s in manifest["samples"]],
    }


def test_a_warm_started_first_epoch_is_far_better_than_from_scratch():
    model_file = parent()["model"]
    assert parent()["metrics"]["best_val_acc"] >= 0.85, parent()["metrics"]
    warm = _train({**SPEC, "epochs": 1}, shared_digits(), warm_start=model_file)
    scratch = _train({**SPEC, "epochs": 1}, shared_digits())
    assert first_val_acc(warm) >= 0.8, warm["history"]
    assert first_val_acc(warm) >= first_val_acc(scratch) + 0.2, (warm["history"], scratch["history"])
    assert warm["warm_start"]["classes_kept"] == shared_digits()["classes"]
    assert warm["warm_start"]["classes_new"] == [] and warm["warm_start"]["classes_dropped"] == []
    assert scratch["warm_start"] is None


def test_classes_are_matched_by_name_when_the_class_list_is_reordered():
    manifest = reversed_classes(shared_digits())
    warm = _train({**SPEC, "epochs": 1}, manifest, warm_start=parent()["model"])
    assert warm["classes"] == [str(d) for d in range(9, -1, -1)]
    assert first_val_acc(warm) >= 0.8, warm["history"]


def test_head_rows_follow_class_names_and_new_classes_start_fresh(tmp_path):
    parent_model = build_model("cnn_small", 3)
    path = tmp_path / "model.pt"
    torch.save(
        {"arch": "cnn_small", "classes": ["cat", "dog", "fox"], "model": parent_model.state_dict()}, path
    )
    child = build_model("cnn_small", 4)
    fresh_row = child.state_dict()["fc.weight"][1].clone()
    info = warm_start(
        child,
        path,
        classes=["fox", "owl", "cat"] + ["dog"],
        class_keys=("fc.weight", "fc.bias"),
        expect={"arch": "cnn_small"},
    )
    weights, parent_weights = child.state_dict(), parent_model.state_dict()
    for row, parent_row in ((0, 2), (2, 0), (3, 1)):
        assert torch.equal(weights["fc.weight"][row], parent_weights["fc.weight"][parent_row])
        assert torch.equal(weights["fc.bias"][row], parent_weights["fc.bias"][parent_row])
    assert torch.equal(weights["fc.weight"][1], fresh_row)  # owl: a new class keeps its initialisation
    assert torch.equal(weights["features.0.0.weight"], parent_weights["features.0.0.weight"])
    assert info["classes_kept"] == ["fox", "cat", "dog"] and info["classes_new"] == ["owl"]
    assert info["classes_dropped"] == []
    dropped = warm_start(
        build_model("cnn_small", 2), path, classes=["dog", "cat"], class_keys=("fc.weight", "fc.bias")
    )
    assert dropped["classes_dropped"] == ["fox"]


def test_another_model_or_image_size_is_refused_naming_the_difference():
    model_file = parent()["model"]
    with pytest.raises(WarmStartError, match="arch 'cnn_small'.*'resnet_narrow'"):
        _train({**SPEC, "model": "resnet_narrow", "epochs": 1}, shared_digits(), warm_start=model_file)
    with pytest.raises(WarmStartError, match="same preprocessing"):
        _train({**SPEC, "image_size": 40, "epochs": 1}, shared_digits(), warm_start=model_file)


def test_a_file_of_another_network_or_no_model_file_is_refused(tmp_path):
    other = tmp_path / "other.pt"
    torch.save({"classes": ["a", "b"], "model": build_model("resnet_narrow", 2).state_dict()}, other)
    with pytest.raises(WarmStartError, match="not this run's"):
        warm_start(
            build_model("cnn_small", 2), other, classes=["a", "b"], class_keys=("fc.weight", "fc.bias")
        )
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a torch file")
    with pytest.raises(WarmStartError, match="cannot be read"):
        warm_start(build_model("cnn_small", 2), junk, classes=["a", "b"], class_keys=("fc.weight",))


def test_the_detector_heatmap_head_maps_classes_by_name(tmp_path):
    from workers.object_detection.models import build_model as build_detector
    from workers.object_detection.trainer import DetectionRun

    parent_model = build_detector("det_small", 2)
    path = tmp_path / "model.pt"
    torch.save({"arch": "det_small", "classes": ["car", "bus"], "model": parent_model.state_dict()}, path)
    child = build_detector("det_small", 3)
    info = warm_start(child, path, classes=["bus", "bike", "car"], class_keys=DetectionRun.class_keys)
    weights, parent_weights = child.state_dict(), parent_model.state_dict()
    assert torch.equal(weights["heatmap.2.weight"][0], parent_weights["heatmap.2.weight"][1])
    assert torch.equal(weights["heatmap.2.bias"][2], parent_weights["heatmap.2.bias"][0])
    assert info["classes_new"] == ["bike"]


def test_the_text_classifier_head_maps_classes_by_name(tmp_path):
    from workers.text_classification.models import BagOfEmbeddings

    parent_model = BagOfEmbeddings(50, 8, 2, 0.1)
    path = tmp_path / "model.pt"
    torch.save(
        {"state_dict": parent_model.state_dict(), "model": "bag_of_embeddings", "classes": ["neg", "pos"]},
        path,
    )
    child = BagOfEmbeddings(50, 8, 2, 0.1)
    warm_start(
        child,
        path,
        classes=["pos", "neg"],
        class_keys=("head.weight", "head.bias"),
        expect={"model": "bag_of_embeddings"},
    )
    assert torch.equal(child.head.weight[0], parent_model.head.weight[1])
    assert torch.equal(child.embedding.weight, parent_model.embedding.weight)
    with pytest.raises(WarmStartError, match="model 'bag_of_embeddings'"):
        warm_start(child, path, classes=["pos"], class_keys=("head.weight",), expect={"model": "minilm_head"})


def test_the_text_trainer_warm_starts_with_classes_matched_by_name(tmp_path):
    from tests.templates_text.corpus import balanced
    from workers.text_classification.trainer import train as train_text

    pairs = balanced(40)
    classes = sorted({area for _, area in pairs})

    def manifest(order: list[str]) -> dict[str, Any]:
        samples = [
            {"id": i, "text": text, "label": order.index(area), "split": "val" if i % 4 == 0 else "train"}
            for i, (text, area) in enumerate(pairs)
        ]
        return {"kind": "text", "classes": order, "samples": samples}

    spec = {"preset": "fast", "max_length": 64, "seed": 1}
    parent_run = train_text({**spec, "epochs": 20}, manifest(classes), tmp_path / "parent")
    reordered = classes[::-1]
    warm = train_text(
        {**spec, "epochs": 1}, manifest(reordered), tmp_path / "warm", warm_start=parent_run["model"]
    )
    scratch = train_text({**spec, "epochs": 1}, manifest(reordered), tmp_path / "scratch")
    assert warm["warm_start"]["classes_kept"] == reordered
    assert warm["history"][0]["val_acc"] >= scratch["history"][0]["val_acc"] + 0.2, (
        parent_run["history"][-1],
        warm["history"],
        scratch["history"],
    )


def test_the_detector_trainer_warm_starts_from_a_detector_version(tmp_path):
    from detection_models import TINY_SPEC, tiny_run

    from workers.object_detection.trainer import train as train_detector

    run = tiny_run()
    classes = list(run.manifest["classes"])
    last = len(classes) - 1
    reordered = {
        **run.manifest,
        "classes": classes[::-1],
        "samples": [
            {**s, "boxes": [{**b, "label": last - b["label"]} for b in s["boxes"]]}
            for s in run.manifest["samples"]
        ],
    }
    model_file = run.result["model"]
    warm = train_detector(
        {**TINY_SPEC, "epochs": 1},
        reordered,
        tmp_path / "warm",
        device="cpu",
        threads=2,
        warm_start=model_file,
    )
    assert warm["warm_start"]["classes_kept"] == classes[::-1] and warm["warm_start"]["classes_new"] == []
    with pytest.raises(WarmStartError, match="same preprocessing"):
        train_detector(
            {**TINY_SPEC, "epochs": 1, "image_size": 96},
            run.manifest,
            tmp_path / "other",
            warm_start=model_file,
        )
    classifier = tmp_path / "classifier.pt"
    torch.save(
        {"arch": "cnn_small", "classes": classes, "model": build_model("cnn_small", 10).state_dict()},
        classifier,
    )
    # an image classifier's file is not a detector's
    with pytest.raises(WarmStartError, match="arch 'cnn_small'"):
        train_detector({**TINY_SPEC, "epochs": 1}, run.manifest, tmp_path / "cls", warm_start=classifier)
