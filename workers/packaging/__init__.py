"""Deployment packages built from a model version (DESIGN §7), without Django or torch.

``build_server_package(artifacts=..., out_path=..., report=...)``: the on-prem server archive.
``build_device_sdk(artifacts=..., out_path=..., calibration_images=..., report=...)``: fp32 + int8
ONNX with samples. Both take a :class:`ModelArtifacts` and return a JSON-able report.
"""

from __future__ import annotations

from workers.packaging.artifacts import ModelArtifacts
from workers.packaging.device_sdk import build_device_sdk
from workers.packaging.package_contents import PackagingError
from workers.packaging.server_package import build_server_package

__all__ = ["ModelArtifacts", "PackagingError", "build_device_sdk", "build_server_package"]
