"""The networks, written with torch alone, and transfer learning from an uploaded backbone.

- ``cnn_small`` (preset fast): six 3x3 conv-BN-ReLU layers in three stages (16, 32, 64 channels),
  global pooling.
- ``resnet_narrow`` (preset balanced): a ResNet with one basic block per stage, widths 32-256 and
  a 3x3 stride-2 stem, sized for small images and CPUs.
- ``resnet18`` (preset accurate): ResNet-18 with the usual 7x7 stem; its parameter names follow
  the common ResNet-18 layout (``conv1``, ``bn1``, ``layer1.0.conv1``, ..., ``fc``), so a
  ResNet-18 state_dict trained elsewhere can serve as its backbone.

Every model ends in ``fc`` (the classification head), which a backbone never provides.
"""

from __future__ import annotations

import os
import pickle
import re
from collections.abc import Mapping
from typing import Any

import torch
from torch import nn

HEAD_PREFIX = "fc."


def conv_bn_relu(in_channels: int, out_channels: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False),
        nn.BatchNorm2d(out_channels),
        nn.ReLU(inplace=True),
    )


class SmallCNN(nn.Module):
    """``channels``: the six convolutions' output channels (default ``widths`` a, a, b, b, c, c); a
    pruned or narrowed network sets them one by one."""

    def __init__(
        self,
        num_classes: int,
        widths: tuple[int, int, int] = (16, 32, 64),
        dropout: float = 0.2,
        channels: list[int] | None = None,
    ) -> None:
        super().__init__()
        a, b, c = widths
        c1, c2, c3, c4, c5, c6 = channels if channels is not None else (a, a, b, b, c, c)
        self.features = nn.Sequential(
            conv_bn_relu(3, c1),
            conv_bn_relu(c1, c2),
            nn.MaxPool2d(2),
            conv_bn_relu(c2, c3),
            conv_bn_relu(c3, c4),
            nn.MaxPool2d(2),
            conv_bn_relu(c4, c5),
            conv_bn_relu(c5, c6),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.dropout = nn.Dropout(dropout)
        self.fc = nn.Linear(c6, num_classes)
        _init_weights(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.fc(self.dropout(torch.flatten(self.pool(self.features(x)), 1)))
        return logits


class BasicBlock(nn.Module):
    """``inner``: the channels between the two convolutions (default ``out_channels``; pruning
    narrows it on its own, while ``out_channels`` is shared by every block adding to the same stream)."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        stride: int = 1,
        *,
        inner: int | None = None,
        downsample: bool | None = None,
    ) -> None:
        super().__init__()
        inner = out_channels if inner is None else inner
        self.conv1 = nn.Conv2d(in_channels, inner, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(inner)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(inner, out_channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.downsample: nn.Module | None = None
        if downsample is None:
            downsample = stride != 1 or in_channels != out_channels
        if downsample:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False),
                nn.BatchNorm2d(out_channels),
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        activated: torch.Tensor = self.relu(out + identity)
        return activated


class ResNet(nn.Module):
    """``channels`` (pruned or narrowed networks): ``{"stages": [width per stage], "inner": [[inner
    channels per block] per stage]}``; a stage's width is its residual stream's, shared by the stem
    (stage 1), the blocks' second convolutions and the downsampling shortcut. Which blocks have a
    shortcut convolution follows the unpruned layout, so pruning never changes the graph's shape."""

    def __init__(
        self,
        num_classes: int,
        *,
        blocks: tuple[int, ...],
        widths: tuple[int, ...],
        stem: str,
        channels: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        base_widths = widths
        inner_channels: list[list[int]] = [[w] * n for n, w in zip(blocks, widths, strict=True)]
        if channels is not None:
            widths = tuple(int(w) for w in channels["stages"])
            inner_channels = [[int(c) for c in stage] for stage in channels["inner"]]
            if len(widths) != len(blocks) or [len(stage) for stage in inner_channels] != list(blocks):
                raise ValueError(f"channels {dict(channels)!r} do not fit a ResNet with blocks {blocks}")
        first = widths[0]
        if stem == "imagenet":
            self.conv1 = nn.Conv2d(3, first, 7, stride=2, padding=3, bias=False)
            self.maxpool: nn.Module = nn.MaxPool2d(3, stride=2, padding=1)
        elif stem == "small":
            self.conv1 = nn.Conv2d(3, first, 3, stride=2, padding=1, bias=False)
            self.maxpool = nn.Identity()
        else:
            raise ValueError(f"unknown stem {stem!r}")
        self.bn1 = nn.BatchNorm2d(first)
        self.relu = nn.ReLU(inplace=True)
        in_channels, base_in = first, base_widths[0]
        for stage, (count, width) in enumerate(zip(blocks, widths, strict=True), start=1):
            layers = []
            for index in range(count):
                stride = 2 if stage > 1 and index == 0 else 1
                shortcut = stride != 1 or base_in != base_widths[stage - 1]
                layers.append(
                    BasicBlock(
                        in_channels,
                        width,
                        stride,
                        inner=inner_channels[stage - 1][index],
                        downsample=shortcut,
                    )
                )
                in_channels, base_in = width, base_widths[stage - 1]
            setattr(self, f"layer{stage}", nn.Sequential(*layers))
        self.stages = len(blocks)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(in_channels, num_classes)
        _init_weights(self)
        for module in self.modules():  # each residual branch starts as identity: steadier early training
            if isinstance(module, BasicBlock):
                nn.init.zeros_(module.bn2.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        for stage in range(1, self.stages + 1):
            x = getattr(self, f"layer{stage}")(x)
        logits: torch.Tensor = self.fc(torch.flatten(self.avgpool(x), 1))
        return logits


def _init_weights(model: nn.Module) -> None:
    for module in model.modules():
        if isinstance(module, nn.Conv2d):
            nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
        elif isinstance(module, nn.BatchNorm2d):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)


SMALL_CNN_CHANNELS = (16, 16, 32, 32, 64, 64)
RESNET_LAYOUTS: dict[str, dict[str, Any]] = {
    "resnet_narrow": {"blocks": (1, 1, 1, 1), "widths": (32, 64, 128, 256), "stem": "small"},
    "resnet18": {"blocks": (2, 2, 2, 2), "widths": (64, 128, 256, 512), "stem": "imagenet"},
}
ARCHITECTURES = ("cnn_small", "resnet_narrow", "resnet18")


def default_channels(arch: str, width: float = 1.0) -> list[int] | dict[str, Any]:
    """The channel configuration of ``arch`` at a width multiplier (each layer's channels scaled and
    rounded, at least 4): the form ``build_model(channels=...)`` takes and model files store."""

    def scaled(channels: int) -> int:
        return max(4, round(channels * width))

    if arch == "cnn_small":
        return [scaled(c) for c in SMALL_CNN_CHANNELS]
    if arch in RESNET_LAYOUTS:
        layout = RESNET_LAYOUTS[arch]
        return {
            "stages": [scaled(w) for w in layout["widths"]],
            "inner": [[scaled(w)] * n for n, w in zip(layout["blocks"], layout["widths"], strict=True)],
        }
    raise ValueError(f"unknown model {arch!r}; one of {', '.join(ARCHITECTURES)}")


def build_model(
    arch: str,
    num_classes: int,
    *,
    width: float = 1.0,
    channels: list[int] | Mapping[str, Any] | None = None,
) -> nn.Module:
    """The network ``arch`` for ``num_classes`` classes; ``width`` scales every layer's channels,
    ``channels`` (a pruned network's configuration, stored in its model file under ``channels``)
    sets them one by one (see :func:`default_channels` for its form).

    >>> build_model("cnn_small", 10, width=0.5).fc.in_features
    32
    """
    if arch not in ARCHITECTURES:
        raise ValueError(f"unknown model {arch!r}; one of {', '.join(ARCHITECTURES)}")
    if num_classes < 2:
        raise ValueError("a classifier needs at least 2 classes")
    if not 0.0 < width <= 4.0:
        raise ValueError(f"width must be in (0, 4], got {width}")
    if channels is None and width != 1.0:
        channels = default_channels(arch, width)
    if arch == "cnn_small":
        if channels is not None and (not isinstance(channels, list | tuple) or len(channels) != 6):
            raise ValueError(f"cnn_small channels are 6 numbers, got {channels!r}")
        return SmallCNN(num_classes, channels=None if channels is None else [int(c) for c in channels])
    if channels is not None and not isinstance(channels, Mapping):
        raise ValueError(f"{arch} channels are {{'stages': [...], 'inner': [[...]]}}, got {channels!r}")
    return ResNet(num_classes, **RESNET_LAYOUTS[arch], channels=channels)


class BackboneError(ValueError):
    """The backbone file was refused or does not fit the model; the message says why."""


def read_state_dict(path: str | os.PathLike[str]) -> dict[str, torch.Tensor]:
    """Load a state_dict with ``weights_only=True`` (never unpickling arbitrary objects).

    Accepts a plain state_dict, or a dict holding one under ``model`` or ``state_dict`` (Sampan's
    checkpoints and model files, and common training scripts' checkpoints).
    """
    try:
        loaded = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        found = re.search(r"Unsupported global: GLOBAL (\S+)", str(exc))
        if found is None:
            raise BackboneError(f"{os.fspath(path)}: not a readable PyTorch state_dict file") from None
        raise BackboneError(
            f"{os.fspath(path)}: refused: it holds a pickled {found.group(1)} object; backbones "
            "are read with weights_only=True and may contain only tensors"
        ) from None
    except (
        Exception
    ) as exc:  # arbitrary bytes make the weights-only unpickler fail in many ways (IndexError, ...)
        reason = str(exc).split(". ")[0]
        raise BackboneError(f"{os.fspath(path)}: not a readable PyTorch state_dict file ({reason})") from None
    if isinstance(loaded, Mapping):
        for key in ("model", "state_dict"):
            if isinstance(loaded.get(key), Mapping):
                loaded = loaded[key]
                break
    if (
        not isinstance(loaded, Mapping)
        or not loaded
        or not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in loaded.items())
    ):
        raise BackboneError(f"{os.fspath(path)}: not a state_dict (a mapping of parameter names to tensors)")
    state = dict(loaded)
    if all(k.startswith("module.") for k in state):  # saved from DataParallel / DistributedDataParallel
        state = {k.removeprefix("module."): v for k, v in state.items()}
    return state


def load_backbone(model: nn.Module, path: str | os.PathLike[str]) -> dict[str, Any]:
    """Copy every parameter and buffer except the head (``fc``) from a state_dict file into ``model``.

    Every non-head entry must match by name and shape, else :class:`BackboneError` lists the
    missing, unexpected and mis-shaped keys. Returns what was loaded, for the run's lineage.
    """
    state = read_state_dict(path)
    expected = {k: v for k, v in model.state_dict().items() if not k.startswith(HEAD_PREFIX)}
    given = {k: v for k, v in state.items() if not k.startswith(HEAD_PREFIX)}
    missing = sorted(set(expected) - set(given))
    unexpected = sorted(set(given) - set(expected))
    mismatched = sorted(
        f"{k} (file {tuple(given[k].shape)}, model {tuple(expected[k].shape)})"
        for k in set(given) & set(expected)
        if given[k].shape != expected[k].shape
    )
    if missing or unexpected or mismatched:
        problems = []
        for title, keys in (("missing", missing), ("unexpected", unexpected), ("shape mismatch", mismatched)):
            if keys:
                shown = ", ".join(keys[:20]) + (f" ... and {len(keys) - 20} more" if len(keys) > 20 else "")
                problems.append(f"{title} ({len(keys)}): {shown}")
        raise BackboneError(
            f"{os.fspath(path)} does not fit the {type(model).__name__} backbone: " + "; ".join(problems)
        )
    with torch.no_grad():
        targets = model.state_dict()
        for key, value in given.items():
            targets[key].copy_(value.to(dtype=targets[key].dtype))
    return {
        "path": os.fspath(path),
        "tensors": len(given),
        "ignored_head": sorted(k for k in state if k.startswith(HEAD_PREFIX)),
    }
