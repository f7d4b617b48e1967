"""Judging uploaded training code before it is stored: a ``.py`` script that must compile, an
nbformat-4 notebook, or a zip checked as dataset archives are (``datasets.archives``: no absolute
or ``..`` paths, no links or special files, file count, uncompressed size and ratio caps), never
extracted in the web process. Also: where a job's entry point is in the code, and reading one file
of it back for the UI.

e.g. ``inspect_code(upload, filename="train.py", size=upload.size)`` ->
``CodeInspection(code_kind="script", files=[{"path": "train.py", ...}], entry_point="train.py", ...)``
"""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import BinaryIO, TypedDict

from config.exceptions import DomainError, InvalidInput, NotFound, TooLarge, field_error
from datasets.archives import ArchiveLimits, ArchiveRejected, archive_scan
from django.conf import settings

CODE_MAX_FILES = 10_000
REQUIREMENTS_MAX_BYTES = 64 * 1024
TEXT_MAX_BYTES = 1024 * 1024  # GET .../files/?path= answers text files up to this size
DEFAULT_ENTRY_POINTS = ("train.py", "main.py", "__main__.py")
MODULE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
SUFFIX_KIND = {".py": "script", ".zip": "zip", ".ipynb": "notebook"}
CELL_TYPES = {"code", "markdown", "raw"}


class CodeFile(TypedDict):
    path: str
    size_bytes: int


@dataclass(frozen=True)
class CodeInspection:
    code_kind: str  # script | zip | notebook
    files: list[CodeFile]
    entry_point: str  # the default ("" when the code names none and a job must)
    requirements: str


class CodeArchiveInvalid(InvalidInput):
    default_code = "code_archive_invalid"


class CodeArchiveTooLarge(TooLarge):
    default_code = "code_archive_too_large"


class CodeFileNotText(InvalidInput):
    default_code = "code_file_not_text"


def _invalid(message: str, *, field: str = "file") -> DomainError:
    return field_error(field, message, error=CodeArchiveInvalid)


def code_kind_of(filename: str) -> str:
    suffix = PurePosixPath(filename).suffix.lower()
    kind = SUFFIX_KIND.get(suffix)
    if kind is None:
        raise _invalid(
            f"The file {filename!r} is not training code: upload a Python script (.py), a zip of a "
            "folder (.zip) or a Jupyter notebook (.ipynb)."
        )
    return kind


def compile_check(source: bytes, path: str) -> None:
    """Refuse source that does not compile, naming the line (compiling runs nothing)."""
    try:
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = f"line {exc.lineno}" if exc.lineno else "an unknown line"
        raise _invalid(f"{path} does not compile: {exc.msg} at {where}.") from None
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, absurd nesting
        raise _invalid(f"{path} does not compile: {exc}.") from None


def notebook_check(data: bytes, path: str) -> None:
    """An nbformat 4 notebook: JSON with ``nbformat`` 4 and a list of cells, each with a known
    ``cell_type`` and its ``source`` as text or a list of lines."""
    try:
        notebook = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _invalid(f"{path} is not a Jupyter notebook: it is not JSON ({exc}).") from None
    if not isinstance(notebook, dict) or notebook.get("nbformat") != 4:
        found = notebook.get("nbformat") if isinstance(notebook, dict) else type(notebook).__name__
        raise _invalid(
            f"{path} is not an nbformat 4 notebook (nbformat is {found!r}); save it with Jupyter 4+."
        )
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        raise _invalid(f"{path} is not an nbformat 4 notebook: it has no list of cells.")
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") not in CELL_TYPES:
            raise _invalid(f"{path}: cell {number} is not a code, markdown or raw cell.")
        source = cell.get("source")
        if not (
            isinstance(source, str) or (isinstance(source, list) and all(isinstance(s, str) for s in source))
        ):
            raise _invalid(f"{path}: cell {number} has no source text.")


def _too_large(filename: str, size: int) -> DomainError:
    cap = settings.SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES
    message = (
        f"The file {filename!r} is {size:,} bytes; code may be at most {cap:,} bytes "
        "(SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES)."
    )
    return field_error("file", message, error=CodeArchiveTooLarge, size_bytes=size, limit_bytes=cap)


def _zip_limits() -> ArchiveLimits:
    cap = settings.SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES
    return ArchiveLimits(
        max_files=CODE_MAX_FILES,
        max_uncompressed_bytes=cap,
        max_ratio=settings.SAMPAN_DATASET_MAX_COMPRESSION_RATIO,
        max_file_bytes=cap,
    )


def _zip_rejected(exc: ArchiveRejected, filename: str) -> Exception:
    cap = settings.SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES
    if exc.code == "too_many_files":
        message = f"The zip {filename!r} holds more than {CODE_MAX_FILES:,} files; nothing was stored."
        return field_error("file", message, error=CodeArchiveTooLarge, reason=exc.code)
    if exc.code == "archive_too_large_uncompressed":
        message = (
            f"The zip {filename!r} unpacks to more than {cap:,} bytes (SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES); "
            "nothing was stored."
        )
        return field_error("file", message, error=CodeArchiveTooLarge, reason=exc.code, limit_bytes=cap)
    if exc.code == "compression_ratio":
        message = str(exc).replace("nothing was imported", "nothing was stored")
        return field_error("file", message, error=CodeArchiveTooLarge, reason=exc.code)
    message = str(exc).replace("nothing was imported", "nothing was stored")
    return field_error("file", message, error=CodeArchiveInvalid, reason=exc.code, entry=exc.entry)


def _zip_listing(fileobj: BinaryIO, filename: str, size: int) -> list[CodeFile]:
    try:
        scan = archive_scan(fileobj, size=size, limits=_zip_limits())
    except ArchiveRejected as exc:
        raise _zip_rejected(exc, filename) from None
    if scan.kind != "zip":
        raise _invalid(f"The file {filename!r} is named .zip but is a tar archive; upload a zip.")
    encrypted = next((e.name for e in scan.entries if e.problem and e.problem[0] == "encrypted"), None)
    if encrypted:
        raise _invalid(f"Entry {encrypted!r} of the zip is encrypted; upload an unencrypted zip.")
    files: list[CodeFile] = []
    seen: set[str] = set()
    with zipfile.ZipFile(fileobj) as archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            path = _normal_path(info.filename)
            if path.startswith("__MACOSX/") or not path:
                continue
            if path in seen:
                raise _invalid(f"The zip holds {path!r} twice; nothing was stored.")
            seen.add(path)
            files.append({"path": path, "size_bytes": info.file_size})
    fileobj.seek(0)
    if not files:
        raise _invalid(f"The zip {filename!r} holds no files.")
    return files


def _normal_path(name: str) -> str:
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def default_entry_point(paths: list[str]) -> str:
    """A zip's ``train.py``, ``main.py`` or ``__main__.py``, else its only top-level .py; the same
    inside a single folder wrapping everything (``project/train.py``). "" when none is clear."""
    prefix = ""
    candidates = paths
    while True:
        top = [p[len(prefix) :] for p in candidates if "/" not in p[len(prefix) :]]
        for name in DEFAULT_ENTRY_POINTS:
            if name in top:
                return prefix + name
        scripts = [p for p in top if p.endswith(".py")]
        if len(scripts) == 1:
            return prefix + scripts[0]
        heads = {p[len(prefix) :].split("/", 1)[0] for p in candidates}
        if top or len(heads) != 1:
            return ""
        prefix += heads.pop() + "/"


def resolve_entry_point(
    *, code_kind: str, paths: list[str], entry_point: str, field: str = "entry_point"
) -> str:
    """The entry point as a job runs it: a .py or .ipynb path of the code, or a dotted module whose
    file (``pkg/mod.py`` or ``pkg/mod/__main__.py``) is in the code. Refused (400) otherwise."""
    given = entry_point.strip()
    if not given:
        raise _invalid("Name the file or module to run (entry_point).", field=field)
    if "\\" in given or given.startswith("/") or ".." in given.split("/") or "\x00" in given:
        raise _invalid(f"{given!r} is not a path inside the code.", field=field)
    normal = _normal_path(given)
    known = set(paths)
    if normal.endswith((".py", ".ipynb")):
        if normal not in known:
            raise _invalid(f"The code has no file {normal!r}; it holds {_some(paths)}.", field=field)
        if code_kind == "notebook" and not normal.endswith(".ipynb"):
            raise _invalid("A notebook upload runs the notebook itself.", field=field)
        return normal
    if MODULE_RE.match(given):
        module_path = given.replace(".", "/")
        if f"{module_path}.py" in known or f"{module_path}/__main__.py" in known:
            return given
        raise _invalid(
            f"The code has no module {given!r} (neither {module_path}.py nor {module_path}/__main__.py).",
            field=field,
        )
    raise _invalid(
        f"{given!r} is neither a .py or .ipynb file of the code nor a module name (pkg.module).", field=field
    )


def _some(paths: list[str], n: int = 5) -> str:
    shown = ", ".join(repr(p) for p in paths[:n])
    return shown + (f" and {len(paths) - n} more" if len(paths) > n else "")


def inspect_code(fileobj: BinaryIO, *, filename: str, size: int, entry_point: str = "") -> CodeInspection:
    """Check uploaded code and describe it (see the module docstring); raises a 400
    ``code_archive_invalid`` or a 413 ``code_archive_too_large`` naming the problem."""
    kind = code_kind_of(filename)
    if size > settings.SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES:
        raise _too_large(filename, size)
    if size == 0:
        raise _invalid(f"The file {filename!r} is empty.")
    fileobj.seek(0)
    requirements = ""
    if kind == "zip":
        files = _zip_listing(fileobj, filename, size)
        paths = [f["path"] for f in files]
        default = default_entry_point(paths)
        if "requirements.txt" in paths:
            requirements = _requirements(fileobj)
    else:
        data = fileobj.read()
        fileobj.seek(0)
        files = [{"path": filename, "size_bytes": len(data)}]
        paths = [filename]
        default = filename
        (compile_check if kind == "script" else notebook_check)(data, filename)
    if entry_point.strip():
        chosen = resolve_entry_point(code_kind=kind, paths=paths, entry_point=entry_point)
    elif default:
        chosen = default
    else:
        raise _invalid(
            "The zip has no train.py, main.py, __main__.py or single top-level .py to run; "
            "name the file or module to run (entry_point).",
            field="entry_point",
        )
    if kind == "zip" and chosen.endswith(".py"):
        compile_check(read_member(fileobj, chosen, limit=settings.SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES), chosen)
    elif kind == "zip" and chosen.endswith(".ipynb"):
        notebook_check(read_member(fileobj, chosen, limit=settings.SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES), chosen)
    return CodeInspection(code_kind=kind, files=files, entry_point=chosen, requirements=requirements)


def _requirements(fileobj: BinaryIO) -> str:
    """The zip's top-level requirements.txt (UTF-8 text, at most 64 KiB)."""
    try:
        return read_member(fileobj, "requirements.txt", limit=REQUIREMENTS_MAX_BYTES).decode("utf-8")
    except (CodeFileNotText, UnicodeDecodeError):
        raise _invalid(
            f"requirements.txt is not UTF-8 text of at most {REQUIREMENTS_MAX_BYTES // 1024} KiB."
        ) from None


def read_member(fileobj: BinaryIO, path: str, *, limit: int) -> bytes:
    """One file of a zip (already checked by ``inspect_code``), at most ``limit`` bytes (413 past it)."""
    fileobj.seek(0)
    with zipfile.ZipFile(fileobj) as archive:
        for info in archive.infolist():
            if not info.is_dir() and _normal_path(info.filename) == path:
                if info.file_size > limit:
                    raise field_error(
                        "path",
                        f"{path} is {info.file_size:,} bytes, over the {limit:,} bytes that can be read.",
                        error=CodeFileNotText,
                    )
                with archive.open(info) as member:
                    data = member.read(limit + 1)
                fileobj.seek(0)
                return data
    raise field_error("path", f"The code has no file {path!r}.", error=NotFound)


def code_file_text(fileobj: BinaryIO, *, code_kind: str, filename: str, path: str) -> str:
    """The text of one file of stored code (UTF-8, at most 1 MiB) for the UI; 404 when the code has
    no such file, 400 ``code_file_not_text`` when it is binary or larger."""
    normal = _normal_path(path)
    if code_kind == "zip":
        data = read_member(fileobj, normal, limit=TEXT_MAX_BYTES)
    else:
        if normal != filename:
            raise field_error("path", f"The code has no file {path!r}.", error=NotFound)
        data = fileobj.read(TEXT_MAX_BYTES + 1)
        if len(data) > TEXT_MAX_BYTES:
            raise field_error(
                "path",
                f"{path} is over the {TEXT_MAX_BYTES:,} bytes that can be shown.",
                error=CodeFileNotText,
            )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise field_error(
            "path", f"{path} is not UTF-8 text (a binary file cannot be shown).", error=CodeFileNotText
        ) from None
