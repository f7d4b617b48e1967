"""Sampan's SDE sampler for Optuna (no Django here: workers and benchmarks import it directly)."""

from __future__ import annotations

from .sde import SdeSampler

__all__ = ["SdeSampler"]
