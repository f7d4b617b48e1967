"""Which compute devices this host has. Run as ``python -m workers.devices`` (prints JSON) so a
worker's main process learns about GPUs without importing torch before it forks."""

from __future__ import annotations

import json
import os
import platform
from typing import Any


def detect() -> dict[str, Any]:
    info: dict[str, Any] = {"cpu_count": os.cpu_count() or 1, "machine": platform.machine(), "cuda": []}
    try:
        import torch
    except ImportError:
        info["torch"] = None
        return info
    info["torch"] = torch.__version__
    if torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(index)
            info["cuda"].append({"index": index, "name": props.name, "memory_bytes": int(props.total_memory)})
    return info


if __name__ == "__main__":
    print(json.dumps(detect()))
