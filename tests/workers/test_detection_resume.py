"""Cancelling a detector's training inside an epoch saves a checkpoint; the next call resumes there
and ends exactly as the uninterrupted run (the shared tiny run) does."""

from __future__ import annotations

import pytest
import torch
from detection_models import TINY_SPEC, tiny_run

from workers.image_classification import trainer  # the training loop (and its report interval) is shared
from workers.image_classification.checkpoints import complete_checkpoints
from workers.object_detection.trainer import train
from workers.progress import JobCancelled


def test_cancel_inside_epoch_2_then_resume_matches_the_uninterrupted_run(tmp_path, monkeypatch):
    reference = tiny_run()  # trained first, with the usual report interval
    monkeypatch.setattr(trainer, "REPORT_INTERVAL_S", 0.0)  # every step reports: cancel at step 3
    calls: list[dict] = []

    def cancel_at_step_3(message: str = "", *, fraction=None, milestone: bool = False, **metrics) -> None:
        calls.append({"milestone": milestone, **metrics})
        if not milestone and metrics.get("step") == 3 and "loss" in metrics:
            raise JobCancelled("cancelled by the test")

    out_dir = tmp_path / "run"
    with pytest.raises(JobCancelled):
        train(TINY_SPEC, reference.manifest, out_dir, cancel_at_step_3, device="cpu", threads=2)
    (newest, *_) = complete_checkpoints(out_dir / "checkpoints")
    assert (newest.epoch, newest.step) == (1, 3)
    state = torch.load(newest.path, weights_only=True)
    assert state["batch_in_epoch"] == 1 and state["template"] == "object_detection"
    assert not (out_dir / "model.onnx").exists()
    assert [c["epoch"] for c in calls if c["milestone"] and "val_map50" in c] == [1]

    result = train(TINY_SPEC, reference.manifest, out_dir, device="cpu", threads=2)
    assert result["resumed_from"] == {
        "epoch": 1,
        "step": 3,
        "batch_in_epoch": 1,
        "checkpoint": str(newest.path),
    }
    expected = reference.result
    assert [h["epoch"] for h in result["history"]] == [1, 2] and result["best_epoch"] == expected[
        "best_epoch"
    ]
    for ours, theirs in zip(result["history"], expected["history"], strict=True):
        assert ours["step"] == theirs["step"]
        for key in ("train_loss", "val_loss", "val_map50", "lr"):
            assert ours[key] == pytest.approx(theirs[key], rel=1e-5, abs=1e-7), (ours["epoch"], key)
    ours_weights = torch.load(result["model"], weights_only=True)["model"]
    theirs_weights = torch.load(expected["model"], weights_only=True)["model"]
    for name, tensor in ours_weights.items():
        torch.testing.assert_close(tensor, theirs_weights[name], rtol=1e-4, atol=1e-5)
    assert (out_dir / "model.onnx").is_file() and (out_dir / "manifest.json").is_file()
