"""Forecasting datasets through the API: long and wide tables (CSV, XLSX, Parquet) imported with the
time-series mapping, the preview's suggestions, every row problem reported by row with the rest
imported, gaps and unsorted rows as warnings, frequency inference and override, the profile, and a
later import held to the first one's columns."""

from __future__ import annotations

import io

import numpy as np
import pytest
from datasets.models import Dataset, Sample

from tests.datasets.factories import upload
from workers.time_series import bundled, synthetic

pytestmark = [pytest.mark.openapi_conformance, pytest.mark.django_db]

DATASETS = "/api/v1/datasets/"


def new_dataset(client, tenants, name: str = "Sales") -> int:
    response = client.post(
        DATASETS,
        {"project": tenants["project_a"].pk, "name": name, "task_type": "time_series_forecasting"},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["task_type"] == "time_series_forecasting"
    return response.json()["id"]


def import_file(client, dataset_id: int, name: str, data: bytes, **fields):
    return client.post(
        f"{DATASETS}{dataset_id}/imports/", {"file": upload(name, data), **fields}, format="multipart"
    )


def store_rows(n_series: int = 4, length: int = 60) -> list[dict]:
    return synthetic.multi_series(n_series=n_series, length=length, freq="D", seed=3, intermittent=1)


def test_long_csv_import_preview_schema_profile_and_series(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants)
    rows = store_rows()
    data = synthetic.to_csv(rows).encode()

    preview = client.post(
        f"{DATASETS}{dataset_id}/imports/preview/", {"file": upload("sales.csv", data)}, format="multipart"
    )
    assert preview.status_code == 200, preview.content
    suggested = preview.json()["suggested"]
    assert suggested["timestamp_column"] == "date"
    assert suggested["series_column"] == "store"
    assert suggested["frequency_inferred"] == "D"
    assert "sales" in suggested["target_candidates"] and "price" in suggested["target_candidates"]
    assert not Sample.objects.exists(), "a preview stores nothing"

    imported = import_file(
        client,
        dataset_id,
        "sales.csv",
        data,
        timestamp_column="date",
        series_column="store",
        target_columns=["sales"],
        known_covariates=["price", "holiday"],
        static_covariates=["region"],
    )
    assert imported.status_code == 201, imported.content
    batch = imported.json()
    assert batch["imported"] == len(rows) and batch["failed"] == 0
    assert batch["mapping"]["target_columns"] == ["sales"]
    assert batch["mapping"]["known_covariates"] == ["price", "holiday"]
    assert batch["mapping"]["frequency"] == "D"

    dataset = client.get(f"{DATASETS}{dataset_id}/").json()
    schema = dataset["schema"]
    assert schema == {
        "kind": "time_series",
        "timestamp_column": "date",
        "series_column": "store",
        "target_columns": ["sales"],
        "known_covariates": ["price", "holiday"],
        "static_covariates": ["region"],
        "frequency": "D",
        "frequency_inferred": "D",
        "fill_rule": "interpolate",
    }
    profile = client.get(f"{DATASETS}{dataset_id}/profile/").json()
    assert profile["kind"] == "time_series_profile" and profile["frequency"] == "D"
    assert profile["series_count"] == 4 and profile["observations"] == len(rows)
    assert profile["season_length"] == 7 and profile["longest"] == 60
    first = next(s for s in profile["series"] if s["id"] == "s01")
    sales = np.array([r["sales"] for r in rows if r["store"] == "s01"])
    assert first["mean"] == pytest.approx(sales.mean()) and first["length"] == 60
    assert first["start"] == rows[0]["date"][:10]
    # weekly seasonality built into the synthetic stores shows up in the decomposition
    assert max(s["seasonal_strength"] or 0 for s in profile["series"]) > 0.3

    points = client.get(f"{DATASETS}{dataset_id}/series/", {"id": ["s01", "s02"], "max_points": 25})
    assert points.status_code == 200, points.content
    answer = points.json()
    assert [p["id"] for p in answer] == ["s01", "s02"]
    assert answer[0]["total_points"] == 60 and answer[0]["step"] == 3 and len(answer[0]["values"]) == 20
    assert answer[0]["values"][1] == pytest.approx(sales[3])
    zoom = client.get(
        f"{DATASETS}{dataset_id}/series/",
        {"id": "s01", "start": answer[0]["timestamps"][1], "end": answer[0]["timestamps"][2]},
    ).json()[0]
    assert zoom["total_points"] == 4 and zoom["step"] == 1 and zoom["values"][0] == pytest.approx(sales[3])
    longest = client.get(f"{DATASETS}{dataset_id}/series/").json()
    assert len(longest) == 1 and longest[0]["total_points"] == 60
    unknown = client.get(f"{DATASETS}{dataset_id}/series/", {"id": "nope"})
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "unknown_series"
    assert client.get(f"{DATASETS}{dataset_id}/series/", {"max_points": "1"}).status_code == 400

    # the same file again: every row a duplicate, nothing lost; a file with other columns is refused
    again = import_file(client, dataset_id, "sales.csv", data)
    assert again.status_code == 201, again.content
    assert again.json()["imported"] == 0 and again.json()["duplicates"] == len(rows)
    other = import_file(client, dataset_id, "other.csv", b"date,store,units\n2024-01-01,s01,3\n")
    assert other.status_code == 400 and other.json()["error"]["code"] == "schema_mismatch"
    assert Sample.objects.filter(dataset_id=dataset_id).count() == len(rows)


def test_wide_table_with_several_targets_and_yearly_integer_timestamps(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants, "Sunspots")
    frequency, points = bundled.real_series("sunspots")
    assert frequency == "YS"
    lines = ["YEAR,SUNACTIVITY,DOUBLE"] + [
        f"{ts[:4]},{value},{2 * value}" for ts, value in points if value is not None
    ]
    data = ("\n".join(lines) + "\n").encode()
    imported = import_file(
        client,
        dataset_id,
        "sunspots.csv",
        data,
        timestamp_column="YEAR",
        target_columns=["SUNACTIVITY", "DOUBLE"],
    )
    assert imported.status_code == 201, imported.content
    schema = client.get(f"{DATASETS}{dataset_id}/").json()["schema"]
    assert schema["series_column"] is None and schema["frequency"] == "YS"
    profile = client.get(f"{DATASETS}{dataset_id}/profile/").json()
    assert {s["id"] for s in profile["series"]} == {"SUNACTIVITY", "DOUBLE"}
    assert profile["series"][0]["start"] == "1700-01-01" and profile["series"][0]["season_length"] == 1
    assert profile["series"][0]["seasonal_strength"] is None  # yearly data has no season
    points = client.get(f"{DATASETS}{dataset_id}/series/", {"id": "DOUBLE", "max_points": 10000}).json()[0]
    assert points["timestamps"][:2] == ["1700-01-01", "1701-01-01"]
    assert points["values"][1] == pytest.approx(2 * points_value(points_of=points, year=1701, data=lines))


def points_value(*, points_of: dict, year: int, data: list[str]) -> float:
    row = next(line for line in data[1:] if line.startswith(f"{year},"))
    return float(row.split(",")[1])


def test_row_problems_are_reported_by_row_and_the_rest_imported(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants)
    text = (
        "date,store,sales\n"
        "2024-01-01,a,1\n"
        "2024-01-02,a,2\n"
        "2024-01-03,a,3\n"
        "2024-01-05,a,5\n"  # row 4: a gap (01-04 missing): a warning
        "not a date,a,6\n"  # row 5: bad timestamp
        "2024-01-06,a,lots\n"  # row 6: non-numeric target
        "2024-01-02,a,20\n"  # row 7: the same timestamp with another value
        "2024-01-02,a,2\n"  # row 8: an identical row: a duplicate
        "2024-01-06 12:00,a,7\n"  # row 9: off the daily grid
        "2024-01-02,b,1\n"
        "2024-01-01,b,1\n"  # row 11: before row 10's timestamp of b: unsorted (a warning)
        "2024-01-03,b,\n"  # row 12: an empty target is a missing value, imported
        "2024-01-04,,4\n"  # row 13: no series id
    )
    imported = import_file(
        client, dataset_id, "sales.csv", text.encode(), timestamp_column="date", series_column="store"
    )
    assert imported.status_code == 201, imported.content
    batch = imported.json()
    codes = {p["file"]: p["code"] for p in batch["problems"]}
    assert codes["row 5"] == "bad_timestamp"
    assert codes["row 6"] == "non_numeric_target"
    assert codes["row 7"] == "duplicate_timestamp"
    assert codes["row 8"] == "duplicate"
    assert codes["row 9"] == "off_grid_timestamp"
    assert codes["row 13"] == "missing_series_id"
    assert codes["series 'a'"] == "gap" and codes["row 11"] == "unsorted"
    warnings = [p for p in batch["problems"] if p.get("action") == "warning"]
    assert {w["code"] for w in warnings} == {"gap", "unsorted"}
    assert "2024-01-04" in next(w["message"] for w in warnings if w["code"] == "gap")
    assert batch["imported"] == 7 and batch["failed"] == 5 and batch["duplicates"] == 1
    assert batch["problems_total"] == 6  # warnings are not problems: their rows were imported
    profile = client.get(f"{DATASETS}{dataset_id}/profile/").json()
    a = next(s for s in profile["series"] if s["id"] == "a")
    assert a["length"] == 5 and a["missing"] == 1
    b = next(s for s in profile["series"] if s["id"] == "b")
    assert b["length"] == 2  # the empty last target is after b's last value
    series_a = client.get(f"{DATASETS}{dataset_id}/series/", {"id": "a"}).json()[0]
    assert series_a["values"] == [1.0, 2.0, 3.0, None, 5.0]

    # a file whose every row is bad stores nothing and says why, row by row
    bad = import_file(client, dataset_id, "bad.csv", b"date,store,sales\nsoon,a,1\nlater,a,2\n")
    assert bad.status_code == 400, bad.content
    error = bad.json()["error"]
    assert error["code"] == "nothing_imported" and error["details"]["problems"][0]["code"] == "bad_timestamp"
    assert Sample.objects.filter(dataset_id=dataset_id).count() == 7


def test_mapping_refusals(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants)
    data = b"date,store,sales,price\n2024-01-01,a,1,2\n2024-01-02,a,2,2\n"
    missing = import_file(client, dataset_id, "s.csv", data, timestamp_column="when", series_column="store")
    assert missing.status_code == 400 and missing.json()["error"]["code"] == "no_such_column"
    ambiguous = import_file(client, dataset_id, "s.csv", data, series_column="store")
    assert ambiguous.status_code == 400 and ambiguous.json()["error"]["code"] == "no_target_columns"
    assert ambiguous.json()["error"]["details"]["candidates"] == ["sales", "price"]
    twice = import_file(
        client,
        dataset_id,
        "s.csv",
        data,
        series_column="store",
        target_columns=["sales"],
        known_covariates=["sales"],
    )
    assert twice.status_code == 400 and twice.json()["error"]["code"] == "bad_mapping"
    irregular = import_file(
        client,
        dataset_id,
        "s.csv",
        b"date,sales\n2024-01-01,1\n2024-01-03,2\n2024-01-06,3\n2024-01-10,4\n",
    )
    assert irregular.status_code == 400 and irregular.json()["error"]["code"] == "unknown_frequency"
    bad_frequency = import_file(
        client, dataset_id, "s.csv", data, series_column="store", frequency="fortnight"
    )
    assert bad_frequency.status_code == 400
    assert not Sample.objects.filter(dataset_id=dataset_id).exists()
    assert Dataset.objects.get(pk=dataset_id).schema == {}


def test_frequency_override_and_change_recompute_the_profile(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants)
    # weekly data on Mondays
    dates = np.arange(np.datetime64("2024-01-01"), np.datetime64("2024-12-30"), np.timedelta64(7, "D"))
    data = ("date,y\n" + "".join(f"{d},{i % 5}\n" for i, d in enumerate(dates))).encode()
    inferred = import_file(client, dataset_id, "w.csv", data)
    assert inferred.status_code == 201, inferred.content
    assert client.get(f"{DATASETS}{dataset_id}/").json()["schema"]["frequency"] == "W"

    daily = client.patch(f"{DATASETS}{dataset_id}/", {"frequency": "D", "fill_rule": "zero"}, format="json")
    assert daily.status_code == 200, daily.content
    assert daily.json()["schema"]["frequency"] == "D" and daily.json()["schema"]["fill_rule"] == "zero"
    assert daily.json()["schema"]["frequency_inferred"] == "W"
    profile = client.get(f"{DATASETS}{dataset_id}/profile/").json()
    assert profile["frequency"] == "D" and profile["longest"] == 7 * (len(dates) - 1) + 1
    assert profile["series"][0]["missing"] == 6 * (len(dates) - 1)

    monthly = client.patch(f"{DATASETS}{dataset_id}/", {"frequency": "MS"}, format="json")
    assert monthly.status_code == 400 and monthly.json()["error"]["code"] == "frequency_mismatch"
    assert client.get(f"{DATASETS}{dataset_id}/").json()["schema"]["frequency"] == "D"

    tabular = client.post(
        DATASETS,
        {"project": tenants["project_a"].pk, "name": "T", "task_type": "tabular_regression"},
        format="json",
    ).json()["id"]
    refused = client.patch(f"{DATASETS}{tabular}/", {"frequency": "D"}, format="json")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "not_forecasting"

    # an override given with the first import wins over the inferred frequency
    other = new_dataset(client, tenants, "Daily")
    forced = import_file(client, other, "w.csv", data, frequency="D")
    assert forced.status_code == 201, forced.content
    schema = client.get(f"{DATASETS}{other}/").json()["schema"]
    assert schema["frequency"] == "D" and schema["frequency_inferred"] == "W"


@pytest.mark.parametrize("kind", ["xlsx", "parquet"])
def test_xlsx_and_parquet_long_tables(tenants, api_client, isolated_storage, kind):
    import pandas as pd

    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants, f"Sales {kind}")
    rows = store_rows(n_series=3, length=30)
    frame = pd.DataFrame(rows)
    frame["date"] = pd.to_datetime(frame["date"])  # real date cells
    out = io.BytesIO()
    if kind == "xlsx":
        frame.to_excel(out, index=False)
    else:
        frame.to_parquet(out, index=False)
    imported = import_file(
        client,
        dataset_id,
        f"sales.{kind}",
        out.getvalue(),
        timestamp_column="date",
        series_column="store",
        target_columns=["sales"],
        known_covariates=["price"],
    )
    assert imported.status_code == 201, imported.content
    assert imported.json()["imported"] == 90 and imported.json()["failed"] == 0
    profile = client.get(f"{DATASETS}{dataset_id}/profile/").json()
    assert profile["frequency"] == "D" and profile["series_count"] == 3 and profile["longest"] == 30


def test_a_background_import_keeps_the_mapping_for_its_job(tenants, api_client, isolated_storage):
    from datasets.models import ImportBatch
    from datasets.services.import_job import import_batch_run

    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants)
    rows = store_rows(n_series=2, length=40)
    queued = import_file(
        client,
        dataset_id,
        "sales.csv",
        synthetic.to_csv(rows).encode(),
        background="true",
        series_column="store",
        target_columns=["sales"],
        known_covariates=["price"],
        fill_rule="zero",
    )
    assert queued.status_code == 202, queued.content
    assert queued.json()["mapping"]["fill_rule"] == "zero"
    batch = ImportBatch.objects.select_related("job").get(pk=queued.json()["id"])
    result = import_batch_run(batch_id=batch.pk, job=batch.job, report=lambda *a, **k: None)
    assert result["imported"] == 80 and result["failed"] == 0
    schema = client.get(f"{DATASETS}{dataset_id}/").json()["schema"]
    assert schema["fill_rule"] == "zero" and schema["known_covariates"] == ["price"]
    assert client.get(f"{DATASETS}{dataset_id}/profile/").json()["series_count"] == 2
    # the pages every dataset has work for observations too
    assert client.get(f"{DATASETS}{dataset_id}/statistics/").status_code == 200
    listed = client.get(f"{DATASETS}{dataset_id}/samples/", {"page_size": 2}).json()
    assert listed["count"] == 80 and listed["results"][0]["values"]["store"] == "s01"


def test_long_table_with_two_targets_names_series_item_slash_target(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants, "Two targets")
    text = "month,shop,units,revenue\n" + "".join(
        f"2023-{m:02d}-01,{shop},{m + k},{10 * (m + k)}\n"
        for k, shop in enumerate(("x/1", "y"))
        for m in range(1, 13)
    )
    imported = import_file(
        client, dataset_id, "m.csv", text.encode(), series_column="shop", target_columns=["units", "revenue"]
    )
    assert imported.status_code == 201, imported.content
    profile = client.get(f"{DATASETS}{dataset_id}/profile/").json()
    assert profile["frequency"] == "MS" and profile["series_count"] == 4
    assert {s["id"] for s in profile["series"]} == {"x/1/units", "x/1/revenue", "y/units", "y/revenue"}
    points = client.get(f"{DATASETS}{dataset_id}/series/", {"id": ["x/1/revenue", "y/units"]}).json()
    assert points[0]["values"][:2] == [10.0, 20.0] and points[1]["values"][:2] == [2.0, 3.0]
    assert points[0]["timestamps"][:2] == ["2023-01-01", "2023-02-01"]


def test_the_preview_takes_a_year_column_but_not_numbers_that_look_like_years(
    tenants, api_client, isolated_storage
):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants, "Years")
    data = b"units,YEAR,price\n" + b"".join(f"{1500 + i},{1900 + i},{2.5 + i}\n".encode() for i in range(30))
    preview = client.post(
        f"{DATASETS}{dataset_id}/imports/preview/", {"file": upload("y.csv", data)}, format="multipart"
    )
    suggested = preview.json()["suggested"]
    assert suggested["timestamp_column"] == "YEAR" and suggested["timestamp_candidates"] == ["YEAR"]
    assert suggested["frequency_inferred"] == "YS" and suggested["series_column"] is None
    assert suggested["target_candidates"] == ["units", "price"]
    imported = import_file(
        client, dataset_id, "y.csv", data, target_columns=["units"], known_covariates=["price"]
    )
    assert imported.status_code == 201, imported.content
    assert imported.json()["mapping"]["timestamp_column"] == "YEAR"


def test_series_query_refusals(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants, "Refusals")
    assert client.get(f"{DATASETS}{dataset_id}/series/").json() == []  # nothing imported yet
    none_yet = client.get(f"{DATASETS}{dataset_id}/series/", {"id": "a"})
    assert none_yet.status_code == 400 and none_yet.json()["error"]["code"] == "unknown_series"
    import_file(
        client, dataset_id, "s.csv", b"date,store,y\n2024-01-01,a,1\n2024-01-02,a,2\n", series_column="store"
    )
    series = f"{DATASETS}{dataset_id}/series/"
    for params, code in (
        ({"id": "a\x00"}, "unknown_series"),
        ({"id": "a", "start": "0001-01-01T00:00+14:00"}, "bad_timestamp"),
        ({"id": "a", "end": "yesterday"}, "bad_timestamp"),
        ({"id": [f"s{i}" for i in range(21)]}, "too_many_series"),
    ):
        answer = client.get(series, params)
        assert answer.status_code == 400, (params, answer.content)
        assert answer.json()["error"]["code"] == code, (params, answer.content)
    assert client.get(series, {"id": "a", "max_points": "many"}).status_code == 400
    assert client.get(series, {"id": "a"}).json()[0]["values"] == [1.0, 2.0]


def test_year_first_dates_with_slashes_import_and_day_first_ones_are_row_problems(
    tenants, api_client, isolated_storage
):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants, "Slashes")
    text = "day,y\n2024/1/1,1\n2024/01/02,2\n2024.01.03,3\n04/01/2024,4\n"
    imported = import_file(client, dataset_id, "s.csv", text.encode(), timestamp_column="day")
    assert imported.status_code == 201, imported.content
    batch = imported.json()
    assert batch["imported"] == 3 and [p["code"] for p in batch["problems"]] == ["bad_timestamp"]
    assert batch["problems"][0]["file"] == "row 4" and "2024/03/01" in batch["problems"][0]["message"]
    points = client.get(f"{DATASETS}{dataset_id}/series/").json()[0]
    assert points["timestamps"] == ["2024-01-01", "2024-01-02", "2024-01-03"]
