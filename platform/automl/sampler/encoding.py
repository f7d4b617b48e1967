"""The unit-cube encoding of an Optuna search space.

Every parameter maps to columns of [0, 1]^D: a float, int, log or stepped parameter to one column
(log scale in log space; int and step values as the centres of equal cells, so every value owns
the same share of the cube), a categorical parameter to one column per choice (one-hot, decoded by
argmax). A parameter with a single possible value has no column.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)


class _Column:
    """One parameter's slice of the cube."""

    def __init__(self, name: str, dist: BaseDistribution, start: int):
        self.name = name
        self.dist: Any = dist  # one of the distributions below; self.kind says which
        self.start = start
        self.fixed: Any = None
        self.kind: str
        if isinstance(dist, CategoricalDistribution):
            self.kind = "categorical"
            self.width = len(dist.choices) if len(dist.choices) > 1 else 0
            if self.width == 0:
                self.fixed = dist.choices[0]
        elif isinstance(dist, FloatDistribution | IntDistribution):
            if dist.low == dist.high:
                self.kind, self.width, self.fixed = "fixed", 0, dist.low
            elif dist.step is not None and not dist.log:
                self.kind, self.width = "grid", 1
                self.n_cells = int(round((dist.high - dist.low) / dist.step)) + 1
            elif isinstance(dist, IntDistribution):
                # A log int: continuous in log space over [low - 0.5, high + 0.5], then rounded.
                self.kind, self.width = "log_int", 1
                self.lo, self.hi = (
                    math.log(dist.low - 0.5 if dist.low > 0.5 else dist.low),
                    math.log(dist.high + 0.5),
                )
            else:
                self.kind, self.width = ("log" if dist.log else "linear"), 1
                if dist.log:
                    self.lo, self.hi = math.log(dist.low), math.log(dist.high)
        else:  # pragma: no cover - Optuna has no other distribution
            raise TypeError(f"unsupported distribution {dist!r} for parameter {name!r}")

    def encode(self, value: Any, out: np.ndarray) -> None:
        d, s = self.dist, self.start
        if self.width == 0:
            return
        if self.kind == "categorical":
            out[s : s + self.width] = 0.0
            out[s + d.choices.index(value)] = 1.0
        elif self.kind == "grid":
            index = int(round((value - d.low) / d.step))
            out[s] = (min(max(index, 0), self.n_cells - 1) + 0.5) / self.n_cells
        elif self.kind in ("log", "log_int"):
            out[s] = (math.log(value) - self.lo) / (self.hi - self.lo)
        else:
            out[s] = (value - d.low) / (d.high - d.low)

    def decode(self, u: np.ndarray) -> Any:
        d, s = self.dist, self.start
        if self.width == 0:
            return self.fixed
        if self.kind == "categorical":
            return d.choices[int(np.argmax(u[s : s + self.width]))]
        x = float(min(max(u[s], 0.0), 1.0))
        if self.kind == "grid":
            index = min(int(x * self.n_cells), self.n_cells - 1)
            value = d.low + index * d.step
            value = min(value, d.high)
            return int(value) if isinstance(d, IntDistribution) else float(value)
        if self.kind == "log_int":
            value = int(round(math.exp(self.lo + x * (self.hi - self.lo))))
            return min(max(value, d.low), d.high)
        if self.kind == "log":
            return float(min(max(math.exp(self.lo + x * (self.hi - self.lo)), d.low), d.high))
        return float(min(max(d.low + x * (d.high - d.low), d.low), d.high))

    def from_quantile(self, q: float) -> Any:
        """The value at quantile q in [0, 1) of this parameter's own scale (startup points)."""
        if self.kind == "categorical" and self.width:
            return self.dist.choices[min(int(q * self.width), self.width - 1)]
        u = np.zeros(self.start + max(self.width, 1))
        if self.width:
            u[self.start] = q
        return self.decode(u)


class SpaceEncoding:
    """Maps parameter dicts of one search space to points of [0, 1]^dim and back.

    >>> enc = SpaceEncoding({"lr": FloatDistribution(1e-4, 1e-1, log=True)})
    >>> enc.decode(enc.encode({"lr": 1e-2}))["lr"]  # doctest: +ELLIPSIS
    0.01...
    """

    def __init__(self, search_space: Mapping[str, BaseDistribution]):
        self.columns: list[_Column] = []
        start = 0
        for name, dist in search_space.items():
            column = _Column(name, dist, start)
            self.columns.append(column)
            start += column.width
        self.dim = start
        self.names = [c.name for c in self.columns]
        # One cube column per parameter with a choice to make (the startup design's dimension).
        self.n_free = sum(1 for c in self.columns if c.width)
        self.discrete = any(c.kind in ("grid", "log_int", "categorical") and c.width for c in self.columns)
        self.signature = repr([(name, dist) for name, dist in search_space.items()])

    def encode(self, params: Mapping[str, Any]) -> np.ndarray:
        out = np.full(self.dim, 0.5)
        for column in self.columns:
            column.encode(params[column.name], out)
        return out

    def decode(self, u: np.ndarray) -> dict[str, Any]:
        return {column.name: column.decode(u) for column in self.columns}

    def from_quantiles(self, q: np.ndarray) -> dict[str, Any]:
        """Parameters from one quantile per free parameter (in column order)."""
        out: dict[str, Any] = {}
        i = 0
        for column in self.columns:
            if column.width:
                out[column.name] = column.from_quantile(float(q[i]))
                i += 1
            else:
                out[column.name] = column.fixed
        return out
