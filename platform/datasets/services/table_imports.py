"""Table imports into text and tabular datasets: the column mapping step (``table_preview``), then
the import, whose first one fixes the dataset's schema. Files over 8 MiB import in a
``datasets.import`` job. Reading the file is ``datasets.tables``' part."""

from __future__ import annotations

import hashlib
import json
from pathlib import PurePosixPath
from typing import Any, BinaryIO

from django.conf import settings

from datasets import selectors
from datasets.exceptions import ImportRejected, UploadTooLarge
from datasets.models import (
    FORECASTING_TASKS,
    IMAGE_TASKS,
    REGRESSION_TASKS,
    Dataset,
    ImportBatch,
    ImportSource,
    ImportStatus,
    Sample,
    TaskType,
)
from datasets.services import imports
from datasets.services import time_series as time_series_import
from datasets.services.imports import Report, Staged
from datasets.services.labels import label_problem
from datasets.tables import (
    MAX_COLUMNS,
    Table,
    TableRejected,
    as_number,
    decimal_option,
    delimiter_option,
    encoding_name,
    infer_type,
    read_table,
    table_format,
)

SYNC_TABLE_MAX_BYTES = 8 * 1024 * 1024  # bigger table files are parsed by a `datasets.import` job
TEXT_COLUMN_GUESSES = (
    "text",
    "content",
    "sentence",
    "review",
    "body",
    "message",
    "comment",
    "document",
    "title",
)
LABEL_COLUMN_GUESSES = (
    "label",
    "labels",
    "category",
    "class",
    "target",
    "intent",
    "sentiment",
    "tag",
    "topic",
)
MAX_CLASSES = 1000
PREVIEW_BYTES = 2 * 1024 * 1024
PREVIEW_ROWS = 20


def _table_rejected(exc: TableRejected) -> ImportRejected:
    return ImportRejected(str(exc), code=exc.code, field=exc.field, **exc.details)


def _table_options(*, encoding: str = "", delimiter: str = "", decimal: str = "", sheet: str = "") -> dict:
    """The user's reading options, checked (a bad one is refused before anything is read); None: detect."""
    return {
        "encoding": encoding_name(encoding) if encoding and encoding.strip() else None,
        "delimiter": delimiter_option(delimiter or None),
        "decimal": decimal_option(decimal or None),
        "sheet": sheet.strip() if sheet and sheet.strip() else None,
    }


def _read_options(mapping: dict) -> dict:
    return {key: mapping.get(key) or None for key in ("encoding", "delimiter", "decimal", "sheet")}


def _table_upload(*, dataset: Dataset, upload, not_images: str, too_large: str) -> str:
    """The upload's file name, once the dataset takes table files and the file is within the size
    limit; ``not_images`` and ``too_large`` end the two refusals' messages."""
    name = PurePosixPath(upload.name or "table.csv").name[-255:]
    if dataset.task_type in IMAGE_TASKS:
        raise ImportRejected(
            f"{dataset.name!r} is an image dataset{not_images}", code="wrong_import_kind", field="file"
        )
    limit = settings.SAMPAN_DATASET_MAX_TABLE_BYTES
    if upload.size > limit:
        raise UploadTooLarge(
            f"The file {name!r} is {upload.size:,} bytes; one table file may be at most {limit:,} "
            f"bytes (SAMPAN_DATASET_MAX_TABLE_BYTES).{too_large}",
            field="file",
            size_bytes=upload.size,
            limit_bytes=limit,
        )
    return name


def import_table(
    *,
    dataset: Dataset,
    upload,
    user,
    text_column: str = "",
    label_column: str = "",
    target_column: str = "",
    encoding: str = "",
    delimiter: str = "",
    decimal: str = "",
    sheet: str = "",
    background: bool = False,
    time_series: dict | None = None,
) -> ImportBatch:
    """Import a table file into a text or tabular dataset. Files up to 8 MiB are read now (201);
    bigger ones (or ``background=True``) by a ``datasets.import`` job (202). The column mapping
    names the text and label columns (text datasets) or the target column (tabular datasets); the
    first import fixes the dataset's schema. Forecasting datasets take ``time_series``: the mapping
    ``{timestamp_column, series_column, target_columns, known_covariates, static_covariates,
    frequency, fill_rule}`` (``datasets.services.time_series``). ``encoding``, ``delimiter``,
    ``decimal`` and ``sheet`` override what :func:`datasets.tables.read_table` detects; the batch's
    ``mapping`` records what was used.

    e.g. ``import_table(dataset=d, upload=request.FILES["file"], user=u, target_column="species")``
    """
    name = _table_upload(
        dataset=dataset,
        upload=upload,
        not_images=": upload an archive or image files.",
        too_large=" Split it into several files.",
    )
    if upload.size == 0:
        raise ImportRejected(f"The file {name!r} is empty.", code="empty_table", field="file")
    upload.seek(0)
    try:
        table_format(name, upload.read(8))
        options = _table_options(encoding=encoding, delimiter=delimiter, decimal=decimal, sheet=sheet)
    except TableRejected as exc:
        raise _table_rejected(exc) from None
    forecasting = dataset.task_type in FORECASTING_TASKS
    mapping: dict[str, Any] = {
        key: value.strip()
        for key, value in (
            ("text_column", text_column),
            ("label_column", label_column),
            ("target_column", target_column),
        )
        if value and value.strip()
    }
    if forecasting:
        mapping = time_series_import.clean_mapping(**(time_series or {}))
    mapping.update({key: value for key, value in options.items() if value is not None})
    batch = ImportBatch(
        dataset=dataset,
        source=ImportSource.TABLE,
        filename=name,
        size_bytes=upload.size,
        mapping=mapping,
        created_by=user,
    )
    if not background and upload.size <= SYNC_TABLE_MAX_BYTES:
        upload.seek(0)
        batch.status = ImportStatus.RUNNING
        return _import_table_now(dataset=dataset, data=upload.read(), batch=batch)
    return imports.import_later(dataset=dataset, batch=batch, upload=upload, user=user, name="table")


def _label_of(value: Any) -> str | None:
    """A target/label cell as a label name: 1.0 -> "1", text stripped; None when missing."""
    if value is None:
        return None
    number = as_number(value) if isinstance(value, int | float) else None
    if number is not None and number.is_integer():
        return str(int(number))
    text = str(value).strip()
    return text or None


def _row_problem(number: int, code: str, message: str) -> dict:
    return {"file": f"row {number}", "code": code, "message": message}


def _first_copy(seen: dict[str, int], problems: list[dict], number: int, sha: str, what: str) -> bool:
    """Whether row ``number`` is the file's first with this content; a repeat is a ``duplicate`` problem."""
    if sha in seen:
        problems.append(
            _row_problem(number, "duplicate", f"the same {what} as row {seen[sha]} earlier in this file")
        )
        return False
    seen[sha] = number
    return True


def _row_label(value: Any, number: int, problems: list[dict]) -> str | None:
    """The label a row's cell gives, or None (a cell that cannot be a label name is a problem)."""
    label = _label_of(value)
    problem = label_problem(label) if label is not None else None
    if problem is not None:
        problems.append(_row_problem(number, "bad_label", problem))
        return None
    return label


def _pick_column(columns: list[str], guesses: tuple[str, ...], exclude: set[str]) -> str | None:
    by_lower = {c.lower(): c for c in columns if c not in exclude}
    return next((by_lower[g] for g in guesses if g in by_lower), None)


def _named_column(table: Table, column: str, field: str, what: str) -> str:
    if column not in table.columns:
        raise ImportRejected(
            f"The file has no column named {column!r} for the {what}; its columns are "
            f"{', '.join(repr(c) for c in table.columns[:30])}.",
            code=f"no_{field}",
            field=field,
            columns=table.columns[:200],
        )
    return column


def _text_plan(
    dataset: Dataset, table: Table, mapping: dict, problems: list[dict]
) -> tuple[dict, list[Staged]]:
    schema = dataset.schema or {}
    text_column = mapping.get("text_column") or schema.get("text_column")
    if text_column:
        _named_column(table, text_column, "text_column", "text")
    else:
        text_column = _pick_column(table.columns, TEXT_COLUMN_GUESSES, set())
        if text_column is None:
            kinds = {c: infer_type([r[c] for r in table.rows[:2000]]) for c in table.columns}
            texts = [c for c in table.columns if kinds[c] == "text"]
            text_column = texts[0] if len(texts) == 1 else None
        if text_column is None:
            raise ImportRejected(
                "No text column found: none of the columns "
                f"({', '.join(repr(c) for c in table.columns[:30])}) is named like text, content or "
                "sentence, or is the one column of free text. Choose it with text_column.",
                code="no_text_column",
                field="text_column",
                columns=table.columns[:200],
            )
    if all(r[text_column] is None or as_number(r[text_column]) is not None for r in table.rows):
        raise ImportRejected(
            f"The column {text_column!r} holds no text (only numbers or empty cells); choose "
            "the column with the texts as text_column.",
            code="no_text_column",
            field="text_column",
            columns=table.columns[:200],
        )
    label_column = mapping.get("label_column") or schema.get("label_column")
    if label_column:
        _named_column(table, label_column, "label_column", "labels")
        if label_column == text_column:
            raise ImportRejected(
                "The text and label columns must differ.", code="bad_mapping", field="label_column"
            )
    else:
        label_column = _pick_column(table.columns, LABEL_COLUMN_GUESSES, {text_column})
    rows: list[Staged] = []
    seen: dict[str, int] = {}
    for number, cells in enumerate(table.rows, start=1):
        text = cells[text_column]
        if text is None or not str(text).strip():
            problems.append(_row_problem(number, "empty_text", f"the {text_column!r} cell is empty"))
            continue
        text = str(text)
        sha = hashlib.sha256(text.encode()).hexdigest()
        if not _first_copy(seen, problems, number, sha, "text"):
            continue
        rows.append(
            Staged(
                name=f"row {number}: {text[:80]}"[:255],
                label=_row_label(cells[label_column], number, problems) if label_column else None,
                sha256=sha,
                fields={"format": "TEXT", "size_bytes": len(text.encode()), "text": text},
            )
        )
    return {"text_column": text_column, "label_column": label_column or ""}, rows


def _tabular_plan(
    dataset: Dataset, table: Table, mapping: dict, problems: list[dict]
) -> tuple[dict, list[Staged]]:
    schema = dataset.schema or {}
    regression = dataset.task_type in REGRESSION_TASKS
    target = mapping.get("target_column") or schema.get("target")
    if not target:
        raise ImportRejected(
            "Choose the target column (target_column): the column the model will predict. The "
            f"file's columns are {', '.join(repr(c) for c in table.columns[:30])}.",
            code="no_target_column",
            field="target_column",
            columns=table.columns[:200],
        )
    _named_column(table, target, "target_column", "target")
    if schema.get("target") and target != schema["target"]:
        raise ImportRejected(
            f"This dataset's target column is {schema['target']!r}; a later import cannot change it.",
            code="bad_mapping",
            field="target_column",
        )
    features = [c for c in table.columns if c != target]
    if len(features) > MAX_COLUMNS:
        raise ImportRejected(
            f"The file has {len(features):,} feature columns besides the target; at most "
            f"{MAX_COLUMNS} are supported.",
            code="too_many_columns",
            field="file",
            columns=len(features),
        )
    if not features:
        raise ImportRejected(
            "The file has only the target column; a model needs at least one feature column.",
            code="no_feature_columns",
            field="file",
        )
    if schema.get("columns"):
        expected = [c["name"] for c in schema["columns"]]
        missing, extra = (
            [c for c in expected if c not in features],
            [c for c in features if c not in expected],
        )
        if missing or extra:
            raise ImportRejected(
                "The file's columns differ from the dataset's: "
                + "; ".join(
                    part
                    for part in (
                        f"missing {', '.join(map(repr, missing[:20]))}" if missing else "",
                        f"not in the dataset {', '.join(map(repr, extra[:20]))}" if extra else "",
                    )
                    if part
                )
                + ".",
                code="schema_mismatch",
                field="file",
                missing=missing,
                extra=extra,
            )
        types = {c["name"]: c["type"] for c in schema["columns"]}
    else:
        types = {c: infer_type([r[c] for r in table.rows]) for c in features}
    cells = [r[target] for r in table.rows]
    if all(v is None for v in cells):
        raise ImportRejected(
            f"The target column {target!r} is empty in every row; there is nothing to learn.",
            code="empty_target",
            field="target_column",
        )
    existing = Sample.objects.filter(dataset=dataset).exists()
    if regression:
        bad = [i for i, v in enumerate(cells) if v is not None and as_number(v) is None]
        if bad:
            raise ImportRejected(
                f"The target column {target!r} must hold numbers for regression, but row {bad[0] + 1} has "
                f"{cells[bad[0]]!r}" + (f" (and {len(bad) - 1} more rows)" if len(bad) > 1 else "") + ".",
                code="non_numeric_target",
                field="target_column",
                rows=[i + 1 for i in bad[:100]],
            )
        distinct = {as_number(v) for v in cells if v is not None}
        if len(distinct) < 2 and not existing:
            raise ImportRejected(
                f"The target column {target!r} has the same value ({distinct.pop():g}) in every "
                "row; regression needs a target that varies.",
                code="constant_target",
                field="target_column",
            )
    else:
        classes = {_label_of(v) for v in cells if v is not None}
        if len(classes) < 2 and not existing:
            raise ImportRejected(
                f"The target column {target!r} has only one class ({next(iter(classes))!r}); "
                "classification needs at least two.",
                code="single_class",
                field="target_column",
            )
        if len(classes) > MAX_CLASSES:
            raise ImportRejected(
                f"The target column {target!r} has {len(classes):,} distinct values, more than the "
                f"{MAX_CLASSES} classes a classification dataset takes; is it a regression target?",
                code="too_many_classes",
                field="target_column",
            )
    rows: list[Staged] = []
    seen: dict[str, int] = {}
    for number, row in enumerate(table.rows, start=1):
        values = {}
        for column in features:
            value = row[column]
            if types[column] == "numeric" and value is not None:
                parsed = as_number(value)
                value = parsed if parsed is not None else str(value)
            elif value is not None and not isinstance(value, str):
                value = str(value)
            values[column] = value
        label = None if regression else _row_label(row[target], number, problems)
        value = as_number(row[target]) if regression else None
        canonical = json.dumps([values, label, value], sort_keys=True, separators=(",", ":"))
        sha = hashlib.sha256(canonical.encode()).hexdigest()
        if not _first_copy(seen, problems, number, sha, "row"):
            continue
        rows.append(
            Staged(
                name=f"row {number}",
                label=label,
                sha256=sha,
                fields={"format": "ROW", "size_bytes": len(canonical), "values": values, "target": value},
            )
        )
    return {
        "columns": [{"name": c, "type": types[c]} for c in features],
        "target": target,
        "task": "regression" if regression else "classification",
    }, rows


def _import_table_now(
    *, dataset: Dataset, data: bytes, batch: ImportBatch, report: Report | None = None
) -> ImportBatch:
    mapping = dict(batch.mapping or {})
    try:
        table = read_table(
            data, batch.filename, **_read_options(mapping), max_rows=settings.SAMPAN_DATASET_MAX_FILES
        )
    except TableRejected as exc:
        raise _table_rejected(exc) from None
    if report is not None:
        report(f"read {len(table.rows)} rows", fraction=0.3, milestone=True, total=len(table.rows))
    problems: list[dict] = []
    if dataset.task_type in FORECASTING_TASKS:
        return _import_series_now(dataset=dataset, table=table, batch=batch, mapping=mapping, report=report)
    text = dataset.task_type == TaskType.TEXT_CLASSIFICATION
    schema, rows = (_text_plan if text else _tabular_plan)(dataset, table, mapping, problems)
    mapping.update({k: v for k, v in schema.items() if k in ("text_column", "label_column")})
    if "target" in schema:
        mapping["target_column"] = schema["target"]
    mapping.update(encoding=table.encoding, format=table.format, decimal=table.decimal)
    mapping.update(
        {key: value for key, value in (("delimiter", table.delimiter), ("sheet", table.sheet)) if value}
    )
    batch.mapping = mapping

    def fix_schema(locked: Dataset) -> None:
        if not (locked.schema and locked.schema != schema and text):  # a text dataset keeps its first mapping
            locked.schema = schema
        locked.profile = selectors.dataset_profile(dataset=locked)
        locked.save(update_fields=["schema", "profile"])
        dataset.schema, dataset.profile = locked.schema, locked.profile

    imports.commit_samples(
        dataset=dataset,
        batch=batch,
        staged=rows,
        problems=problems,
        files=len(table.rows),
        what="row",
        field="file",
        shown=60,
        finish=fix_schema,
    )
    if report is not None:
        report("imported", fraction=0.95, imported=batch.imported, problems=len(batch.problems))
    return batch


def _import_series_now(
    *, dataset: Dataset, table: Table, batch: ImportBatch, mapping: dict, report: Report | None
) -> ImportBatch:
    """A forecasting import: rows checked and staged by ``time_series.plan_import``; the schema,
    profile and the warnings (gaps, unsorted rows) written with the samples."""
    problems: list[dict] = []
    plan = time_series_import.plan_import(dataset, table, mapping, problems)
    if plan.schema:
        mapping.update(
            {
                key: plan.schema[key]
                for key in time_series_import.MAPPING_KEYS
                if plan.schema.get(key) is not None
            }
        )
    mapping.update(encoding=table.encoding, format=table.format, decimal=table.decimal)
    mapping.update(
        {key: value for key, value in (("delimiter", table.delimiter), ("sheet", table.sheet)) if value}
    )
    batch.mapping = mapping

    def fix_schema(locked: Dataset) -> None:
        if plan.schema:
            locked.schema = plan.schema
            locked.save(update_fields=["schema"])
        locked.profile = time_series_import.time_series_profile(dataset=locked)
        locked.save(update_fields=["profile"])
        dataset.schema, dataset.profile = locked.schema, locked.profile
        time_series_import.add_warnings(batch, plan.warnings)

    imports.commit_samples(
        dataset=dataset,
        batch=batch,
        staged=plan.rows,
        problems=problems,
        files=len(table.rows),
        what="row",
        field="file",
        shown=60,
        finish=fix_schema,
    )
    if report is not None:
        report("imported", fraction=0.95, imported=batch.imported, problems=len(batch.problems))
    return batch


def import_stored_table(*, batch: ImportBatch, fileobj: BinaryIO, size: int, report: Report) -> ImportBatch:
    """The ``datasets.import`` job's work for a table batch (its file read back from storage)."""
    return _import_table_now(dataset=batch.dataset, data=fileobj.read(), batch=batch, report=report)


def table_preview(
    *, dataset: Dataset, upload, encoding: str = "", delimiter: str = "", decimal: str = "", sheet: str = ""
) -> dict:
    """The column mapping step: a table file's columns with inferred types, its first rows and the
    suggested mapping, read from at most the first 2 MiB of a text file. Stores nothing. The answer
    says what was used (given or detected): encoding, delimiter, decimal mark, sheet and the
    workbook's sheets; an unconfident encoding guess is a 400 whose ``candidates`` the user picks from.

    e.g. ``table_preview(dataset=d, upload=request.FILES["file"])["suggested"]``
    -> ``{"text_column": "review", ...}``
    """
    name = _table_upload(
        dataset=dataset,
        upload=upload,
        not_images="; table files go to text and tabular datasets.",
        too_large="",
    )
    upload.seek(0)
    head = upload.read(PREVIEW_BYTES + 1)
    try:
        fmt = table_format(name, head[:8])
        if fmt in ("csv", "tsv", "jsonl"):
            partial = len(head) > PREVIEW_BYTES
            if partial:
                head = head[: head.rfind(b"\n", 0, PREVIEW_BYTES) + 1] or head[:PREVIEW_BYTES]
        elif len(head) > PREVIEW_BYTES:
            upload.seek(0)
            head, partial = upload.read(), False
        else:
            partial = False
        options = _table_options(encoding=encoding, delimiter=delimiter, decimal=decimal, sheet=sheet)
        table = read_table(head, name, **options, max_rows=settings.SAMPAN_DATASET_MAX_FILES)
    except TableRejected as exc:
        raise _table_rejected(exc) from None
    kinds = {c: infer_type([r[c] for r in table.rows]) for c in table.columns}
    schema = dataset.schema or {}
    suggested: dict[str, Any]
    if dataset.task_type in FORECASTING_TASKS:
        suggested = time_series_import.suggest_mapping(table, dataset.schema or {})
    elif dataset.task_type == TaskType.TEXT_CLASSIFICATION:
        text_column = (
            schema.get("text_column")
            or _pick_column(table.columns, TEXT_COLUMN_GUESSES, set())
            or next((c for c in table.columns if kinds[c] == "text"), None)
        )
        label_column = schema.get("label_column") or _pick_column(
            table.columns, LABEL_COLUMN_GUESSES, {text_column or ""}
        )
        suggested = {"text_column": text_column, "label_column": label_column}
    else:
        suggested = {
            "target_column": schema.get("target") or _pick_column(table.columns, LABEL_COLUMN_GUESSES, set())
        }
    return {
        "filename": name,
        "format": table.format,
        "encoding": table.encoding,
        "delimiter": table.delimiter,
        "decimal": table.decimal,
        "sheet": table.sheet,
        "sheets": table.sheets,
        "partial": partial,
        "rows_read": len(table.rows),
        "columns": [{"name": c, "type": kinds[c]} for c in table.columns],
        "rows": table.rows[:PREVIEW_ROWS],
        "suggested": suggested,
    }
