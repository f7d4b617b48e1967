"""Datasets: upload (folder per class, archive, files, pandas DataFrame), labels, samples,
annotations (object detection: boxes, interchange formats in and out), versions and export."""

from __future__ import annotations

import builtins
import io
import mimetypes
import os
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from sampan import _schema as schema
from sampan._resource import Resource
from sampan._resource import id_of as _id
from sampan._transport import Outage, _bar
from sampan.errors import NotFound, SampanError, WaitTimeout
from sampan.labeling import (
    ORDERINGS,
    STRATEGIES,
    SmartRound,
    decision_body,
    smart_round_start,
    smart_rounds,
    suggestion_list,
)
from sampan.quality import QualityReport, quality_report_body

if TYPE_CHECKING:
    from sampan.client import Client
    from sampan.training import Job

MAX_FILES_PER_REQUEST = 100  # Django's DATA_UPLOAD_MAX_NUMBER_FILES on the server
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".gif", ".tif", ".tiff"})
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".jsonl", ".ndjson", ".xlsx", ".parquet")
TABLE_TASKS = frozenset({"text_classification", "tabular_classification", "tabular_regression"})
TIME_SERIES_TASK = "time_series_forecasting"
TableSource = str | os.PathLike[str] | tuple[str, bytes] | Any  # a path, (name, bytes) or a pandas DataFrame
FileItem = str | os.PathLike[str] | tuple[str, bytes]
ANNOTATION_FORMATS = ("auto", "coco", "voc", "yolo", "label_studio", "images")
EXPORT_FORMATS = ("coco", "voc", "yolo")
MAX_BULK_ANNOTATIONS = 500  # the server's limit per bulk write (all or nothing)


def box(
    label: str, x: float, y: float, width: float, height: float, **attributes: str | float | bool
) -> schema.AnnotationRecordRequest:
    """A box annotation to write: the label's name and the box in the image's pixels (top-left
    corner, width, height); keyword arguments become its attributes (e.g. ``difficult=True``).

    e.g. ``dataset.set_annotations(sample, [sampan.box("cat", 4, 5, 20, 30)])``"""
    record: schema.AnnotationRecordRequest = {
        "kind": "box",
        "label": label,
        "geometry": {"x": float(x), "y": float(y), "width": float(width), "height": float(height)},
    }
    if attributes:
        record["attributes"] = dict(attributes)
    return record


@dataclass
class UploadResult:
    """What an upload did, summed over its imports (one per request)."""

    imported: int = 0
    duplicates: int = 0
    failed: int = 0
    ignored: int = 0
    files: int = 0
    labels_created: list[str] = field(default_factory=list)
    problems: list[schema.ImportProblem] = field(default_factory=list)
    imports: list[int] = field(default_factory=list)
    batches: list[schema.ImportBatch] = field(default_factory=list, repr=False)

    def add(self, batch: schema.ImportBatch) -> None:
        self.imported += batch["imported"]
        self.duplicates += batch["duplicates"]
        self.failed += batch["failed"]
        self.ignored += batch["ignored"]
        self.files += batch["files"]
        self.labels_created += [n for n in batch["labels_created"] if n not in self.labels_created]
        self.problems += batch["problems"]
        self.imports.append(batch["id"])
        self.batches.append(batch)


class Label(Resource[schema.Label]):
    """A class of a dataset: ``name``, ``color``, ``position`` (its place in the dataset's order,
    which new versions' class indices follow), ``shortcut`` (the key the user chose, or "") and
    ``key`` (the key that labels with it in the labeling grid)."""


class DatasetVersion(Resource[schema.DatasetVersion]):
    """An immutable snapshot of a dataset's labeled samples with a seeded train/val/test split."""

    def url(self) -> str:
        return f"datasets/{self.data['dataset']}/versions/{self.id}/"

    def train(
        self,
        preset: str | None = None,
        *,
        params: dict[str, Any] | None = None,
        template: str | None = None,
        backbone: int | Resource[Any] | None = None,
        adapt: bool = True,
        processes: int = 1,
    ) -> Job:
        """Start a training job on this version; see :meth:`sampan.training.Training.start`
        (``adapt=False``: the preset's values as declared, not fitted to the data and workers;
        ``processes=2``: two data-parallel processes on the worker's host)."""
        return self._client.training.start(
            self,
            preset=preset,
            params=params,
            template=template,
            backbone=backbone,
            adapt=adapt,
            processes=processes,
        )

    def export(
        self, dest: str | os.PathLike[str], *, format: str | None = None, progress: bool = False
    ) -> Path:
        """Download this version as a zip (a folder per class plus manifest.csv; object detection:
        ``format`` ``"coco"``, ``"voc"`` or ``"yolo"``)."""
        self._client.datasets.get(self.data["dataset"]).export(
            dest, version=self, format=format, progress=progress
        )
        return Path(dest)


class Dataset(Resource[schema.Dataset]):
    _path = "datasets/"

    # --- uploads -------------------------------------------------------------------------------

    def upload(
        self,
        source: str | os.PathLike[str] | Sequence[FileItem] | Any,
        *,
        label: str | None = None,
        batch_size: int = 100,
        progress: bool = True,
    ) -> UploadResult:
        """Upload images, with a progress bar.

        ``source`` is one of:

        - a folder: each sub-folder is a class (its name the label), files at its top are unlabeled
          (or get ``label``);
        - an archive (.zip, .tar, .tar.gz, ...): laid out the same way, unpacked by the server;
        - a list of image files (paths, or ``(name, bytes)`` pairs), all given ``label`` if set;
        - a pandas DataFrame with a ``path`` or a ``bytes`` column and an optional ``label`` column
          (and ``name`` for bytes).

        Files go up ``batch_size`` per request (at most 100, the server's limit); the server verifies
        each image by content, skips duplicates and reports the rest in ``problems``.

        A text or tabular dataset takes a table file (or a DataFrame) instead, which goes to
        :meth:`import_table` with its defaults (use that for the column mapping, encoding, delimiter,
        decimal mark or sheet).

        e.g. ``dataset.upload("digits/")`` -> ``UploadResult(imported=1797, ...)``
        """
        if self.data["task_type"] == TIME_SERIES_TASK:
            raise ValueError(
                f"Dataset {self.data['name']!r} is a time-series forecasting dataset: import its table "
                "(a long or wide DataFrame, or a CSV/TSV/JSONL/XLSX/Parquet file) with "
                "dataset.import_time_series(source, timestamp=..., targets=..., series=...)."
            )
        if self.data["task_type"] in TABLE_TASKS:
            if _is_dataframe(source) or (
                isinstance(source, (str, os.PathLike)) and Path(source).name.lower().endswith(TABLE_SUFFIXES)
            ):
                return self.import_table(source, progress=progress)
            raise ValueError(
                f"Dataset {self.data['name']!r} is a {self.data['task_type']} dataset: "
                "upload a table file (CSV, TSV, JSONL, XLSX, Parquet) or a pandas DataFrame with "
                "dataset.import_table(path_or_dataframe, ...)."
            )
        if isinstance(source, (str, os.PathLike)) and Path(source).name.lower().endswith(TABLE_SUFFIXES):
            raise ValueError(
                f"{Path(source).name} is a table file, and dataset {self.data['name']!r} "
                f"is an {self.data['task_type']} dataset: tables go to text and tabular "
                "datasets, with dataset.import_table(...)."
            )
        if _is_dataframe(source):
            return self._upload_groups(
                _dataframe_groups(source, label), batch_size=batch_size, progress=progress
            )
        if isinstance(source, (str, os.PathLike)):
            path = Path(source)
            if path.is_dir():
                return self._upload_groups(
                    _folder_groups(path, label), batch_size=batch_size, progress=progress
                )
            if path.name.lower().endswith(ARCHIVE_SUFFIXES):
                return self.upload_archive(path, label=label, progress=progress)
            if path.is_file():
                return self._upload_groups([(label, [path])], batch_size=batch_size, progress=progress)
            raise FileNotFoundError(f"No such file or folder: {path}")
        return self._upload_groups([(label, list(source))], batch_size=batch_size, progress=progress)

    def upload_archive(
        self,
        archive: str | os.PathLike[str],
        *,
        label: str | None = None,
        background: bool = False,
        progress: bool = True,
        timeout: float = 3600,
    ) -> UploadResult:
        """Upload one archive; waits for the server's import job when it runs in the background."""
        path = Path(archive)
        result = UploadResult()
        bar = _bar(progress, total=1, desc=f"import {path.name}")
        with path.open("rb") as fh:
            body = {"label": label or "", "background": "true" if background else "false"}
            batch: schema.ImportBatch = self._client.http.post(
                f"datasets/{self.id}/imports/",
                None,
                data=body,
                idempotent=True,
                files={"archive": (path.name, fh, "application/octet-stream")},
                timeout=_upload_timeout(self._client, path.stat().st_size),
            )
        if batch["status"] in ("queued", "running"):
            batch = self._wait_import(batch, bar=bar, timeout=timeout)
        bar.update(1)
        bar.close()
        result.add(batch)
        if batch["status"] == "failed":
            raise _import_failed(batch)
        return result

    def import_annotations(
        self,
        path: str | os.PathLike[str],
        format: str = "auto",
        *,
        background: bool = False,
        progress: bool = True,
        timeout: float = 3600,
    ) -> UploadResult:
        """Import an object-detection archive (or a folder, zipped on the way): images with their
        boxes in an interchange format. ``format`` is ``"coco"`` (a JSON with images, annotations and
        categories), ``"voc"`` (Pascal VOC XML per image), ``"yolo"`` (a txt per image with
        ``classes.txt`` or ``data.yaml``), ``"label_studio"`` (its JSON export), ``"images"`` (no
        boxes: unlabeled) or ``"auto"`` (the server tells them apart). Labels are created in the
        format's class order. Bad boxes (outside the image, empty, unknown category, ...) are skipped
        or clipped and listed in ``problems`` by file and line; the rest is imported. An archive mixing
        formats is refused (``SampanError`` with code ``mixed_annotation_formats``): nothing imported.

        e.g. ``dataset.import_annotations("scenes-coco.zip", format="coco").problems``
        """
        if format not in ANNOTATION_FORMATS:
            raise ValueError(f"format must be one of {', '.join(ANNOTATION_FORMATS)}; got {format!r}.")
        source = Path(path)
        if source.is_dir():
            name, content = f"{source.name or 'annotations'}.zip", _zip_folder(source)
        elif source.is_file():
            name, content = source.name, source.read_bytes()
        else:
            raise FileNotFoundError(f"No such archive or folder: {source}")
        body = {"format": format, "background": "true" if background else "false"}
        return self._import_one("archive", name, content, body, progress=progress, timeout=timeout)

    def _wait_import(self, batch: schema.ImportBatch, *, bar: Any, timeout: float) -> schema.ImportBatch:
        deadline = time.monotonic() + timeout
        outage = Outage(300.0)  # polling goes on across a web restart, as Job.wait does
        while batch["status"] in ("queued", "running"):
            if time.monotonic() > deadline:
                raise WaitTimeout(f"Import {batch['id']} still {batch['status']} after {timeout:g} s")
            fraction = batch["progress"].get("fraction")
            if fraction is not None:
                bar.set_postfix(done=f"{100 * float(fraction):.0f}%")
            time.sleep(0.5)
            if outage.attempt(partial(self._client.http.get, f"datasets/{self.id}/imports/{batch['id']}/")):
                batch = outage.value
        return batch

    # --- tables (text and tabular datasets) -------------------------------------------------------

    def preview_table(
        self,
        source: TableSource,
        *,
        encoding: str | None = None,
        delimiter: str | None = None,
        decimal: str | None = None,
        sheet: str | int | None = None,
    ) -> schema.TablePreview:
        """The column mapping step, storing nothing: the file's format, detected encoding, columns
        with inferred types, first rows and the suggested mapping (``suggested``).

        ``source`` is a path (CSV, TSV, JSONL, XLSX, Parquet), a ``(name, bytes)`` pair or a pandas
        DataFrame. ``encoding`` (e.g. ``"gb18030"``, ``"cp1252"``), ``delimiter`` (``";"``), ``decimal``
        (``","``) and ``sheet`` (an XLSX sheet's name or 0-based index) override what the server detects.

        e.g. ``dataset.preview_table("wine.csv")["suggested"]`` -> ``{"target_column": "quality"}``
        """
        name, content = _table_file(source)
        preview: schema.TablePreview = self._client.http.post(
            f"datasets/{self.id}/imports/preview/",
            None,
            data=_table_options(encoding=encoding, delimiter=delimiter, decimal=decimal, sheet=sheet),
            files={"file": (name, content, "application/octet-stream")},
            timeout=_upload_timeout(self._client, len(content)),
        )
        return preview

    def import_table(
        self,
        source: TableSource,
        *,
        target_column: str | None = None,
        text_column: str | None = None,
        label_column: str | None = None,
        encoding: str | None = None,
        delimiter: str | None = None,
        decimal: str | None = None,
        sheet: str | int | None = None,
        background: bool = False,
        progress: bool = True,
        timeout: float = 3600,
    ) -> UploadResult:
        """Import a table into a text or tabular dataset (one sample per row); waits for the
        server's import job when it runs in the background (big files).

        ``source``: a path (CSV, TSV, JSONL, XLSX, Parquet), a ``(name, bytes)`` pair or a pandas
        DataFrame (sent as UTF-8 CSV; NaN cells stay empty). The mapping: ``target_column`` (tabular:
        the column to predict, needed on the first import), or ``text_column`` and ``label_column``
        (text; guessed when omitted). ``encoding``, ``delimiter``, ``decimal`` and ``sheet`` override
        the server's detection (see :meth:`preview_table`). Options left None are not sent.

        e.g. ``dataset.import_table("wine.csv", target_column="quality", delimiter=";", decimal=",")``
        """
        name, content = _table_file(source)
        body = _table_options(
            encoding=encoding,
            delimiter=delimiter,
            decimal=decimal,
            sheet=sheet,
            target_column=target_column,
            text_column=text_column,
            label_column=label_column,
        )
        body["background"] = "true" if background else "false"
        return self._import_one("file", name, content, body, progress=progress, timeout=timeout)

    def _import_one(
        self,
        field: str,
        name: str,
        content: bytes,
        body: Mapping[str, str | builtins.list[str]],
        *,
        progress: bool,
        timeout: float,
    ) -> UploadResult:
        """One import request (the file as the form's ``field``), waited for when it runs in the
        background; a failed import raises with its code."""
        bar = _bar(progress, total=1, desc=f"import {name}")
        batch: schema.ImportBatch = self._client.http.post(
            f"datasets/{self.id}/imports/",
            None,
            data=body,
            idempotent=True,
            files={field: (name, content, "application/octet-stream")},
            timeout=_upload_timeout(self._client, len(content)),
        )
        if batch["status"] in ("queued", "running"):
            batch = self._wait_import(batch, bar=bar, timeout=timeout)
        bar.update(1)
        bar.close()
        if batch["status"] == "failed":
            raise _import_failed(batch)
        result = UploadResult()
        result.add(batch)
        return result

    # --- time series (forecasting datasets) --------------------------------------------------------

    def import_time_series(
        self,
        source: TableSource,
        *,
        timestamp: str | None = None,
        targets: str | Sequence[str] | None = None,
        series: str | None = None,
        known: Sequence[str] = (),
        static: Sequence[str] = (),
        frequency: str | None = None,
        fill_rule: str = "interpolate",
        background: bool = False,
        progress: bool = True,
        timeout: float = 3600,
    ) -> UploadResult:
        """Import observations into a time-series forecasting dataset, through the table import
        with the forecasting mapping; waits for a background import. Answers the import's report:
        ``imported`` observations, ``problems`` by row (unparseable timestamps, non-numeric targets,
        duplicated timestamps in a series, off-grid timestamps) and the server's batch in
        ``batches[0]`` (its ``mapping`` and warnings such as gaps and unsorted rows).

        ``source``: a pandas DataFrame, long (``series``: the column naming each row's series, e.g. a
        store) or wide (no ``series``: each target column is a series), timestamps in the
        ``timestamp`` column or a DatetimeIndex; or a table file (CSV, TSV, JSONL, XLSX, Parquet) or
        ``(name, bytes)``. ``targets``: the column(s) to forecast (a DataFrame's numeric columns left
        over when omitted). ``known``: known-future covariates (numbers known ahead: prices,
        holidays); ``static``: per-series covariates (long tables). ``frequency`` (``"D"``, ``"W"``,
        ``"MS"``, ``"h"``, ...) overrides the inferred one; ``fill_rule`` (``"interpolate"``,
        ``"forward_fill"``, ``"zero"``) fills missing values on the grid.

        e.g. ``sales.import_time_series(df, timestamp="date", series="store", targets="sales",
        known=["price", "holiday"], static=["region"])``
        """
        from sampan.forecasting import time_series_upload

        name, content, form = time_series_upload(
            source,
            timestamp=timestamp,
            targets=targets,
            series=series,
            known=known,
            static=static,
            frequency=frequency,
            fill_rule=fill_rule,
        )
        body: dict[str, str | builtins.list[str]] = {
            key: value if isinstance(value, builtins.list) else str(value) for key, value in form.items()
        }
        body["background"] = "true" if background else "false"
        return self._import_one("file", name, content, body, progress=progress, timeout=timeout)

    def series_points(
        self,
        ids: str | Sequence[str] | None = None,
        *,
        start: str | None = None,
        end: str | None = None,
        max_points: int | None = None,
    ) -> builtins.list[dict[str, Any]]:
        """The points of some series (``GET /datasets/{id}/series/``), each ``{id, timestamps, values,
        total_points, step}``; values are None where missing; downsampled to ``max_points`` (every
        ``step``-th point) between ``start`` and ``end`` (ISO timestamps) when given. ``ids``: series
        ids as the profile lists them (default: the server's first series)."""
        params: dict[str, Any] = {"start": start, "end": end, "max_points": max_points}
        if ids is not None:
            params["id"] = [ids] if isinstance(ids, str) else [str(i) for i in ids]
        answer = self._client.http.get(f"datasets/{self.id}/series/", **params)
        if isinstance(answer, Mapping) and "results" in answer:
            answer = answer["results"]
        return [dict(entry) for entry in answer]

    def series(
        self,
        ids: str | Sequence[str] | None = None,
        *,
        start: str | None = None,
        end: str | None = None,
        max_points: int | None = None,
    ) -> Any:
        """Some series' points as one long pandas DataFrame: ``id``, ``timestamp`` (datetime64),
        ``value`` (NaN where missing); see :meth:`series_points`.

        e.g. ``sales.series(["s01", "s02"]).pivot(index="timestamp", columns="id", values="value")``"""
        from sampan.forecasting import series_frame

        return series_frame(self.series_points(ids, start=start, end=end, max_points=max_points))

    def profile(self) -> dict[str, Any]:
        """The dataset's profile as of its last import (``GET /datasets/{id}/profile/``): a tabular
        dataset's column statistics, or a forecasting dataset's ``TimeSeriesProfile`` (``frequency``,
        ``series_count``, ``observations``, ``missing_share`` and ``series``: each one's length,
        start, end, missing share, mean, spread, zero share, seasonal and trend strength)."""
        answer: dict[str, Any] = self._client.http.get(f"datasets/{self.id}/profile/")
        return answer

    def series_ids(self) -> builtins.list[str]:
        """The series the dataset's profile lists (the longest first; up to the profile's limit)."""
        return [str(entry["id"]) for entry in self.profile().get("series", [])]

    def set_time_series(self, *, frequency: str | None = None, fill_rule: str | None = None) -> Dataset:
        """Change a forecasting dataset's ``frequency`` (a 400 ``frequency_mismatch`` when observations
        are off its grid) or ``fill_rule``; the profile is recomputed, versions made before keep theirs.

        e.g. ``sales.set_time_series(fill_rule="zero")``"""
        body = {k: v for k, v in {"frequency": frequency, "fill_rule": fill_rule}.items() if v is not None}
        self.data = self._client.http.patch(f"datasets/{self.id}/", body)
        return self

    def _upload_groups(
        self, groups: Iterable[tuple[str | None, list[Any]]], *, batch_size: int, progress: bool
    ) -> UploadResult:
        groups = [(name, items) for name, items in groups if items]
        batch_size = max(1, min(batch_size, MAX_FILES_PER_REQUEST))
        result = UploadResult()
        bar = _bar(
            progress,
            total=sum(len(items) for _, items in groups),
            unit="img",
            desc=f"upload to {self.data['name']}",
        )
        try:
            for label, items in groups:
                for start in range(0, len(items), batch_size):
                    chunk = items[start : start + batch_size]
                    parts = [("files", _file_part(item)) for item in chunk]
                    batch: schema.ImportBatch = self._client.http.post(
                        f"datasets/{self.id}/imports/",
                        None,
                        data={"label": label or ""},
                        files=parts,
                        timeout=_upload_timeout(self._client, None),
                    )
                    result.add(batch)
                    bar.update(len(chunk))
                    bar.set_postfix(
                        imported=result.imported, duplicates=result.duplicates, failed=result.failed
                    )
        finally:
            bar.close()
        return result

    # --- labels and samples ----------------------------------------------------------------------

    def labels(self) -> builtins.list[Label]:
        """The labels in the dataset's order (the user's, see :meth:`reorder_labels`): the class
        order of new versions, of training and of evaluation reports."""
        return [
            Label(self._client, item) for item in self._client.http.paginate(f"datasets/{self.id}/labels/")
        ]

    def create_label(self, name: str, color: str = "", *, shortcut: str = "") -> Label:
        """A new label, last in the order; ``shortcut``: its key in the labeling grid (one printable
        character, e.g. ``"c"``), else the default key of its place (1-9, 0, then letters).

        e.g. ``dataset.create_label("猫", shortcut="c")``"""
        body = {"name": name, "color": color, **({"shortcut": shortcut} if shortcut else {})}
        return Label(self._client, self._client.http.post(f"datasets/{self.id}/labels/", body))

    def rename_label(self, label: int | Label, name: str) -> Label:
        return Label(
            self._client, self._client.http.patch(f"datasets/{self.id}/labels/{_id(label)}/", {"name": name})
        )

    def update_label(
        self,
        label: int | str | Label,
        *,
        name: str | None = None,
        color: str | None = None,
        shortcut: str | None = None,
    ) -> Label:
        """Change a label's name, colour or key (``shortcut=""`` gives back the default key); a key
        another label has is refused (``BadRequest`` with code ``shortcut_taken``).

        e.g. ``dataset.update_label("猫", shortcut="m")``"""
        body = {
            k: v for k, v in {"name": name, "color": color, "shortcut": shortcut}.items() if v is not None
        }
        return Label(
            self._client,
            self._client.http.patch(f"datasets/{self.id}/labels/{self.label_id(label)}/", body),
        )

    def reorder_labels(self, labels: Sequence[int | str | Label]) -> builtins.list[Label]:
        """Put the labels in this order; name every label of the dataset once (by id, name or
        object). All or nothing: a missing, repeated or unknown label is a ``BadRequest``. Versions
        made before keep their class order. Answers the labels in the new order.

        e.g. ``dataset.reorder_labels(["cat", "dog", "bird"])``"""
        by_name = (
            {label.name: label.id for label in self.labels()}
            if any(isinstance(x, str) for x in labels)
            else {}
        )
        ids = []
        for label in labels:
            if isinstance(label, str):
                if label not in by_name:
                    raise NotFound(f"No label named {label!r} in dataset {self.id}.", code="not_found")
                ids.append(by_name[label])
            else:
                ids.append(_id(label))
        answer = self._client.http.post(f"datasets/{self.id}/labels/reorder/", {"label_ids": ids})
        return [Label(self._client, item) for item in answer]

    def delete_label(self, label: int | Label, *, dry_run: bool = False) -> schema.LabelChange:
        """Delete a label (its samples become unlabeled); answers how many samples it touched."""
        change: schema.LabelChange = self._client.http.delete(
            f"datasets/{self.id}/labels/{_id(label)}/", dry_run="true" if dry_run else "false"
        )
        return change

    def merge_labels(
        self, label: int | Label, into: int | Label, *, dry_run: bool = False
    ) -> schema.LabelChange:
        change: schema.LabelChange = self._client.http.post(
            f"datasets/{self.id}/labels/{_id(label)}/merge/", {"into": _id(into), "dry_run": dry_run}
        )
        return change

    def label_id(self, label: int | str | Label | None) -> int | None:
        """The id of a label given by id, object or name (None stays None)."""
        if label is None or isinstance(label, (int, Label)):
            return None if label is None else _id(label)
        for item in self.labels():
            if item.data["name"] == label:
                return item.id
        raise NotFound(f"No label named {label!r} in dataset {self.id}.", code="not_found")

    def samples(
        self,
        *,
        label: int | str | None = None,
        unlabeled: bool | None = None,
        version: int | None = None,
        split: str | None = None,
        search: str | None = None,
        annotation_status: str | None = None,
        box_label: int | str | None = None,
        review_status: str | None = None,
    ) -> Iterator[schema.Sample]:
        """Every sample matching the filters (id, original_name, label, label_version, split, ...).
        Object detection: ``annotation_status`` (``"unlabeled"``, ``"annotated"``, ``"no_objects"``)
        and ``box_label`` (images with a box of that label, by id or name); each sample then carries
        its ``annotation_status``, ``box_count`` and ``box_labels``. ``review_status``:
        ``"unreviewed"``, ``"accepted"`` or ``"rejected"`` (team labeling's review)."""
        params: dict[str, Any] = {
            "label": self.label_id(label),
            "version": version,
            "split": split,
            "search": search,
            "annotation_status": annotation_status,
            "box_label": self.label_id(box_label),
            "review_status": review_status,
        }
        if unlabeled is not None:
            params["unlabeled"] = "true" if unlabeled else "false"
        return self._client.http.paginate(f"datasets/{self.id}/samples/", **params)

    def set_label(
        self,
        sample: int | Mapping[str, Any],
        label: int | str | Label | None,
        *,
        label_version: int | None = None,
    ) -> schema.Sample:
        """Set one sample's label. ``label_version`` (default: the sample's, if given as a dict)
        guards against concurrent edits: a stale one raises :class:`sampan.Conflict`."""
        sample_id = _id(sample)
        if label_version is None:
            if isinstance(sample, Mapping):
                label_version = int(sample["label_version"])
            else:
                current: schema.Sample = self._client.http.get(f"datasets/{self.id}/samples/{sample_id}/")
                label_version = current["label_version"]
        changed: schema.Sample = self._client.http.patch(
            f"datasets/{self.id}/samples/{sample_id}/",
            {"label": self.label_id(label), "label_version": label_version},
        )
        return changed

    def set_labels(
        self, samples: Sequence[Mapping[str, Any]], label: int | str | Label | None
    ) -> schema.BulkLabelResult:
        """Label many samples at once (all or nothing; :class:`sampan.Conflict` lists those changed
        meanwhile)."""
        items = [{"id": s["id"], "label_version": s["label_version"]} for s in samples]
        result: schema.BulkLabelResult = self._client.http.post(
            f"datasets/{self.id}/samples/bulk-label/", {"label": self.label_id(label), "items": items}
        )
        return result

    # --- annotations (object detection) ---------------------------------------------------------

    def annotations(self, sample: int | Mapping[str, Any]) -> schema.SampleAnnotations:
        """A sample's annotations: ``{sample, status, revision, width, height, annotations}``, each
        annotation ``{id, kind: "box", label, geometry: {x, y, width, height}, attributes}`` in the
        image's pixels. ``revision`` is what a write names (see :meth:`set_annotations`).

        e.g. ``[a["label"] for a in dataset.annotations(sample)["annotations"]]`` -> ``["cat", "dog"]``"""
        current: schema.SampleAnnotations = self._client.http.get(
            f"datasets/{self.id}/samples/{_sample_id(sample)}/annotations/"
        )
        return current

    def set_annotations(
        self,
        sample: int | Mapping[str, Any],
        annotations: Sequence[Mapping[str, Any]],
        *,
        revision: int | None = None,
        status: str | None = None,
    ) -> schema.SampleAnnotations:
        """Replace a sample's annotations (boxes from :func:`sampan.box`, or records as read). Labels
        are named and must exist (:meth:`create_label`). ``revision`` is the one read (default: the
        sample's, given as what :meth:`annotations` answered, else read now); a stale one raises
        :class:`sampan.AnnotationConflict` with the current state. ``status``: ``"annotated"``,
        ``"no_objects"`` (reviewed, nothing to box) or ``"unlabeled"``; by default annotated when
        there are boxes. A box outside the image, of zero size or with an unknown label is a
        ``BadRequest`` naming the annotation's index.

        e.g. ``dataset.set_annotations(sample, [sampan.box("cat", 4, 5, 20, 30)])``,
        ``dataset.set_annotations(sample, [], status="no_objects")``"""
        sample_id = _sample_id(sample)
        if revision is None:
            if isinstance(sample, Mapping) and "revision" in sample:
                revision = int(sample["revision"])
            else:
                revision = self.annotations(sample_id)["revision"]
        body: dict[str, Any] = {"revision": revision, "annotations": [_writable(a) for a in annotations]}
        if status is not None:
            body["status"] = status
        written: schema.SampleAnnotations = self._client.http.request(
            "PUT", f"datasets/{self.id}/samples/{sample_id}/annotations/", json=body
        )
        return written

    def set_annotations_bulk(
        self, items: Sequence[Mapping[str, Any]]
    ) -> builtins.list[schema.SampleAnnotations]:
        """Replace the annotations of many samples in one transaction, all or nothing (at most 500):
        each item ``{"sample": id, "revision": r, "annotations": [...], "status"?: ...}``. If any
        sample changed since its revision nothing is written and :class:`sampan.AnnotationConflict`
        lists the current state of those (``conflicts``).

        e.g. ``dataset.set_annotations_bulk([{"sample": s["sample"], "revision": s["revision"],
        "annotations": [sampan.box("cat", 1, 2, 10, 10)]} for s in current])``"""
        if len(items) > MAX_BULK_ANNOTATIONS:
            raise ValueError(
                f"A bulk write takes at most {MAX_BULK_ANNOTATIONS} samples (all or nothing); "
                f"got {len(items)}."
            )
        body = {
            "items": [
                {
                    "sample": _sample_id(item["sample"]),
                    "revision": int(item["revision"]),
                    "annotations": [_writable(a) for a in item.get("annotations", [])],
                    **({"status": item["status"]} if item.get("status") is not None else {}),
                }
                for item in items
            ]
        }
        result: schema.BulkAnnotationsResult = self._client.http.post(
            f"datasets/{self.id}/annotations/bulk/", body
        )
        return result["items"]

    # --- activity log -----------------------------------------------------------------------------

    def activity(self, sample: int | Mapping[str, Any] | None = None) -> builtins.list[schema.SampleActivity]:
        """The activity log, newest first: who changed which label, boxes or review of a sample,
        when and from where (``source``: manual, bulk, suggestion, task, review, revert,
        label_change), with the value ``before`` and ``after``. ``sample`` narrows it to one sample.
        e.g. ``dataset.activity(sample=7)[0]["after"]`` -> ``{"label": 3, "label_name": "cat"}``"""
        params = {"sample": None if sample is None else _id(sample)}
        return list(self._client.http.paginate(f"datasets/{self.id}/activity/", **params))

    def revert(self, activity: int | Mapping[str, Any]) -> schema.SampleActivity:
        """Put a sample back to its value before this activity entry; answers the new entry
        (``source`` ``"revert"``). :class:`sampan.Conflict` (``label_conflict``) when the sample
        changed since that entry."""
        entry: schema.SampleActivity = self._client.http.post(
            f"datasets/{self.id}/activity/{_id(activity)}/revert/", {}
        )
        return entry

    def statistics(self) -> schema.DatasetStatistics:
        statistics: schema.DatasetStatistics = self._client.http.get(f"datasets/{self.id}/statistics/")
        return statistics

    # --- versions and export -----------------------------------------------------------------------

    def create_version(
        self,
        *,
        train_ratio: float = 0.8,
        val_ratio: float = 0.1,
        test_ratio: float = 0.1,
        seed: int | None = None,
        note: str = "",
        reviewed_only: bool = False,
        horizon: int | None = None,
        progress: bool = True,
        timeout: float | None = None,
    ) -> DatasetVersion:
        """Snapshot the labeled samples as a new version with a stratified split; ``reviewed_only``:
        only the samples a reviewer accepted (team labeling).

        A large dataset's version is made by a ``datasets.version`` job on a worker (the platform's
        SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES); this waits for it with a progress bar (``progress``)
        and returns the version all the same; :class:`sampan.WaitTimeout` after ``timeout`` seconds.

        A time-series forecasting dataset is split by time instead: ``horizon`` (required there,
        1-1000) steps at the end of each series are the test window and the ``horizon`` before them
        the validation window; the ratios do not apply.

        e.g. ``version = dataset.create_version(seed=7)``; ``version.name`` -> ``"V1"``;
        ``sales.create_version(horizon=14)``
        """
        body: dict[str, Any]
        if horizon is not None:
            body = {"horizon": int(horizon), "note": note}
        else:
            body = {
                "train_ratio": train_ratio,
                "val_ratio": val_ratio,
                "test_ratio": test_ratio,
                "note": note,
                "reviewed_only": reviewed_only,
            }
        if seed is not None:
            body["seed"] = seed
        answer = self._client.http.post(f"datasets/{self.id}/versions/", body, idempotent=True)
        if "number" in answer:  # 201: made inside the request
            return DatasetVersion(self._client, answer)
        from sampan.training import Job

        # 202: a datasets.version job makes it
        job = Job(self._client, answer).wait(progress=progress, timeout=timeout)
        result = job.data["result"]
        if result is None or result["kind"] != "dataset_version_result":
            raise SampanError(f"Job {job.id} made no dataset version.", code="no_result")
        return self.version(result["dataset_version"])

    def versions(self) -> builtins.list[DatasetVersion]:
        return [
            DatasetVersion(self._client, v)
            for v in self._client.http.paginate(f"datasets/{self.id}/versions/")
        ]

    def version(self, version_id: int) -> DatasetVersion:
        return DatasetVersion(
            self._client, self._client.http.get(f"datasets/{self.id}/versions/{int(version_id)}/")
        )

    def imports(self) -> builtins.list[schema.ImportBatchSummary]:
        return list(self._client.http.paginate(f"datasets/{self.id}/imports/"))

    # --- data quality ------------------------------------------------------------------------------

    def quality_report(
        self,
        version: int | DatasetVersion | None = None,
        *,
        wait: bool = True,
        progress: bool = True,
        timeout: float | None = None,
        near_duplicate_distance: int | None = None,
        near_duplicate_similarity: float | None = None,
        min_per_class: int | None = None,
        seed: int | None = None,
    ) -> QualityReport:
        """Run a data quality report of the dataset (or of one ``version``, which also finds duplicates
        across its splits) on a worker; with ``wait`` block until it is ready (a progress bar). The
        thresholds left None are the platform's defaults.

        e.g. ``report = dataset.quality_report()``; ``print(report.summary())``;
        ``report.findings("likely_mislabeled")``
        """
        thresholds = {
            "near_duplicate_distance": near_duplicate_distance,
            "near_duplicate_similarity": near_duplicate_similarity,
            "min_per_class": min_per_class,
            "seed": seed,
        }
        body = quality_report_body(version, {k: v for k, v in thresholds.items() if v is not None})
        created = self._client.http.post(f"datasets/{self.id}/quality-reports/", body)
        report = QualityReport(self._client, created)
        return report.wait(progress=progress, timeout=timeout) if wait else report

    def quality_reports(self) -> builtins.list[QualityReport]:
        """The dataset's quality reports, newest first, without their findings (``refresh()`` one to
        read them)."""
        return [
            QualityReport(self._client, row)
            for row in self._client.http.paginate(f"datasets/{self.id}/quality-reports/")
        ]

    # --- smart labeling ------------------------------------------------------------------------------

    def smart_label(
        self,
        batch_size: int = 50,
        *,
        strategy: str = "uncertainty_diversity",
        seed: int | None = None,
        wait: bool = True,
        progress: bool = True,
        timeout: float | None = None,
    ) -> SmartRound:
        """Start a smart-labeling round: a quick model trained on the labeled samples suggests a label
        for every unlabeled one (with its confidence) and ranks them, ``batch_size`` first, by how much
        labeling them would help (``strategy``: ``"uncertainty_diversity"``, ``"uncertainty"`` or
        ``"random"``). Waits with a progress bar unless ``wait=False``. Needs 2 classes with 2 labels
        each (:class:`sampan.InvalidRequest` ``not_enough_labels``); one round at a time per dataset.

        e.g. ``dataset.smart_label(batch_size=20).summary["ranked"]`` -> ``20``"""
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}; got {strategy!r}.")
        started = smart_round_start(
            self._client, self.id, batch_size=batch_size, strategy=strategy, seed=seed
        )
        return started.wait(progress=progress, timeout=timeout) if wait else started

    def smart_rounds(self) -> builtins.list[SmartRound]:
        """The dataset's smart-labeling rounds, newest first."""
        return smart_rounds(self._client, self.id)

    def suggestions(
        self,
        *,
        status: str = "pending",
        label: int | str | Label | None = None,
        min_confidence: float | None = None,
        max_confidence: float | None = None,
        round: int | SmartRound | None = None,
        ordering: str = "rank",
        limit: int | None = None,
        source: str | None = None,
    ) -> builtins.list[schema.Suggestion]:
        """Suggestions (``status`` ``"pending"``: waiting for you, on samples still unlabeled;
        ``"accepted"``, ``"rejected"``, ``"superseded"``), filtered by ``label`` (id or name), confidence,
        ``round`` and ``source`` (``"smart_round"``, or ``"capture"``: a deployment's answers sent with
        :meth:`sampan.Deployment.send_captures`); ``ordering``: ``"rank"`` (the batch to label next
        first), ``"-confidence"``, ``"confidence"``, ``"id"``. Each: ``{id, round, source, deployment,
        deployment_name, sample {id, original_name, ...}, label, label_name, confidence, scores, boxes,
        rank, status}``."""
        if ordering not in ORDERINGS:
            raise ValueError(f"ordering must be one of {', '.join(ORDERINGS)}; got {ordering!r}.")
        return suggestion_list(
            self._client,
            self.id,
            status=status,
            label=self.label_id(label),
            min_confidence=min_confidence,
            max_confidence=max_confidence,
            round=None if round is None else _id(round),
            ordering=ordering,
            limit=limit,
            source=source,
        )

    def next_to_label(self, n: int = 50) -> builtins.list[schema.Suggestion]:
        """The latest round's ranking: the ``n`` unlabeled samples to label next (their suggestions,
        ``rank`` 1 first). e.g. ``[s["sample"]["id"] for s in dataset.next_to_label(10)]``"""
        return self.suggestions(ordering="rank", limit=n)

    def accept_suggestions(
        self,
        ids: Iterable[int | Mapping[str, Any]] | None = None,
        *,
        label: int | str | Label | None = None,
        min_confidence: float | None = None,
        max_confidence: float | None = None,
        round: int | SmartRound | None = None,
        min_score: float | None = None,
    ) -> schema.SuggestionAcceptResult:
        """Accept suggestions, by ``ids`` (ints or suggestion dicts) or everything pending that
        matches ``label`` / ``min_confidence`` / ``max_confidence`` / ``round``: their samples get the
        suggested label (object detection: the boxes, those under ``min_score`` dropped). A sample a
        person labeled meanwhile keeps that label (``skipped`` says so).

        e.g. ``dataset.accept_suggestions(label="5", min_confidence=0.95)`` -> ``{"accepted": 41,
        "skipped": []}``"""
        body = decision_body(
            ids,
            label=self.label_id(label),
            min_confidence=min_confidence,
            max_confidence=max_confidence,
            round=round,
            min_score=min_score,
        )
        result: schema.SuggestionAcceptResult = self._client.http.post(
            f"datasets/{self.id}/suggestions/accept/", body
        )
        return result

    def reject_suggestions(
        self,
        ids: Iterable[int | Mapping[str, Any]] | None = None,
        *,
        label: int | str | Label | None = None,
        min_confidence: float | None = None,
        max_confidence: float | None = None,
        round: int | SmartRound | None = None,
    ) -> schema.SuggestionRejectResult:
        """Reject suggestions (selected as :meth:`accept_suggestions` does); their samples stay unlabeled."""
        body = decision_body(
            ids,
            label=self.label_id(label),
            min_confidence=min_confidence,
            max_confidence=max_confidence,
            round=round,
        )
        result: schema.SuggestionRejectResult = self._client.http.post(
            f"datasets/{self.id}/suggestions/reject/", body
        )
        return result

    def export(
        self,
        dest: str | os.PathLike[str] | IO[bytes],
        *,
        version: int | DatasetVersion | None = None,
        format: str | None = None,
        progress: bool = False,
        timeout: float | None = None,
    ) -> Path | None:
        """Download the dataset (or one version) as a zip: a folder per class plus manifest.csv; an
        object-detection dataset in ``format`` ``"coco"``, ``"voc"`` or ``"yolo"`` (images and their
        boxes, the format's layout).

        An export too large for one request (the platform's SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES)
        is written by a ``datasets.export`` job: this starts it, waits (a progress bar with
        ``progress``; :class:`sampan.WaitTimeout` after ``timeout`` seconds) and downloads its zip.

        e.g. ``dataset.export("scenes-coco.zip", format="coco")``"""
        if format is not None and format not in EXPORT_FORMATS:
            raise ValueError(f"format must be one of {', '.join(EXPORT_FORMATS)}; got {format!r}.")
        params: dict[str, Any] = {}
        if version is not None:
            params["version"] = _id(version)
        if format is not None:
            params["format"] = format
        try:
            return self._client.http.download(
                f"datasets/{self.id}/export/",
                dest,
                params=params or None,
                progress=progress,
                description="export",
            )
        except SampanError as exc:
            if exc.code != "export_needs_job":
                raise
        from sampan.training import Job

        answer = self._client.http.post(f"datasets/{self.id}/exports/", params, idempotent=True)
        job = Job(self._client, answer).wait(progress=progress, timeout=timeout)
        return self._client.http.download(
            f"datasets/{self.id}/exports/{job.id}/", dest, progress=progress, description="export"
        )


class Datasets:
    """``client.datasets``: list, get, create, update, delete (uploads and labels live on the dataset)."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self, *, project: int | Resource[Any] | None = None, workspace: int | Resource[Any] | None = None
    ) -> builtins.list[Dataset]:
        return [
            Dataset(self._client, d)
            for d in self._client.http.paginate(
                "datasets/",
                project=_id(project) if project is not None else None,
                workspace=_id(workspace) if workspace is not None else None,
            )
        ]

    def get(self, dataset_id: int) -> Dataset:
        return Dataset(self._client, self._client.http.get(f"datasets/{int(dataset_id)}/"))

    def create(
        self,
        name: str,
        *,
        project: int | Resource[Any],
        task_type: str = "image_classification",
        description: str = "",
    ) -> Dataset:
        """e.g. ``client.datasets.create("digits", project=project)``"""
        return Dataset(
            self._client,
            self._client.http.post(
                "datasets/",
                {"project": _id(project), "name": name, "task_type": task_type, "description": description},
            ),
        )

    def import_time_series(
        self,
        dataset: int | Dataset,
        source: TableSource,
        *,
        timestamp: str | None = None,
        targets: str | Sequence[str] | None = None,
        series: str | None = None,
        known: Sequence[str] = (),
        static: Sequence[str] = (),
        frequency: str | None = None,
        fill_rule: str = "interpolate",
        background: bool = False,
        progress: bool = True,
        timeout: float = 3600,
    ) -> UploadResult:
        """Import a long or wide DataFrame (or table file) into a forecasting dataset; see
        :meth:`Dataset.import_time_series`.

        e.g. ``client.datasets.import_time_series(7, df, timestamp="date", series="store",
        targets="sales")``"""
        target = dataset if isinstance(dataset, Dataset) else self.get(_id(dataset))
        return target.import_time_series(
            source,
            timestamp=timestamp,
            targets=targets,
            series=series,
            known=known,
            static=static,
            frequency=frequency,
            fill_rule=fill_rule,
            background=background,
            progress=progress,
            timeout=timeout,
        )

    def series(
        self,
        dataset: int | Dataset,
        ids: str | Sequence[str] | None = None,
        *,
        start: str | None = None,
        end: str | None = None,
        max_points: int | None = None,
    ) -> Any:
        """Series points of a forecasting dataset as a long DataFrame (``id``, ``timestamp``,
        ``value``); see :meth:`Dataset.series`."""
        target = dataset if isinstance(dataset, Dataset) else self.get(_id(dataset))
        return target.series(ids, start=start, end=end, max_points=max_points)

    def update(self, dataset: int | Dataset, **fields: Any) -> Dataset:
        return Dataset(self._client, self._client.http.patch(f"datasets/{_id(dataset)}/", fields))

    def delete(self, dataset: int | Dataset) -> None:
        self._client.http.delete(f"datasets/{_id(dataset)}/")


# --- helpers for uploads --------------------------------------------------------------------------


def _import_failed(batch: schema.ImportBatch) -> SampanError:
    return SampanError(
        f"Import {batch['id']} failed: {batch['error']}",
        code=batch["error_code"] or "import_failed",
        details=batch,
    )


def _sample_id(sample: int | Mapping[str, Any]) -> int:
    """A sample's id: an int, a sample as listed (``id``) or its annotations as read (``sample``)."""
    if isinstance(sample, Mapping) and "id" not in sample and "sample" in sample:
        return int(sample["sample"])
    return _id(sample)


def _writable(record: Mapping[str, Any]) -> dict[str, Any]:
    """An annotation as a write takes it: a record as read loses its ``id``."""
    return {key: value for key, value in record.items() if key != "id"}


def _zip_folder(folder: Path) -> bytes:
    """A folder as zip bytes, paths relative to it (hidden files left out)."""
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder)
            if path.is_file() and not any(part.startswith(".") for part in relative.parts):
                archive.write(path, relative.as_posix())
    return buffer.getvalue()


def _table_file(source: TableSource) -> tuple[str, bytes]:
    """A table upload's (file name, bytes): a path, a (name, bytes) pair, or a DataFrame as UTF-8 CSV."""
    if _is_dataframe(source):
        frame: Any = source  # pandas is untyped here
        return "dataframe.csv", frame.to_csv(index=False).encode("utf-8")
    if isinstance(source, tuple):
        name, content = source
        return str(name), bytes(content)
    path = Path(source)
    if not path.is_file():
        raise FileNotFoundError(f"No such table file: {path}")
    return path.name, path.read_bytes()


def _table_options(**options: Any) -> dict[str, str]:
    """The form fields of a table preview or import: only the options given (None is not sent)."""
    return {key: str(value) for key, value in options.items() if value is not None}


def _upload_timeout(client: Client, size: int | None) -> Any:
    """Uploads get a longer read timeout than ordinary calls: the server verifies every image."""
    base = client.http.timeout
    read = base[1] if isinstance(base, tuple) else base
    extra = (size or 0) / (1 << 20)  # a second per MiB on top
    return (base[0] if isinstance(base, tuple) else base, max(read, 300.0) + extra)


def _is_dataframe(obj: Any) -> bool:
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "columns")


def _file_part(item: Any) -> tuple[str, Any, str]:
    if isinstance(item, tuple):
        name, content = item
        return (str(name), content, mimetypes.guess_type(str(name))[0] or "application/octet-stream")
    path = Path(item)
    return (path.name, path.read_bytes(), mimetypes.guess_type(path.name)[0] or "application/octet-stream")


def _folder_groups(root: Path, label: str | None) -> list[tuple[str | None, list[Any]]]:
    def images(folder: Path) -> list[Path]:
        return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)

    groups: list[tuple[str | None, list[Any]]] = [(label, list(images(root)))]
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    # Each folder is its own request, so the server creates the labels in this order: the
    # numbers in the names by value (class2 before class10, 一 before 十), as the server orders
    # the folders of an archive.
    if folders and all(_NUMBER.search(p.name) for p in folders):
        folders.sort(key=lambda p: _natural_key(p.name))
    for folder in folders:
        groups.append((folder.name, list(images(folder))))
    return groups


_NUMBER = re.compile(r"\d+|[零〇一二两三四五六七八九十百千万]+")
_CHINESE_DIGITS = {**{c: i for i, c in enumerate("零一二三四五六七八九")}, "〇": 0, "两": 2}
_CHINESE_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}


def _chinese_number(text: str) -> int:
    if not any(c in _CHINESE_UNITS for c in text):
        return int("".join(str(_CHINESE_DIGITS[c]) for c in text))
    total, section, digit = 0, 0, None
    for c in text:
        if c in _CHINESE_DIGITS:
            digit = _CHINESE_DIGITS[c]
        elif c == "万":
            total += (section + (digit or 0)) * 10000
            section, digit = 0, None
        else:
            section += (1 if digit is None else digit) * _CHINESE_UNITS[c]
            digit = None
    return total + section + (digit or 0)


def _natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """The server's natural order (datasets.label_order.natural_key): numbers compare by value."""
    key: list[tuple[int, int | str]] = []
    at = 0
    for match in _NUMBER.finditer(name):
        if match.start() > at:
            key.append((1, name[at : match.start()].casefold()))
        run = match.group()
        key.append((0, int(run) if run.isdigit() else _chinese_number(run)))
        at = match.end()
    if at < len(name):
        key.append((1, name[at:].casefold()))
    return tuple(key)


def _dataframe_groups(frame: Any, label: str | None) -> list[tuple[str | None, list[Any]]]:
    if "path" not in frame.columns and "bytes" not in frame.columns:
        raise ValueError("The DataFrame needs a 'path' or a 'bytes' column (and optionally 'label').")
    groups: dict[str | None, list[Any]] = {}
    for position, row in enumerate(frame.to_dict("records")):
        value = row.get("label", label)
        name = None if value is None or value != value else str(value)  # NaN != NaN: unlabeled
        if "path" in frame.columns and row.get("path") is not None:
            item: Any = row["path"]
        else:
            item = (str(row.get("name") or f"image-{position}.png"), bytes(row["bytes"]))
        groups.setdefault(name, []).append(item)
    return list(groups.items())
