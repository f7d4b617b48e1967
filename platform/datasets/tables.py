"""Reading table files (CSV, TSV, JSONL, XLSX, Parquet) for text and tabular datasets: decoding
with encoding detection, column type inference and the data profile. Plain pandas, no ORM.

Every cell is read as text first (CSV, TSV, JSONL) so that nothing is reinterpreted on the way in:
a formula-like cell such as ``=HYPERLINK(...)`` is stored verbatim as a string and only escaped
when it is written back out (``services.export.csv_cell``).
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

MISSING = frozenset({"", "na", "n/a", "nan", "null", "none", "#n/a"})
FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".txt": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".parquet": "parquet",
    ".pq": "parquet",
}
COLUMN_TYPES = ("numeric", "categorical", "datetime", "text", "empty")
MAX_COLUMNS = 1000  # feature columns; a tabular file may hold one more, its target
DELIMITERS = (",", ";", "\t", "|")
DECIMALS = (".", ",")
# Tried, in this order, when a text file is not UTF-8 and no encoding was given; the ones that
# decode the file into printable text are named when the detector is not confident.
CANDIDATE_ENCODINGS = ("gb18030", "big5", "shift_jis", "euc-kr", "cp1252", "cp1251", "cp1250", "latin-1")
WESTERN_SYMBOLS = frozenset("€£¥¢°±«»§©®¶·¿¡–—‘’‚“”„…•×÷¼½¾µ¹²³ªº™†‡‰")
HISTOGRAM_BINS = 20
TOP_VALUES = 20


class TableRejected(ValueError):
    """The file cannot be read as a table; ``code`` and the message say why (and where)."""

    def __init__(self, message: str, *, code: str, field: str = "file", **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        self.details = details


@dataclass
class Table:
    columns: list[str]
    rows: list[dict[str, Any]]  # cell values: str, int/float (typed sources), None for missing
    format: str
    encoding: str  # the codec that decoded a text file; "binary" for XLSX and Parquet
    delimiter: str | None = None  # CSV/TSV only
    decimal: str = "."  # the decimal mark of text cells: "1,5" is 1.5 when it is ","
    sheet: str | None = None  # XLSX: the sheet read
    sheets: list[str] = field(default_factory=list)  # XLSX: every sheet, in workbook order


def table_format(filename: str, head: bytes) -> str:
    if head.startswith(b"PAR1"):
        return "parquet"
    suffix = PurePosixPath(filename or "").suffix.lower()
    if head.startswith(b"PK\x03\x04"):
        return "xlsx"
    if suffix in FORMATS:
        return FORMATS[suffix]
    raise TableRejected(
        f"{filename!r} is not a table file this importer reads: use .csv, .tsv, .jsonl, .xlsx or .parquet.",
        code="unsupported_format",
    )


def _row_of_offset(data: bytes, offset: int) -> int:
    """The 1-based line of a byte offset (row 1 is the header line of a CSV)."""
    return data.count(b"\n", 0, offset) + 1


def encoding_name(encoding: str) -> str:
    """A codec name as Python spells it (``GBK`` -> ``gbk``, ``latin1`` -> ``iso8859-1``); raises
    :class:`TableRejected` for a name that is not a text encoding."""
    try:
        info = codecs.lookup(encoding.strip())
        if not getattr(info, "_is_text_encoding", True):  # rot13, base64 and friends
            raise LookupError(encoding)
        name = info.name
    except LookupError:
        raise TableRejected(
            f"Unknown encoding {encoding!r}; give a text encoding such as utf-8, gb18030 or cp1252.",
            code="bad_encoding",
            field="encoding",
        ) from None
    return name


def decode_text(data: bytes, *, encoding: str | None = None) -> tuple[str, str]:
    """Decode a text file with the given ``encoding`` or a detected one (:func:`detect_encoding`).

    Returns (text, encoding name); raises :class:`TableRejected` naming the line of the first
    undecodable byte, or the candidate encodings when the detector is not confident.
    """
    if encoding:
        name = encoding_name(encoding)
        try:
            text = data.decode("utf-8-sig" if name == "utf-8" else name)
        except UnicodeDecodeError as exc:
            line = _row_of_offset(data, exc.start)
            raise TableRejected(
                f"Line {line} is not valid {encoding} (byte 0x{data[exc.start]:02x} at offset {exc.start}).",
                code="bad_encoding",
                field="encoding",
                line=line,
            ) from None
        return text.removeprefix("\ufeff"), name
    name = detect_encoding(data)
    return data.decode(name).removeprefix("\ufeff"), name.removesuffix("-sig")


_HIGH_RUN = re.compile(rb"[\x80-\xff]+")


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x3000 <= code <= 0x30FF
        or 0xFF00 <= code <= 0xFFEF
        or 0x2000 <= code <= 0x206F
        or 0x20000 <= code <= 0x2FA1F
    )


def _decodes(data: bytes, encoding: str) -> str | None:
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        return None
    return text if "\x00" not in text and _plausible(text) else None


def _statistical_ranking(data: bytes) -> list[str]:
    """charset-normalizer's code pages, likeliest first; only used to order the candidates of an
    uncertain file (its single best guess is often a cousin: mac-cyrillic for cp1251)."""
    from charset_normalizer import from_bytes

    aliases = {"cp932": "shift_jis", "iso8859-1": "latin-1", "gbk": "gb18030", "gb2312": "gb18030"}
    ranking = []
    for match in from_bytes(data[:200_000]):
        try:
            name = codecs.lookup(match.encoding).name
        except LookupError:
            continue
        ranking.append(aliases.get(name, name))
    return ranking


def detect_encoding(data: bytes) -> str:
    """The encoding of a text file: a BOM (UTF-8, UTF-16, UTF-32), then UTF-8, UTF-16 without a BOM
    (by its NUL bytes), then GB18030 when the non-ASCII bytes come in double-byte pairs that decode
    to CJK characters, then cp1252 when they are single accented letters of Western text.
    Anything else (or both at once) is refused naming the encodings that would decode the file.

    e.g. ``detect_encoding("类别".encode("gbk") * 3)`` -> ``"gb18030"``
    """
    for bom, name in (
        (codecs.BOM_UTF32_LE, "utf-32"),
        (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom) and _decodes(data, name) is not None:
            return name
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        first_bad = exc.start
    sample = data[:1_000_000]
    if len(sample) >= 4 and sample.count(0) > len(sample) // 4:
        even, odd = sample[0::2].count(0), sample[1::2].count(0)
        name = "utf-16-le" if odd > 4 * even else "utf-16-be" if even > 4 * odd else ""
        if name and _decodes(data, name) is not None:
            return name
    runs = _HIGH_RUN.findall(sample)
    high = sum(map(len, runs))
    gb_bytes = sum(len(r) for r in runs if len(r) % 2 == 0 and 0xFF not in r and 0x80 not in r)
    gb_text = _decodes(data, "gb18030")
    wide = [c for c in (gb_text or "")[:200_000] if ord(c) > 0x7F]
    cjk = (
        gb_text is not None
        and high
        and gb_bytes / high >= 0.9
        and sum(map(_is_cjk, wide)) >= 0.9 * max(len(wide), 1)
    )
    western_text = _decodes(data, "cp1252")
    western = False
    if western_text is not None and runs:
        alike = sum(
            1
            for r in runs
            if len(r) <= 3 and all(c.isalpha() or c in WESTERN_SYMBOLS for c in r.decode("cp1252"))
        )
        western = alike >= 0.9 * len(runs) and high / len(runs) <= 1.6
    if cjk and not western:
        return "gb18030"
    if western and not cjk:
        return "cp1252"
    candidates = [name for name in CANDIDATE_ENCODINGS if _decodes(data, name) is not None]
    if gb_bytes < high / 2:  # mostly single non-ASCII bytes: the Western code pages are likelier
        candidates.sort(key=lambda name: name in ("gb18030", "big5", "shift_jis", "euc-kr"))
    likeliest = next((name for name in _statistical_ranking(sample) if name in candidates), None)
    if likeliest is not None:  # first in the list (and the first button the web app offers)
        candidates.remove(likeliest)
        candidates.insert(0, likeliest)
    line = _row_of_offset(data, first_bad)
    where = f"line {line} has the byte 0x{data[first_bad]:02x} (offset {first_bad}) that is not valid UTF-8"
    if not candidates:
        raise TableRejected(
            f"The file is not UTF-8 text and its encoding could not be detected: {where}. Save the file as "
            "UTF-8, or give its encoding (e.g. encoding=cp1252).",
            code="bad_encoding",
            field="encoding",
            line=line,
            offset=first_bad,
            candidates=[],
        )
    raise TableRejected(
        f"The file is not UTF-8 ({where}) and its encoding is not certain: it could be "
        f"{', '.join(candidates[:6])}. Choose one with encoding=...",
        code="bad_encoding",
        field="encoding",
        line=line,
        offset=first_bad,
        candidates=candidates[:6],
    )


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
    if len(names) > MAX_COLUMNS + 1:
        raise TableRejected(
            f"The file has {len(names):,} columns, {len(names) - 1:,} feature columns besides a "
            f"target; at most {MAX_COLUMNS} feature columns are supported.",
            code="too_many_columns",
            columns=len(names),
        )
    blank = [i + 1 for i, n in enumerate(names) if not n or n.startswith("Unnamed: ")]
    if blank:
        raise TableRejected(
            f"Column {blank[0]} has no name in the header line; every column needs one.",
            code="unnamed_column",
            column=blank[0],
        )
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise TableRejected(
            f"Column names must be unique; repeated: {', '.join(repeated[:10])}.", code="duplicate_columns"
        )
    return names


def delimiter_option(value: str | None) -> str | None:
    """A user's delimiter: one character (``\\t`` and ``tab`` mean a tab), or None to detect it."""
    if value is None or value == "":
        return None
    value = {"\\t": "\t", "tab": "\t", "TAB": "\t"}.get(value, value)
    if len(value) != 1 or value in '"\r\n' or value.isalnum():
        raise TableRejected(
            f"The delimiter must be one character that is not a letter, digit, quote or line "
            f"break (e.g. ',', ';', '\\t', '|'); got {value!r}.",
            code="bad_delimiter",
            field="delimiter",
        )
    return value


def decimal_option(value: str | None) -> str | None:
    if value is None or value == "":
        return None
    if value not in DECIMALS:
        raise TableRejected(
            f"The decimal mark must be '.' or ','; got {value!r}.", code="bad_decimal", field="decimal"
        )
    return value


def detect_delimiter(text: str, *, default: str) -> str:
    """The delimiter that splits the first lines into the same number (2 or more) of fields, the
    most lines agreeing first; ``default`` when no candidate splits the header."""
    lines = text[:200_000].splitlines()[:200]
    if not lines:
        return default
    sample = "\n".join(lines[:-1] if len(lines) > 1 else lines)  # the last may be cut off
    best: tuple[float, int, int] | None = None
    chosen = default
    for preference, candidate in enumerate(sorted(DELIMITERS, key=lambda d: d != default)):
        try:
            counts = [len(row) for row in csv.reader(io.StringIO(sample), delimiter=candidate) if row]
        except csv.Error:
            continue
        if not counts or counts[0] < 2:
            continue
        agreeing = sum(1 for c in counts if c == counts[0]) / len(counts)
        score = (agreeing, counts[0], -preference)
        if best is None or score > best:
            best, chosen = score, candidate
    return chosen


_COMMA_NUMBER = re.compile(r"^\s*[+-]?(\d{1,3}(\.\d{3})+|\d*),\d+([eE][+-]?\d+)?\s*$")
_DOT_NUMBER = re.compile(r"^\s*[+-]?(\d{1,3}(,\d{3})+|\d*)\.\d+([eE][+-]?\d+)?\s*$")
_COMMA_THOUSANDS = re.compile(r"^\s*[+-]?\d{1,3}(,\d{3})+\s*$")
_DOT_THOUSANDS = re.compile(r"^\s*[+-]?\d{1,3}(\.\d{3})+\s*$")
_THOUSANDS_NUMBER = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?$")
_INTEGER = re.compile(r"^\s*[+-]?\d+\s*$")


def detect_decimal(rows: list[dict[str, Any]], columns: list[str], *, delimiter: str | None) -> str:
    """ "," when more text cells read as decimal-comma numbers (``1,5``, ``1.234,5``) than as
    decimal-point ones, else ".". A comma-separated file keeps "." unless its quoted cells say
    otherwise by a fraction that is not a thousands group (``"3,14"``)."""
    comma = dot = 0
    for row in rows[:2000]:
        for column in columns:
            value = row[column]
            if not isinstance(value, str):
                continue
            if _COMMA_NUMBER.match(value) and not (delimiter == "," and _COMMA_THOUSANDS.match(value)):
                comma += 1
            elif _DOT_NUMBER.match(value) and not _DOT_THOUSANDS.match(value):
                dot += 1
    return "," if comma > dot else "."


def _comma_number(value: str) -> str:
    return value.strip().replace(".", "").replace(",", ".")


def _apply_decimal_comma(rows: list[dict[str, Any]], columns: list[str]) -> None:
    """Rewrite the cells of columns that are numbers in decimal-comma notation ("1.234,5") as
    "1234.5", so that every later step reads them as numbers; other columns stay verbatim."""
    for column in columns:
        present = [r[column] for r in rows if isinstance(r[column], str)]
        if not present or not any(_COMMA_NUMBER.match(v) for v in present):
            continue
        if all(_COMMA_NUMBER.match(v) or _DOT_THOUSANDS.match(v) or _INTEGER.match(v) for v in present):
            for row in rows:
                if isinstance(row[column], str):
                    row[column] = _comma_number(row[column])


def _sheet_has_rows(worksheet) -> bool:
    """A header row and at least one data row with a value."""
    filled = 0
    for values in worksheet.iter_rows(values_only=True):
        if any(v is not None and str(v).strip() for v in values):
            filled += 1
            if filled >= 2:
                return True
    return False


def _pick_sheet(data: bytes, sheet: str | int | None) -> tuple[str, list[str]]:
    """The sheet to read (by name, or by 0-based index when no sheet has that name; by default
    the first one with a header and a row) and every sheet's name."""
    import openpyxl

    workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        names = list(workbook.sheetnames)
        if sheet is not None and str(sheet).strip() != "":
            wanted = str(sheet).strip()
            if wanted in names:
                return wanted, names
            if wanted.isdigit() and int(wanted) < len(names):
                return names[int(wanted)], names
            raise TableRejected(
                f"The workbook has no sheet {wanted!r}; its sheets are "
                f"{', '.join(repr(n) for n in names)} (give a name or a 0-based index).",
                code="no_sheet",
                field="sheet",
                sheets=names,
            )
        return next((n for n in names if _sheet_has_rows(workbook[n])), names[0]), names
    finally:
        workbook.close()


def read_table(
    data: bytes,
    filename: str,
    *,
    encoding: str | None = None,
    delimiter: str | None = None,
    decimal: str | None = None,
    sheet: str | int | None = None,
    max_rows: int,
) -> Table:
    """Parse a table file into rows of cells. Options left None are detected: the encoding and
    delimiter of CSV/TSV, the decimal mark of text cells, the XLSX sheet (the first with data).

    e.g. ``read_table(b"a;b\\n1,5;x\\n", "t.csv", max_rows=10).rows`` -> ``[{"a": "1.5", "b": "x"}]``
    """
    import pandas as pd

    fmt = table_format(filename, data[:8])
    delimiter, decimal = delimiter_option(delimiter), decimal_option(decimal)
    used, used_delimiter, sheet_name = "binary", None, None
    sheets: list[str] = []
    try:
        if fmt in ("csv", "tsv"):
            text, used = decode_text(data, encoding=encoding)
            used_delimiter = delimiter or detect_delimiter(text, default="\t" if fmt == "tsv" else ",")
            frame = pd.read_csv(
                io.StringIO(text),
                sep=used_delimiter,
                dtype=str,
                keep_default_na=False,
                na_filter=False,
                skip_blank_lines=True,
                engine="c",
            )
        elif fmt == "jsonl":
            text, used = decode_text(data, encoding=encoding)
            records = []
            for line_number, line in enumerate(text.splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise TableRejected(
                        f"Line {line_number} is not valid JSON ({exc.msg}).",
                        code="bad_json",
                        line=line_number,
                    ) from None
                if not isinstance(record, dict):
                    raise TableRejected(
                        f"Line {line_number} is not a JSON object.", code="bad_json", line=line_number
                    )
                records.append(
                    {k: (json.dumps(v) if isinstance(v, dict | list) else v) for k, v in record.items()}
                )
                if len(records) > max_rows:
                    break
            frame = pd.DataFrame.from_records(records)
        elif fmt == "xlsx":
            sheet_name, sheets = _pick_sheet(data, sheet)
            frame = pd.read_excel(io.BytesIO(data), engine="openpyxl", dtype=object, sheet_name=sheet_name)
        else:
            frame = pd.read_parquet(io.BytesIO(data))
    except TableRejected:
        raise
    except (pd.errors.ParserError, ValueError, KeyError, OSError, ImportError, zipfile.BadZipFile) as exc:
        # pandas' parser messages name the line ("Error tokenizing data. C error: ... in line 7")
        kind = {"csv": "CSV", "tsv": "TSV", "jsonl": "JSON lines", "xlsx": "XLSX", "parquet": "Parquet"}[fmt]
        raise TableRejected(
            f"{filename!r} could not be read as {kind}: {str(exc).strip()[:300]}", code="unreadable_table"
        ) from None
    try:
        columns = _check_columns(list(frame.columns))
    except TableRejected as exc:
        if sheets and exc.code == "empty_table":
            raise TableRejected(
                f"The sheet {sheet_name!r} is empty; the workbook's sheets are "
                f"{', '.join(map(repr, sheets))} (choose one as sheet).",
                code="empty_table",
                field="sheet",
                sheets=sheets,
            ) from None
        raise
    if len(frame) > max_rows:
        raise TableRejected(
            f"The file has more than {max_rows:,} rows, the limit of one import (SAMPAN_DATASET_MAX_FILES).",
            code="too_many_rows",
        )
    frame.columns = columns
    rows = [
        {name: _cell(value) for name, value in zip(columns, record, strict=True)}
        for record in frame.itertuples(index=False, name=None)
    ]
    if not rows:
        raise TableRejected(
            "The file has a header but no rows."
            + (
                f" The sheet {sheet_name!r} was read; the workbook's sheets are "
                f"{', '.join(map(repr, sheets))}."
                if sheets
                else ""
            ),
            code="empty_table",
            sheets=sheets,
        )
    used_decimal = decimal or detect_decimal(rows, columns, delimiter=used_delimiter)
    if used_decimal == ",":
        _apply_decimal_comma(rows, columns)
    return Table(
        columns=columns,
        rows=rows,
        format=fmt,
        encoding=used,
        delimiter=used_delimiter,
        decimal=used_decimal,
        sheet=sheet_name,
        sheets=sheets,
    )


def as_number(value: Any) -> float | None:
    """A cell as a finite float, or None when it is missing or not a number. Commas count only as
    thousands groups (``1,234.5``): ``1,5`` is not a number here (decimal-comma files are rewritten
    when read, see ``_apply_decimal_comma``), so it is never silently read as 15."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    else:
        text = str(value).strip()
        if "," in text:
            if not _THOUSANDS_NUMBER.match(text):
                return None
            text = text.replace(",", "")
        try:
            number = float(text) if text else math.nan
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
    if not all(
        any(sep in s for sep in "-/:") and any(ch.isdigit() for ch in s) and len(s) <= 40 for s in probe
    ):
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
    profile: dict[str, Any] = {
        "name": name,
        "type": kind,
        "count": total,
        "missing": total - len(present),
        "missing_share": (total - len(present)) / total if total else 0.0,
        "unique": len({str(v) for v in present}),
    }
    if kind == "numeric":
        numbers = [n for n in (as_number(v) for v in present) if n is not None]
        if numbers:
            mean = sum(numbers) / len(numbers)
            variance = sum((n - mean) ** 2 for n in numbers) / len(numbers)
            profile.update(
                min=min(numbers),
                max=max(numbers),
                mean=mean,
                std=math.sqrt(variance),
                histogram=_histogram(numbers),
            )
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


def target_profile(
    *, regression: bool, labels: list[str | None] | None = None, targets: list[float | None] | None = None
) -> dict[str, Any]:
    """The target's balance: class counts, or the distribution of a numeric target."""
    if regression:
        numbers = [t for t in (targets or []) if t is not None]
        found: dict[str, Any] = {
            "type": "numeric",
            "count": len(targets or []),
            "missing": len(targets or []) - len(numbers),
        }
        if numbers:
            mean = sum(numbers) / len(numbers)
            found.update(
                min=min(numbers),
                max=max(numbers),
                mean=mean,
                std=math.sqrt(sum((n - mean) ** 2 for n in numbers) / len(numbers)),
                histogram=_histogram(numbers),
            )
        return found
    counts: dict[str, int] = {}
    missing = 0
    for label in labels or []:
        if label is None:
            missing += 1
        else:
            counts[label] = counts.get(label, 0) + 1
    return {
        "type": "classes",
        "count": len(labels or []),
        "missing": missing,
        "classes": [{"value": k, "count": v} for k, v in sorted(counts.items(), key=lambda i: (-i[1], i[0]))],
    }
