"""The feature encoding of a table row, fitted on the training split and shipped as JSON next to
the model, so training, evaluation and serving turn rows into the same float32 matrix.

NumPy only (no pandas, no torch): the predictor in exported packages runs this very code.

Spec::

    {"kind": "tabular", "features": [
        {"name": "age", "type": "numeric", "fill": 41.0, "mean": 40.2, "std": 9.1, "indicator": true},
        {"name": "city", "type": "categorical", "categories": ["Bern", "Zurich"]},   # one-hot + "other"
        {"name": "when", "type": "datetime", "fill": 18000.0, "mean": ..., "std": ...}],  # days since 1970
     "width": 9}

Text columns are not used as features (a text template handles text).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

MAX_CATEGORIES = 50
MISSING = frozenset({"", "na", "n/a", "nan", "null", "none", "#n/a"})


def number_of(value: Any) -> float | None:
    """A cell as a finite float, or None (missing, or not a number)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    else:
        text = str(value).strip().replace(",", "")
        if text.lower() in MISSING:
            return None
        try:
            number = float(text)
        except ValueError:
            return None
    return number if math.isfinite(number) else None


def days_of(value: Any) -> float | None:
    """A date/time cell as days since 1970-01-01 (UTC), or None."""
    if value is None:
        return None
    text = str(value).strip()
    if not text or text.lower() in MISSING:
        return None
    for candidate in (text, text.replace("/", "-"), text.replace(" ", "T")):
        try:
            parsed = datetime.fromisoformat(candidate)
        except ValueError:
            continue
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.timestamp() / 86400.0
    return None


def category_of(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return None if text.lower() in MISSING else text


def _numeric_stats(values: list[float | None]) -> dict[str, Any]:
    present = np.asarray([v for v in values if v is not None], dtype=np.float64)
    if not len(present):
        return {"fill": 0.0, "mean": 0.0, "std": 1.0, "indicator": True}
    std = float(present.std())
    return {"fill": float(np.median(present)), "mean": float(present.mean()), "std": std if std > 1e-12 else 1.0,
            "indicator": len(present) < len(values)}


def fit_encoder(columns: Sequence[Mapping[str, str]], rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Fit the encoding on ``rows`` (the training split) for the dataset's typed ``columns``."""
    features: list[dict[str, Any]] = []
    for column in columns:
        name, kind = column["name"], column["type"]
        cells = [row.get(name) for row in rows]
        if kind == "numeric":
            features.append({"name": name, "type": "numeric", **_numeric_stats([number_of(c) for c in cells])})
        elif kind == "datetime":
            features.append({"name": name, "type": "datetime", **_numeric_stats([days_of(c) for c in cells])})
        elif kind == "categorical":
            counts = Counter(c for c in (category_of(v) for v in cells) if c is not None)
            categories = sorted(name for name, _ in counts.most_common(MAX_CATEGORIES))
            features.append({"name": name, "type": "categorical", "categories": categories})
    spec = {"kind": "tabular", "features": features}
    spec["width"] = len(feature_names(spec))
    return spec


def feature_names(spec: Mapping[str, Any]) -> list[str]:
    """The matrix's column names, e.g. ``age``, ``age (missing)``, ``city=Bern``, ``city (other)``."""
    names: list[str] = []
    for feature in spec["features"]:
        if feature["type"] == "categorical":
            names.extend(f"{feature['name']}={c}" for c in feature["categories"])
            names.append(f"{feature['name']} (other)")
        else:
            names.append(feature["name"])
            if feature["indicator"]:
                names.append(f"{feature['name']} (missing)")
    return names


def feature_sources(spec: Mapping[str, Any]) -> list[str]:
    """For each matrix column, the table column it comes from (feature importance per column)."""
    sources: list[str] = []
    for feature in spec["features"]:
        width = len(feature["categories"]) + 1 if feature["type"] == "categorical" else 1 + int(feature["indicator"])
        sources.extend([feature["name"]] * width)
    return sources


def encode(spec: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Rows (cells by column name; missing columns count as missing) -> float32 (len(rows), width).

    Numeric and date columns: missing -> the training median (plus a 0/1 missing column when the
    training split had gaps), then standardised; categories: one-hot, unseen ones -> "other",
    missing -> all zero.
    """
    out = np.zeros((len(rows), int(spec["width"])), dtype=np.float32)
    position = 0
    for feature in spec["features"]:
        name = feature["name"]
        if feature["type"] == "categorical":
            index = {c: i for i, c in enumerate(feature["categories"])}
            other = len(index)
            for r, row in enumerate(rows):
                category = category_of(row.get(name))
                if category is not None:
                    out[r, position + index.get(category, other)] = 1.0
            position += other + 1
            continue
        parse = number_of if feature["type"] == "numeric" else days_of
        for r, row in enumerate(rows):
            value = parse(row.get(name))
            if value is None:
                value = feature["fill"]
                if feature["indicator"]:
                    out[r, position + 1] = 1.0
            out[r, position] = (value - feature["mean"]) / feature["std"]
        position += 1 + int(feature["indicator"])
    return out
