"""Compression runs: smaller, faster variants of a model version (int8, pruned, distilled), each
recorded as a new model version with lineage to its parent, and the report comparing them.

e.g. ``run = client.model_versions.compress(5, preset="smaller")`` then ``run.variants()[0]``, a
:class:`sampan.models.ModelVersion` compressed from V5, and ``run.frame()`` (size, latency, accuracy).
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sampan import _optional
from sampan import _schema as schema
from sampan._resource import Resource
from sampan._resource import id_of as _id

if TYPE_CHECKING:
    from sampan.client import Client
    from sampan.models import ModelVersion
    from sampan.training import Job

PRESETS = ("smaller", "balanced", "faster", "distilled")


class Compression(Resource[schema.Compression]):
    """A compression run (``/api/v1/compressions/{id}/``): the recipes (``spec``), its job's status
    and, once it finished, the ``report``: the parent's and each variant's size, parameters, FLOPs,
    latency on the target profile and metric on the same test split (``delta`` = variant - parent)."""

    _path = "compressions/"

    @property
    def status(self) -> str | None:
        return self.data["status"]

    @property
    def report(self) -> schema.CompressionRunReport | None:
        """The finished run's report (``kind`` ``"compression_report"``), None until then."""
        return self.data["report"]

    def job(self) -> Job:
        """The ``training.compress`` job that makes the variants."""
        job = self.data["job"]
        if job is None:
            raise ValueError(f"compression {self.id} has no job")
        return self._client.jobs.get(job)

    def wait(
        self, *, timeout: float | None = None, progress: bool = True, raise_on_failure: bool = True
    ) -> Compression:
        """Block until the job finished, with its progress bar; returns self, reloaded with the report.
        Raises :class:`sampan.JobFailed` when it failed (unless ``raise_on_failure=False``)."""
        self.job().wait(timeout=timeout, progress=progress, raise_on_failure=raise_on_failure)
        return self.refresh()

    def variants(self) -> builtins.list[ModelVersion]:
        """The model versions the run recorded, one per variant, in the report's order."""
        report = self.report
        if report is None:
            return []
        return [self._client.model_versions.get(v["model_version"]) for v in report["variants"]]

    def rows(self) -> builtins.list[dict[str, Any]]:
        """The parent and each variant as flat rows: name, model version, size, parameters, FLOPs,
        precision, worker and target latency (ms), the metric's value and its delta to the parent."""
        report = self.report
        if report is None:
            return []

        def row(
            name: str, model_version: int, summary: schema.VariantSummary | schema.ReportedParent
        ) -> dict[str, Any]:
            latency = summary["latency"]
            return {
                "name": name,
                "model_version": model_version,
                "size_bytes": summary["size_bytes"],
                "parameters": summary["parameters"],
                "flops": summary["flops"],
                "precision": summary["precision"],
                "latency_ms": latency["median_ms"],
                "target_latency_ms": latency["target_ms"],
                "metric": summary["metric"],
                "value": summary["value"],
                "delta": summary["delta"],
            }

        parent = report["parent"]
        rows = [row(f"parent ({parent['model_version_name']})", parent["model_version"], parent)]
        rows += [row(v["name"], v["model_version"], v["summary"]) for v in report["variants"]]
        return rows

    def frame(self) -> Any:
        """:meth:`rows` as a pandas DataFrame indexed by name (needs ``pip install sampan[pandas]``)."""
        return _optional.pandas().DataFrame(self.rows()).set_index("name")


class Compressions:
    """``client.compressions``: compression runs (start one with
    :meth:`sampan.models.ModelVersions.compress`)."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self,
        *,
        project: int | Resource[Any] | None = None,
        parent: int | Resource[Any] | None = None,
    ) -> builtins.list[Compression]:
        return [
            Compression(self._client, c)
            for c in self._client.http.paginate(
                "compressions/",
                project=_id(project) if project is not None else None,
                parent=_id(parent) if parent is not None else None,
            )
        ]

    def get(self, compression_id: int) -> Compression:
        return Compression(self._client, self._client.http.get(f"compressions/{int(compression_id)}/"))

    def start(
        self,
        model_version: int | Resource[Any],
        *,
        preset: str | None = None,
        recipes: Sequence[Mapping[str, Any]] | None = None,
        teacher: int | Resource[Any] | None = None,
        target: str | int | None = None,
        max_metric_drop: float | None = None,
        wait: bool = False,
        progress: bool = True,
        timeout: float | None = None,
    ) -> Compression:
        """Compress ``model_version``: a preset (``smaller`` int8, ``balanced`` half the FLOPs pruned +
        int8, ``faster`` pruned to the target's latency budget + int8, ``distilled`` a half-width
        student + int8; ``smaller`` by default) or ``recipes``; latency measured with ``target`` (a
        builtin profile name such as ``"worker-cpu"`` or a workspace profile's id or name).
        ``wait=True`` blocks until the variants are recorded, with a progress bar.

        e.g. ``client.compressions.start(5, preset="balanced", wait=True).frame()``
        """
        body: dict[str, Any] = {}
        if preset is not None:
            body["preset"] = preset
        if recipes is not None:
            body["recipes"] = [dict(r) for r in recipes]
        if teacher is not None:
            body["teacher"] = _id(teacher)
        if target is not None:
            body["target_profile"] = str(target)
        if max_metric_drop is not None:
            body["max_metric_drop"] = max_metric_drop
        answer = self._client.http.post(
            f"model-versions/{_id(model_version)}/compress/", body, idempotent=True
        )
        run = Compression(self._client, answer)
        if wait:
            run.wait(timeout=timeout, progress=progress)
        return run
