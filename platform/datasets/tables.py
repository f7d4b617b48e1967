"""Reading table files (CSV, TSV, JSONL, XLSX, Parquet) for text and tabular datasets: decoding
with encoding detection, column type inference and the data profile. Plain pandas, no ORM.

Every cell is read as text first (CSV, TSV, JSONL) so that nothing is reinterpreted on the way in:
a formula-like cell such as ``=HYPERLINK(...)`` is stored verbatim as a string and only escaped
when it is written back out (``services.csv_cell``).
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

MISSING = frozenset({"", "na", "n/a", "nan", "null", "none", "#n/a"})
FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".txt": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
           ".xlsx": "xlsx", ".xlsm": "xlsx", ".parquet": "parquet", ".pq": "parquet"}
COLUMN_TYPES = ("numeric", "categorical", "datetime", "text", "empty")
MAX_COLUMNS = 1000
HISTOGRAM_BINS = 20
TOP_VALUES = 20


class TableRejected(ValueError):
    """The file cannot be read as a table; ``code`` and the message say why (and where)."""

    def __init__(self, message: str, *, code: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.details = details


@dataclass
class Table:
    columns: list[str]
    rows: list[dict[str, Any]]  # cell values: str, int/float (typed sources), None for missing
    format: str
    encoding: str


def table_format(filename: str, head: bytes) -> str:
    if head.startswith(b"PAR1"):
        return "parquet"
    suffix = PurePosixPath(filename or "").suffix.lower()
    if head.startswith(b"PK\x03\x04"):
        return "xlsx"
    if suffix in FORMATS:
        return FORMATS[suffix]
    raise TableRejected(f"{filename!r} is not a table file this importer reads: use .csv, .tsv, .jsonl, .xlsx "
                        "or .parquet.", code="unsupported_format")


def _row_of_offset(data: bytes, offset: int) -> int:
    """The 1-based line of a byte offset (row 1 is the header line of a CSV)."""
    return data.count(b"\n", 0, offset) + 1


def decode_text(data: bytes, *, encoding: str | None = None) -> tuple[str, str]:
    """Decode a text file: UTF-8 (with or without BOM), the given ``encoding``, or a detected one.

    Returns (text, encoding name); raises :class:`TableRejected` naming the line of the first
    undecodable byte when no encoding fits.
    """
    if encoding:
        try:
            return data.decode(encoding), encoding
        except LookupError:
            raise TableRejected(f"Unknown encoding {encoding!r}.", code="bad_encoding") from None
        except UnicodeDecodeError as exc:
            line = _row_of_offset(data, exc.start)
            raise TableRejected(f"Line {line} is not valid {encoding} (byte 0x{data[exc.start]:02x} at offset "
                                f"{exc.start}).", code="bad_encoding", line=line) from None
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError as exc:
        first_bad = exc.start
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is not None and best.encoding and "\x00" not in str(best) and _plausible(str(best)):
        return str(best), best.encoding
    line = _row_of_offset(data, first_bad)
    raise TableRejected(
        f"The file is not UTF-8 text and its encoding could not be detected: line {line} has the byte "
        f"0x{data[first_bad]:02x} (offset {first_bad}) that is not valid UTF-8. Save the file as UTF-8, or "
        "give its encoding (e.g. encoding=cp1252).", code="bad_encoding", line=line, offset=first_bad)


def _plausible(text: str) -> bool:
    """Mostly printable: binary data decoded as some code page is not a table."""
    sample = text[:200_000]
    if not sample:
        return True
    control = sum(1 for c in sample if not c.isprintable() and c not in "\r\n\t")
    return control / len(sample) < 0.01


def _cell(value: Any) -> Any:
    """Normalise a cell: missing markers and NaN to None, integral floats stay floats."""
    if value is None:
        return None
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return value
    if hasattr(value, "isoformat"):  # datetime cells of XLSX/Parquet
        return value.isoformat()
    text = str(value)
    return None if text.strip().lower() in MISSING else text


def _check_columns(columns: list[Any]) -> list[str]:
    names = [str(c).strip() for c in columns]
    if not names:
        raise TableRejected("The file has no columns (an empty file or no header line).", code="empty_table")
    if len(names) > MAX_COLUMNS:
        raise TableRejected(f"The file has {len(names)} columns; at most {MAX_COLUMNS} are supported.",
                            code="too_many_columns")
    blank = [i + 1 for i, n in enumerate(names) if not n or n.startswith("Unnamed: ")]
    if blank:
        raise TableRejected(f"Column {blank[0]} has no name in the header line; every column needs one.",
                            code="unnamed_column", column=blank[0])
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise TableRejected(f"Column names must be unique; repeated: {', '.join(repeated[:10])}.",
                            code="duplicate_columns")
    return names


def read_table(data: bytes, filename: str, *, encoding: str | None = None, max_rows: int) -> Table:
    """Parse a table file into rows of cells. e.g. ``read_table(b"a,b\\n1,x\\n", "t.csv", max_rows=10)``"""
    import pandas as pd

    fmt = table_format(filename, data[:8])
    used = "binary"
    try:
        if fmt in ("csv", "tsv"):
            text, used = decode_text(data, encoding=encoding)
            frame = pd.read_csv(io.StringIO(text), sep="\t" if fmt == "tsv" else ",", dtype=str,
                                keep_default_na=False, na_filter=False, skip_blank_lines=True)
        elif fmt == "jsonl":
            text, used = decode_text(data, encoding=encoding)
            records = []
            for line_number, line in enumerate(text.splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise TableRejected(f"Line {line_number} is not valid JSON ({exc.msg}).", code="bad_json",
                                        line=line_number) from None
                if not isinstance(record, dict):
                    raise TableRejected(f"Line {line_number} is not a JSON object.", code="bad_json", line=line_number)
                records.append({k: (json.dumps(v) if isinstance(v, dict | list) else v) for k, v in record.items()})
                if len(records) > max_rows:
                    break
            frame = pd.DataFrame.from_records(records)
        elif fmt == "xlsx":
            frame = pd.read_excel(io.BytesIO(data), engine="openpyxl", dtype=object)
        else:
            frame = pd.read_parquet(io.BytesIO(data))
    except TableRejected:
        raise
    except (pd.errors.ParserError, ValueError, KeyError, OSError, ImportError) as exc:
        # pandas' parser messages name the line ("Error tokenizing data. C error: ... in line 7")
        kind = {"csv": "CSV", "tsv": "TSV", "jsonl": "JSON lines", "xlsx": "XLSX", "parquet": "Parquet"}[fmt]
        raise TableRejected(f"{filename!r} could not be read as {kind}: {str(exc).strip()[:300]}",
                            code="unreadable_table") from None
    columns = _check_columns(list(frame.columns))
    if len(frame) > max_rows:
        raise TableRejected(f"The file has more than {max_rows:,} rows, the limit of one import "
                            "(SAMPAN_DATASET_MAX_FILES).", code="too_many_rows")
    frame.columns = columns
    rows = [{name: _cell(value) for name, value in zip(columns, record, strict=True)}
            for record in frame.itertuples(index=False, name=None)]
    if not rows:
        raise TableRejected("The file has a header but no rows.", code="empty_table")
    return Table(columns=columns, rows=rows, format=fmt, encoding=used)


def as_number(value: Any) -> float | None:
    """A cell as a finite float, or None when it is missing or not a number."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    else:
        try:
            number = float(str(value).strip().replace(",", "")) if str(value).strip() else math.nan
        except ValueError:
            return None
    return number if math.isfinite(number) else None


def infer_type(values: list[Any]) -> str:
    """numeric, datetime, categorical, text, or empty (no value at all) for one column's cells."""
    present = [v for v in values if v is not None]
    if not present:
        return "empty"
    if all(as_number(v) is not None for v in present):
        return "numeric"
    strings = [str(v) for v in present]
    if _looks_like_datetimes(strings):
        return "datetime"
    unique = len(set(strings))
    mean_length = sum(map(len, strings)) / len(strings)
    if unique <= max(20, len(strings) // 20) and mean_length <= 60:
        return "categorical"
    if mean_length > 30 or unique > len(strings) * 0.5:
        return "text"
    return "categorical"


def _looks_like_datetimes(strings: list[str]) -> bool:
    import pandas as pd

    probe = strings[:500]
    if not all(any(sep in s for sep in "-/:") and any(ch.isdigit() for ch in s) and len(s) <= 40 for s in probe):
        return False
    parsed = pd.to_datetime(pd.Series(probe), errors="coerce", format="mixed")
    return bool(parsed.notna().mean() >= 0.95)


def _histogram(numbers: list[float]) -> dict[str, Any]:
    import numpy as np

    array = np.asarray(numbers, dtype=np.float64)
    counts, edges = np.histogram(array, bins=HISTOGRAM_BINS if array.min() < array.max() else 1)
    return {"edges": [float(e) for e in edges], "counts": [int(c) for c in counts]}


def column_profile(name: str, kind: str, values: list[Any]) -> dict[str, Any]:
    """One column's statistics for the profile charts."""
    total = len(values)
    present = [v for v in values if v is not None]
    profile: dict[str, Any] = {"name": name, "type": kind, "count": total, "missing": total - len(present),
                               "missing_share": (total - len(present)) / total if total else 0.0,
                               "unique": len({str(v) for v in present})}
    if kind == "numeric":
        numbers = [n for n in (as_number(v) for v in present) if n is not None]
        if numbers:
            mean = sum(numbers) / len(numbers)
            variance = sum((n - mean) ** 2 for n in numbers) / len(numbers)
            profile.update(min=min(numbers), max=max(numbers), mean=mean, std=math.sqrt(variance),
                           histogram=_histogram(numbers))
    elif kind in ("categorical", "datetime"):
        counts: dict[str, int] = {}
        for v in present:
            counts[str(v)] = counts.get(str(v), 0) + 1
        top = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:TOP_VALUES]
        profile["top"] = [{"value": value, "count": count} for value, count in top]
        if kind == "datetime" and present:
            profile.update(min=min(map(str, present)), max=max(map(str, present)))
    elif kind == "text" and present:
        lengths = [len(str(v)) for v in present]
        profile.update(mean_length=sum(lengths) / len(lengths), max_length=max(lengths))
    return profile


def target_profile(*, regression: bool, labels: list[str | None] | None = None,
                   targets: list[float | None] | None = None) -> dict[str, Any]:
    """The target's balance: class counts, or the distribution of a numeric target."""
    if regression:
        numbers = [t for t in (targets or []) if t is not None]
        found: dict[str, Any] = {"type": "numeric", "count": len(targets or []), "missing": len(targets or []) - len(numbers)}
        if numbers:
            mean = sum(numbers) / len(numbers)
            found.update(min=min(numbers), max=max(numbers), mean=mean,
                         std=math.sqrt(sum((n - mean) ** 2 for n in numbers) / len(numbers)),
                         histogram=_histogram(numbers))
        return found
    counts: dict[str, int] = {}
    missing = 0
    for label in labels or []:
        if label is None:
            missing += 1
        else:
            counts[label] = counts.get(label, 0) + 1
    return {"type": "classes", "count": len(labels or []), "missing": missing,
            "classes": [{"value": k, "count": v} for k, v in sorted(counts.items(), key=lambda i: (-i[1], i[0]))]}
