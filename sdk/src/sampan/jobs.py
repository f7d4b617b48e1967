"""Module-level shortcuts for custom jobs, for a notebook or a script on the platform: the client
comes from ``SAMPAN_URL`` / ``SAMPAN_API_KEY`` (a platform notebook has them set) and the project
from ``SAMPAN_PROJECT``.

>>> import sampan.jobs
>>> job = sampan.jobs.submit("train.py", dataset_version=12, hyperparameters={"epochs": 3})
>>> for line in job.logs(follow=True):
...     print(line["text"])
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sampan._resource import Resource
    from sampan.client import Client
    from sampan.code_archives import CodeArchive
    from sampan.training import Job


def _project(project: int | Resource[Any] | None) -> int | Resource[Any]:
    if project is not None:
        return project
    raw = os.environ.get("SAMPAN_PROJECT", "").strip()
    if not raw:
        raise ValueError("say which project: submit(..., project=ID) or set SAMPAN_PROJECT")
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"SAMPAN_PROJECT must be a project id, not {raw!r}") from None


def submit(
    code: str | os.PathLike[str] | CodeArchive | int,
    *,
    project: int | Resource[Any] | None = None,
    client: Client | None = None,
    **options: Any,
) -> Job:
    """``Client().custom_jobs.submit(project, code, **options)`` with the project from
    ``SAMPAN_PROJECT`` unless given (options: see :meth:`sampan.custom_jobs.CustomJobs.submit`)."""
    from sampan.client import Client

    return (client or Client()).custom_jobs.submit(_project(project), code, **options)


def get(job_id: int, *, client: Client | None = None) -> Job:
    """A job by id (any kind)."""
    from sampan.client import Client

    return (client or Client()).jobs.get(job_id)
