"""The feature encoding of a table row, fitted on the training split and shipped as JSON next to
the model, so training, evaluation and serving turn rows into the same float32 matrix.

NumPy only (no pandas, no torch): the predictor in exported packages runs this very code.

Spec::

    {"kind": "tabular", "version": 1, "features": [
        {"name": "age", "type": "numeric", "fill": 41.0, "mean": 40.2, "std": 9.1, "indicator": true},
        {"name": "city", "type": "categorical", "categories": ["Bern", "Zurich"]},   # one-hot + "other"
        {"name": "when", "type": "datetime", "fill": 18000.0, "mean": ..., "std": ...}],  # days since 1970
     "width": 9}

Text columns are not used as features (a text template handles text). A categorical feature also
records ``"missing": true`` when the training split had empty cells in it.

Serving checks each row against the model's contract first (:func:`check_row`): a column the model
does not know, or a value of the wrong type, is refused by name; a column may be missing (absent,
null, NaN, empty or a marker such as "NA") only where the training split had missing values, so the
model learned what a gap means (numeric and date columns: the ``indicator``; categorical ones:
``missing``). Those are filled by the rule above and named in the answer.

The contract: ``workers.contracts.preprocessing.TableEncoding`` (and ``TablePreprocessing``, the
encoding plus the task, the ONNX input/output names and the target, as the trainer ships it).
"""

from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

import numpy as np

from workers.contracts.manifest import TableColumn
from workers.contracts.preprocessing import PREPROCESSING_VERSION, TableEncoding, TableFeature

MAX_CATEGORIES = 50
MISSING = frozenset({"", "na", "n/a", "nan", "null", "none", "#n/a"})
# "12,345.5" is a number with thousands separators; "1,5" is not one (a decimal comma, or a list):
# stripping every comma read it as 15.
_THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?")


def number_of(value: Any) -> float | None:
    """A cell as a finite float, or None (missing, or not a number)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    else:
        text = str(value).strip()
        if "," in text and _THOUSANDS.fullmatch(text):
            text = text.replace(",", "")
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


def _numeric_stats(values: list[float | None]) -> dict[str, float | bool]:
    present = np.asarray([v for v in values if v is not None], dtype=np.float64)
    if not len(present):
        return {"fill": 0.0, "mean": 0.0, "std": 1.0, "indicator": True}
    std = float(present.std())
    return {
        "fill": float(np.median(present)),
        "mean": float(present.mean()),
        "std": std if std > 1e-12 else 1.0,
        "indicator": len(present) < len(values),
    }


def _numeric_feature(
    name: str, kind: Literal["numeric", "datetime"], values: list[float | None]
) -> TableFeature:
    stats = _numeric_stats(values)
    return {
        "name": name,
        "type": kind,
        "fill": float(stats["fill"]),
        "mean": float(stats["mean"]),
        "std": float(stats["std"]),
        "indicator": bool(stats["indicator"]),
    }


def fit_encoder(columns: Sequence[TableColumn], rows: Sequence[Mapping[str, Any]]) -> TableEncoding:
    """Fit the encoding on ``rows`` (the training split) for the dataset's typed ``columns``."""
    features: list[TableFeature] = []
    for column in columns:
        name, kind = column["name"], column["type"]
        cells = [row.get(name) for row in rows]
        if kind == "numeric":
            features.append(_numeric_feature(name, "numeric", [number_of(c) for c in cells]))
        elif kind == "datetime":
            features.append(_numeric_feature(name, "datetime", [days_of(c) for c in cells]))
        elif kind == "categorical":
            present = [c for c in (category_of(v) for v in cells) if c is not None]
            counts = Counter(present)
            categories = sorted(name for name, _ in counts.most_common(MAX_CATEGORIES))
            features.append(
                {
                    "name": name,
                    "type": "categorical",
                    "categories": categories,
                    "missing": len(present) < len(cells),
                }
            )
    spec: TableEncoding = {
        "kind": "tabular",
        "version": PREPROCESSING_VERSION,
        "features": features,
        "width": 0,
    }
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
        width = (
            len(feature["categories"]) + 1
            if feature["type"] == "categorical"
            else 1 + int(feature["indicator"])
        )
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


def encode_columns(
    spec: Mapping[str, Any], columns: Mapping[str, Sequence[Any]], n: int
) -> tuple[np.ndarray, np.ndarray]:
    """The contract check and :func:`encode` of a table's rows at once, column by column:
    ``(matrix, clean)``. ``clean[r]`` says row ``r`` has every feature's cell present and of its
    type, so :func:`check_row` accepts it with nothing imputed and ``matrix[r]`` is exactly
    ``encode(spec, [row])[0]``. Other rows (a missing cell, a wrong type, a column the table lacks)
    are to be checked one by one with :func:`check_row`; their ``matrix`` rows mean nothing.
    ``columns`` maps column name -> its ``n`` cells; unknown columns are the caller's to refuse.
    """
    out = np.zeros((n, int(spec["width"])), dtype=np.float32)
    clean = np.ones(n, dtype=bool)
    position = 0
    for feature in spec["features"]:
        cells = columns.get(feature["name"])
        kind = feature["type"]
        width = len(feature["categories"]) + 1 if kind == "categorical" else 1 + int(feature["indicator"])
        if cells is None:
            clean[:] = False
            position += width
            continue
        if kind == "categorical":
            index = {c: i for i, c in enumerate(feature["categories"])}
            other = len(index)
            hit_rows: list[int] = []
            hit_columns: list[int] = []
            for r, value in enumerate(cells):
                kind_of = type(value)
                if kind_of is str or kind_of is int or (kind_of is float and math.isfinite(value)):
                    category = category_of(value)
                    if category is not None:
                        hit_rows.append(r)
                        hit_columns.append(position + index.get(category, other))
                        continue
                clean[r] = False  # missing, or a type check_row names
            out[hit_rows, hit_columns] = 1.0
            position += width
            continue
        values: np.ndarray | None = None
        if kind == "numeric":
            types = set(map(type, cells))
            if types and (types <= {str} or types <= {int, float}):
                # float() of a str or number is what number_of computes for any cell it accepts
                # (commas and missing markers make float() fail or give NaN: checked per cell below)
                try:
                    values = np.fromiter(map(float, cells), dtype=np.float64, count=n)
                except (ValueError, OverflowError):
                    values = None
            if values is None:
                parsed = [None if type(v) is bool else number_of(v) for v in cells]
                values = np.array([math.nan if p is None else p for p in parsed], dtype=np.float64)
        else:
            parsed = [days_of(v) if type(v) is str else None for v in cells]
            values = np.array([math.nan if p is None else p for p in parsed], dtype=np.float64)
        ok = np.isfinite(values)
        clean &= ok
        out[:, position] = (np.where(ok, values, feature["fill"]) - feature["mean"]) / feature["std"]
        position += width
    return out, clean


class RowContractError(ValueError):
    """A row the model's contract refuses; ``code`` is the API's error code, ``column`` the column."""

    def __init__(self, code: str, message: str, *, columns: Sequence[str]) -> None:
        super().__init__(message)
        self.code = code
        self.columns = list(columns)


def imputable(feature: Mapping[str, Any]) -> bool:
    """Whether a missing value of ``feature`` may be filled: the training split had gaps in it."""
    if feature["type"] == "categorical":
        return bool(feature.get("missing", False))
    return bool(feature.get("indicator", False))


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return isinstance(value, str) and value.strip().lower() in MISSING


def _type_problem(feature: Mapping[str, Any], value: Any) -> str | None:
    """Why ``value`` (not missing) cannot be a cell of ``feature``, or None when it can."""
    kind = feature["type"]
    if isinstance(value, list | dict | tuple):
        return f"must be a single value, got a JSON {'array' if not isinstance(value, dict) else 'object'}"
    if kind == "categorical":
        if isinstance(value, float) and not math.isfinite(value):
            return f"must be a category (a string or a number), got {value!r}"
        return (
            None
            if isinstance(value, str | int | float)
            else f"must be a category, got {type(value).__name__}"
        )
    if kind == "numeric":
        if isinstance(value, bool):
            return f"must be a number, got {str(value).lower()}"
        if number_of(value) is None:
            return f"must be a finite number, got {value!r}"
        return None
    if not isinstance(value, str) or days_of(value) is None:
        return f'must be a date/time string such as "2024-05-31" or "2024-05-31T12:00:00", got {value!r}'
    return None


def check_row(spec: Mapping[str, Any], row: Mapping[str, Any], *, where: str = "the row") -> list[str]:
    """Check one row against the model's contract; returns the columns that will be imputed (in the
    model's column order). Raises :class:`RowContractError` naming the column otherwise.

    >>> spec = {"features": [{"name": "age", "type": "numeric", "indicator": True},
    ...                      {"name": "city", "type": "categorical", "categories": ["Bern"]}]}
    >>> check_row(spec, {"city": "Bern", "age": None})
    ['age']
    >>> try:
    ...     check_row(spec, {"city": "Bern", "age": "abc"})
    ... except RowContractError as exc:
    ...     print(exc.code, exc)
    invalid_value the row: column 'age' must be a finite number, got 'abc'
    """
    features = {f["name"]: f for f in spec["features"]}
    ignored = {spec.get("target")} - {None}
    unknown = [name for name in row if name not in features and name not in ignored]
    if unknown:
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(str(name), list(features), n=1, cutoff=0.6)
            hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise RowContractError(
            "unknown_column",
            f"{where}: the model has no column{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(hints)}; its columns are {', '.join(list(features)[:50])}.",
            columns=[str(n) for n in unknown],
        )
    imputed: list[str] = []
    required: list[str] = []
    for name, feature in features.items():
        value = row.get(name)
        if _is_missing(value):
            (imputed if imputable(feature) else required).append(name)
            continue
        problem = _type_problem(feature, value)
        if problem is not None:
            raise RowContractError("invalid_value", f"{where}: column {name!r} {problem}", columns=[name])
    if required:
        may = [f["name"] for f in spec["features"] if imputable(f)]
        raise RowContractError(
            "missing_column",
            f"{where} has no value for {', '.join(repr(n) for n in required)}: this model needs "
            f"{'them' if len(required) > 1 else 'it'} (the training data had no gaps there). "
            + (f"Columns that may be missing: {', '.join(may)}." if may else "Every column is required."),
            columns=required,
        )
    return imputed
