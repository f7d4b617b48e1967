"""A dataset version laid out for custom code (``$SAMPAN_DATA_DIR``), one documented shape per
data kind, read by ``sampan.run.dataset()`` or by hand:

- ``manifest.json``: :class:`DataLayout` (data kind, task, classes, target, each split's file and
  sample count);
- images (classification): ``files/<n><ext>`` and ``<split>.jsonl`` lines
  ``{"id", "file", "label"}`` (``file`` relative to the data directory, ``label`` the class index);
- images (detection): ``<split>.jsonl`` lines ``{"id", "file", "width", "height", "annotations":
  [{"label", "x", "y", "width", "height"}]}`` (pixels, top-left corner);
- texts: ``<split>.jsonl`` lines ``{"id", "text", "label"}``;
- tables: ``<split>.parquet``, the feature columns and the target column (``target``; class names
  for classification, numbers for regression) and ``_id``;
- time series: ``<split>.parquet`` in long form, one row per series and time step: ``series``,
  ``item``, ``target``, ``timestamp``, ``value`` and the known covariates; train holds each series'
  steps before its validation window, val the validation window, test the test window.

Files are hard links to the stored blobs when those are readable by everyone already, else copies.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workers.contracts.custom_code import DATA_LAYOUT_VERSION, DataLayout, DataLayoutSplit

__all__ = ["LayoutError", "materialize"]

SPLITS = ("train", "val", "test")


class LayoutError(ValueError):
    """The manifest cannot be laid out (unknown kind, a sample without its file)."""


def _place(source: Path, target: Path) -> None:
    """Hard link a world-readable file (same file system), else copy it."""
    try:
        if source.stat().st_mode & stat.S_IROTH:
            os.link(source, target)
            return
    except OSError:
        pass
    shutil.copyfile(source, target)


def _sample_id(sample: Mapping[str, Any], position: int) -> Any:
    ref = sample.get("id")
    return position if ref is None else ref


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _images(manifest: Mapping[str, Any], dest: Path, *, detection: bool) -> dict[str, list[dict[str, Any]]]:
    files = dest / "files"
    files.mkdir()
    rows: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLITS}
    for position, sample in enumerate(manifest["samples"]):
        source = Path(sample["path"])
        if not source.is_file():
            raise LayoutError(f"samples[{position}]: the image file {source} is missing")
        name = f"{position:06d}{source.suffix.lower()}"
        _place(source, files / name)
        row: dict[str, Any] = {"id": _sample_id(sample, position), "file": f"files/{name}"}
        if detection:
            row["width"], row["height"] = sample.get("width"), sample.get("height")
            row["annotations"] = [
                {k: box[k] for k in ("label", "x", "y", "width", "height")} for box in sample.get("boxes", [])
            ]
        else:
            row["label"] = sample["label"]
        rows[sample["split"]].append(row)
    return rows


def _texts(manifest: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    rows: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLITS}
    for position, sample in enumerate(manifest["samples"]):
        rows[sample["split"]].append(
            {"id": _sample_id(sample, position), "text": sample["text"], "label": sample["label"]}
        )
    return rows


def _tables(manifest: Mapping[str, Any]) -> dict[str, Any]:
    import pandas as pd

    columns = [c["name"] for c in manifest["columns"]]
    target = manifest["target"]
    classes = manifest.get("classes") or []
    regression = manifest.get("task") == "regression"
    records: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLITS}
    for position, sample in enumerate(manifest["samples"]):
        values = sample.get("values", {})
        row: dict[str, Any] = {name: values.get(name) for name in columns}
        if regression:
            row[target] = sample.get("target")
        else:
            label = sample.get("label")
            row[target] = classes[label] if isinstance(label, int) and 0 <= label < len(classes) else None
        ref = _sample_id(sample, position)
        row["_id"] = str(ref)
        records[sample["split"]].append(row)
    frames = {}
    for split, rows in records.items():
        frame = pd.DataFrame(rows, columns=[*columns, target, "_id"])
        for column in manifest["columns"]:
            if column["type"] == "numeric":
                frame[column["name"]] = pd.to_numeric(frame[column["name"]], errors="coerce")
            elif column["type"] in ("categorical", "text"):
                frame[column["name"]] = frame[column["name"]].astype("string")
        if regression:
            frame[target] = pd.to_numeric(frame[target], errors="coerce")
        else:
            frame[target] = frame[target].astype("string")
        frames[split] = frame
    return frames


def _series(manifest: Mapping[str, Any]) -> dict[str, Any]:
    import numpy as np
    import pandas as pd

    from workers.time_series.frequency import format_timestamps, parse_frequency, parse_timestamp

    frequency = parse_frequency(manifest["frequency"])
    known = list(manifest.get("known_covariates", []))
    records: dict[str, list[dict[str, Any]]] = {split: [] for split in SPLITS}
    for entry in manifest["series"]:
        values = entry["values"]
        stamps = format_timestamps(frequency.grid(parse_timestamp(entry["start"]), len(values)))
        for step, value in enumerate(values):
            split = "train" if step < entry["val_start"] else "val" if step < entry["test_start"] else "test"
            row: dict[str, Any] = {
                "series": entry["id"],
                "item": entry.get("item", ""),
                "target": entry.get("target", ""),
                "timestamp": stamps[step],
                "value": np.nan if value is None else float(value),
            }
            for name in known:
                cov = entry.get("known", {}).get(name) or []
                row[name] = cov[step] if step < len(cov) and cov[step] is not None else np.nan
            records[split].append(row)
    columns = ["series", "item", "target", "timestamp", "value", *known]
    frames = {}
    for split, rows in records.items():
        frame = pd.DataFrame(rows, columns=columns)
        frame["timestamp"] = pd.to_datetime(frame["timestamp"])
        frames[split] = frame
    return frames


def materialize(manifest: dict[str, Any], dest: Path, *, dataset_version: int, task: str) -> DataLayout:
    """Lay ``manifest`` (a dataset version's, ``workers.contracts.manifest``) out under ``dest``
    (created; must not hold a layout already) and return the ``manifest.json`` written there."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    if (dest / "manifest.json").exists():
        raise LayoutError(f"{dest} holds a dataset layout already")
    kind = manifest.get("kind") or ("detection" if task == "object_detection" else "image")
    target: str | None = None
    classes = list(manifest.get("classes") or [])
    splits: dict[str, DataLayoutSplit] = {}
    if kind in ("image", "detection"):
        rows = _images(manifest, dest, detection=kind == "detection")
        data_kind = "image"
        for split, split_rows in rows.items():
            _write_jsonl(dest / f"{split}.jsonl", split_rows)
            splits[split] = DataLayoutSplit(samples=len(split_rows), path=f"{split}.jsonl")
    elif kind == "text":
        data_kind = "text"
        for split, split_rows in _texts(manifest).items():
            _write_jsonl(dest / f"{split}.jsonl", split_rows)
            splits[split] = DataLayoutSplit(samples=len(split_rows), path=f"{split}.jsonl")
    elif kind in ("tabular", "time_series"):
        data_kind = kind
        if kind == "tabular":
            frames = _tables(manifest)
            target = manifest["target"]
        else:
            frames = _series(manifest)
            target = "value"
        for split, frame in frames.items():
            frame.to_parquet(dest / f"{split}.parquet", index=False)
            splits[split] = DataLayoutSplit(samples=len(frame), path=f"{split}.parquet")
    else:
        raise LayoutError(f"cannot lay out a manifest of kind {kind!r}")
    layout = DataLayout(
        kind="custom_data_layout",
        version=DATA_LAYOUT_VERSION,
        dataset_version=dataset_version,
        data_kind=data_kind,
        task=task,
        classes=classes,
        target=target,
        splits=splits,
    )
    (dest / "manifest.json").write_text(json.dumps(layout, indent=2, ensure_ascii=False) + "\n")
    return layout
