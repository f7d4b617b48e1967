"""Cancelling through ``report`` saves a checkpoint and re-raises; the next call resumes where the
first stopped (after an epoch or inside one) and ends exactly as an uninterrupted run does."""

from __future__ import annotations

import shutil

import pytest
import torch
from digits_data import Recorder, write_digits

from workers.image_classification import trainer
from workers.image_classification.checkpoints import complete_checkpoints
from workers.image_classification.trainer import train
from workers.progress import JobCancelled

SPEC = {"preset": "fast", "epochs": 4, "batch_size": 32, "horizontal_flip": False, "validation": "holdout"}


class CancelWhen(Recorder):
    """Records reports and raises JobCancelled at the first one matching ``condition``."""

    def __init__(self, condition) -> None:
        super().__init__()
        self.condition = condition

    def __call__(self, message: str = "", **kwargs) -> None:
        super().__call__(message, **kwargs)
        if self.condition(self.calls[-1]):
            raise JobCancelled("cancelled by the test")


@pytest.fixture(autouse=True)
def report_every_step(monkeypatch):
    monkeypatch.setattr(trainer, "REPORT_INTERVAL_S", 0.0)


@pytest.fixture(scope="module")
def small_digits(tmp_path_factory):
    return write_digits(
        tmp_path_factory.mktemp("digits"), per_class=24
    )  # 170 train images: 5 steps per epoch


@pytest.fixture(scope="module")
def uninterrupted(small_digits, tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("uninterrupted")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trainer, "REPORT_INTERVAL_S", 0.0)
        return train(SPEC, small_digits, out_dir)


def _weights(result: dict) -> dict:
    return torch.load(result["model"], weights_only=True)["model"]


def assert_same_run(result: dict, reference: dict) -> None:
    assert [h["epoch"] for h in result["history"]] == [1, 2, 3, 4] and result["epochs"] == 4
    for ours, theirs in zip(result["history"], reference["history"], strict=True):
        assert ours["step"] == theirs["step"]
        for key in ("train_loss", "train_acc", "val_loss", "val_acc", "lr"):
            assert ours[key] == pytest.approx(theirs[key], rel=1e-6, abs=1e-9), (ours["epoch"], key)
    reference_weights = _weights(reference)
    for name, tensor in _weights(result).items():
        torch.testing.assert_close(tensor, reference_weights[name], rtol=1e-5, atol=1e-6)


def test_cancel_after_epoch_2_resumes_at_epoch_3_and_records_all_epochs(
    small_digits, uninterrupted, tmp_path
):
    out_dir = tmp_path / "run"
    first = CancelWhen(lambda call: call["milestone"] and call.get("epoch") == 2)
    with pytest.raises(JobCancelled):
        train(SPEC, small_digits, out_dir, first)
    (newest, *_) = complete_checkpoints(out_dir / "checkpoints")
    assert (newest.epoch, newest.step) == (2, 10)
    assert torch.load(newest.path, weights_only=True)["batch_in_epoch"] == 0
    assert not (out_dir / "model.onnx").exists()

    # Debris a killed writer could leave: a later checkpoint without its marker and a temp file.
    unmarked = out_dir / "checkpoints" / "epoch-0009-step-000000045.pt"
    shutil.copyfile(newest.path, unmarked)
    temp = out_dir / "checkpoints" / ".tmp-epoch-0009-step-000000045.pt.99.deadbeef"
    temp.write_bytes(b"half")

    second = Recorder()
    result = train(SPEC, small_digits, out_dir, second)
    assert result["resumed_from"] == {
        "epoch": 2,
        "step": 10,
        "batch_in_epoch": 0,
        "checkpoint": str(newest.path),
    }
    # the resumed run first repeats epoch 2's report (the killed attempt may not have sent it)
    replay = second.calls[0]
    assert replay["milestone"] and (replay["epoch"], replay["step"]) == (2, 10)
    assert replay["val_acc"] == pytest.approx(uninterrupted["history"][1]["val_acc"], rel=1e-6)
    assert second.calls[1]["epoch"] == 3 and second.calls[1]["step"] == 11
    assert [c["epoch"] for c in second.epoch_ends()] == [2, 3, 4]
    assert not unmarked.exists() and not temp.exists()
    assert_same_run(result, uninterrupted)


def test_cancel_inside_an_epoch_saves_that_step_and_resumes_from_it(small_digits, uninterrupted, tmp_path):
    out_dir = tmp_path / "run"
    first = CancelWhen(lambda call: not call["milestone"] and call.get("step") == 7)  # epoch 2, batch 2 of 5
    with pytest.raises(JobCancelled):
        train(SPEC, small_digits, out_dir, first)
    (newest, *_) = complete_checkpoints(out_dir / "checkpoints")
    assert (newest.epoch, newest.step) == (1, 7)
    saved = torch.load(newest.path, weights_only=True)
    assert saved["batch_in_epoch"] == 2 and saved["epoch_progress"]["seen"] == 64

    second = Recorder()
    result = train(SPEC, small_digits, out_dir, second)
    assert result["resumed_from"]["step"] == 7 and result["resumed_from"]["batch_in_epoch"] == 2
    assert [c["step"] for c in second.steps()][:2] == [8, 9]
    assert [c["epoch"] for c in second.epoch_ends()] == [2, 3, 4]
    assert_same_run(result, uninterrupted)


def test_cancel_during_validation_resumes_with_that_validation(small_digits, uninterrupted, tmp_path):
    out_dir = tmp_path / "run"
    first = CancelWhen(lambda call: "validated" in call and call["epoch"] == 3)
    with pytest.raises(JobCancelled):
        train(SPEC, small_digits, out_dir, first)
    assert [c["epoch"] for c in first.epoch_ends()] == [1, 2]
    (newest, *_) = complete_checkpoints(out_dir / "checkpoints")
    assert (newest.epoch, newest.step) == (2, 15)  # epoch 3's training is saved, its validation is not done
    assert torch.load(newest.path, weights_only=True)["batch_in_epoch"] == 5

    second = Recorder()
    result = train(SPEC, small_digits, out_dir, second)
    assert second.steps() == [] or second.steps()[0]["epoch"] == 4
    assert [c["epoch"] for c in second.epoch_ends()] == [3, 4]
    assert_same_run(result, uninterrupted)


def test_a_finished_run_only_exports_again(small_digits, uninterrupted, tmp_path):
    out_dir = tmp_path / "run"
    shutil.copytree(
        uninterrupted["checkpoint"].rsplit("/checkpoints/", 1)[0] + "/checkpoints", out_dir / "checkpoints"
    )
    again = Recorder()
    result = train(SPEC, small_digits, out_dir, again)
    # no training: only epoch 4's report again (in case the finished attempt never sent it)
    assert result["resumed_from"]["epoch"] == 4 and [c["epoch"] for c in again.epoch_ends()] == [4]
    assert again.steps() == []
    assert result["history"] == uninterrupted["history"]


def test_checkpoints_of_another_run_are_not_resumed(small_digits, uninterrupted, tmp_path):
    out_dir = tmp_path / "run"
    shutil.copytree(
        uninterrupted["checkpoint"].rsplit("/checkpoints/", 1)[0] + "/checkpoints", out_dir / "checkpoints"
    )
    with pytest.raises(ValueError, match="holds checkpoints of a different run"):
        train({**SPEC, "learning_rate": 0.01}, small_digits, out_dir)
