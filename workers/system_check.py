"""The system check job: what this worker runs on, and a short real computation with progress."""

from __future__ import annotations

import platform
import sys
import time
from typing import Any

import numpy as np

from workers.devices import detect
from workers.progress import Report


def run_system_check(*, seconds: float, report: Report, steps: int = 20) -> dict[str, Any]:
    """Report versions and devices, then multiply matrices for about ``seconds`` in ``steps`` steps.

    >>> from workers.progress import silent_report
    >>> run_system_check(seconds=0.1, report=silent_report)["computation"]["steps"]
    20
    """
    versions: dict[str, Any] = {
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "platform": platform.platform(),
    }
    devices = detect()
    versions["torch"] = devices.get("torch")
    report("devices detected", fraction=0.0, milestone=True, step=0, total=steps)

    use_torch = devices.get("torch") is not None
    device = "cuda" if devices["cuda"] else "cpu"
    n = 256
    flops = 0.0
    started = time.perf_counter()
    checksum = 0.0
    a: Any  # a torch tensor or a NumPy array
    b: Any
    if use_torch:
        import torch

        generator = torch.Generator(device="cpu").manual_seed(0)
        a = torch.randn(n, n, generator=generator).to(device)
        b = torch.randn(n, n, generator=generator).to(device)
    else:
        rng = np.random.default_rng(0)
        a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    for step in range(1, steps + 1):
        step_end = started + seconds * step / steps
        while True:
            c = a @ b
            flops += 2.0 * n**3
            if time.perf_counter() >= step_end:
                break
        checksum = float(c.sum()) if not use_torch else float(c.sum().item())
        elapsed = time.perf_counter() - started
        report(
            f"step {step}/{steps}",
            fraction=step / steps,
            milestone=step == steps,
            step=step,
            total=steps,
            gflops=round(flops / elapsed / 1e9, 3),
        )
    elapsed = time.perf_counter() - started
    return {
        "versions": versions,
        "devices": devices,
        "computation": {
            "backend": f"torch/{device}" if use_torch else "numpy",
            "matrix_size": n,
            "steps": steps,
            "seconds": round(elapsed, 3),
            "gflops": round(flops / elapsed / 1e9, 3),
            "checksum": checksum,
        },
    }
