"""Smart labeling and the mislabel finder with the platform's own trained model: its embedding joins
the hand-made image features, and an image that cannot be read no longer fails a round.

The model: a ``fast`` preset (cnn_small, 64 wide before its head) trained 2 epochs on 20 digits per
class (about 5 s on two cores), once per session; the pool: every 3rd digit (599), 10 labeled per
class.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from digits_data import shared_digits, write_digits

from workers.progress import silent_report
from workers.smart_labeling import run
from workers.smart_labeling.features import pool_features

PARAMS: dict[str, Any] = {"batch_size": 20, "strategy": "uncertainty_diversity", "seed": 0}


@functools.cache
def tiny_model() -> dict[str, Any]:
    """The trainer's result (``model`` = model.pt, ``onnx``, ``preprocessing``) of a tiny classifier."""
    from workers.image_classification.trainer import train

    root = Path(tempfile.mkdtemp(prefix="sampan-tiny-model-"))
    atexit.register(shutil.rmtree, root, True)
    manifest = write_digits(root / "digits", per_class=20)
    spec = {
        "preset": "fast",
        "image_size": 32,
        "epochs": 2,
        "horizontal_flip": False,
        "validation": "holdout",
    }
    return train(spec, manifest, root / "run", silent_report)


def checkpoint_model() -> dict[str, Any]:
    result = tiny_model()
    return {
        "name": "model version V3",
        "checkpoint_path": result["model"],
        "preprocessing": result["preprocessing"],
    }


def digits_pool(per_class: int = 10) -> tuple[dict[str, Any], np.ndarray]:
    chosen = shared_digits()["samples"][::3]
    truth = np.asarray([s["label"] for s in chosen])
    rng = np.random.default_rng(0)
    keep = {
        int(i) for k in range(10) for i in rng.choice(np.flatnonzero(truth == k), per_class, replace=False)
    }
    samples = [
        {"id": i, "sha256": "", "label": s["label"] if i in keep else None, "image_path": s["path"]}
        for i, s in enumerate(chosen)
    ]
    pool = {
        "kind": "label_pool",
        "version": 1,
        "task_type": "image_classification",
        "classes": [str(d) for d in range(10)],
        "samples": samples,
    }
    return pool, truth


def test_the_model_embedding_widens_the_features_by_its_width(tmp_path: Path):
    pool, _ = digits_pool()
    plain = pool_features(pool, work_dir=tmp_path, report=silent_report)  # type: ignore[arg-type]
    with_checkpoint = pool_features(
        pool,
        work_dir=tmp_path,
        report=silent_report,
        model=checkpoint_model(),  # type: ignore[arg-type]
    )
    onnx = {
        "name": "model version V3",
        "onnx_path": tiny_model()["onnx"],
        "preprocessing": tiny_model()["preprocessing"],
    }
    with_logits = pool_features(pool, work_dir=tmp_path, report=silent_report, model=onnx)  # type: ignore[arg-type]
    n = len(pool["samples"])
    assert with_checkpoint.shape == (n, plain.shape[1] + 64)  # cnn_small's penultimate layer
    assert with_logits.shape == (n, plain.shape[1] + 10)  # the ONNX model's logits, one per class
    assert np.isfinite(with_checkpoint).all() and np.isfinite(with_logits).all()
    # the hand-made blocks are unchanged; the embedding is not constant
    assert np.allclose(with_checkpoint[:, : plain.shape[1]], plain, atol=1e-5)
    assert with_checkpoint[:, plain.shape[1] :].std(axis=0).max() > 0.01


def test_a_round_with_the_model_names_it_and_stays_right(tmp_path: Path):
    pool, truth = digits_pool()
    result = run(pool, PARAMS, work_dir=tmp_path, report=silent_report, model=checkpoint_model())  # type: ignore[arg-type]
    summary = result["summary"]
    assert summary["model"] == "logistic regression on image features + model version V3's embedding"
    assert "unreadable" not in summary
    suggestions = result["suggestions"]
    assert len(suggestions) == len(pool["samples"]) - 100
    right = np.mean([s["label"] == truth[s["id"]] for s in suggestions])
    assert right >= 0.8, right


def test_an_unreadable_image_gets_no_suggestion_and_is_counted(tmp_path: Path):
    pool, _ = digits_pool()
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n not an image")
    unlabeled = next(s for s in pool["samples"] if s["label"] is None)
    labeled = next(s for s in pool["samples"] if s["label"] is not None)
    unlabeled["image_path"] = labeled["image_path"] = str(broken)
    unlabeled["sha256"] = labeled["sha256"] = ""
    for model in (None, checkpoint_model()):
        result = run(pool, PARAMS, work_dir=tmp_path, report=silent_report, model=model)  # type: ignore[arg-type]
        assert result["summary"]["unreadable"] == 2
        assert result["summary"]["labeled"] == 99
        ids = {s["id"] for s in result["suggestions"]}
        assert unlabeled["id"] not in ids and len(ids) == len(pool["samples"]) - 100 - 1


def test_the_mislabel_finder_takes_the_model_too(tmp_path: Path):
    from workers.data_quality import run as quality_run

    pool, truth = digits_pool()
    for s, label in zip(pool["samples"], truth, strict=True):
        s["label"] = int(label)
    flipped = [s for s in pool["samples"][:200:20]]
    for s in flipped:
        s["label"] = (s["label"] + 5) % 10
    found = quality_run(pool, {}, work_dir=tmp_path, report=silent_report, model=checkpoint_model())  # type: ignore[arg-type]
    mislabels = next(f for f in found["findings"] if f["code"] == "likely_mislabeled")
    assert len({s["id"] for s in flipped} & set(mislabels["sample_ids"])) >= 8


def test_a_model_file_that_cannot_be_used_leaves_the_image_features_alone(tmp_path: Path):
    pool, truth = digits_pool()
    garbage = tmp_path / "checkpoint.pt"
    garbage.write_bytes(b"not a checkpoint")
    model = {"name": "model version V3", "checkpoint_path": str(garbage), "preprocessing": {}}
    result = run(pool, PARAMS, work_dir=tmp_path, report=silent_report, model=model)  # type: ignore[arg-type]
    assert result["summary"]["model"] == "logistic regression on image thumbnails and gradient histograms"
    assert len(result["suggestions"]) == len(pool["samples"]) - 100


def test_the_quality_report_survives_a_model_file_that_cannot_be_used(tmp_path: Path):
    from workers.data_quality import run as quality_run

    pool, truth = digits_pool()
    for s, label in zip(pool["samples"], truth, strict=True):
        s["label"] = int(label)
    garbage = tmp_path / "checkpoint.pt"
    garbage.write_bytes(b"not a checkpoint")
    model = {"name": "model version V3", "checkpoint_path": str(garbage), "preprocessing": {}}
    found = quality_run(pool, {}, work_dir=tmp_path, report=silent_report, model=model)  # type: ignore[arg-type]
    assert "likely_mislabeled" in found["checks"]
