"""Small image data: k-fold cross-validation chooses the stopping epoch, the final model trains on
the train and val splits together, and the result describes the folds; a retried run does not redo
finished folds; ``auto`` says why it does not cross-validate when the folds would cost too much on a
CPU; the data- and hardware-aware rule adapts the presets."""

from __future__ import annotations

import json

import pytest
from digits_data import Recorder, write_digits

from workers.image_classification import trainer
from workers.image_classification.cross_validation import validation_plan
from workers.image_classification.manifest import parse_manifest
from workers.image_classification.template import TEMPLATE
from workers.image_classification.trainer import train
from workers.progress import JobCancelled, progress_event
from workers.templates.recommend import recommend

SPEC = {
    "preset": "fast",
    "epochs": 3,
    "batch_size": 16,
    "validation": "cross_validation",
    "folds": 3,
    "augmentation": "none",
}


@pytest.fixture(scope="module")
def tiny_digits(tmp_path_factory):
    return write_digits(tmp_path_factory.mktemp("digits"), per_class=8)  # 60 train + val images


@pytest.fixture(scope="module")
def cross_validated(tiny_digits, tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("cv")
    recorder = Recorder()
    return train(SPEC, tiny_digits, out_dir, recorder, threads=1, num_workers=0), recorder, out_dir


def test_folds_choose_the_epochs_and_the_final_model_trains_on_train_and_val(cross_validated, tiny_digits):
    result, _, out_dir = cross_validated
    cv = result["cross_validation"]
    pool = sum(1 for s in tiny_digits["samples"] if s["split"] in ("train", "val"))
    assert cv["kind"] == "cross_validation" and cv["folds"] == 3 and cv["metric"] == "accuracy"
    assert cv["samples"] == pool and sum(f["samples"] for f in cv["scores"]) == pool
    assert all(f["train_samples"] + f["samples"] == pool for f in cv["scores"])
    chosen = cv["chosen"]["epochs"]
    assert 1 <= chosen <= 3 and result["best_epoch"] == chosen and result["epochs"] == chosen
    assert "asked for" in cv["reason"]
    # the final fit saw every train and val image, and no val split of its own
    assert result["data"]["counts"]["val"] == [0] * 10
    assert sum(result["data"]["counts"]["train"]) == pool
    # its history carries the folds' mean held-out accuracy per epoch; the chosen one is the best
    fold_records = [json.loads((out_dir / "folds" / f"fold-{i}" / "fold.json").read_text()) for i in range(3)]
    means = [sum(r["history"][e]["val_acc"] for r in fold_records) / 3 for e in range(3)]
    assert [h["val_acc"] for h in result["history"]] == pytest.approx(means[:chosen])
    assert means[chosen - 1] == pytest.approx(max(means))
    assert cv["mean"] == pytest.approx(means[chosen - 1])
    # the folds keep their scores, not their checkpoints; the final model is exported as usual
    assert not any((out_dir / "folds" / f"fold-{i}" / "checkpoints").exists() for i in range(3))
    assert (out_dir / "model.onnx").is_file()
    assert json.loads((out_dir / "result.json").read_text())["cross_validation"] == cv


def test_fold_epochs_are_not_milestones_and_progress_only_grows(cross_validated):
    _, recorder, _ = cross_validated
    fractions = [c["fraction"] for c in recorder.calls if c["fraction"] is not None]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    fold_calls = [c for c in recorder.calls if c.get("fold")]
    assert {(c["fold"], c["folds"]) for c in fold_calls} == {(1, 3), (2, 3), (3, 3)}
    assert all(c["message"].startswith(f"fold {c['fold']}/3") for c in fold_calls)
    # a fold's epochs are not the run's: only the final fit reports epochs and metrics; each fold
    # ends with one milestone holding its held-out score
    assert not any("epoch" in c or "val_acc" in c for c in fold_calls)
    ends = [c for c in fold_calls if c["milestone"]]
    assert [c["fold"] for c in ends] == [1, 2, 3] and all(0 <= c["fold_score"] <= 1 for c in ends)
    for call in recorder.calls:  # every report is a ProgressEvent the platform accepts
        metrics = {k: v for k, v in call.items() if k not in ("message", "fraction", "milestone", "at")}
        progress_event(call["message"], fraction=call["fraction"], **metrics)
    milestones = [c for c in recorder.epoch_ends() if c["val_acc"] is not None]
    assert milestones and [c["epoch"] for c in milestones] == list(range(1, len(milestones) + 1))


def test_a_retried_run_does_not_redo_finished_folds(tiny_digits, tmp_path, cross_validated):
    reference, _, _ = cross_validated

    class CancelInThirdFold(Recorder):
        def __call__(self, message: str = "", **kwargs) -> None:
            super().__call__(message, **kwargs)
            if kwargs.get("fold") == 3:
                raise JobCancelled("cancelled by the test")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trainer, "REPORT_INTERVAL_S", 0.0)
        with pytest.raises(JobCancelled):
            train(SPEC, tiny_digits, tmp_path, CancelInThirdFold(), threads=1, num_workers=0)
    assert (tmp_path / "folds" / "fold-1" / "fold.json").is_file()
    assert not (tmp_path / "folds" / "fold-2" / "fold.json").exists()
    retry = Recorder()
    result = train(SPEC, tiny_digits, tmp_path, retry, threads=1, num_workers=0)
    assert {c.get("fold") for c in retry.calls} - {None} == {3}
    assert result["cross_validation"]["chosen"] == reference["cross_validation"]["chosen"]
    assert [f["score"] for f in result["cross_validation"]["scores"]] == pytest.approx(
        [f["score"] for f in reference["cross_validation"]["scores"]]
    )


def test_auto_cross_validates_small_data_only_when_affordable_on_a_cpu(tiny_digits):
    data = parse_manifest(tiny_digits, check_files=False)
    cheap = TEMPLATE.validate_params("fast", {"validation": "auto"})  # fast alone is holdout
    assert validation_plan(cheap, data, device_type="cpu").cross_validate
    costly = TEMPLATE.validate_params("accurate", {"epochs": 500, "image_size": 512})
    refused = validation_plan(costly, data, device_type="cpu")
    assert not refused.cross_validate and "budget" in refused.reason
    assert validation_plan(costly, data, device_type="cuda").cross_validate
    assert validation_plan(
        {**costly, "validation": "cross_validation"}, data, device_type="cpu"
    ).cross_validate
    assert not validation_plan({**cheap, "validation": "holdout"}, data, device_type="cpu").cross_validate


def test_the_rule_fits_presets_to_cpu_workers_and_the_data_size():
    cpu = {"gpus": 0, "cpu_count": 2, "workers": 1}
    gpu = {"gpus": 1, "cpu_count": 8, "workers": 1}
    small = {"train_samples": 1437, "classes": 10}
    accurate_cpu = recommend(TEMPLATE, "accurate", small, cpu)
    values = accurate_cpu["values"]
    assert values["model"] == "resnet_narrow" and values["image_size"] < 128
    assert {c["param"] for c in accurate_cpu["choices"]} >= {"model", "image_size", "epochs"}
    assert all(10 < len(c["reason"]) <= 120 for c in accurate_cpu["choices"])  # short, shown to users
    accurate_gpu = recommend(TEMPLATE, "accurate", small, gpu)["values"]
    assert accurate_gpu["model"] == "resnet18" and accurate_gpu["image_size"] == 128
    assert recommend(TEMPLATE, "balanced", small, gpu)["values"]["epochs"] > 15  # small data: more passes
    large = recommend(TEMPLATE, "balanced", {"train_samples": 60_000, "classes": 10}, gpu)["values"]
    assert large["epochs"] < 15
    tiny = recommend(TEMPLATE, "balanced", {"train_samples": 40, "classes": 4}, gpu)["values"]
    assert tiny["batch_size"] <= 8  # several steps per pass
    kept = recommend(TEMPLATE, "accurate", small, cpu, overrides={"model": "resnet18"})["values"]
    assert kept["model"] == "resnet18"  # what the user set is never changed
