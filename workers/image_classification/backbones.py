"""What an uploaded backbone file holds: the check behind a backbone's validation job.

The file is read by :func:`workers.image_classification.models.read_state_dict` (``weights_only=True``,
no fallback), so a refused or unreadable file raises ``BackboneError`` before anything in it runs.
A readable state_dict is described, and matched against the template's models by the rule
:func:`~workers.image_classification.models.load_backbone` applies: every entry but the head
(``fc``) present, nothing else, every shape equal.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from workers.image_classification.models import ARCHITECTURES, HEAD_PREFIX, build_model, read_state_dict

# Batch-norm statistics are buffers, not learned parameters.
BUFFER_SUFFIXES = (".running_mean", ".running_var", ".num_batches_tracked")


@cache
def backbone_shapes(arch: str) -> dict[str, tuple[int, ...]]:
    """The name and shape of every entry a backbone for ``arch`` must hold (all but the head)."""
    model = build_model(arch, 2)
    return {k: tuple(v.shape) for k, v in model.state_dict().items() if not k.startswith(HEAD_PREFIX)}


def inspect_backbone(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a backbone file and describe it.

    e.g. ``inspect_backbone("resnet18.pt") -> {"architecture": "resnet18", "fits": ["resnet18"],
    "tensors": 122, "parameters": 11689512, "head_classes": 1000, "dtypes": ["float32", "int64"]}``

    ``fits`` lists every model the file can initialise (``architecture`` is the first, or None
    when none matches); raises ``BackboneError`` for a file that is not a weights-only state_dict.
    """
    state = read_state_dict(path)
    body = {k: tuple(v.shape) for k, v in state.items() if not k.startswith(HEAD_PREFIX)}
    fits = [arch for arch in ARCHITECTURES if body and backbone_shapes(arch) == body]
    head = state.get(f"{HEAD_PREFIX}weight")
    return {
        "architecture": fits[0] if fits else None,
        "fits": fits,
        "tensors": len(state),
        "parameters": sum(v.numel() for k, v in state.items() if not k.endswith(BUFFER_SUFFIXES)),
        "head_classes": int(head.shape[0]) if head is not None and head.ndim == 2 else None,
        "dtypes": sorted({str(v.dtype).removeprefix("torch.") for v in state.values()}),
    }
