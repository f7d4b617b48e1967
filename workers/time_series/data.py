"""A forecasting manifest's series as NumPy arrays on their regular grid: missing target values
filled by the manifest's fill rule (and remembered, so metrics skip them), known covariates
forward- then back-filled, leading missing values trimmed."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from workers.contracts.forecasting import TimeSeriesManifest
from workers.time_series.frequency import Frequency, parse_frequency, parse_timestamp


@dataclass
class Series:
    """One series: ``values[:val_start]`` is its training part, ``[val_start:test_start]`` its
    validation window, ``[test_start:]`` its test window. ``observed`` is False where a value was
    filled."""

    id: str
    item: str
    target: str
    timestamps: np.ndarray
    values: np.ndarray
    observed: np.ndarray
    known: dict[str, np.ndarray] = field(default_factory=dict)
    static: dict[str, float | str | None] = field(default_factory=dict)
    val_start: int = 0
    test_start: int = 0

    def __len__(self) -> int:
        return int(self.values.shape[0])


def _forward_fill(values: np.ndarray) -> np.ndarray:
    present = ~np.isnan(values)
    index = np.where(present, np.arange(values.shape[0]), -1)
    np.maximum.accumulate(index, out=index)
    out = values.copy()
    filled = index >= 0
    out[filled] = values[index[filled]]
    return out


def fill_missing(values: np.ndarray, rule: str) -> np.ndarray:
    """``values`` (float, NaN = missing) with the missing ones filled by ``rule``:
    ``interpolate`` (linear between the nearest observed neighbours, the last observed value after
    the last one), ``forward_fill`` or ``zero``. Leading NaNs (before the first observation) stay:
    callers trim them.

    >>> fill_missing(np.array([np.nan, 1.0, np.nan, 3.0, np.nan]), "interpolate").tolist()
    [nan, 1.0, 2.0, 3.0, 3.0]
    """
    values = np.asarray(values, dtype=np.float64)
    missing = np.isnan(values)
    if not missing.any():
        return values.copy()
    present = np.flatnonzero(~missing)
    if present.size == 0:
        return values.copy()
    first = int(present[0])
    out = values.copy()
    if rule == "zero":
        out[first:][missing[first:]] = 0.0
    elif rule == "forward_fill":
        out = _forward_fill(values)
    elif rule == "interpolate":
        positions = np.arange(first, values.shape[0])
        out[first:] = np.interp(positions, present, values[present])
    else:
        raise ValueError(f"unknown fill rule {rule!r}; use interpolate, forward_fill or zero")
    return out


def _known_array(raw: list[float | None] | None, length: int) -> np.ndarray:
    """A known covariate on the series' grid, forward- then back-filled (0 when never given)."""
    values = np.full(length, np.nan)
    if raw:
        given = np.array([np.nan if v is None else float(v) for v in raw[:length]], dtype=np.float64)
        values[: given.shape[0]] = given
    values = _forward_fill(values)
    present = np.flatnonzero(~np.isnan(values))
    if present.size == 0:
        return np.zeros(length)
    values[: present[0]] = values[present[0]]
    return values


def load_series(manifest: TimeSeriesManifest) -> tuple[Frequency, list[Series]]:
    """The manifest's frequency and series. Each series starts at its first observation (the
    leading missing values are trimmed and ``val_start``/``test_start`` shifted); a series without
    any observation is left out."""
    frequency = parse_frequency(manifest["frequency"])
    rule = manifest.get("fill_rule", "interpolate")
    out: list[Series] = []
    for entry in manifest["series"]:
        raw = np.array([np.nan if v is None else float(v) for v in entry["values"]], dtype=np.float64)
        present = np.flatnonzero(~np.isnan(raw))
        if present.size == 0:
            continue
        first = int(present[0])
        length = raw.shape[0]
        timestamps = frequency.grid(parse_timestamp(entry["start"]), length)[first:]
        known = {
            name: _known_array(entry.get("known", {}).get(name), length)[first:]
            for name in manifest.get("known_covariates", [])
        }
        out.append(
            Series(
                id=entry["id"],
                item=entry.get("item", ""),
                target=entry.get("target", ""),
                timestamps=timestamps,
                values=fill_missing(raw, rule)[first:],
                observed=~np.isnan(raw[first:]),
                known=known,
                static=dict(entry.get("static", {})),
                val_start=max(int(entry["val_start"]) - first, 0),
                test_start=max(int(entry["test_start"]) - first, 0),
            )
        )
    return frequency, out
