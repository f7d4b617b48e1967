"""Forecasting datasets (``TaskType.TIME_SERIES_FORECASTING``): the table import's time-series
mapping, the schema and profile it fixes, the series' points for charts, versions split by time and
the manifest the compute plane trains on (``workers.contracts.forecasting``).

An observation (a table row) is a sample (format ``ROW``) whose ``values`` are the row's cells by
column name as read, with the timestamp written as ISO 8601, the series id as text and the targets
and known covariates as numbers (None when empty). Series are rebuilt from the observations on a
regular grid of the dataset's frequency whenever they are needed; nothing else is stored.

Vocabulary (``workers/contracts/forecasting.py``): an *item* is a value of the series column ("" for
a wide table); a *series* is one target of one item, named ``target`` (wide), ``item`` (one
target) or ``item/target`` (several targets).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from config.exceptions import field_error
from django.db import transaction
from django.db.models.fields.json import KeyTextTransform

from datasets.exceptions import ImportRejected
from datasets.models import Dataset, DatasetVersion, Sample, Split, VersionSample
from datasets.services.imports import Staged, chunks
from datasets.tables import Table, as_number, infer_type
from workers.contracts.forecasting import (
    FILL_RULES,
    FORECASTING_VERSION,
    FREQUENCIES,
    SeriesPoints,
    TimeSeriesEntry,
    TimeSeriesManifest,
    TimeSeriesProfile,
    TimeSeriesSchema,
)
from workers.time_series.frequency import (
    Frequency,
    format_timestamp,
    infer_frequency,
    parse_frequency,
    parse_timestamp,
)

if TYPE_CHECKING:
    from datasets.models import ImportBatch

MAX_HORIZON = 1000
MAX_SERIES_IDS = 20  # series one request of the series endpoint may ask for
DEFAULT_MAX_POINTS = 2000
MAX_POINTS = 20_000
MAX_WARNINGS = 100
TIMESTAMP_GUESSES = ("timestamp", "date", "datetime", "time", "ds", "period", "month", "year", "week", "day")
SERIES_GUESSES = ("series", "series_id", "unique_id", "id", "item", "item_id", "store", "sku", "product")
YEAR_FIRST = re.compile(r"^(\d{4})[/.](\d{1,2})[/.](\d{1,2})([ T]\d{1,2}:\d{2}(?::\d{2})?)?$")
MAPPING_KEYS = (
    "timestamp_column",
    "series_column",
    "target_columns",
    "known_covariates",
    "static_covariates",
    "frequency",
    "fill_rule",
)


def refuse_forecasting(dataset: Dataset, what: str) -> None:
    """Refuse what only labeled datasets do (labels, labeling tasks, smart labeling, quality reports)
    for a forecasting dataset: its samples are observations, with no label to give."""
    from config.exceptions import InvalidInput

    from datasets.models import FORECASTING_TASKS

    if dataset.task_type in FORECASTING_TASKS:
        raise InvalidInput(
            f"{dataset.name!r} is a time-series forecasting dataset: its samples are observations of "
            f"series, not labeled items, so {what} does not apply. Import tables, look at the series and "
            "make versions with a horizon.",
            code="not_for_forecasting",
        )


def _problem(number: int, code: str, message: str) -> dict:
    return {"file": f"row {number}", "code": code, "message": message}


def series_name(schema: TimeSeriesSchema | dict, item: str, target: str) -> str:
    """A series' id: the target (wide table), the item (one target) or ``item/target``."""
    if not schema.get("series_column"):
        return target
    return item if len(schema["target_columns"]) == 1 else f"{item}/{target}"


@lru_cache(maxsize=100_000)
def _parsed_text(text: str) -> np.datetime64:
    """ISO 8601 (``workers.time_series.frequency.parse_timestamp``), or the same year-first order
    with slashes or dots (``2024/03/01``, ``2024.03.01 10:00``): never a day-first or month-first
    guess."""
    try:
        return parse_timestamp(text)
    except ValueError:
        match = YEAR_FIRST.match(text)
        if match is None:
            raise
        year, month, day, rest = match.groups()
        return parse_timestamp(f"{year}-{int(month):02d}-{int(day):02d}{rest or ''}")


@lru_cache(maxsize=100_000)
def _iso(ts: np.datetime64) -> str:
    return format_timestamp(ts)


def _timestamp(value: Any) -> np.datetime64:
    """A cell as a timestamp (ValueError when it is none); text is parsed once per distinct value."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str):
        return _parsed_text(value.strip())
    return parse_timestamp(value)


def _looks_like_timestamps(cells: list[Any]) -> bool:
    present = [c for c in cells[:200] if c is not None]
    if not present:
        return False
    parsed = 0
    for cell in present:
        try:
            _timestamp(cell)
        except (ValueError, TypeError, OverflowError):
            continue
        parsed += 1
    return parsed >= 0.95 * len(present)


# --- the mapping ------------------------------------------------------------------------------


def clean_mapping(
    *,
    timestamp_column: str = "",
    series_column: str = "",
    target_columns: Sequence[str] = (),
    known_covariates: Sequence[str] = (),
    static_covariates: Sequence[str] = (),
    frequency: str = "",
    fill_rule: str = "",
) -> dict:
    """The forecasting mapping as given (blank values left out), its frequency and fill rule checked."""
    mapping: dict[str, Any] = {}
    for key, value in (
        ("timestamp_column", timestamp_column),
        ("series_column", series_column),
        ("frequency", frequency),
        ("fill_rule", fill_rule),
    ):
        if value and value.strip():
            mapping[key] = value.strip()
    for key, values in (
        ("target_columns", target_columns),
        ("known_covariates", known_covariates),
        ("static_covariates", static_covariates),
    ):
        cleaned = [v.strip() for v in values or () if v and v.strip()]
        if cleaned:
            mapping[key] = list(dict.fromkeys(cleaned))
    if "frequency" in mapping and mapping["frequency"] not in FREQUENCIES:
        raise ImportRejected(
            f"Unknown frequency {mapping['frequency']!r}; use one of {', '.join(FREQUENCIES)}.",
            code="bad_frequency",
            field="frequency",
            allowed=list(FREQUENCIES),
        )
    if "fill_rule" in mapping and mapping["fill_rule"] not in FILL_RULES:
        raise ImportRejected(
            f"Unknown fill rule {mapping['fill_rule']!r}; use one of {', '.join(FILL_RULES)}.",
            code="bad_fill_rule",
            field="fill_rule",
            allowed=list(FILL_RULES),
        )
    return mapping


def _column(table: Table, column: str, field_name: str, what: str) -> str:
    if column not in table.columns:
        raise ImportRejected(
            f"The file has no column named {column!r} for the {what}; its columns are "
            f"{', '.join(repr(c) for c in table.columns[:30])}.",
            code="no_such_column",
            field=field_name,
            columns=table.columns[:200],
        )
    return column


def _numeric_columns(table: Table, exclude: set[str]) -> list[str]:
    """Columns whose cells are numbers (a few bad cells allowed: they become row problems)."""
    found = []
    for column in table.columns:
        if column in exclude:
            continue
        present = [r[column] for r in table.rows[:2000] if r[column] is not None]
        numbers = sum(1 for cell in present if as_number(cell) is not None)
        if present and numbers >= 0.9 * len(present):
            found.append(column)
    return found


def suggest_mapping(table: Table, schema: dict | None = None) -> dict:
    """The preview's suggestion for a forecasting dataset: the timestamp column (the first whose
    cells parse as dates, by name first), series-id candidates (text columns with repeated values),
    numeric target candidates and the frequency inferred with them."""
    schema = schema or {}
    dates = [
        c
        for c in table.columns
        if _looks_like_timestamps([r[c] for r in table.rows])
        # a column of plain numbers is a timestamp (years) only when its name says so
        and (c.lower() in TIMESTAMP_GUESSES or infer_type([r[c] for r in table.rows[:2000]]) != "numeric")
    ]
    by_name = sorted(dates, key=lambda c: c.lower() not in TIMESTAMP_GUESSES)
    timestamp = schema.get("timestamp_column") or (by_name[0] if by_name else None)
    series_candidates = []
    for column in table.columns:
        if column == timestamp:
            continue
        cells = [r[column] for r in table.rows if r[column] is not None]
        kind = infer_type(cells[:2000])
        if (
            cells
            and kind in ("categorical", "text")
            or (kind == "numeric" and column.lower() in SERIES_GUESSES)
        ):
            distinct = len({str(c) for c in cells})
            if 1 < distinct < len(cells):
                series_candidates.append(column)
    series_candidates.sort(key=lambda c: c.lower() not in SERIES_GUESSES)
    series = schema.get("series_column") if schema else (series_candidates[0] if series_candidates else None)
    numeric = _numeric_columns(table, {c for c in (timestamp, series) if c})
    targets = schema.get("target_columns") or (numeric[:1] if series else numeric)
    inferred = None
    if timestamp:
        grids = _timestamps_by_item(table.rows, timestamp, series)
        inferred = _infer(grids)
    return {
        "timestamp_column": timestamp,
        "series_column": series,
        "target_columns": list(targets),
        "known_covariates": list(schema.get("known_covariates", [])),
        "static_covariates": list(schema.get("static_covariates", [])),
        "frequency_inferred": inferred,
        "timestamp_candidates": by_name,
        "series_candidates": series_candidates,
        "target_candidates": numeric,
    }


def _timestamps_by_item(
    rows: list[dict], timestamp: str, series: str | None
) -> dict[str, list[np.datetime64]]:
    found: dict[str, list[np.datetime64]] = defaultdict(list)
    for row in rows:
        try:
            ts = _timestamp(row[timestamp])
        except (ValueError, TypeError, OverflowError):
            continue
        found[_item_of(row.get(series)) if series else ""].append(ts)
    return found


def _infer(grids: dict[str, list[np.datetime64]]) -> str | None:
    """The frequency most of the points agree on (each item's inferred frequency weighted by its length)."""
    votes: Counter = Counter()
    for stamps in sorted(grids.values(), key=len, reverse=True)[:200]:
        unique = np.unique(np.array(stamps, dtype="datetime64[s]"))
        alias = infer_frequency(unique) if len(unique) >= 2 else None
        if alias is not None:
            votes[alias] += len(unique)
    return votes.most_common(1)[0][0] if votes else None


def _item_of(cell: Any) -> str:
    if cell is None:
        return ""
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    return str(cell).strip()


# --- the grid ---------------------------------------------------------------------------------


def _second(ts: Any) -> np.datetime64:
    """One timestamp as a datetime64[s] scalar."""
    return cast(np.datetime64, np.asarray(ts).astype("datetime64[s]")[()])


_FIXED_STEPS = {"min": 60, "5min": 300, "15min": 900, "30min": 1800, "h": 3600, "D": 86400, "W": 604800}


def grid_positions(frequency: Frequency, anchor: np.datetime64, stamps: np.ndarray) -> np.ndarray:
    """Each timestamp's step on the grid from ``anchor``; -1 when it is off the grid or before it."""
    stamps = np.asarray(stamps, dtype="datetime64[s]")
    out = np.full(len(stamps), -1, dtype=np.int64)
    if not len(stamps):
        return out
    anchor = _second(anchor)
    after = stamps >= anchor
    step = _FIXED_STEPS.get(frequency.alias)
    if step is not None:
        diff = (stamps - anchor).astype(np.int64)
        ok = after & (diff % step == 0)
        out[ok] = diff[ok] // step
        return out
    last = stamps.max()
    if last < anchor:
        return out
    months = int((last.astype("datetime64[M]") - anchor.astype("datetime64[M]")).astype(np.int64))
    grid = frequency.grid(anchor, months + 2)  # calendar steps are a month or more
    index = np.searchsorted(grid, stamps)
    inside = index < len(grid)
    ok = after & inside & (grid[np.minimum(index, len(grid) - 1)] == stamps)
    out[ok] = index[ok]
    return out


def _anchor(frequency: Frequency, stamps: np.ndarray) -> np.datetime64:
    """The grid's anchor for one item's sorted unique timestamps: of the first few (and the
    median) the one the most later timestamps are on the grid of (a stray first row does not shift
    a series off its grid)."""
    candidates = list(dict.fromkeys([*stamps[:3], stamps[len(stamps) // 2]]))
    best, best_count = stamps[0], -1
    for candidate in candidates:
        count = int((grid_positions(frequency, candidate, stamps) >= 0).sum())
        if count > best_count:
            best, best_count = candidate, count
    return _second(best)


@dataclass
class Item:
    """One item's observations on the grid: ``rows[position] = values`` (the last row wins)."""

    name: str
    start: np.datetime64
    rows: dict[int, dict] = field(default_factory=dict)
    off_grid: list[dict] = field(default_factory=list)
    length: int = 0  # grid points up to the last observation with a target value


def build_items(schema: dict, frequency: Frequency, values: Iterable[dict]) -> dict[str, Item]:
    """Group stored observations by item on the frequency's grid."""
    ts_column, series_column = schema["timestamp_column"], schema.get("series_column")
    grouped: dict[str, list[tuple[np.datetime64, dict]]] = defaultdict(list)
    for row in values:
        try:
            ts = _timestamp(row.get(ts_column))
        except (ValueError, TypeError, OverflowError):
            continue
        grouped[_item_of(row.get(series_column)) if series_column else ""].append((ts, row))
    items: dict[str, Item] = {}
    targets = schema["target_columns"]
    for name in sorted(grouped):
        pairs = grouped[name]
        found = np.array([ts for ts, _ in pairs], dtype="datetime64[s]")
        item = Item(name=name, start=_anchor(frequency, np.unique(found)))
        positions = grid_positions(frequency, item.start, found)
        for index in np.argsort(found, kind="stable"):
            row, position = pairs[index][1], int(positions[index])
            if position < 0:
                item.off_grid.append(row)
                continue
            item.rows[position] = row
            if position + 1 > item.length and any(row.get(t) is not None for t in targets):
                item.length = position + 1
        if item.length:
            items[name] = item
    return items


def item_splits(length: int, horizon: int) -> tuple[int, int]:
    """(val_start, test_start) of an item with ``length`` grid points: the last ``horizon`` test,
    the ``horizon`` before validation; an item shorter than ``2 * horizon + 2`` is train only."""
    if horizon <= 0 or length < 2 * horizon + 2:
        return length, length
    return length - 2 * horizon, length - horizon


def build_entries(
    schema: dict, frequency: Frequency, items: dict[str, Item], horizon: int = 0, only: set[str] | None = None
) -> list[TimeSeriesEntry]:
    """Each series' values on the grid from its first observation to its item's last one (None for
    gaps), known covariates on the same grid, static covariates, and the split indices."""
    entries: list[TimeSeriesEntry] = []
    targets = schema["target_columns"]
    known_columns = schema.get("known_covariates", [])
    static_columns = schema.get("static_covariates", [])
    for item in items.values():
        val_start, test_start = item_splits(item.length, horizon)
        static: dict[str, float | str | None] = {}
        for column in static_columns:
            cell = next(
                (row.get(column) for _, row in sorted(item.rows.items()) if row.get(column) is not None), None
            )
            number = as_number(cell) if cell is not None else None
            static[column] = number if number is not None else (None if cell is None else str(cell))
        for target in targets:
            name = series_name(schema, item.name, target)
            if only is not None and name not in only:
                continue
            raw: list[float | None] = [None] * item.length
            for position, row in item.rows.items():
                if position < item.length:
                    raw[position] = as_number(row.get(target))
            first = next((i for i, v in enumerate(raw) if v is not None), None)
            if first is None:
                continue
            values = raw[first:]
            known = {
                column: [
                    as_number(item.rows[p].get(column)) if p in item.rows else None
                    for p in range(first, item.length)
                ]
                for column in known_columns
            }
            own_val, own_test = val_start - first, test_start - first
            if own_val < 2 and own_test < len(values):  # the series starts too late for its item's split
                own_val = own_test = len(values)
            entries.append(
                {
                    "id": name,
                    "item": item.name,
                    "target": target,
                    "start": format_timestamp(frequency.grid(item.start, first + 1)[-1]),
                    "values": values,
                    "known": known,
                    "static": dict(static),
                    "val_start": own_val,
                    "test_start": own_test,
                }
            )
    return entries


def _manifest(
    schema: dict, frequency: Frequency, entries: list[TimeSeriesEntry], horizon: int
) -> TimeSeriesManifest:
    return {
        "kind": "time_series",
        "version": FORECASTING_VERSION,
        "frequency": frequency.alias,
        "horizon": horizon,
        "fill_rule": schema.get("fill_rule", "interpolate"),
        "timestamp_column": schema["timestamp_column"],
        "series_column": schema.get("series_column"),
        "target_columns": list(schema["target_columns"]),
        "known_covariates": list(schema.get("known_covariates", [])),
        "static_covariates": list(schema.get("static_covariates", [])),
        "series": entries,
    }


def _sample_values(dataset: Dataset, item: str | None = None) -> Iterable[dict]:
    samples = Sample.objects.filter(dataset=dataset)
    column = (dataset.schema or {}).get("series_column")
    if item is not None and column:
        samples = samples.alias(item_cell=KeyTextTransform(column, "values")).filter(item_cell=item)
    return (v for v in samples.order_by("pk").values_list("values", flat=True).iterator(chunk_size=5000) if v)


def time_series_profile(*, dataset: Dataset) -> TimeSeriesProfile | dict:
    """The dataset's profile over its current observations ({} before the first import)."""
    from workers.time_series.data import load_series
    from workers.time_series.profile import profile_series

    schema = dataset.schema or {}
    if schema.get("kind") != "time_series":
        return {}
    frequency = parse_frequency(schema["frequency"])
    items = build_items(schema, frequency, _sample_values(dataset))
    manifest = _manifest(schema, frequency, build_entries(schema, frequency, items), 0)
    _, series = load_series(manifest)
    return profile_series(frequency, series, schema.get("frequency_inferred"))


# --- the import -------------------------------------------------------------------------------


@dataclass
class Plan:
    schema: dict
    rows: list[Staged]
    warnings: list[dict]


def _resolve_mapping(dataset: Dataset, table: Table, mapping: dict) -> dict:
    """The import's mapping: the dataset's (a later import cannot change it) or the one given,
    with the timestamp and target columns guessed when left out."""
    schema = dataset.schema if (dataset.schema or {}).get("kind") == "time_series" else {}
    resolved: dict[str, Any] = {}
    if schema:
        for key in (
            "timestamp_column",
            "series_column",
            "target_columns",
            "known_covariates",
            "static_covariates",
        ):
            given = mapping.get(key)
            if given and given != schema.get(key):
                raise ImportRejected(
                    f"This dataset's {key} is {schema.get(key)!r}; a later import uses the same columns "
                    f"(got {given!r}).",
                    code="bad_mapping",
                    field=key,
                )
            resolved[key] = schema.get(key)
        for key in ("frequency", "fill_rule"):
            if mapping.get(key) and mapping[key] != schema.get(key):
                raise ImportRejected(
                    f"This dataset's {key} is {schema.get(key)!r}; change it on the dataset "
                    f"(PATCH /api/v1/datasets/{dataset.pk}/ with {{{key!r}: ...}}), not by an import.",
                    code="bad_mapping",
                    field=key,
                )
        missing = [
            c
            for c in [
                resolved["timestamp_column"],
                *([resolved["series_column"]] if resolved["series_column"] else []),
                *resolved["target_columns"],
                *resolved["known_covariates"],
                *resolved["static_covariates"],
            ]
            if c not in table.columns
        ]
        if missing:
            raise ImportRejected(
                "The file's columns differ from the dataset's: missing "
                f"{', '.join(map(repr, missing[:20]))}.",
                code="schema_mismatch",
                field="file",
                missing=missing,
                extra=[],
            )
        return resolved
    suggestion = None
    timestamp = mapping.get("timestamp_column")
    if timestamp:
        _column(table, timestamp, "timestamp_column", "timestamps")
    else:
        suggestion = suggest_mapping(table)
        timestamp = suggestion["timestamp_column"]
        if not timestamp:
            raise ImportRejected(
                "No timestamp column found: no column's cells read as dates or times. Choose it with "
                f"timestamp_column; the file's columns are {', '.join(repr(c) for c in table.columns[:30])}.",
                code="no_timestamp_column",
                field="timestamp_column",
                columns=table.columns[:200],
            )
    series = mapping.get("series_column")
    if series:
        _column(table, series, "series_column", "series ids")
    targets = mapping.get("target_columns") or []
    known = mapping.get("known_covariates") or []
    static = mapping.get("static_covariates") or []
    for column in targets:
        _column(table, column, "target_columns", "target")
    for column in known:
        _column(table, column, "known_covariates", "known covariate")
    for column in static:
        _column(table, column, "static_covariates", "static covariate")
    if not targets:
        candidates = _numeric_columns(table, {timestamp, *([series] if series else []), *known, *static})
        if len(candidates) != 1:
            raise ImportRejected(
                "Choose the target column(s) (target_columns): the numeric column(s) to forecast. "
                + (
                    f"Numeric columns: {', '.join(map(repr, candidates[:30]))}."
                    if candidates
                    else "The file has no numeric column besides the timestamp."
                ),
                code="no_target_columns",
                field="target_columns",
                candidates=candidates[:200],
            )
        targets = candidates
    roles = [timestamp, *([series] if series else []), *targets, *known, *static]
    repeated = sorted({c for c in roles if roles.count(c) > 1})
    if repeated:
        raise ImportRejected(
            f"A column can have one role only (timestamp, series id, target, known or static covariate); "
            f"{', '.join(map(repr, repeated))} has several.",
            code="bad_mapping",
            field="target_columns",
            columns=repeated,
        )
    if static and not series:
        raise ImportRejected(
            "Static covariates are per series id: choose the series column (series_column) too, or leave "
            "static_covariates out for a wide table.",
            code="bad_mapping",
            field="static_covariates",
        )
    return {
        "timestamp_column": timestamp,
        "series_column": series or None,
        "target_columns": targets,
        "known_covariates": known,
        "static_covariates": static,
    }


def plan_import(dataset: Dataset, table: Table, mapping: dict, problems: list[dict]) -> Plan:
    """Check the table's rows against the mapping: rows with a problem are reported (by row) and left
    out; the rest are staged. Refuses the whole file (ImportRejected) when the mapping does not fit it
    or its frequency cannot be told."""
    resolved = _resolve_mapping(dataset, table, mapping)
    existing_schema = dataset.schema if (dataset.schema or {}).get("kind") == "time_series" else {}
    ts_column, series_column = resolved["timestamp_column"], resolved["series_column"]
    targets, known = resolved["target_columns"], resolved["known_covariates"]
    # 1. each row on its own: a timestamp, a series id, numeric targets and known covariates
    parsed: list[tuple[int, str, np.datetime64, dict]] = []
    bad_target_rows = 0
    for number, row in enumerate(table.rows, start=1):
        cell = row[ts_column]
        if cell is None:
            problems.append(_problem(number, "bad_timestamp", f"the {ts_column!r} cell is empty"))
            continue
        try:
            ts = _timestamp(cell)
        except (ValueError, TypeError, OverflowError):
            problems.append(
                _problem(
                    number,
                    "bad_timestamp",
                    f"the {ts_column!r} cell {str(cell)[:60]!r} is not a date or time (ISO 8601 such as "
                    "2024-03-01 or 2024-03-01 10:00, year first with slashes such as 2024/03/01, or a "
                    "4-digit year)",
                )
            )
            continue
        item = _item_of(row[series_column]) if series_column else ""
        if series_column and not item:
            problems.append(_problem(number, "missing_series_id", f"the {series_column!r} cell is empty"))
            continue
        values = dict(row)
        values[ts_column] = _iso(ts)
        if series_column:
            values[series_column] = item
        bad = False
        for column, code, what in [(t, "non_numeric_target", "target") for t in targets] + [
            (k, "non_numeric_covariate", "known covariate") for k in known
        ]:
            cell = row[column]
            number_value = as_number(cell) if cell is not None else None
            if cell is not None and number_value is None:
                problems.append(
                    _problem(
                        number,
                        code,
                        f"the {what} {column!r} must be a number; the cell holds {str(cell)[:60]!r}",
                    )
                )
                bad = True
                break
            values[column] = number_value
        if bad:
            bad_target_rows += 1
            continue
        parsed.append((number, item, ts, values))
    # 2. duplicates: the same row again is a duplicate, another value at a series' timestamp a problem
    existing: dict[tuple[str, np.datetime64], str] = {}
    if existing_schema:
        stored_rows = Sample.objects.filter(dataset=dataset).values_list("values", "sha256")
        for stored, stored_sha in stored_rows.iterator(chunk_size=5000):
            if not stored:
                continue
            try:
                key = (
                    _item_of(stored.get(series_column)) if series_column else "",
                    _timestamp(stored.get(ts_column)),
                )
            except (ValueError, TypeError, OverflowError):
                continue
            existing[key] = stored_sha
    first_row: dict[tuple[str, np.datetime64], tuple[int, str]] = {}
    kept: list[tuple[int, str, np.datetime64, dict, str]] = []
    where = (lambda item: f" of series {item!r}") if series_column else (lambda item: "")
    canonical: dict[int, str] = {}
    for number, item, ts, values in parsed:
        canonical[number] = _canonical(values)
        sha = hashlib.sha256(canonical[number].encode()).hexdigest()
        key = (item, ts)
        if key in first_row:
            earlier, earlier_sha = first_row[key]
            if earlier_sha == sha:
                problems.append(
                    _problem(number, "duplicate", f"the same row as row {earlier} earlier in this file")
                )
            else:
                problems.append(
                    _problem(
                        number,
                        "duplicate_timestamp",
                        f"row {earlier} already has the timestamp {_iso(ts)}{where(item)} with "
                        "other values; keep one row per timestamp",
                    )
                )
            continue
        first_row[key] = (number, sha)
        if key in existing and existing[key] != sha:
            problems.append(
                _problem(
                    number,
                    "duplicate_timestamp",
                    f"the dataset already has the timestamp {_iso(ts)}{where(item)} with other "
                    "values; keep one row per timestamp",
                )
            )
            continue
        kept.append((number, item, ts, values, sha))
    # 3. the frequency, and rows off its grid
    stamps: dict[str, list[np.datetime64]] = defaultdict(list)
    for item, ts in existing:
        stamps[item].append(ts)
    for _, item, ts, _, _ in kept:
        stamps[item].append(ts)
    inferred = existing_schema.get("frequency_inferred") if existing_schema else _infer(stamps)
    alias = (existing_schema or {}).get("frequency") or mapping.get("frequency") or inferred
    if alias is None:
        if not kept:
            return Plan(schema={}, rows=[], warnings=[])
        raise ImportRejected(
            "The rows' timestamps follow no regular frequency that could be inferred (each series needs "
            "at least two timestamps with a common spacing). Choose the frequency: one of "
            f"{', '.join(FREQUENCIES)}.",
            code="unknown_frequency",
            field="frequency",
            allowed=list(FREQUENCIES),
        )
    frequency = parse_frequency(alias)
    anchors = {
        item: _anchor(frequency, np.unique(np.array(found, dtype="datetime64[s]")))
        for item, found in stamps.items()
    }
    rows: list[Staged] = []
    positions: dict[str, set[int]] = defaultdict(set)
    stored_by_item: dict[str, list[np.datetime64]] = defaultdict(list)
    for item, ts in existing:
        stored_by_item[item].append(ts)
    for item, found in stored_by_item.items():
        at = grid_positions(frequency, anchors[item], np.array(found, dtype="datetime64[s]"))
        positions[item].update(int(p) for p in at if p >= 0)
    kept_by_item: dict[str, list[int]] = defaultdict(list)
    for index, (_, item, _, _, _) in enumerate(kept):
        kept_by_item[item].append(index)
    kept_positions = np.full(len(kept), -1, dtype=np.int64)
    for item, indices in kept_by_item.items():
        item_stamps = np.array([kept[i][2] for i in indices], dtype="datetime64[s]")
        kept_positions[indices] = grid_positions(frequency, anchors[item], item_stamps)
    last_seen: dict[str, tuple[int, np.datetime64]] = {}
    unsorted: list[tuple[int, int, np.datetime64, np.datetime64, str]] = []
    for (number, item, ts, values, sha), position in zip(kept, kept_positions.tolist(), strict=True):
        if position < 0:
            problems.append(
                _problem(
                    number,
                    "off_grid_timestamp",
                    f"the timestamp {_iso(ts)}{where(item)} is not on the {alias} grid of the "
                    f"series' other timestamps (from {_iso(anchors[item])}); mixed frequencies?",
                )
            )
            continue
        positions[item].add(position)
        if item in last_seen and ts < last_seen[item][1] and len(unsorted) < MAX_WARNINGS:
            unsorted.append((number, last_seen[item][0], ts, last_seen[item][1], item))
        if item not in last_seen or ts > last_seen[item][1]:
            last_seen[item] = (number, ts)
        label = f"{item} " if item else ""
        rows.append(
            Staged(
                name=f"row {number}: {label}{_iso(ts)}"[:255],
                label=None,
                sha256=sha,
                fields={"format": "ROW", "size_bytes": len(canonical.pop(number)), "values": values},
            )
        )
    # 4. warnings: gaps in a series' grid, rows out of time order
    warnings: list[dict] = []
    for item in sorted(positions):
        taken = positions[item]
        if not taken:
            continue
        first, last = min(taken), max(taken)
        missing = (last - first + 1) - len(taken)
        if missing and len(warnings) < MAX_WARNINGS:
            grid = frequency.grid(anchors[item], last + 1)
            holes = [p for p in range(first, last + 1) if p not in taken]
            label = f"series {item!r}" if item else "the table"
            warnings.append(
                {
                    "file": label,
                    "code": "gap",
                    "message": f"{missing} timestamp{'s' if missing > 1 else ''} missing between "
                    f"{_iso(grid[first])} and {_iso(grid[last])} (first: "
                    f"{_iso(grid[holes[0]])}); their values are filled by the fill rule",
                    "action": "warning",
                }
            )
    if unsorted:
        number, earlier, ts, before, item = unsorted[0]
        warnings.append(
            {
                "file": f"row {number}",
                "code": "unsorted",
                "message": f"the timestamp {_iso(ts)}{where(item)} comes after row {earlier}'s "
                f"{_iso(before)}; rows are put in time order"
                + (f" ({len(unsorted)} rows out of order)" if len(unsorted) > 1 else ""),
                "action": "warning",
            }
        )
    schema: TimeSeriesSchema = {
        "kind": "time_series",
        "timestamp_column": ts_column,
        "series_column": series_column,
        "target_columns": list(targets),
        "known_covariates": list(known),
        "static_covariates": list(resolved["static_covariates"]),
        "frequency": alias,
        "frequency_inferred": inferred,
        "fill_rule": (existing_schema or {}).get("fill_rule") or mapping.get("fill_rule") or "interpolate",
    }
    return Plan(schema=dict(schema), rows=rows, warnings=warnings)


def _canonical(values: dict) -> str:
    return json.dumps(values, sort_keys=True, separators=(",", ":"), default=str)


def add_warnings(batch: ImportBatch, warnings: list[dict]) -> None:
    """Append an import's warnings (rows imported, but worth knowing about) after its problems."""
    if warnings:
        from datasets.services.imports import MAX_PROBLEMS_LISTED

        batch.problems = (list(batch.problems or []) + warnings)[: MAX_PROBLEMS_LISTED + MAX_WARNINGS + 1]
        batch.save(update_fields=["problems"])


# --- changing the frequency or fill rule ------------------------------------------------------


def time_series_settings_update(
    *, dataset: Dataset, frequency: str | None = None, fill_rule: str | None = None
) -> Dataset:
    """Change a forecasting dataset's frequency or fill rule and recompute its profile. A frequency
    that leaves observations off its grid is refused naming the first one."""
    from datasets.models import FORECASTING_TASKS

    if dataset.task_type not in FORECASTING_TASKS:
        raise field_error(
            "frequency" if frequency is not None else "fill_rule",
            "Only time-series forecasting datasets have a frequency and a fill rule.",
            code="not_forecasting",
        )
    with transaction.atomic():
        locked = Dataset.objects.select_for_update().get(pk=dataset.pk)
        schema = dict(locked.schema or {})
        if schema.get("kind") != "time_series":
            raise field_error(
                "frequency" if frequency is not None else "fill_rule",
                "Import a table first: the frequency and fill rule belong to the imported series.",
                code="no_series_yet",
            )
        if fill_rule is not None:
            if fill_rule not in FILL_RULES:
                raise field_error("fill_rule", f"Use one of {', '.join(FILL_RULES)}.", code="bad_fill_rule")
            schema["fill_rule"] = fill_rule
        if frequency is not None and frequency != schema["frequency"]:
            if frequency not in FREQUENCIES:
                raise field_error("frequency", f"Use one of {', '.join(FREQUENCIES)}.", code="bad_frequency")
            chosen = parse_frequency(frequency)
            items = build_items(schema, chosen, _sample_values(locked))
            for item in items.values():
                if item.off_grid:
                    row = item.off_grid[0]
                    where = f" of series {item.name!r}" if item.name else ""
                    raise field_error(
                        "frequency",
                        f"{len(item.off_grid)} observation(s){where} are not on a {frequency} grid, e.g. "
                        f"{row.get(schema['timestamp_column'])!r}; this dataset's timestamps do not fit it.",
                        code="frequency_mismatch",
                        off_grid=len(item.off_grid),
                    )
            schema["frequency"] = frequency
        locked.schema = schema
        locked.save(update_fields=["schema"])
        locked.profile = time_series_profile(dataset=locked)
        locked.save(update_fields=["profile"])
    dataset.schema, dataset.profile = locked.schema, locked.profile
    return dataset


# --- series points ----------------------------------------------------------------------------


def _split_series_id(schema: dict, series_id: str) -> tuple[str, str] | None:
    """(item, target) of a series id, or None when it cannot be one of this dataset's."""
    targets = schema["target_columns"]
    if not schema.get("series_column"):
        return ("", series_id) if series_id in targets else None
    if len(targets) == 1:
        return series_id, targets[0]
    item, _, target = series_id.rpartition("/")
    return (item, target) if item and target in targets else None


def series_points(
    *,
    dataset: Dataset,
    ids: Sequence[str],
    start: str | None = None,
    end: str | None = None,
    max_points: int = DEFAULT_MAX_POINTS,
) -> list[SeriesPoints]:
    """Each asked series' points between ``start`` and ``end`` (inclusive, ISO timestamps), every
    ``step``-th one so that at most ``max_points`` are answered. No id: the profile's longest series
    (none, [], before the first import and for datasets of other tasks)."""
    schema = dataset.schema or {}
    if schema.get("kind") != "time_series":
        if ids:
            raise field_error(
                "id", f"This dataset has no series {ids[0]!r} (it has no series).", code="unknown_series"
            )
        return []
    if not ids:
        listed = (dataset.profile or {}).get("series") or []
        ids = [listed[0]["id"]] if listed else []
    if len(ids) > MAX_SERIES_IDS:
        raise field_error("id", f"Ask for at most {MAX_SERIES_IDS} series at once.", code="too_many_series")
    bounds: list[np.datetime64 | None] = []
    for name, value in (("start", start), ("end", end)):
        if value:
            try:
                bounds.append(_timestamp(value))
            except (ValueError, OverflowError):
                raise field_error(
                    name, f"{value!r} is not an ISO 8601 date or time.", code="bad_timestamp"
                ) from None
        else:
            bounds.append(None)
    frequency = parse_frequency(schema["frequency"])
    wanted: dict[str, tuple[str, str]] = {}
    for series_id in ids:
        parts = None if "\x00" in series_id else _split_series_id(schema, series_id)
        if parts is None:
            raise field_error(
                "id", f"This dataset has no series {series_id!r}.", code="unknown_series", series=series_id
            )
        wanted[series_id] = parts
    answers: dict[str, SeriesPoints] = {}
    items_needed = {item for item, _ in wanted.values()}
    rows: Iterable[dict]
    if schema.get("series_column") and len(items_needed) == 1:
        rows = _sample_values(dataset, item=next(iter(items_needed)))
    else:
        rows = _sample_values(dataset)
    items = build_items(schema, frequency, rows)
    items = {name: item for name, item in items.items() if name in items_needed}
    for entry in build_entries(schema, frequency, items, only=set(wanted)):
        stamps = frequency.grid(parse_timestamp(entry["start"]), len(entry["values"]))
        mask = np.ones(len(stamps), dtype=bool)
        if bounds[0] is not None:
            mask &= stamps >= bounds[0]
        if bounds[1] is not None:
            mask &= stamps <= bounds[1]
        index = np.flatnonzero(mask)
        step = max(1, math.ceil(len(index) / max_points)) if len(index) else 1
        picked = index[::step]
        answers[entry["id"]] = {
            "id": entry["id"],
            "timestamps": [format_timestamp(stamps[i]) for i in picked],
            "values": [entry["values"][i] for i in picked],
            "total_points": int(len(index)),
            "step": step,
        }
    unknown = [series_id for series_id in wanted if series_id not in answers]
    if unknown:
        raise field_error(
            "id", f"This dataset has no series {unknown[0]!r}.", code="unknown_series", series=unknown[0]
        )
    return [answers[series_id] for series_id in wanted]


# --- versions ---------------------------------------------------------------------------------


def forecasting_version_create(
    *, dataset: Dataset, user, horizon: int | None, note: str = "", seed: int
) -> DatasetVersion:
    """Snapshot the observations with a split by time: in each item the last ``horizon`` grid steps
    are the test window, the ``horizon`` before them the validation window, the rest training; items
    shorter than ``2 * horizon + 2`` are training only (``counts["train"]["train_only_series"]``)."""
    from datasets.services.versions import _next_version_number

    if horizon is None:
        raise field_error(
            "horizon",
            "Forecasting versions need a horizon: how many steps ahead to forecast.",
            code="horizon_required",
        )
    if not 1 <= int(horizon) <= MAX_HORIZON:
        raise field_error("horizon", f"The horizon must be between 1 and {MAX_HORIZON}.", code="bad_horizon")
    horizon = int(horizon)
    with transaction.atomic():
        locked = Dataset.objects.select_for_update().get(pk=dataset.pk)
        schema = locked.schema or {}
        if schema.get("kind") != "time_series":
            raise field_error(
                "dataset", "The dataset has no observations; import a table before making a version."
            )
        frequency = parse_frequency(schema["frequency"])
        samples = list(
            Sample.objects.filter(dataset=locked)
            .order_by("pk")
            .values_list("pk", "values", "sha256", "original_name")
        )
        by_pk = {pk: values for pk, values, _, _ in samples if values}
        for pk, values in by_pk.items():
            values["\x00pk"] = pk
        items = build_items(schema, frequency, by_pk.values())
        longest = max(items.values(), key=lambda i: i.length, default=None)
        if longest is None or longest.length < 2 * horizon + 2:
            name = series_name(schema, longest.name, schema["target_columns"][0]) if longest else ""
            raise field_error(
                "horizon",
                f"No series is long enough for a horizon of {horizon}: a series needs at least "
                f"{2 * horizon + 2} steps (training, a validation and a test window of {horizon} each)"
                + (f"; the longest, {name!r}, has {longest.length}." if longest else "."),
                code="horizon_too_long",
                series=name,
                length=longest.length if longest else 0,
                needed=2 * horizon + 2,
            )
        splits: dict[int, str] = {}
        train_only = 0
        for item in items.values():
            val_start, test_start = item_splits(item.length, horizon)
            if val_start == item.length:
                train_only += 1
            for position, row in item.rows.items():
                if position >= item.length:
                    continue  # after the item's last target value (future covariates): not in the version
                split = (
                    Split.TEST
                    if position >= test_start
                    else Split.VAL
                    if position >= val_start
                    else Split.TRAIN
                )
                splits[row["\x00pk"]] = split
        for values in by_pk.values():
            values.pop("\x00pk", None)
        entries = build_entries(schema, frequency, items, horizon)
        series_per_split = {
            Split.TRAIN.value: len(entries),
            Split.VAL.value: sum(1 for e in entries if e["val_start"] < len(e["values"])),
            Split.TEST.value: sum(1 for e in entries if e["test_start"] < len(e["values"])),
        }
        observations = Counter(splits.values())
        train_only_series = sum(1 for e in entries if e["val_start"] >= len(e["values"]))
        counts = {
            s.value: {"observations": observations.get(s.value, 0), "series": series_per_split[s.value]}
            for s in Split
        }
        counts[Split.TRAIN.value]["train_only_series"] = train_only_series
        version = DatasetVersion.objects.create(
            dataset=locked,
            number=_next_version_number(locked),
            note=note,
            seed=seed,
            train_ratio=0.0,
            val_ratio=0.0,
            test_ratio=0.0,
            classes=[],
            schema=dict(schema),
            counts=counts,
            split_sizes={s.value: observations.get(s.value, 0) for s in Split},
            horizon=horizon,
            sample_count=len(splits),
            unlabeled_excluded=len(samples) - len(splits),
            created_by=user,
        )
        ordered = [(pk, sha, name) for pk, _, sha, name in samples if pk in splits]
        for chunk in chunks(ordered, 5000):
            VersionSample.objects.bulk_create(
                [
                    VersionSample(
                        version=version,
                        sample_id=pk,
                        split=splits[pk],
                        label_index=0,
                        label_name="",
                        blob_key="",
                        sha256=sha,
                        original_name=name,
                        values=by_pk[pk],
                    )
                    for pk, sha, name in chunk
                ]
            )
    return version


def forecasting_manifest(*, version: DatasetVersion) -> TimeSeriesManifest:
    """A forecasting version for the compute plane: every series on its grid with its split indices,
    rebuilt from the version's snapshot (later changes to the dataset never touch it)."""
    schema = version.schema
    frequency = parse_frequency(schema["frequency"])
    values = (
        v
        for v in VersionSample.objects.filter(version=version)
        .order_by("pk")
        .values_list("values", flat=True)
        .iterator(chunk_size=5000)
        if v
    )
    items = build_items(schema, frequency, values)
    horizon = int(version.horizon or 0)
    return _manifest(schema, frequency, build_entries(schema, frequency, items, horizon), horizon)
