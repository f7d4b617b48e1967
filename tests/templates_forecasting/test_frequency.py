"""The forecasting grid: calendar arithmetic, spacing inference, timestamp parsing, and the
manifest's series with missing values filled by the fill rule and skipped by metrics."""

from __future__ import annotations

import numpy as np
import pytest

from workers.contracts.forecasting import FREQUENCIES
from workers.time_series.data import fill_missing, load_series
from workers.time_series.frequency import (
    SEASON_LENGTHS,
    FrequencyError,
    format_timestamp,
    infer_frequency,
    parse_frequency,
    parse_timestamp,
)


def iso(values: np.ndarray) -> list[str]:
    return [format_timestamp(v) for v in values]


def test_every_contract_frequency_has_a_season_length() -> None:
    assert set(SEASON_LENGTHS) == set(FREQUENCIES)
    with pytest.raises(FrequencyError, match="MS"):
        parse_frequency("M")


def test_month_ends_follow_the_calendar_and_leap_years() -> None:
    me = parse_frequency("ME")
    assert iso(me.after(parse_timestamp("2024-01-31"), 3)) == ["2024-02-29", "2024-03-31", "2024-04-30"]
    assert iso(me.grid(parse_timestamp("2023-11-30"), 3)) == ["2023-11-30", "2023-12-31", "2024-01-31"]
    qe = parse_frequency("QE")
    assert iso(qe.after(parse_timestamp("2023-12-31"), 2)) == ["2024-03-31", "2024-06-30"]
    assert qe.offset(parse_timestamp("2023-12-31"), parse_timestamp("2024-09-30")) == 3
    assert qe.offset(parse_timestamp("2023-12-31"), parse_timestamp("2024-08-31")) is None


def test_month_starts_quarters_and_years() -> None:
    ms = parse_frequency("MS")
    assert iso(ms.after(parse_timestamp("1958-11-01"), 3)) == ["1958-12-01", "1959-01-01", "1959-02-01"]
    assert ms.offset(parse_timestamp("1958-03-01"), parse_timestamp("1960-03-01")) == 24
    assert ms.offset(parse_timestamp("1958-03-01"), parse_timestamp("1958-01-01")) == -2
    assert ms.offset(parse_timestamp("1958-03-01"), parse_timestamp("1958-04-02")) is None
    ys = parse_frequency("YS")
    assert iso(ys.grid(parse_timestamp(1700), 3)) == ["1700-01-01", "1701-01-01", "1702-01-01"]
    assert iso(parse_frequency("QS").after(parse_timestamp("2020-10-01"), 2)) == ["2021-01-01", "2021-04-01"]


def test_fixed_steps_and_offsets() -> None:
    h = parse_frequency("h")
    start = parse_timestamp("2024-03-30 22:00")
    assert iso(h.after(start, 3)) == ["2024-03-30T23:00:00", "2024-03-31", "2024-03-31T01:00:00"]
    assert h.offset(start, parse_timestamp("2024-03-31T04:00:00")) == 6
    assert h.offset(start, parse_timestamp("2024-03-31T04:30:00")) is None
    w = parse_frequency("W")
    assert iso(w.after(parse_timestamp("2024-01-03"), 2)) == ["2024-01-10", "2024-01-17"]
    assert parse_frequency("15min").offset(start, parse_timestamp("2024-03-30T22:45")) == 3


@pytest.mark.parametrize("alias", FREQUENCIES)
def test_inference_recovers_each_frequency_despite_gaps(alias: str) -> None:
    start = {"ME": "2001-01-31", "QE": "2001-03-31", "YE": "2001-12-31"}.get(alias, "2001-01-01")
    grid = parse_frequency(alias).grid(parse_timestamp(start), 40)
    with_gaps = np.delete(grid, [5, 6, 20])
    assert infer_frequency(with_gaps) == alias


def test_inference_gives_none_for_unknown_spacings() -> None:
    two_days = parse_timestamp("2020-01-01") + np.arange(20) * np.timedelta64(2, "D")
    assert infer_frequency(two_days) is None
    assert infer_frequency(two_days[:1]) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-01", "2024-03-01"),
        ("2024-03", "2024-03-01"),
        ("2024-03-01T10:30", "2024-03-01T10:30:00"),
        ("2024-03-01 10:30:15", "2024-03-01T10:30:15"),
        ("2024-03-01T10:30:15Z", "2024-03-01T10:30:15"),
        ("2024-03-01T10:30:15+02:00", "2024-03-01T08:30:15"),
        (1700, "1700-01-01"),
        ("1749", "1749-01-01"),
        (1749.0, "1749-01-01"),
    ],
)
def test_timestamps_parse(text: object, expected: str) -> None:
    assert format_timestamp(parse_timestamp(text)) == expected


@pytest.mark.parametrize("bad", ["yesterday", "2024-13-01", "2024-02-30", 17, 3.5, None, True, "24-01-01"])
def test_bad_timestamps_are_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        parse_timestamp(bad)


def test_fill_rules() -> None:
    raw = np.array([np.nan, 2.0, np.nan, np.nan, 8.0, np.nan])
    assert fill_missing(raw, "interpolate")[1:].tolist() == [2.0, 4.0, 6.0, 8.0, 8.0]
    assert fill_missing(raw, "forward_fill")[1:].tolist() == [2.0, 2.0, 2.0, 8.0, 8.0]
    assert fill_missing(raw, "zero")[1:].tolist() == [2.0, 0.0, 0.0, 8.0, 0.0]
    assert np.isnan(fill_missing(raw, "zero")[0])
    with pytest.raises(ValueError):
        fill_missing(raw, "mean")


def test_load_series_trims_leading_missing_values_and_shifts_the_splits() -> None:
    manifest = {
        "kind": "time_series",
        "version": 1,
        "frequency": "MS",
        "horizon": 2,
        "fill_rule": "interpolate",
        "timestamp_column": "month",
        "series_column": "store",
        "target_columns": ["sales"],
        "known_covariates": ["price"],
        "static_covariates": ["region"],
        "series": [
            {
                "id": "s1",
                "item": "s1",
                "target": "sales",
                "start": "2020-01-01",
                "values": [None, None, 1.0, None, 3.0, 4.0, 5.0, 6.0],
                "known": {"price": [None, 2.0, None, 3.0, None, None, 4.0, None, 5.0, 5.0]},
                "static": {"region": "north"},
                "val_start": 4,
                "test_start": 6,
            },
            {
                "id": "empty",
                "item": "empty",
                "target": "sales",
                "start": "2020-01-01",
                "values": [None, None],
                "known": {},
                "static": {},
                "val_start": 2,
                "test_start": 2,
            },
        ],
    }
    frequency, series = load_series(manifest)  # type: ignore[arg-type]
    assert frequency.alias == "MS" and frequency.season_length == 12
    assert [s.id for s in series] == ["s1"]
    s = series[0]
    assert iso(s.timestamps)[:2] == ["2020-03-01", "2020-04-01"] and len(s) == 6
    assert s.values.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert s.observed.tolist() == [True, False, True, True, True, True]
    assert (s.val_start, s.test_start) == (2, 4)
    assert s.known["price"].tolist() == [2.0, 3.0, 3.0, 3.0, 4.0, 4.0]
    assert s.static == {"region": "north"}


def test_formatting_many_timestamps_at_once_matches_one_by_one() -> None:
    from workers.time_series.frequency import format_timestamps

    grid = parse_frequency("30min").grid(parse_timestamp("2024-02-28T22:00"), 8)
    assert format_timestamps(grid) == [format_timestamp(t) for t in grid]
    assert format_timestamps(grid)[4] == "2024-02-29"
