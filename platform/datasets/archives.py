"""Reading uploaded zip and tar archives safely (DESIGN §6).

Two steps, both streaming, neither extracting anything to disk:

1. ``archive_scan`` checks the whole archive before anything is written: every entry's name (no
   absolute paths, no ``..``, no NUL), its type (regular files and directories only: symlinks,
   hardlinks and device files reject the archive; tar members also pass ``tarfile.data_filter``),
   the file count, the total uncompressed size and the compression ratio. A zip is judged from
   its central directory (the entry count is read from the end record before the directory is
   parsed); zipfile never inflates an entry past its declared size, so the declared sizes bind.
   A tar is decompressed as a stream, the limits checked on every chunk, the data discarded.
2. ``archive_files`` streams the files' bytes for import, enforcing the same limits again.

Entries are labelled by layout: ``cat/1.png`` is labelled ``cat``; a file at the root is
unlabeled; a single folder wrapping everything (``digits/cat/1.png``) is looked through.
"""

from __future__ import annotations

import contextlib
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import BinaryIO

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
GZIP_MAGIC, BZIP2_MAGIC, XZ_MAGIC = b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00"
CHUNK = 1024 * 1024
RATIO_FLOOR_BYTES = 1024 * 1024  # ratios of tiny inputs say nothing; judge them past 1 MiB
JUNK_NAMES = {"thumbs.db", "desktop.ini", "manifest.csv"}  # manifest.csv: Sampan's own export manifest
LABEL_MAX_LENGTH = 100


class ArchiveRejected(Exception):
    """The archive as a whole is refused; nothing of it may be imported."""

    def __init__(self, code: str, message: str, *, entry: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.entry = entry


@dataclass(frozen=True)
class ArchiveLimits:
    max_files: int
    max_uncompressed_bytes: int
    max_ratio: int
    max_file_bytes: int

    @classmethod
    def from_settings(cls) -> ArchiveLimits:
        from django.conf import settings

        return cls(
            max_files=settings.SAMPAN_DATASET_MAX_FILES,
            max_uncompressed_bytes=settings.SAMPAN_DATASET_MAX_UNCOMPRESSED_BYTES,
            max_ratio=settings.SAMPAN_DATASET_MAX_COMPRESSION_RATIO,
            max_file_bytes=settings.SAMPAN_DATASET_MAX_IMAGE_BYTES,
        )


@dataclass
class ArchiveEntry:
    index: int  # position among the archive's regular files
    name: str
    size: int
    label: str | None = None
    problem: tuple[str, str] | None = None  # (code, message): reported, not imported


@dataclass
class ArchiveScan:
    kind: str  # "zip" or "tar"
    entries: list[ArchiveEntry] = field(default_factory=list)
    ignored: int = 0
    uncompressed_bytes: int = 0


def archive_kind(fileobj: BinaryIO) -> str:
    head = fileobj.read(512)
    fileobj.seek(0)
    if head.startswith(ZIP_MAGIC):
        return "zip"
    if head.startswith((GZIP_MAGIC, BZIP2_MAGIC, XZ_MAGIC)) or head[257:262] == b"ustar":
        return "tar"
    if not head:
        raise ArchiveRejected("empty_archive", "The uploaded archive is an empty file.")
    raise ArchiveRejected(
        "not_an_archive",
        "The upload is not a zip, tar, tar.gz, tar.bz2 or tar.xz archive (recognised by content).",
    )


def _unsafe_name(name: str) -> str | None:
    if "\x00" in name:
        return "contains a NUL character"
    normalised = name.replace("\\", "/")
    if normalised.startswith("/") or (len(normalised) > 1 and normalised[1] == ":"):
        return "is an absolute path"
    if ".." in normalised.split("/"):
        return "contains '..' (a path escaping the archive, 'zip slip')"
    return None


def _check_name(name: str) -> None:
    problem = _unsafe_name(name)
    if problem:
        raise ArchiveRejected(
            "unsafe_path", f"Archive entry {name!r} {problem}; nothing was imported.", entry=name
        )


def _is_junk(parts: tuple[str, ...]) -> bool:
    return any(p.startswith(".") or p == "__MACOSX" for p in parts) or parts[-1].lower() in JUNK_NAMES


def _label_entries(scan: ArchiveScan, names: list[str]) -> None:
    """Give each kept entry its label from the folder layout; drop junk (counted as ignored)."""
    kept: list[tuple[ArchiveEntry, tuple[str, ...]]] = []
    for entry, name in zip(scan.entries, names, strict=True):
        parts = tuple(p for p in PurePosixPath(name.replace("\\", "/")).parts if p not in ("", "."))
        if not parts or _is_junk(parts):
            scan.ignored += 1
            continue
        kept.append((entry, parts))
    # Look through wrapping folders: digits/0/a.png, digits/1/b.png -> 0/a.png, 1/b.png.
    while kept and all(len(p) >= 3 for _, p in kept) and len({p[0] for _, p in kept}) == 1:
        kept = [(e, p[1:]) for e, p in kept]
    for entry, parts in kept:
        if len(parts) >= 2:
            label = parts[0].strip()
            if not label or len(label) > LABEL_MAX_LENGTH:
                entry.problem = (
                    "bad_label",
                    f"folder name {parts[0]!r} is not a usable label name "
                    f"(1 to {LABEL_MAX_LENGTH} characters)",
                )
            entry.label = label
    scan.entries = [e for e, _ in kept]


def _check_totals(count: int, total: int, limits: ArchiveLimits, name: str) -> None:
    if count > limits.max_files:
        raise ArchiveRejected(
            "too_many_files",
            f"The archive holds more than {limits.max_files:,} files "
            "(SAMPAN_DATASET_MAX_FILES); nothing was imported.",
            entry=name,
        )
    if total > limits.max_uncompressed_bytes:
        raise ArchiveRejected(
            "archive_too_large_uncompressed",
            f"The archive unpacks to more than {limits.max_uncompressed_bytes:,} bytes "
            f"(SAMPAN_DATASET_MAX_UNCOMPRESSED_BYTES), reached at entry {name!r}; nothing was imported.",
            entry=name,
        )


def _check_ratio(uncompressed: int, compressed: int, limits: ArchiveLimits, what: str) -> None:
    if uncompressed > RATIO_FLOOR_BYTES and uncompressed > limits.max_ratio * max(compressed, 1):
        raise ArchiveRejected(
            "compression_ratio",
            f"{what} expands {uncompressed / max(compressed, 1):,.0f} times, over the limit of "
            f"{limits.max_ratio} (SAMPAN_DATASET_MAX_COMPRESSION_RATIO): a zip bomb or similar; nothing was "
            "imported.",
        )


def _oversized(entry: ArchiveEntry, limits: ArchiveLimits) -> None:
    if entry.size > limits.max_file_bytes and entry.problem is None:
        entry.problem = (
            "file_too_large",
            f"{entry.size:,} bytes, over the {limits.max_file_bytes:,}-byte "
            "limit for one image (SAMPAN_DATASET_MAX_IMAGE_BYTES)",
        )


# --- zip ---------------------------------------------------------------------------------------


def _zip_entry_count(fileobj: BinaryIO) -> int:
    # the end record only; the central directory is not read yet (private API: typeshed lacks it)
    end = zipfile._EndRecData(fileobj)  # type: ignore[attr-defined]
    fileobj.seek(0)
    if end is None:
        raise ArchiveRejected("corrupt_archive", "The zip archive is damaged: its end record is missing.")
    return int(end[zipfile._ECD_ENTRIES_TOTAL])  # type: ignore[attr-defined]


def _zip_open(fileobj: BinaryIO) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(fileobj)
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, NotImplementedError) as exc:
        raise ArchiveRejected("corrupt_archive", f"The zip archive is damaged: {exc}.") from None


def _scan_zip(fileobj: BinaryIO, limits: ArchiveLimits, archive_bytes: int) -> tuple[ArchiveScan, list[str]]:
    if _zip_entry_count(fileobj) > 2 * limits.max_files + 1000:  # leave room for directory entries
        raise ArchiveRejected(
            "too_many_files",
            f"The archive holds more than {limits.max_files:,} files "
            "(SAMPAN_DATASET_MAX_FILES); nothing was imported.",
        )
    scan, names = ArchiveScan(kind="zip"), []
    with _zip_open(fileobj) as archive:
        for info in archive.infolist():
            _check_name(info.filename)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise ArchiveRejected(
                    "link_in_archive",
                    f"Archive entry {info.filename!r} is a symbolic link; "
                    "links are not accepted, nothing was imported.",
                    entry=info.filename,
                )
            if stat.S_IFMT(mode) not in (
                0,
                stat.S_IFREG,
                stat.S_IFDIR,
            ):  # 0: no type recorded (DOS, writestr)
                raise ArchiveRejected(
                    "special_file",
                    f"Archive entry {info.filename!r} is not a regular file; nothing was imported.",
                    entry=info.filename,
                )
            if info.is_dir():
                continue
            scan.uncompressed_bytes += info.file_size
            entry = ArchiveEntry(index=len(scan.entries), name=info.filename, size=info.file_size)
            _check_totals(len(scan.entries) + 1, scan.uncompressed_bytes, limits, info.filename)
            _check_ratio(info.file_size, info.compress_size, limits, f"Archive entry {info.filename!r}")
            if info.flag_bits & 0x1:
                entry.problem = ("encrypted", "the entry is encrypted")
            _oversized(entry, limits)
            scan.entries.append(entry)
            names.append(info.filename)
    _check_ratio(scan.uncompressed_bytes, archive_bytes, limits, "The archive")
    return scan, names


def _zip_files(
    fileobj: BinaryIO, scan: ArchiveScan, limits: ArchiveLimits
) -> Iterator[tuple[ArchiveEntry, bytes]]:
    wanted = {e.index: e for e in scan.entries}
    total = 0
    with _zip_open(fileobj) as archive:
        index = -1
        for info in archive.infolist():
            if info.is_dir():
                continue
            index += 1
            entry = wanted.get(index)
            if entry is None or entry.problem is not None:
                continue
            try:
                with archive.open(info) as member:
                    data = member.read(limits.max_file_bytes + 1)
            except (
                zipfile.BadZipFile,
                zlib.error,
                EOFError,
                OSError,
                RuntimeError,
                NotImplementedError,
            ) as exc:
                entry.problem = ("corrupt_entry", f"cannot unpack this entry: {exc}")
                continue
            total += len(data)
            _check_totals(index + 1, total, limits, info.filename)  # declared sizes bind; checked anyway
            yield entry, data


# --- tar ---------------------------------------------------------------------------------------


class _CountingReader:
    """Counts the compressed bytes tarfile pulls from the upload, for the ratio check."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        self.count += len(data)
        return data


def _tar_members(
    fileobj: BinaryIO, limits: ArchiveLimits
) -> Iterator[tuple[tarfile.TarFile, tarfile.TarInfo, _CountingReader]]:
    """Stream the tar's members, checking each one's name and type before it is read."""
    counter = _CountingReader(fileobj)
    with contextlib.ExitStack() as stack:
        try:
            archive = stack.enter_context(tarfile.open(fileobj=counter, mode="r|*"))  # type: ignore[call-overload]
        except (tarfile.TarError, zlib.error, EOFError, OSError) as exc:
            raise ArchiveRejected("corrupt_archive", f"The tar archive is damaged: {exc}.") from None
        while True:
            try:
                member = archive.next()
            except (tarfile.TarError, zlib.error, EOFError, OSError) as exc:
                raise ArchiveRejected("corrupt_archive", f"The tar archive is damaged: {exc}.") from None
            if member is None:
                return
            archive.members = []  # stream mode keeps every header otherwise
            _check_name(member.name)
            if member.issym() or member.islnk():
                kind = "a symbolic link" if member.issym() else "a hard link"
                raise ArchiveRejected(
                    "link_in_archive",
                    f"Archive entry {member.name!r} is {kind} to "
                    f"{member.linkname!r}; links are not accepted, nothing was imported.",
                    entry=member.name,
                )
            if not (member.isfile() or member.isdir()):
                raise ArchiveRejected(
                    "special_file",
                    f"Archive entry {member.name!r} is not a regular file; nothing was imported.",
                    entry=member.name,
                )
            try:
                tarfile.data_filter(member, "/sampan-import")  # the stdlib's rules for untrusted tars
            except tarfile.FilterError as exc:
                raise ArchiveRejected(
                    "unsafe_path",
                    f"Archive entry {member.name!r} is refused: {exc}; nothing was imported.",
                    entry=member.name,
                ) from None
            yield archive, member, counter


def _read_tar_member(
    archive: tarfile.TarFile,
    member: tarfile.TarInfo,
    counter: _CountingReader,
    limits: ArchiveLimits,
    before: int,
    keep: bool,
) -> bytes:
    """Read (or, with keep=False, discard) a member's data in chunks, checking the ratio as it goes."""
    stream = archive.extractfile(member)
    if stream is None:
        return b""
    chunks, done = [], 0
    try:
        while True:
            chunk = stream.read(CHUNK)
            if not chunk:
                break
            done += len(chunk)
            if keep:
                chunks.append(chunk)
            _check_ratio(before + done, counter.count, limits, "The archive")
    except (tarfile.TarError, zlib.error, EOFError, OSError) as exc:
        raise ArchiveRejected(
            "corrupt_archive", f"The tar archive is damaged inside {member.name!r}: {exc}.", entry=member.name
        ) from None
    return b"".join(chunks)


def _scan_tar(fileobj: BinaryIO, limits: ArchiveLimits) -> tuple[ArchiveScan, list[str]]:
    scan, names = ArchiveScan(kind="tar"), []
    for archive, member, counter in _tar_members(fileobj, limits):
        if member.isdir():
            continue
        scan.uncompressed_bytes += member.size
        _check_totals(len(scan.entries) + 1, scan.uncompressed_bytes, limits, member.name)
        entry = ArchiveEntry(index=len(scan.entries), name=member.name, size=member.size)
        _oversized(entry, limits)
        _read_tar_member(archive, member, counter, limits, scan.uncompressed_bytes - member.size, keep=False)
        scan.entries.append(entry)
        names.append(member.name)
    fileobj.seek(0)
    return scan, names


def _tar_files(
    fileobj: BinaryIO, scan: ArchiveScan, limits: ArchiveLimits
) -> Iterator[tuple[ArchiveEntry, bytes]]:
    wanted = {e.index: e for e in scan.entries}
    index, total = -1, 0
    for archive, member, counter in _tar_members(fileobj, limits):
        if member.isdir():
            continue
        index += 1
        total += member.size
        _check_totals(index + 1, total, limits, member.name)
        entry = wanted.get(index)
        keep = entry is not None and entry.problem is None
        data = _read_tar_member(archive, member, counter, limits, total - member.size, keep=keep)
        if keep and entry is not None:
            yield entry, data


# --- public ------------------------------------------------------------------------------------


def archive_scan(fileobj: BinaryIO, *, size: int, limits: ArchiveLimits) -> ArchiveScan:
    """Check the whole archive (see the module docstring) and list its files with their labels.

    e.g. ``archive_scan(open("digits.zip", "rb"), size=os.path.getsize("digits.zip"), limits=...)``
    Raises ArchiveRejected naming the first problem. Leaves ``fileobj`` at its start.
    """
    kind = archive_kind(fileobj)
    scan, names = _scan_zip(fileobj, limits, size) if kind == "zip" else _scan_tar(fileobj, limits)
    fileobj.seek(0)
    _label_entries(scan, names)
    if not scan.entries:
        extra = f" ({scan.ignored} hidden or system entries were skipped)" if scan.ignored else ""
        raise ArchiveRejected("empty_archive", f"The archive contains no files to import{extra}.")
    return scan


def archive_files(
    fileobj: BinaryIO, scan: ArchiveScan, *, limits: ArchiveLimits
) -> Iterator[tuple[ArchiveEntry, bytes]]:
    """Yield (entry, bytes) for each scanned entry without a problem, in archive order. Entries
    that turn out unreadable get ``entry.problem`` set and are skipped."""
    fileobj.seek(0)
    if scan.kind == "zip":
        yield from _zip_files(fileobj, scan, limits)
    else:
        yield from _tar_files(fileobj, scan, limits)
