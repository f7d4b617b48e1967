"""The dataset layout custom code reads (workers.custom_code.layout.materialize): images as files
plus one JSON-lines file per split, texts inline, detection boxes, tables and time series as
Parquet, and manifest.json describing it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from workers.custom_code.layout import LayoutError, materialize


def read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_image_manifest(tmp_path: Path) -> None:
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    samples = []
    for i, split in enumerate(["train", "train", "val", "test"]):
        blob = blobs / f"{i:02x}abc.PNG"
        blob.write_bytes(b"\x89PNG fake " + bytes([i]))
        os.chmod(blob, 0o644 if i % 2 == 0 else 0o600)  # readable blobs are linked, the others copied
        samples.append({"id": 10 + i, "path": str(blob), "label": i % 2, "split": split})
    manifest = {"kind": "image", "version": 1, "classes": ["cat", "dog"], "samples": samples}
    layout = materialize(manifest, tmp_path / "data", dataset_version=7, task="image_classification")
    data = tmp_path / "data"
    assert layout == json.loads((data / "manifest.json").read_text())
    assert layout["data_kind"] == "image" and layout["dataset_version"] == 7
    assert layout["classes"] == ["cat", "dog"] and layout["task"] == "image_classification"
    assert layout["splits"] == {
        "train": {"samples": 2, "path": "train.jsonl"},
        "val": {"samples": 1, "path": "val.jsonl"},
        "test": {"samples": 1, "path": "test.jsonl"},
    }
    train = read_jsonl(data / "train.jsonl")
    assert train == [
        {"id": 10, "file": "files/000000.png", "label": 0},
        {"id": 11, "file": "files/000001.png", "label": 1},
    ]
    assert (data / "files" / "000001.png").read_bytes() == b"\x89PNG fake \x01"
    assert (data / "files" / "000000.png").stat().st_ino == Path(str(samples[0]["path"])).stat().st_ino
    assert (data / "files" / "000001.png").stat().st_ino != Path(str(samples[1]["path"])).stat().st_ino
    assert read_jsonl(data / "test.jsonl") == [{"id": 13, "file": "files/000003.png", "label": 1}]
    with pytest.raises(LayoutError, match="holds a dataset layout already"):
        materialize(manifest, data, dataset_version=7, task="image_classification")


def test_a_missing_image_is_named(tmp_path: Path) -> None:
    manifest = {
        "kind": "image",
        "classes": ["a"],
        "samples": [{"path": "/nope.png", "label": 0, "split": "train"}],
    }
    with pytest.raises(LayoutError, match=r"samples\[0\]: the image file /nope.png is missing"):
        materialize(manifest, tmp_path / "data", dataset_version=1, task="image_classification")


def test_a_detection_manifest(tmp_path: Path) -> None:
    blob = tmp_path / "a.jpg"
    blob.write_bytes(b"jpg")
    manifest = {
        "kind": "detection",
        "version": 1,
        "classes": ["car"],
        "samples": [
            {
                "id": 3,
                "path": str(blob),
                "width": 64,
                "height": 48,
                "split": "val",
                "boxes": [{"label": 0, "x": 1.5, "y": 2, "width": 10, "height": 20}],
            }
        ],
    }
    layout = materialize(manifest, tmp_path / "data", dataset_version=2, task="object_detection")
    assert layout["splits"]["val"]["samples"] == 1 and layout["splits"]["train"]["samples"] == 0
    assert read_jsonl(tmp_path / "data" / "val.jsonl") == [
        {
            "id": 3,
            "file": "files/000000.jpg",
            "width": 64,
            "height": 48,
            "annotations": [{"label": 0, "x": 1.5, "y": 2, "width": 10, "height": 20}],
        }
    ]


def test_a_text_manifest(tmp_path: Path) -> None:
    manifest = {
        "kind": "text",
        "version": 1,
        "classes": ["neg", "pos"],
        "samples": [
            {"id": 9, "text": "好极了", "label": 1, "split": "train"},
            {"text": "bad", "label": 0, "split": "test"},
        ],
    }
    layout = materialize(manifest, tmp_path / "data", dataset_version=3, task="text_classification")
    assert layout["data_kind"] == "text"
    assert read_jsonl(tmp_path / "data" / "train.jsonl") == [{"id": 9, "text": "好极了", "label": 1}]
    # no id: its position
    assert read_jsonl(tmp_path / "data" / "test.jsonl") == [{"id": 1, "text": "bad", "label": 0}]


def test_a_tabular_manifest_is_parquet(tmp_path: Path) -> None:
    manifest = {
        "kind": "tabular",
        "version": 1,
        "task": "classification",
        "columns": [{"name": "size", "type": "numeric"}, {"name": "color", "type": "categorical"}],
        "target": "species",
        "classes": ["setosa", "virginica"],
        "samples": [
            {"id": 1, "values": {"size": 1.5, "color": "red"}, "label": 0, "split": "train"},
            {"id": 2, "values": {"size": None, "color": "blue"}, "label": 1, "split": "train"},
            {"id": 3, "values": {"size": "3", "color": None}, "label": 1, "split": "test"},
        ],
    }
    layout = materialize(manifest, tmp_path / "data", dataset_version=4, task="tabular_classification")
    assert layout["data_kind"] == "tabular" and layout["target"] == "species"
    assert layout["splits"]["train"] == {"samples": 2, "path": "train.parquet"}
    train = pd.read_parquet(tmp_path / "data" / "train.parquet")
    assert list(train.columns) == ["size", "color", "species", "_id"]
    assert train["size"].tolist()[0] == 1.5 and pd.isna(train["size"].tolist()[1])
    assert train["species"].tolist() == ["setosa", "virginica"]
    assert train["color"].tolist() == ["red", "blue"]
    test = pd.read_parquet(tmp_path / "data" / "test.parquet")
    assert test["size"].tolist() == [3.0] and test["_id"].tolist() == ["3"]
    assert pd.read_parquet(tmp_path / "data" / "val.parquet").empty


def test_a_regression_table_keeps_numeric_targets(tmp_path: Path) -> None:
    manifest = {
        "kind": "tabular",
        "task": "regression",
        "columns": [{"name": "x", "type": "numeric"}],
        "target": "y",
        "classes": [],
        "samples": [{"values": {"x": 1}, "target": 2.5, "split": "train"}],
    }
    materialize(manifest, tmp_path / "data", dataset_version=5, task="tabular_regression")
    train = pd.read_parquet(tmp_path / "data" / "train.parquet")
    assert train["y"].tolist() == [2.5] and str(train["y"].dtype) == "float64"


def test_a_time_series_manifest_is_long_parquet_split_by_time(tmp_path: Path) -> None:
    manifest = {
        "kind": "time_series",
        "version": 1,
        "frequency": "MS",
        "horizon": 1,
        "fill_rule": "interpolate",
        "timestamp_column": "month",
        "series_column": None,
        "target_columns": ["sales"],
        "known_covariates": ["promo"],
        "static_covariates": [],
        "series": [
            {
                "id": "sales",
                "item": "",
                "target": "sales",
                "start": "2024-01-01",
                "values": [1.0, None, 3.0, 4.0],
                "known": {"promo": [0, 1, 0, 1]},
                "static": {},
                "val_start": 2,
                "test_start": 3,
            }
        ],
    }
    layout = materialize(manifest, tmp_path / "data", dataset_version=6, task="time_series_forecasting")
    assert layout["data_kind"] == "time_series" and layout["target"] == "value"
    train = pd.read_parquet(tmp_path / "data" / "train.parquet")
    assert [str(t.date()) for t in train["timestamp"]] == ["2024-01-01", "2024-02-01"]
    assert train["value"].tolist()[0] == 1.0 and pd.isna(train["value"].tolist()[1])
    test = pd.read_parquet(tmp_path / "data" / "test.parquet")
    assert test[["series", "value", "promo"]].to_dict("records") == [
        {"series": "sales", "value": 4.0, "promo": 1.0}
    ]
    assert str(test["timestamp"].iloc[0].date()) == "2024-04-01"


def test_an_unknown_kind_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="cannot lay out a manifest of kind 'audio'"):
        materialize({"kind": "audio", "samples": []}, tmp_path / "data", dataset_version=1, task="audio")
