"""Batch prediction's columnar table path (``workers.serving.batch``): a table's columns are held to
the model's contract and encoded at once (``encode_columns``); a row that check flags goes through
the hosted API's per-row check, so a table with a few bad rows still gives each of them an error row
naming its problem, exactly as the hosted API names it, and every other row the hosted API's answer.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest

from workers.progress import silent_report
from workers.serving.batch import run
from workers.serving.predictors import load_predictor, predict_instances
from workers.serving.protocol import PredictionInputError
from workers.tabular.encoding import RowContractError, check_row, encode, encode_columns


def test_the_column_check_accepts_exactly_the_rows_check_row_accepts_unimputed_and_encodes_them_alike():
    spec = {
        "kind": "tabular",
        "version": 1,
        "width": 9,
        "features": [
            {"name": "n", "type": "numeric", "fill": 2.0, "mean": 1.5, "std": 2.0, "indicator": True},
            {"name": "m", "type": "numeric", "fill": 0.0, "mean": -3.0, "std": 0.5, "indicator": False},
            {"name": "c", "type": "categorical", "categories": ["1", "Bern", "Zurich"], "missing": True},
            {
                "name": "d",
                "type": "datetime",
                "fill": 19000.0,
                "mean": 19500.0,
                "std": 300.0,
                "indicator": False,
            },
        ],
    }
    numbers = [
        1,
        2.5,
        "3",
        " 4.5 ",
        "12,345.5",
        "1,5",
        "abc",
        "",
        "NA",
        "nan",
        "inf",
        float("nan"),
        None,
        True,
        [1],
        "1e3",
        "1_0",
        -0.0,
    ]
    categories = ["Bern", " Zurich ", "Basel", 1, 1.0, 2.5, "", "n/a", None, float("inf"), False, {"a": 1}]
    dates = ["2024-05-31", "2024/05/31", "2024-05-31 12:00", "31.05.2024", "", None, 3]
    rows = [
        {
            "n": numbers[i % len(numbers)],
            "m": numbers[(i * 7 + 3) % len(numbers)],
            "c": categories[i % len(categories)],
            "d": dates[i % len(dates)],
        }
        for i in range(len(numbers) * len(categories) * len(dates))
    ]
    rows += [{"n": 1.0, "m": 2.0, "c": "Bern", "d": "2024-01-01"}] * 3
    columns = {name: [row[name] for row in rows] for name in ("n", "m", "c", "d")}
    matrix, clean = encode_columns(spec, columns, len(rows))
    assert clean.sum() > 20 and (~clean).sum() > 20
    for r, row in enumerate(rows):
        try:
            accepted = check_row(spec, row) == []
        except RowContractError:
            accepted = False
        assert bool(clean[r]) == accepted, row
        if accepted:
            assert np.array_equal(matrix[r], encode(spec, [row])[0]), row
    # a column the table lacks: no row is clean (each is checked, and named, one by one)
    _, clean = encode_columns(spec, {k: v for k, v in columns.items() if k != "d"}, len(rows))
    assert not clean.any()


@pytest.fixture(scope="module")
def tabular_model(tmp_path_factory):
    from tests.packages.test_text_and_tabular_server_packages import train_tabular

    work = tmp_path_factory.mktemp("columnar")
    _, (result, instances) = train_tabular("tabular_classification", work)
    directory = work / "served"
    directory.mkdir()
    (directory / "model.onnx").write_bytes(Path(result["onnx"]).read_bytes())
    (directory / "preprocess.json").write_text(json.dumps(result["preprocessing"]))
    (directory / "labels.json").write_text(json.dumps(result["classes"]))
    (directory / "manifest.json").write_text(json.dumps({"template": "tabular_classification"}))
    columns = [f["name"] for f in result["preprocessing"]["features"]]
    rows = [{c: row.get(c) for c in columns} for row in instances]
    return directory, columns, rows


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_table_with_a_few_bad_rows_gives_them_error_rows_and_the_rest_the_hosted_answers(
    tabular_model, tmp_path, fmt
):
    directory, columns, test_rows = tabular_model
    # columns[0] had gaps in training (imputable); the others are required
    rows = [dict(test_rows[i % len(test_rows)]) for i in range(150)]
    rows[3][columns[0]] = None  # imputed: predicted, and says so
    rows[7][columns[2]] = "abc"  # a non-number in a numeric column
    rows[70][columns[4]] = None  # a required column without a value
    rows[71][columns[1]] = "NA"  # a missing marker in a required column
    rows[140][columns[3]] = "1,5"  # neither a number nor one with thousands separators
    bad = {7, 70, 71, 140}
    imputed = {i for i, row in enumerate(rows) if row[columns[0]] is None}
    assert 3 in imputed and len(imputed) < 100
    path = tmp_path / f"rows.{fmt}"
    if fmt == "csv":
        with path.open("w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["id", *columns])
            for i, row in enumerate(rows):
                writer.writerow([i + 1, *["" if row[c] is None else row[c] for c in columns]])
    else:
        path.write_text("".join(json.dumps({"id": i + 1, **row}) + "\n" for i, row in enumerate(rows)))

    summary = run(
        {
            "kind": "batch_input",
            "version": 1,
            "template": "tabular_classification",
            "model_dir": str(directory),
            "table": str(path),
            "labeled": False,
        },
        {"top_k": 3, "formats": ["jsonl", "csv", "parquet"]},
        tmp_path / "out",
        silent_report,
    )
    assert (summary["rows"], summary["predicted"], summary["errors"]) == (150, 146, 4)
    results = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in results] == list(range(1, 151))

    predictor = load_predictor(directory)
    for i, (row, result) in enumerate(zip(rows, results, strict=True)):
        # the hosted API, one request per row; CSV cells are text, as the request would send them
        sent = {c: (None if v is None else str(v)) for c, v in row.items()} if fmt == "csv" else row
        try:
            answers, details = predict_instances(predictor, [sent], 3)
        except PredictionInputError as exc:
            assert i in bad
            assert result == {
                "id": i + 1,
                "name": str(i + 1),
                "error": exc.message.replace("instances[0]", str(i + 1)),
            }
            continue
        assert i not in bad
        prediction = result["prediction"]
        assert (
            prediction["imputed"]
            == details[0]["imputed"]
            == ([columns[0]] if row[columns[0]] is None else [])
        )
        assert [(e["index"], e["label"]) for e in prediction["top_k"]] == [
            (e["index"], e["label"]) for e in answers[0]
        ]
        assert [e["score"] for e in prediction["top_k"]] == pytest.approx(
            [e["score"] for e in answers[0]], rel=1e-5, abs=1e-7
        )
    errors = {r["id"] - 1: r["error"] for r in results if "error" in r}
    assert f"column '{columns[2]}' must be a finite number, got 'abc'" in errors[7]
    assert f"has no value for '{columns[4]}'" in errors[70]
    assert f"has no value for '{columns[1]}'" in errors[71]
    assert f"column '{columns[3]}' must be a finite number, got '1,5'" in errors[140]

    table = list(csv.DictReader((tmp_path / "out" / "results.csv").open(newline="")))
    assert [t["error"] for t in table] == [results[i].get("error", "") for i in range(150)]
    assert all(
        json.loads(t["top_k"]) == r["prediction"]["top_k"]
        and t["label"] == r["prediction"]["top_k"][0]["label"]
        for t, r in zip(table, results, strict=True)
        if "prediction" in r
    )
    import pyarrow.parquet as pq

    frame = pq.read_table(tmp_path / "out" / "results.parquet").to_pandas()
    assert list(frame["id"]) == list(range(1, 151))
    assert [math.isnan(s) for s in frame["score"]] == [i in bad for i in range(150)]


def test_top_k_json_written_out_directly_is_json_dumps_or_none():
    from workers.serving.batch import _jsonl_line, _TopJson

    answers = [
        [{"index": 1, "label": 'b "x"', "score": 0.75}, {"index": 0, "label": "a", "score": 1e-07}],
        [{"index": 0, "label": "a", "score": float("nan")}],
        [{"index": 0, "label": "a", "score": float("inf")}],
    ]
    direct = _TopJson(["a", 'b "x"'])
    assert direct.many(answers) == [json.dumps(answers[0]), None, None]
    assert [direct(a) for a in answers] == [json.dumps(answers[0]), None, None]
    assert _TopJson(["a", "café"]).many(answers[:1]) == [None]  # ASCII-escaped in CSV, not in JSONL
    assert _TopJson([]).many([[{"value": 2.5}], [{"value": float("nan")}]]) == ['[{"value": 2.5}]', None]
    for row in (
        {"id": 3, "name": "ü 3", "prediction": {"top_k": answers[0], "imputed": []}},
        {"id": None, "name": "4", "prediction": {"top_k": answers[0], "imputed": []}, "truth": "a"},
        {"id": 5, "name": "5", "prediction": {"top_k": answers[0], "imputed": ["x"]}, "truth": None},
    ):
        assert _jsonl_line(row, json.dumps(answers[0])) == json.dumps(row, ensure_ascii=False) + "\n"
