"""Structured channel pruning of the image CNNs (``cnn_small``, the ResNets) to a FLOPs fraction.

Channels are ranked by the absolute value of their batch-norm scale (gamma, the "network slimming"
criterion: a channel whose gamma is near zero contributes little after the norm). Channels that are
added together by residual connections form one group (a ResNet stage's stream: the stem or the
downsampling shortcut, and every block's second convolution), ranked by the sum of their gammas and
kept or removed together, so the additions stay consistent. Each group keeps the same fraction of
its channels; that fraction is found by bisection so the pruned network's FLOPs are the asked share
of the parent's. The pruned network is rebuilt with ``build_model(arch, classes, channels=...)`` and
the kept channels' weights copied in; it needs fine-tuning afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MIN_CHANNELS = 2


@dataclass(frozen=True)
class Entry:
    """A layer of the network: its state_dict prefix, kind and the channel groups of its output and
    input (None: not pruned, e.g. the RGB input or the class scores)."""

    prefix: str
    kind: str  # "conv", "bn" or "fc"
    out_group: str | None
    in_group: str | None


def layout(arch: str, channels: Any) -> tuple[dict[str, int], list[Entry]]:
    """The channel groups of ``arch`` at the configuration ``channels`` (see
    ``workers.image_classification.models.default_channels``): group name -> width, and the layers."""
    from workers.image_classification.models import RESNET_LAYOUTS

    entries: list[Entry] = []
    if arch == "cnn_small":
        groups = {f"g{i}": int(c) for i, c in enumerate(channels)}
        previous = None
        for i, index in enumerate((0, 1, 3, 4, 6, 7)):
            entries.append(Entry(f"features.{index}.0", "conv", f"g{i}", previous))
            entries.append(Entry(f"features.{index}.1", "bn", f"g{i}", None))
            previous = f"g{i}"
        entries.append(Entry("fc", "fc", None, previous))
        return groups, entries
    if arch not in RESNET_LAYOUTS:
        raise ValueError(f"no pruning layout for {arch!r}")
    base = RESNET_LAYOUTS[arch]
    groups = {}
    for stage, width in enumerate(channels["stages"], start=1):
        groups[f"s{stage}"] = int(width)
        for index, inner in enumerate(channels["inner"][stage - 1]):
            groups[f"b{stage}.{index}"] = int(inner)
    entries += [Entry("conv1", "conv", "s1", None), Entry("bn1", "bn", "s1", None)]
    stream, base_in = "s1", base["widths"][0]
    for stage, count in enumerate(base["blocks"], start=1):
        for index in range(count):
            prefix, inner = f"layer{stage}.{index}", f"b{stage}.{index}"
            stride = 2 if stage > 1 and index == 0 else 1
            entries += [
                Entry(f"{prefix}.conv1", "conv", inner, stream),
                Entry(f"{prefix}.bn1", "bn", inner, None),
                Entry(f"{prefix}.conv2", "conv", f"s{stage}", inner),
                Entry(f"{prefix}.bn2", "bn", f"s{stage}", None),
            ]
            if stride != 1 or base_in != base["widths"][stage - 1]:
                entries += [
                    Entry(f"{prefix}.downsample.0", "conv", f"s{stage}", stream),
                    Entry(f"{prefix}.downsample.1", "bn", f"s{stage}", None),
                ]
            stream, base_in = f"s{stage}", base["widths"][stage - 1]
    entries.append(Entry("fc", "fc", None, stream))
    return groups, entries


def channels_of(arch: str, groups: dict[str, int]) -> list[int] | dict[str, Any]:
    """The ``channels`` configuration (model files, ``build_model``) of group widths."""
    if arch == "cnn_small":
        return [groups[f"g{i}"] for i in range(6)]
    stages = sorted(int(name[1:]) for name in groups if name.startswith("s"))
    return {
        "stages": [groups[f"s{s}"] for s in stages],
        "inner": [
            [groups[name] for name in sorted(g for g in groups if g.startswith(f"b{s}."))] for s in stages
        ],
    }


def channel_importance(state: dict[str, Any], entries: list[Entry]) -> dict[str, Any]:
    """Per group, each channel's summed |gamma| over the batch norms writing into it."""
    import torch

    scores: dict[str, torch.Tensor] = {}
    for entry in entries:
        if entry.kind == "bn" and entry.out_group is not None:
            gamma = state[f"{entry.prefix}.weight"].detach().abs().float()
            scores[entry.out_group] = scores.get(entry.out_group, torch.zeros_like(gamma)) + gamma
    return scores


def model_flops(model: Any, image_size: tuple[int, int]) -> int:
    """2 x the multiply-accumulates of the model's convolutions and linear layers on one image."""
    import torch
    from torch import nn

    total = 0

    def hook(module: nn.Module, inputs: Any, output: torch.Tensor) -> None:
        nonlocal total
        if isinstance(module, nn.Conv2d):
            per_output = module.in_channels // module.groups * module.kernel_size[0] * module.kernel_size[1]
            total += output.numel() * per_output
        elif isinstance(module, nn.Linear):
            total += output.numel() * module.in_features

    handles = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, nn.Conv2d | nn.Linear)]
    try:
        was_training = model.training
        model.eval()
        with torch.no_grad():
            model(torch.zeros(1, 3, *image_size))
        model.train(was_training)
    finally:
        for handle in handles:
            handle.remove()
    return 2 * total


def kept_widths(groups: dict[str, int], keep: float) -> dict[str, int]:
    return {name: max(MIN_CHANNELS, min(width, round(width * keep))) for name, width in groups.items()}


def prune_model(
    model: Any, *, arch: str, channels: Any, num_classes: int, flops_ratio: float, image_size: tuple[int, int]
) -> tuple[Any, Any, float]:
    """A pruned copy of ``model`` keeping about ``flops_ratio`` of its FLOPs: (pruned model, its
    ``channels`` configuration, the FLOPs ratio reached)."""
    import torch

    from workers.image_classification.models import build_model

    groups, entries = layout(arch, channels)
    full = model_flops(model, image_size)

    def flops_at(keep: float) -> float:
        candidate = build_model(arch, num_classes, channels=channels_of(arch, kept_widths(groups, keep)))
        return model_flops(candidate, image_size) / full

    low, high = 0.02, 1.0
    for _ in range(20):  # FLOPs grow monotonically with the kept fraction
        middle = (low + high) / 2
        if flops_at(middle) > flops_ratio:
            high = middle
        else:
            low = middle
    widths = kept_widths(groups, low)
    pruned_channels = channels_of(arch, widths)
    state = model.state_dict()
    scores = channel_importance(state, entries)
    keep_index = {name: torch.sort(torch.topk(scores[name], widths[name]).indices).values for name in groups}
    pruned = build_model(arch, num_classes, channels=pruned_channels)
    target = pruned.state_dict()
    with torch.no_grad():
        for entry in entries:
            for key in [k for k in target if k.startswith(entry.prefix + ".")]:
                value = state[key]
                if key.endswith("num_batches_tracked"):
                    target[key].copy_(value)
                    continue
                if entry.out_group is not None and value.ndim >= 1:
                    value = value.index_select(0, keep_index[entry.out_group])
                if entry.in_group is not None and value.ndim >= 2:
                    value = value.index_select(1, keep_index[entry.in_group])
                target[key].copy_(value)
    pruned.load_state_dict(target)
    return pruned, pruned_channels, model_flops(pruned, image_size) / full
