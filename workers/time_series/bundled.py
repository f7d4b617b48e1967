"""Real series from statsmodels' bundled datasets (shipped with the package: no download), for tests
and benchmarks. statsmodels (and pandas) are imported inside the functions.

==================== ========= ====== ==========================================================
name                 frequency points what
==================== ========= ====== ==========================================================
co2                  W         2284   Mauna Loa CO2 (ppm), weekly from 1958-03-29 (Saturdays);
                                      59 missing weeks, kept as None
sunspots             YS        309    yearly sunspot activity, 1700-2008
elnino               MS        732    monthly sea surface temperature (the wide year x month
                                      table read row by row), 1950-2010
nile                 YS        100    yearly Nile flow at Aswan, 1871-1970
macrodata_realgdp    QS        203    US real GDP (billions of chained 2005 dollars), 1959Q1-2009Q3
==================== ========= ====== ==========================================================
"""

from __future__ import annotations

import math
from typing import Any

from workers.contracts.forecasting import TimeSeriesManifest
from workers.time_series.synthetic import split_points

REAL: tuple[str, ...] = ("co2", "sunspots", "elnino", "nile", "macrodata_realgdp")

#: The horizon the benchmarks and tests use per dataset (a season for the seasonal ones; 8 steps for
#: the yearly and quarterly ones: two years of GDP, eight years of flow or sunspots).
HORIZONS: dict[str, int] = {"co2": 52, "sunspots": 8, "elnino": 12, "nile": 8, "macrodata_realgdp": 8}

_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")


def _number(value: Any) -> float | None:
    number = float(value)
    return None if math.isnan(number) else number


def real_series(name: str) -> tuple[str, list[tuple[str, float | None]]]:
    """``(frequency, [(ISO timestamp, value or None)])`` of one of :data:`REAL`, oldest first."""
    import statsmodels.api as sm

    if name == "co2":
        frame = sm.datasets.co2.load_pandas().data
        return "W", [
            (ts.strftime("%Y-%m-%d"), _number(v)) for ts, v in zip(frame.index, frame["co2"], strict=True)
        ]
    if name == "sunspots":
        frame = sm.datasets.sunspots.load_pandas().data
        return "YS", [
            (f"{int(y):04d}-01-01", _number(v))
            for y, v in zip(frame["YEAR"], frame["SUNACTIVITY"], strict=True)
        ]
    if name == "nile":
        frame = sm.datasets.nile.load_pandas().data
        return "YS", [
            (f"{int(y):04d}-01-01", _number(v)) for y, v in zip(frame["year"], frame["volume"], strict=True)
        ]
    if name == "elnino":
        frame = sm.datasets.elnino.load_pandas().data
        points: list[tuple[str, float | None]] = []
        for _, row in frame.iterrows():
            for month, column in enumerate(_MONTHS, start=1):
                points.append((f"{int(row['YEAR']):04d}-{month:02d}-01", _number(row[column])))
        return "MS", points
    if name == "macrodata_realgdp":
        frame = sm.datasets.macrodata.load_pandas().data
        return "QS", [
            (f"{int(y):04d}-{3 * int(q) - 2:02d}-01", _number(v))
            for y, q, v in zip(frame["year"], frame["quarter"], frame["realgdp"], strict=True)
        ]
    raise ValueError(f"unknown dataset {name!r}; the bundled ones are {', '.join(REAL)}")


def to_csv(name: str) -> str:
    """The series as ``timestamp,value`` CSV text (a missing value is an empty cell)."""
    _, points = real_series(name)
    lines = ["timestamp,value"]
    lines.extend(f"{ts},{'' if v is None else repr(v)}" for ts, v in points)
    return "\n".join(lines) + "\n"


def manifest(name: str, horizon: int | None = None) -> TimeSeriesManifest:
    """A one-series ``TimeSeriesManifest`` (wide table: target ``value``, id the dataset's name),
    split by time with ``horizon`` (default :data:`HORIZONS`)."""
    freq, points = real_series(name)
    h = HORIZONS[name] if horizon is None else horizon
    values = [v for _, v in points]
    val_start, test_start = split_points(len(values), h)
    return {
        "kind": "time_series",
        "version": 1,
        "frequency": freq,
        "horizon": h,
        "fill_rule": "interpolate",
        "timestamp_column": "timestamp",
        "series_column": None,
        "target_columns": ["value"],
        "known_covariates": [],
        "static_covariates": [],
        "series": [
            {
                "id": name,
                "item": "",
                "target": "value",
                "start": points[0][0],
                "values": values,
                "known": {},
                "static": {},
                "val_start": val_start,
                "test_start": test_start,
            }
        ],
    }
