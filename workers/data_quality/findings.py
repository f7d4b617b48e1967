"""Building blocks of a quality report: one :class:`~workers.contracts.quality.Finding`, a histogram
for the charts, progress reported over a share of the whole run, and duplicate groups from pairs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from workers.contracts.quality import (
    Distribution,
    Finding,
    FindingCode,
    FindingItem,
    Severity,
)
from workers.progress import Report

HISTOGRAM_BINS = 20


def finding(
    code: FindingCode,
    severity: Severity,
    sample_ids: Iterable[int],
    *,
    items: Sequence[FindingItem] = (),
    groups: Sequence[Sequence[int]] = (),
    column: str = "",
    details: dict[str, str | int | float | bool | None] | None = None,
) -> Finding:
    """A finding over ``sample_ids`` (kept in the order given, without repeats)."""
    ids = list(dict.fromkeys(int(i) for i in sample_ids))
    return {
        "code": code,
        "severity": severity,
        "count": len(ids),
        "sample_ids": ids,
        "items": list(items),
        "groups": [list(group) for group in groups],
        "column": column,
        "details": details or {},
    }


def histogram(
    name: str, values: Sequence[float] | np.ndarray, *, bins: int | Sequence[float] = HISTOGRAM_BINS
) -> Distribution:
    """``np.histogram`` as a :class:`Distribution` (an empty one when there are no values)."""
    data = np.asarray(values, dtype=np.float64)
    data = data[np.isfinite(data)]
    if data.size == 0:
        return {"name": name, "edges": [], "counts": []}
    if isinstance(bins, int) and data.min() == data.max():
        bins = [float(data.min()) - 0.5, float(data.max()) + 0.5]
    counts, edges = np.histogram(data, bins=bins)
    return {
        "name": name,
        "edges": [round(float(e), 6) for e in edges],
        "counts": [int(c) for c in counts],
    }


def stage(report: Report, start: float, end: float) -> Report:
    """``report`` for one stage of the run: the stage's fractions 0..1 become start..end."""

    def staged(
        message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        report(
            message,
            fraction=None if fraction is None else start + (end - start) * max(0.0, min(1.0, fraction)),
            milestone=milestone,
            **metrics,
        )

    return staged


def groups_from_pairs(n: int, pairs: Iterable[tuple[int, int]]) -> list[list[int]]:
    """Connected components (of 2 or more) of the pairs over positions ``0..n-1``: union-find,
    each group sorted, groups ordered by their first member."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in pairs:
        ra, rb = root(int(a)), root(int(b))
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    members: dict[int, list[int]] = {}
    for i in range(n):
        members.setdefault(root(i), []).append(i)
    return sorted((group for group in members.values() if len(group) > 1), key=lambda g: g[0])


def groups_from_keys(keys: Sequence[object]) -> list[list[int]]:
    """Positions that share a key (None never matches), as groups of 2 or more."""
    by_key: dict[object, list[int]] = {}
    for i, key in enumerate(keys):
        if key is not None:
            by_key.setdefault(key, []).append(i)
    return sorted((g for g in by_key.values() if len(g) > 1), key=lambda g: g[0])
