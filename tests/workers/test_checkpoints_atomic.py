"""Checkpoints are all-or-nothing: a writer that dies at any point leaves the previous checkpoint
as the newest complete one, and files without a valid marker are never resumed from."""

from __future__ import annotations

import json
import shutil

import pytest
import torch

from workers.image_classification import checkpoints
from workers.image_classification.checkpoints import (
    CheckpointWriter,
    complete_checkpoints,
    load_latest,
    remove_incomplete,
    save_checkpoint,
)


def _state(epoch: int) -> dict:
    return {"epoch": epoch, "model": {"w": torch.full((64, 64), float(epoch))}, "history": [{"epoch": epoch}]}


def test_a_checkpoint_is_the_file_then_its_marker(tmp_path):
    info = save_checkpoint(tmp_path, _state(1), epoch=1, step=10)
    assert info.path.name == "epoch-0001-step-000000010.pt"
    marker = json.loads(info.marker.read_text())
    assert marker == {
        "checkpoint": info.path.name,
        "epoch": 1,
        "step": 10,
        "bytes": info.path.stat().st_size,
        "sha256": checkpoints.sha256_of(info.path),
    }
    state, found, skipped = load_latest(tmp_path)
    assert found == info and skipped == [] and torch.equal(state["model"]["w"], _state(1)["model"]["w"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [info.path.name, info.marker.name]


def test_a_writer_that_dies_mid_write_leaves_the_previous_checkpoint(tmp_path, monkeypatch):
    first = save_checkpoint(tmp_path, _state(1), epoch=1, step=10)

    def dying_save(obj, handle):
        handle.write(b"PK\x03\x04 half a zip file")
        raise OSError("No space left on device")

    monkeypatch.setattr(checkpoints.torch, "save", dying_save)
    with pytest.raises(OSError, match="No space left"):
        save_checkpoint(tmp_path, _state(2), epoch=2, step=20)
    assert sorted(p.name for p in tmp_path.iterdir()) == [first.path.name, first.marker.name]
    state, found, _ = load_latest(tmp_path)
    assert found == first and state["epoch"] == 1


def test_a_checkpoint_whose_marker_was_never_written_is_ignored(tmp_path, monkeypatch):
    first = save_checkpoint(tmp_path, _state(1), epoch=1, step=10)

    def dying_marker(path, data):
        raise KeyboardInterrupt  # killed between os.replace of the checkpoint and its marker

    monkeypatch.setattr(checkpoints, "atomic_write_json", dying_marker)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(tmp_path, _state(2), epoch=2, step=20)
    monkeypatch.undo()
    unmarked = tmp_path / "epoch-0002-step-000000020.pt"
    assert unmarked.is_file()
    assert complete_checkpoints(tmp_path) == [first]
    assert load_latest(tmp_path)[0]["epoch"] == 1
    (tmp_path / ".tmp-epoch-0003-step-000000030.pt.1234.abcd").write_bytes(b"partial")
    assert remove_incomplete(tmp_path) == [".tmp-epoch-0003-step-000000030.pt.1234.abcd", unmarked.name]
    assert complete_checkpoints(tmp_path) == [first] and first.path.is_file()


def test_markers_that_disagree_with_their_file_are_not_trusted(tmp_path):
    first = save_checkpoint(tmp_path, _state(1), epoch=1, step=10)
    second = save_checkpoint(tmp_path, _state(2), epoch=2, step=20)
    third = save_checkpoint(tmp_path, _state(3), epoch=3, step=30, keep=3)
    assert [c.epoch for c in complete_checkpoints(tmp_path)] == [3, 2, 1]
    data = bytearray(third.path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, different content
    third.path.write_bytes(bytes(data))
    with open(second.path, "r+b") as handle:  # truncated
        handle.truncate(100)
    assert [c.epoch for c in complete_checkpoints(tmp_path)] == [3, 1]
    state, found, skipped = load_latest(tmp_path)
    assert found == first and state["epoch"] == 1
    assert skipped == [f"{third.path.name}: content does not match its marker's sha256"]


def test_only_the_newest_checkpoints_are_kept(tmp_path):
    for epoch in range(1, 5):
        save_checkpoint(tmp_path, _state(epoch), epoch=epoch, step=10 * epoch, keep=2)
    assert [c.epoch for c in complete_checkpoints(tmp_path)] == [4, 3]
    assert len(list(tmp_path.iterdir())) == 4


def test_checkpoints_are_loaded_without_unpickling_objects(tmp_path):
    info = save_checkpoint(tmp_path, _state(1), epoch=1, step=10)
    evil = tmp_path / "evil.pt"
    torch.save({"epoch": 2, "payload": shutil.copyfile}, evil)  # a pickled callable
    shutil.copyfile(evil, tmp_path / "epoch-0002-step-000000020.pt")
    fake = {
        "checkpoint": "epoch-0002-step-000000020.pt",
        "epoch": 2,
        "step": 20,
        "bytes": evil.stat().st_size,
        "sha256": checkpoints.sha256_of(evil),
    }
    (tmp_path / "epoch-0002-step-000000020.pt.complete").write_text(json.dumps(fake))
    state, found, skipped = load_latest(tmp_path)
    assert found == info and state["epoch"] == 1
    assert len(skipped) == 1 and skipped[0].startswith("epoch-0002-step-000000020.pt: UnpicklingError")


def test_the_background_writer_saves_a_snapshot_and_hands_back_its_errors(tmp_path, monkeypatch):
    writer = CheckpointWriter(tmp_path, keep=2)
    state = _state(1)
    writer.submit(state, epoch=1, step=10)
    state["model"]["w"].fill_(99.0)  # training goes on while the write is in flight
    state["history"].append({"epoch": 2})
    info = writer.wait()
    assert info is not None and info.epoch == 1 and complete_checkpoints(tmp_path) == [info]
    saved = load_latest(tmp_path)[0]
    assert torch.equal(saved["model"]["w"], _state(1)["model"]["w"]) and saved["history"] == [{"epoch": 1}]

    def full_disk(obj, handle):
        raise OSError("No space left on device")

    monkeypatch.setattr(checkpoints.torch, "save", full_disk)
    writer.submit(_state(2), epoch=2, step=20)
    with pytest.raises(OSError, match="No space left"):
        writer.wait()
    assert writer.wait() == info and complete_checkpoints(tmp_path) == [info]
