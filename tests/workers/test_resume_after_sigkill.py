"""A training process killed with SIGKILL in the middle of an epoch (no chance to save anything)
is resumed by the next call from the last complete checkpoint and finishes with every epoch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from digits_data import Recorder, write_digits

from workers.image_classification import checkpoints, trainer
from workers.image_classification.checkpoints import complete_checkpoints
from workers.image_classification.trainer import train

REPO = Path(__file__).resolve().parents[2]
SPEC = {"preset": "fast", "epochs": 3, "batch_size": 32, "horizontal_flip": False, "validation": "holdout"}

CHILD = textwrap.dedent("""
    import json, pathlib, sys, time
    from workers.image_classification import trainer

    trainer.REPORT_INTERVAL_S = 0.0
    spec, manifest_path, out_dir, signals = sys.argv[1:5]
    signals = pathlib.Path(signals)

    def report(message="", *, fraction=None, milestone=False, **metrics):
        if milestone and metrics.get("epoch") == 1 and "val_acc" in metrics:
            (signals / "epoch-1-done").touch()
        if not milestone and metrics.get("epoch") == 2 and metrics["step"] >= 7:
            (signals / "inside-epoch-2").write_text(str(metrics["step"]))
            time.sleep(600)  # stay mid-epoch until killed

    trainer.train(json.loads(spec), json.loads(pathlib.Path(manifest_path).read_text()), out_dir, report)
""")


def test_a_run_killed_mid_epoch_resumes_from_its_last_complete_checkpoint(tmp_path, monkeypatch):
    manifest = write_digits(tmp_path / "digits", per_class=24)  # 5 steps per epoch
    manifest_path = tmp_path / "manifest.json"
    manifest_path.write_text(json.dumps(manifest))
    out_dir, signals = tmp_path / "run", tmp_path / "signals"
    signals.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, json.dumps(SPEC), str(manifest_path), str(out_dir), str(signals)],
        cwd=REPO,
        env=env,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        # Mid-epoch 2, once epoch 1's checkpoint (written in the background) has its marker.
        while not (signals / "inside-epoch-2").exists() or not complete_checkpoints(out_dir / "checkpoints"):
            assert child.poll() is None, child.stderr.read().decode()[-3000:]
            assert time.monotonic() < deadline, "the child never reached epoch 2"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stderr.close()
    assert (signals / "epoch-1-done").exists() and int((signals / "inside-epoch-2").read_text()) >= 7
    assert [(c.epoch, c.step) for c in complete_checkpoints(out_dir / "checkpoints")] == [(1, 5)]

    monkeypatch.setattr(trainer, "REPORT_INTERVAL_S", 0.0)
    recorder = Recorder()
    result = train(SPEC, manifest, out_dir, recorder)
    assert result["resumed_from"]["epoch"] == 1 and result["resumed_from"]["step"] == 5
    # epoch 1's report is sent again first (an attempt killed right after a checkpoint never sent it)
    replay = recorder.calls[0]
    assert replay["milestone"] and (replay["epoch"], replay["step"]) == (1, 5)
    assert recorder.calls[1]["epoch"] == 2 and recorder.calls[1]["step"] == 6
    assert [c["epoch"] for c in recorder.epoch_ends()] == [1, 2, 3]
    assert [h["epoch"] for h in result["history"]] == [1, 2, 3] and result["epochs"] == 3
    assert result["history"][-1]["step"] == 15
    assert Path(result["onnx"]).is_file()


@pytest.mark.parametrize("interval", [0.0, 0.2])
def test_an_epoch_is_reported_done_only_once_its_checkpoint_is_complete(tmp_path, monkeypatch, interval):
    """The promise a kill relies on: after "epoch k done" a resume starts at epoch k or later. The
    background write is slowed down here; the epoch's report waits for its marker, no report of the
    next epoch (a step, a validation) comes before it, and steps are still reported at most once per
    REPORT_INTERVAL_S (counted from the held-back report too)."""
    manifest = write_digits(tmp_path / "digits", per_class=24)  # 5 steps per epoch
    out_dir = tmp_path / "run"
    write = checkpoints.save_checkpoint

    def slow_write(*args, **kwargs):
        time.sleep(0.5)
        return write(*args, **kwargs)

    monkeypatch.setattr(checkpoints, "save_checkpoint", slow_write)
    monkeypatch.setattr(trainer, "REPORT_INTERVAL_S", interval)
    recorder = Recorder()
    on_disk_at_epoch_end = []

    def report(message="", **kwargs):
        recorder(message, **kwargs)
        if kwargs.get("milestone") and "val_acc" in kwargs:
            done = complete_checkpoints(out_dir / "checkpoints")
            on_disk_at_epoch_end.append((kwargs["epoch"], max((c.epoch for c in done), default=0)))

    result = train(SPEC, manifest, out_dir, report)
    assert on_disk_at_epoch_end == [(1, 1), (2, 2), (3, 3)]
    epochs = [c["epoch"] for c in recorder.calls]
    assert epochs == sorted(epochs), "a report of the next epoch came before an epoch's end"
    for before, after in zip(recorder.calls, recorder.calls[1:], strict=False):
        if not after["milestone"]:
            assert after["at"] - before["at"] >= interval - 1e-3
    if not interval:
        assert [c["step"] for c in recorder.steps()] == list(range(1, 16)), "every step still reported"
    assert result["epochs"] == 3 and result["resumed_from"] is None
