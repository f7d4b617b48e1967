"""Training on real images reaches a sensible accuracy and reports progress as the platform expects.

Configuration (digits_data.TRAINED_SPEC): the balanced preset (narrow ResNet, AdamW, cosine with
one warm-up epoch, standard augmentation) with image_size 32, 6 epochs and no horizontal flip, on
scikit-learn's 1,797 digits as 32x32 grayscale PNGs split 70/15/15 %. About 10 s on two cores;
test accuracy (ONNX model, ONNX Runtime) is typically 0.98-0.99, asserted >= 0.9.
"""

from __future__ import annotations

import json
from pathlib import Path

from digits_data import TRAINED_SPEC, trained_digits

from workers.image_classification import trainer
from workers.image_classification.checkpoints import complete_checkpoints
from workers.image_classification.evaluation import evaluate
from workers.templates import registry


def test_balanced_config_reaches_high_test_accuracy_on_digits():
    manifest, result, _, _ = trained_digits()
    report = evaluate(result["onnx"], manifest)
    assert report["samples"] == sum(1 for s in manifest["samples"] if s["split"] == "test") == 270
    assert report["accuracy"] >= 0.9, report["accuracy"]
    assert result["metrics"]["best_val_acc"] >= 0.9
    assert result["params"] == registry.get("image_classification").validate_params("balanced", TRAINED_SPEC)


def test_result_describes_the_run_and_its_files():
    manifest, result, _, out_dir = trained_digits()
    assert json.loads(json.dumps(result)) == result
    assert json.loads((out_dir / "result.json").read_text()) == result
    assert result["epochs"] == 6 and [h["epoch"] for h in result["history"]] == [1, 2, 3, 4, 5, 6]
    val_accs = [h["val_acc"] for h in result["history"]]
    assert result["best_epoch"] == 1 + val_accs.index(max(val_accs))
    assert result["metrics"]["best_val_acc"] == max(val_accs)
    assert result["classes"] == manifest["classes"]
    assert result["data"]["counts"]["train"] == [
        sum(1 for s in manifest["samples"] if s["label"] == c and s["split"] == "train") for c in range(10)
    ]
    assert json.loads(Path(result["preprocessing_path"]).read_text()) == result["preprocessing"]
    assert json.loads(Path(result["labels_path"]).read_text()) == manifest["classes"]
    assert result["preprocessing"]["image_size"] == [32, 32]
    assert Path(result["onnx"]).is_file() and Path(result["model"]).is_file()
    kept = complete_checkpoints(out_dir / "checkpoints")
    assert len(kept) == trainer.KEEP_CHECKPOINTS and str(kept[0].path) == result["checkpoint"]
    assert kept[0].epoch == 6 and kept[0].step == result["history"][-1]["step"]
    assert result["resumed_from"] is None and result["runtime"]["device"] == "cpu"
    assert result["metrics"]["samples_per_s"] > 0


def test_progress_reports_epochs_as_milestones_and_steps_at_most_twice_a_second():
    _, result, recorder, _ = trained_digits()
    ends = recorder.epoch_ends()
    assert [e["epoch"] for e in ends] == [1, 2, 3, 4, 5, 6]
    for end, entry in zip(ends, result["history"], strict=True):
        assert {
            "epoch",
            "epochs",
            "step",
            "steps",
            "loss",
            "train_acc",
            "val_loss",
            "val_acc",
            "lr",
            "samples_per_s",
            "eta_s",
        } <= set(end)
        assert (
            end["val_acc"] == entry["val_acc"] and end["loss"] == entry["train_loss"] and end["epochs"] == 6
        )
    assert ends[-1]["eta_s"] == 0 and ends[-1]["fraction"] == 1.0
    assert ends[0]["eta_s"] > 0
    steps = recorder.steps()
    assert steps, "no step reports during a ~10 s run"
    for step in steps:
        assert {
            "epoch",
            "epochs",
            "step",
            "steps",
            "loss",
            "train_acc",
            "lr",
            "samples_per_s",
            "eta_s",
        } <= set(step)
        assert 0 < step["fraction"] <= 1
    for validation in recorder.validations():
        assert {"epoch", "step", "validated", "validation_size"} <= set(validation)
    fractions = [c["fraction"] for c in recorder.calls]
    assert fractions == sorted(fractions)
    for before, after in zip(recorder.calls, recorder.calls[1:], strict=False):
        if not after["milestone"]:
            assert after["at"] - before["at"] >= trainer.REPORT_INTERVAL_S - 1e-3
