"""Transfer learning reads backbones with weights_only=True only: pickled objects are refused (and
never run), mismatched keys are listed, and a fitting state_dict initialises all but the head."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from digits_data import write_digits

from workers.image_classification.checkpoints import complete_checkpoints
from workers.image_classification.models import BackboneError, build_model, load_backbone, read_state_dict
from workers.image_classification.trainer import train


class Payload:
    """Unpickling this would create a file: proof that it never ran."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self):
        return (Path.touch, (self.target,))


def test_a_pickled_object_is_refused_and_never_executed(tmp_path):
    proof = tmp_path / "payload-ran"
    path = tmp_path / "backbone.pt"
    torch.save({"conv1.weight": torch.zeros(3), "extra": Payload(proof)}, path)
    with pytest.raises(
        BackboneError,
        match=r"backbone.pt: refused: it holds a pickled \S+ object; "
        r"backbones are read with weights_only=True",
    ):
        read_state_dict(path)
    assert not proof.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ([torch.zeros(2)], "not a state_dict"),
        ({"conv1.weight": 3}, "not a state_dict"),
        (b"\x00garbage", "not a readable PyTorch state_dict file$"),
        (
            b"PK\x03\x04 truncated",
            r"not a readable PyTorch state_dict file \(PytorchStreamReader failed reading zip",
        ),
        (b"hello world", "not a readable PyTorch state_dict file"),
        (
            b"these are not the weights you are looking for",
            r"not a readable PyTorch state_dict file \(pop from empty",
        ),
    ],
)
def test_files_that_are_not_state_dicts_are_refused(tmp_path, content, message):
    path = tmp_path / "backbone.pt"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        torch.save(content, path)
    with pytest.raises(BackboneError, match=message):
        read_state_dict(path)


def test_mismatched_keys_and_shapes_are_listed(tmp_path):
    path = tmp_path / "narrow.pt"
    torch.save(build_model("resnet_narrow", 10).state_dict(), path)
    with pytest.raises(BackboneError) as caught:
        load_backbone(build_model("resnet18", 10), path)
    message = str(caught.value)
    assert "does not fit the ResNet backbone" in message
    assert "missing (" in message and "layer1.1.conv1.weight" in message
    assert (
        "shape mismatch (" in message and "conv1.weight (file (32, 3, 3, 3), model (64, 3, 7, 7))" in message
    )

    state = build_model("cnn_small", 10).state_dict()
    del state["features.0.0.weight"]
    state["features.9.weight"] = torch.zeros(1)
    torch.save(state, path)
    with pytest.raises(
        BackboneError, match=r"missing \(1\): features.0.0.weight; unexpected \(1\): features.9.weight$"
    ):
        load_backbone(build_model("cnn_small", 10), path)


def test_a_fitting_backbone_fills_everything_but_the_head(tmp_path):
    source = build_model("resnet18", 1000)  # e.g. an ImageNet-trained ResNet-18, saved from DataParallel
    with torch.no_grad():
        for tensor in source.state_dict().values():
            if tensor.is_floating_point():
                tensor.uniform_(-1, 1)
    path = tmp_path / "resnet18-imagenet.pt"
    torch.save({f"module.{k}": v for k, v in source.state_dict().items()}, path)
    target = build_model("resnet18", 10)
    head_before = target.fc.weight.detach().clone()
    loaded = load_backbone(target, path)
    assert loaded["ignored_head"] == ["fc.bias", "fc.weight"]
    assert loaded["tensors"] == len(source.state_dict()) - 2
    for name, tensor in target.state_dict().items():
        if not name.startswith("fc."):
            assert torch.equal(tensor, source.state_dict()[name]), name
    assert torch.equal(target.fc.weight, head_before)


def test_training_from_a_backbone_records_it_and_a_bad_one_stops_before_training(tmp_path):
    manifest = write_digits(tmp_path / "digits", per_class=10)
    spec = {"preset": "fast", "epochs": 1, "batch_size": 16, "validation": "holdout"}
    good, bad = tmp_path / "good.pt", tmp_path / "bad.pt"
    torch.save({"model": build_model("cnn_small", 3).state_dict()}, good)  # a model file of another task
    torch.save(build_model("resnet_narrow", 10).state_dict(), bad)
    with pytest.raises(BackboneError, match="does not fit the SmallCNN backbone"):
        train(spec, manifest, tmp_path / "bad-run", backbone=bad)
    assert complete_checkpoints(tmp_path / "bad-run" / "checkpoints") == []
    result = train(spec, manifest, tmp_path / "run", backbone=good)
    assert result["backbone"] == {
        "path": str(good),
        "tensors": len(build_model("cnn_small", 3).state_dict()) - 2,
        "ignored_head": ["fc.bias", "fc.weight"],
    }
    assert result["epochs"] == 1
