"""Warm start: a training run that begins from a model version's weights (retrain from a version).

The parent's model file (``model.pt`` as its trainer wrote it, read with ``weights_only=True``) must
describe the same network: every tag in ``expect`` (e.g. the architecture and the preprocessing) is
equal, and every parameter and buffer has the same name and shape — except the class-indexed ones
(``class_keys``: the classification head, a detector's heatmap head), whose first dimension is the
class. Their rows are matched by class name: a class the new data keeps starts from its row in the
parent, a new class keeps the fresh initialisation, a class the new data dropped is left out. So
retraining on a dataset whose class list was reordered or extended keeps what the parent learned.

e.g. ``warm_start(model, "parent/model.pt", classes=["cat", "dog", "fox"], class_keys=("fc.weight",
"fc.bias"), expect={"arch": "cnn_small"})`` -> ``{"path": ..., "tensors": 20, "classes_kept": ["cat",
"dog"], "classes_new": ["fox"], "classes_dropped": []}``
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch import nn

__all__ = ["WarmStartError", "read_model_file", "warm_start"]


class WarmStartError(ValueError):
    """The parent's model file cannot initialise this run; the message says why."""


def read_model_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A trainer's model file (``torch.save`` of a dict with the weights under ``model`` or
    ``state_dict`` and ``classes``), read with ``weights_only=True``."""
    try:
        loaded = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # a corrupt or foreign file fails in many ways
        reason = str(exc).split(". ")[0]
        raise WarmStartError(f"the model file of the version cannot be read ({reason})") from None
    if not isinstance(loaded, Mapping):
        raise WarmStartError("the model file of the version holds no weights and classes")
    return dict(loaded)


def _weights(loaded: Mapping[str, Any]) -> dict[str, torch.Tensor]:
    for key in ("model", "state_dict"):
        state = loaded.get(key)
        if isinstance(state, Mapping) and all(isinstance(v, torch.Tensor) for v in state.values()):
            return dict(state)
    raise WarmStartError("the model file of the version holds no state_dict of weights")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def warm_start(
    model: nn.Module,
    path: str | os.PathLike[str],
    *,
    classes: Sequence[str],
    class_keys: Sequence[str],
    expect: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Copy the parent's weights from the model file at ``path`` into ``model`` (in place), the
    class-indexed ``class_keys`` row by row by class name. Raises :class:`WarmStartError` when the
    file describes another network (``expect``'s tags differ, names or shapes do not match).
    Returns what was copied, for the run's result."""
    loaded = read_model_file(path)
    for tag, wanted in (expect or {}).items():
        found = loaded.get(tag)
        if _canonical(found) != _canonical(wanted):
            raise WarmStartError(
                f"the version was trained with {tag} {found!r} and this run uses {wanted!r}; a warm "
                f"start needs the same {tag} (train from scratch to change it)"
            )
    parent_classes = loaded.get("classes")
    if not isinstance(parent_classes, list) or not all(isinstance(c, str) for c in parent_classes):
        raise WarmStartError("the model file of the version does not name its classes")
    given = _weights(loaded)
    targets = model.state_dict()
    missing = sorted(set(targets) - set(given))
    unexpected = sorted(set(given) - set(targets))
    if missing or unexpected:
        shown = ", ".join((missing + unexpected)[:8])
        raise WarmStartError(
            f"the version's network is not this run's ({len(missing)} entries missing, "
            f"{len(unexpected)} unexpected: {shown}); a warm start needs the same model"
        )
    class_set = set(class_keys)
    mismatched = [
        k
        for k, v in targets.items()
        if (v.shape != given[k].shape if k not in class_set else v.shape[1:] != given[k].shape[1:])
    ]
    if mismatched:
        k = mismatched[0]
        raise WarmStartError(
            f"the version's network is not this run's: {k} is {tuple(given[k].shape)} there and "
            f"{tuple(targets[k].shape)} here ({len(mismatched)} entries differ); a warm start needs "
            "the same model"
        )
    for k in class_keys:
        if given[k].shape[0] != len(parent_classes) or targets[k].shape[0] != len(classes):
            raise WarmStartError(f"{k} does not have one row per class")
    parent_row = {name: index for index, name in enumerate(parent_classes)}
    kept = [(row, parent_row[name]) for row, name in enumerate(classes) if name in parent_row]
    with torch.no_grad():
        for key, value in given.items():
            target = targets[key]
            if key in class_set:
                for row, source in kept:
                    target[row].copy_(value[source].to(dtype=target.dtype))
            else:
                target.copy_(value.to(dtype=target.dtype))
    return {
        "path": os.fspath(path),
        "tensors": len(given),
        "classes_kept": [classes[row] for row, _ in kept],
        "classes_new": [name for name in classes if name not in parent_row],
        "classes_dropped": [name for name in parent_classes if name not in set(classes)],
    }
