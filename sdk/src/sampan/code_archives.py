"""Training code uploaded to the platform (``client.code_archives``): a script, a folder (zipped
here) or a notebook, checked and kept immutable by the server; a custom job runs one.

>>> code = client.code_archives.upload(project, "examples/custom-code/digits-cnn")
>>> code.entry_point, [f["path"] for f in code.files]
('train.py', ['README.md', 'train.py'])
>>> print(code.file_text("train.py")[:200])
"""

from __future__ import annotations

import builtins
import io
import os
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sampan import _schema as schema
from sampan._resource import Resource
from sampan._resource import id_of as _id

if TYPE_CHECKING:
    from sampan.client import Client

# Left out when a folder is zipped: caches, version control, editor and notebook checkpoints
SKIPPED_DIRS = frozenset(
    {
        "__pycache__",
        ".git",
        ".hg",
        ".svn",
        ".ipynb_checkpoints",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".venv",
        "venv",
        "node_modules",
        "outputs",
    }
)
SKIPPED_SUFFIXES = (".pyc", ".pyo")
SKIPPED_NAMES = frozenset({".DS_Store", "Thumbs.db"})
UPLOADABLE = (".py", ".zip", ".ipynb")


class CodeArchive(Resource[schema.CodeArchive]):
    """Uploaded training code: ``name``, ``code_kind`` (script, zip, notebook), ``sha256``,
    ``files``, ``entry_point`` (what a job runs by default) and ``requirements`` (a zip's
    requirements.txt)."""

    _path = "code-archives/"

    def file_text(self, path: str) -> str:
        """One file of the code as text (UTF-8 files up to 1 MiB)."""
        answer: schema.CodeFileText = self._client.http.request(
            "GET", f"code-archives/{self.id}/files/", params={"path": path}
        )
        return answer["text"]


def zip_folder(folder: Path) -> bytes:
    """The folder as a zip (paths relative to it, POSIX), skipping caches, VCS folders, compiled
    files and symbolic links; entries sorted and dated 1980-01-01, so the same files give the same
    bytes (and the same sha256 on the server)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for root, dirs, files in os.walk(folder, followlinks=False):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not (Path(root) / d).is_symlink())
            for name in sorted(files):
                path = Path(root) / name
                if name in SKIPPED_NAMES or name.endswith(SKIPPED_SUFFIXES) or path.is_symlink():
                    continue
                info = zipfile.ZipInfo(path.relative_to(folder).as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


class CodeArchives:
    """``client.code_archives``: upload, list, get."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def upload(
        self,
        project: int | Resource[Any],
        path: str | os.PathLike[str],
        *,
        name: str | None = None,
        entry_point: str | None = None,
    ) -> CodeArchive:
        """Upload training code: a ``.py`` script, a ``.ipynb`` notebook, a ``.zip``, or a folder
        (zipped here, without ``__pycache__``, ``.git``, ``outputs`` and the like). The server
        checks it (a script must compile, a zip must be safe, a notebook nbformat 4) and picks the
        entry point unless given: the file itself, or a zip's ``train.py``, ``main.py``,
        ``__main__.py`` or only top-level ``.py``. Raises :class:`sampan.BadRequest`
        (``code_archive_invalid``) naming what is wrong."""
        source = Path(path)
        if source.is_dir():
            content = zip_folder(source)
            filename = (source.resolve().name or "code") + ".zip"
        elif source.is_file():
            if source.suffix.lower() not in UPLOADABLE:
                raise ValueError(f"{source}: upload a .py script, a .ipynb notebook, a .zip or a folder")
            content = source.read_bytes()
            filename = source.name
        else:
            raise FileNotFoundError(f"no such file or folder: {source}")
        form: dict[str, Any] = {"project": str(_id(project))}
        if name:
            form["name"] = name
        if entry_point:
            form["entry_point"] = entry_point
        data: schema.CodeArchive = self._client.http.post(
            "code-archives/",
            None,
            data=form,
            files={"file": (filename, content, "application/octet-stream")},
            idempotent=True,
        )
        return CodeArchive(self._client, data)

    def list(self, project: int | Resource[Any] | None = None) -> builtins.list[CodeArchive]:
        return [
            CodeArchive(self._client, data)
            for data in self._client.http.paginate(
                "code-archives/", project=_id(project) if project is not None else None
            )
        ]

    def get(self, code_archive: int | Resource[Any]) -> CodeArchive:
        return CodeArchive(self._client, self._client.http.get(f"code-archives/{_id(code_archive)}/"))
