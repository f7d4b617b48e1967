"""The offline forecasting data the tests and benchmarks use: the synthetic store-sales table
(workers.time_series.synthetic) and statsmodels' bundled real series (workers.time_series.bundled)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from workers.time_series import bundled, synthetic


def _by_store(rows):
    stores: dict[str, list[dict]] = {}
    for row in rows:
        stores.setdefault(row["store"], []).append(row)
    return stores


def test_multi_series_is_deterministic_long_format_with_covariates():
    rows = synthetic.multi_series(n_series=6, length=120, seed=3, intermittent=2)
    assert rows == synthetic.multi_series(n_series=6, length=120, seed=3, intermittent=2)
    assert rows != synthetic.multi_series(n_series=6, length=120, seed=4, intermittent=2)
    assert set(rows[0]) == {"date", "store", "sales", "price", "holiday", "region"}
    stores = _by_store(rows)
    assert sorted(stores) == ["s01", "s02", "s03", "s04", "s05", "s06"]
    for store_rows in stores.values():
        dates = np.array([r["date"] for r in store_rows], dtype="datetime64[D]")
        assert len(dates) == 120 and (np.diff(dates) == np.timedelta64(1, "D")).all()
        assert len({r["region"] for r in store_rows}) == 1  # static per store
        assert all(r["sales"] >= 0 for r in store_rows)
    # the last two stores are intermittent: mostly zeros, integer counts; the others rarely zero
    for store in ("s05", "s06"):
        sales = np.array([r["sales"] for r in stores[store]])
        assert (sales == 0).mean() > 0.3 and (sales == np.round(sales)).all()
    for store in ("s01", "s02", "s03", "s04"):
        assert np.mean([r["sales"] == 0 for r in stores[store]]) < 0.05


def test_multi_series_covariates_move_sales_and_weekly_season_shows():
    rows = synthetic.multi_series(n_series=8, length=364, seed=0, intermittent=0)
    for store_rows in _by_store(rows).values():
        sales = np.array([r["sales"] for r in store_rows])
        price = np.array([r["price"] for r in store_rows])
        holiday = np.array([r["holiday"] for r in store_rows])
        plain = (holiday == 0) & (price == price.max())
        # promotions (lower price) and holidays sell more than comparable plain days nearby
        promo = price < price.max()
        assert promo.any() and holiday.any()
        assert np.mean(sales[promo] / _local_mean(sales, plain)[promo]) > 1.2
        assert np.mean(sales[holiday == 1] / _local_mean(sales, plain)[holiday == 1]) > 1.2
        # weekly seasonality: the day-of-week profile of detrended plain days varies
        ratio = sales / _local_mean(sales, plain, 7)
        profile = [np.mean(ratio[plain & (np.arange(364) % 7 == d)]) for d in range(7)]
        assert max(profile) - min(profile) > 0.15


def _local_mean(sales, mask, half=10):
    out = np.empty(len(sales))
    for i in range(len(sales)):
        lo, hi = max(0, i - half), min(len(sales), i + half + 1)
        window = sales[lo:hi][mask[lo:hi]]
        out[i] = window.mean() if len(window) else sales[lo:hi].mean()
    return out


def test_multi_series_other_frequencies_and_without_covariates():
    rows = synthetic.multi_series(n_series=2, length=30, freq="MS", with_covariates=False, intermittent=0)
    assert set(rows[0]) == {"date", "store", "sales"}
    assert [r["date"] for r in rows[:3]] == ["2023-01-01", "2023-02-01", "2023-03-01"]
    hourly = synthetic.multi_series(n_series=1, length=3, freq="h")
    assert [r["date"] for r in hourly] == ["2023-01-02", "2023-01-02T01:00:00", "2023-01-02T02:00:00"]
    with pytest.raises(ValueError, match="frequencies"):
        synthetic.multi_series(freq="2D")


def test_synthetic_csv_and_manifest():
    rows = synthetic.multi_series(n_series=3, length=50, seed=1)
    text = synthetic.to_csv(rows)
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert len(parsed) == 150 and parsed[0]["store"] == "s01"
    assert float(parsed[7]["sales"]) == rows[7]["sales"]
    manifest = synthetic.manifest(rows, horizon=7)
    assert manifest["known_covariates"] == ["price", "holiday"]
    assert manifest["static_covariates"] == ["region"]
    entry = manifest["series"][0]
    assert entry["id"] == "s01" and entry["start"] == rows[0]["date"]
    assert (entry["val_start"], entry["test_start"]) == (36, 43) and len(entry["known"]["price"]) == 50
    short = synthetic.manifest(rows, horizon=20)["series"][0]
    assert short["val_start"] == short["test_start"] == 50  # too short for a test window: train only


@pytest.mark.parametrize(
    ("name", "freq", "length", "first", "last"),
    [
        ("co2", "W", 2284, "1958-03-29", "2001-12-29"),
        ("sunspots", "YS", 309, "1700-01-01", "2008-01-01"),
        ("elnino", "MS", 732, "1950-01-01", "2010-12-01"),
        ("nile", "YS", 100, "1871-01-01", "1970-01-01"),
        ("macrodata_realgdp", "QS", 203, "1959-01-01", "2009-07-01"),
    ],
)
def test_real_series_are_regular(name, freq, length, first, last):
    got_freq, points = bundled.real_series(name)
    assert got_freq == freq and len(points) == length
    assert points[0][0] == first and points[-1][0] == last
    stamps = np.array([ts for ts, _ in points], dtype="datetime64[D]")
    if freq == "W":
        assert (np.diff(stamps) == np.timedelta64(7, "D")).all()
    else:
        months = stamps.astype("datetime64[M]")
        step = {"YS": 12, "MS": 1, "QS": 3}[freq]
        assert (np.diff(months).astype(int) == step).all()
        assert (stamps == months.astype("datetime64[D]")).all()  # first of the month
    missing = sum(v is None for _, v in points)
    assert missing == (59 if name == "co2" else 0)


def test_real_csv_keeps_missing_cells_and_manifest_splits():
    text = bundled.to_csv("co2")
    lines = text.splitlines()
    assert lines[0] == "timestamp,value" and lines[1] == "1958-03-29,316.1" and len(lines) == 2285
    assert sum(line.endswith(",") for line in lines) == 59
    manifest = bundled.manifest("elnino")
    entry = manifest["series"][0]
    assert manifest["frequency"] == "MS" and manifest["horizon"] == 12
    assert (entry["val_start"], entry["test_start"]) == (708, 720)
    with pytest.raises(ValueError, match="bundled"):
        bundled.real_series("airline")
