"""Duplicate groups as findings, near-duplicate texts from embeddings, and duplicates that cross the
splits of a dataset version (a test sample whose copy is in train measures memory, not skill)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workers.contracts.quality import Finding
from workers.data_quality.findings import finding, groups_from_pairs

SIMILARITY_BLOCK = 1024
MAX_PAIRS = 2_000_000  # near pairs kept at most


def cosine_pairs(embeddings: np.ndarray, min_similarity: float) -> list[tuple[int, int, float]]:
    """Every pair (i < j) of rows whose cosine similarity is at least ``min_similarity``."""
    norms = np.linalg.norm(embeddings, axis=1, keepdims=True)
    unit = embeddings / np.where(norms > 0, norms, 1.0)
    pairs: list[tuple[int, int, float]] = []
    for start in range(0, len(unit), SIMILARITY_BLOCK):
        similarity = unit[start : start + SIMILARITY_BLOCK] @ unit.T
        i, j = np.nonzero(similarity >= min_similarity)
        keep = j > i + start
        for a, b in zip(i[keep].tolist(), j[keep].tolist(), strict=True):
            pairs.append((a + start, b, float(similarity[a, b])))
        if len(pairs) >= MAX_PAIRS:
            return pairs[:MAX_PAIRS]
    return pairs


def near_groups(n: int, pairs: Sequence[tuple[int, int]], exact: Sequence[Sequence[int]]) -> list[list[int]]:
    """Groups from near pairs, leaving out a group wholly inside one exact group."""
    exact_sets = [set(g) for g in exact]
    return [g for g in groups_from_pairs(n, pairs) if not any(set(g) <= e for e in exact_sets)]


def duplicate_findings(
    ids: Sequence[int],
    splits: Sequence[str],
    exact: Sequence[Sequence[int]],
    near: Sequence[Sequence[int]],
    *,
    details: dict[str, str | int | float | bool | None] | None = None,
) -> list[Finding]:
    """exact_duplicates, near_duplicates and (when samples have splits) split_leakage findings from
    groups of positions; ``sample_ids`` lists every member, ``groups`` the members by group."""
    findings: list[Finding] = []
    for code, groups in (("exact_duplicates", exact), ("near_duplicates", near)):
        if groups:
            as_ids = [[int(ids[i]) for i in g] for g in groups]
            findings.append(
                finding(
                    code,  # type: ignore[arg-type]
                    "warning",
                    (i for g in as_ids for i in g),
                    groups=as_ids,
                    details={
                        "groups": len(as_ids),
                        **(details if code == "near_duplicates" and details else {}),
                    },
                )
            )
    if any(splits):
        leaking = [g for g in [*exact, *near] if len({splits[i] for i in g if splits[i]}) > 1]
        if leaking:
            as_ids = [[int(ids[i]) for i in g] for g in leaking]
            findings.append(
                finding(
                    "split_leakage",
                    "error",
                    (i for g in as_ids for i in g),
                    groups=as_ids,
                    details={
                        "groups": len(as_ids),
                        "pairs": ", ".join(
                            sorted({"/".join(sorted({splits[i] for i in g if splits[i]})) for g in leaking})
                        ),
                    },
                )
            )
    return findings
