"""Custom training jobs (``client.custom_jobs``): your own code (a script, a folder, a notebook)
run by a worker in a sandbox, with hyperparameters, requirements, limits and optionally a dataset
version; inside, the code uses :mod:`sampan.run`. The job is a :class:`sampan.Job` like any other:
``job.logs(follow=True)``, ``job.wait()``, ``job.model_version()``.

>>> job = client.custom_jobs.submit(project, "examples/custom-code/digits-cnn",
...                                 dataset_version=12, hyperparameters={"epochs": 5})
>>> for line in job.logs(follow=True):
...     print(line["text"])
>>> job.refresh().model_version().evaluation().accuracy
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from sampan._resource import Resource
from sampan._resource import id_of as _id
from sampan.code_archives import CodeArchive
from sampan.training import Job

if TYPE_CHECKING:
    from sampan.client import Client

HyperValue = str | int | float | bool


class Limits(TypedDict, total=False):
    """What one run may use (each up to the platform's cap; defaults from its settings)."""

    wall_time_s: int
    memory_mb: int
    cpus: int


def read_requirements(requirements: str | os.PathLike[str] | None) -> str | None:
    """Requirement lines: a path (``os.PathLike``, or a one-line string naming an existing file)
    is read; other text is taken as the lines themselves."""
    if requirements is None:
        return None
    if isinstance(requirements, os.PathLike):
        return Path(requirements).read_text(encoding="utf-8")
    text = str(requirements)
    if text and "\n" not in text and Path(text).is_file():
        return Path(text).read_text(encoding="utf-8")
    return text


class CustomJobs:
    """``client.custom_jobs``: submit your own training code as a job."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def submit(
        self,
        project: int | Resource[Any],
        code: str | os.PathLike[str] | CodeArchive | int,
        *,
        entry_point: str | None = None,
        args: Sequence[str] = (),
        hyperparameters: Mapping[str, HyperValue] | None = None,
        requirements: str | os.PathLike[str] | None = None,
        dataset_version: int | Resource[Any] | None = None,
        queue: Literal["cpu", "gpu"] = "cpu",
        limits: Limits | Mapping[str, int] | None = None,
        network: bool = False,
        name: str | None = None,
    ) -> Job:
        """Run code as a training job (kind ``training.custom``); returns the queued job.

        - ``code``: a path (a ``.py``, ``.ipynb``, ``.zip`` or a folder: uploaded first, see
          :meth:`CodeArchives.upload`), or an uploaded :class:`CodeArchive` (or its id).
        - ``entry_point``: a ``.py``/``.ipynb`` path in the code or a module (``pkg.train``, run as
          ``python -m``); default: the code's own.
        - ``args`` are passed as given, then each hyperparameter as ``--name=value`` (also in
          ``sampan.run.params``, types kept).
        - ``requirements``: pip lines (text, or a path to a requirements file) installed in a cached
          environment over the worker's; default: the code's requirements.txt.
        - ``dataset_version``: laid out under ``$SAMPAN_DATA_DIR`` (``sampan.run.dataset()``).
        - ``limits``: ``wall_time_s``, ``memory_mb``, ``cpus`` (a limit over the platform's cap is
          a :class:`sampan.BadRequest`, ``custom_job_limit_too_high``, naming the cap).
        - ``network``: let the code open network connections (off by default).
        """
        if isinstance(args, str):
            raise TypeError("args must be a list of strings (e.g. ['--verbose']), not one string")
        if isinstance(code, (CodeArchive, int)):
            archive = _id(code)
        else:
            archive = self._client.code_archives.upload(project, code, entry_point=entry_point).id
        body: dict[str, Any] = {
            "project": _id(project),
            "code_archive": archive,
            "args": [str(a) for a in args],
            "hyperparameters": dict(hyperparameters or {}),
            "queue": queue,
            "network": bool(network),
        }
        if entry_point:
            body["entry_point"] = entry_point
        text = read_requirements(requirements)
        if text is not None:
            body["requirements"] = text
        if dataset_version is not None:
            body["dataset_version"] = _id(dataset_version)
        if limits:
            body["limits"] = dict(limits)
        if name:
            body["name"] = name
        return Job(self._client, self._client.http.post("custom-jobs/", body, idempotent=True))
