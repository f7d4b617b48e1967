"""Jobs (status, progress series, cancel, wait with a live progress bar) and training runs."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from sampan import _html
from sampan._resource import Resource
from sampan._resource import id_of as _id
from sampan._transport import Outage, _bar
from sampan.errors import JobFailed, WaitTimeout

if TYPE_CHECKING:
    from sampan.models import ModelVersion

FINISHED = frozenset({"succeeded", "failed", "cancelled"})
# Progress keys shown in the bar, in this order (when present).
SHOWN_METRICS = ("epoch", "loss", "train_acc", "val_loss", "val_acc", "lr", "eta_s")


class Job(Resource):
    """A background job (training, import, check, study, package build): the database row is the truth.

    >>> job = version.train("fast")
    >>> job.wait()                      # a tqdm bar with epoch, loss and val_acc
    >>> job.model_version().metrics["test"]["accuracy"]
    """

    _path = "jobs/"

    @property
    def status(self) -> str:
        return str(self.data["status"])

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def fraction(self) -> float | None:
        value = (self.data.get("progress") or {}).get("fraction")
        return None if value is None else float(value)

    def cancel(self) -> Job:
        """Ask the job to stop: a queued job stops at once, a running one at its next progress report."""
        self.data = self._client.http.post(f"jobs/{self.id}/cancel/")
        return self

    def retry(self) -> Job:
        """Run a failed or cancelled job again from its last complete checkpoint (same job, same run
        directory); returns self, now queued. A job in another state, or of a kind that cannot be
        retried, raises :class:`sampan.Conflict` (``job_conflict``) with the server's reason.

        e.g. ``client.jobs.get(42).retry().wait()`` resumes a failed training where it stopped.
        """
        self.data = self._client.http.post(f"jobs/{self.id}/retry/", idempotent=True)
        return self

    def events(self, *, type: str | None = None, after: int | None = None) -> list[dict[str, Any]]:
        """The job's history: status changes, progress points, log lines (``seq``, ``at``, ``type``, ``message``, ``data``)."""
        return list(self._client.http.paginate(f"jobs/{self.id}/events/", type=type, after=after))

    def progress_series(self) -> list[dict[str, Any]]:
        """Every recorded progress point: ``{"at", "seq", **data}`` (fraction, epoch, loss, val_acc, ...)."""
        return [
            {"seq": e["seq"], "at": e["at"], **(e.get("data") or {})} for e in self.events(type="progress")
        ]

    def metrics_frame(self) -> Any:
        """The progress series as a pandas DataFrame (needs ``pip install sampan[pandas]``)."""
        import pandas as pd

        return pd.DataFrame(self.progress_series())

    def wait(
        self,
        *,
        timeout: float | None = None,
        poll: float = 1.0,
        progress: bool = True,
        raise_on_failure: bool = True,
        max_outage: float = 300.0,
    ) -> Job:
        """Block until the job finishes, with a progress bar showing live metrics; returns self.

        Raises :class:`sampan.JobFailed` if it failed or was cancelled (unless ``raise_on_failure=False``)
        and :class:`sampan.WaitTimeout` after ``timeout`` seconds (the job goes on). The platform
        being unreachable (a web restart: connection errors, 502/503/504) does not end the wait: it
        polls on, and gives up with that error only after ``max_outage`` seconds without an answer.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        outage = Outage(max_outage)
        bar = _bar(
            progress,
            total=100,
            desc=f"job {self.id} {self.data.get('kind', '')}".strip(),
            bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f}% [{elapsed}<{remaining}{postfix}]",
        )
        seen: dict[str, Any] = {}
        try:
            while True:
                if self.finished and progress:
                    # the final report ("recording the model version") carries no metrics, and epochs
                    # may have ended between two polls: show the last ones the job recorded
                    seen.update(self._last_metrics())
                self._show(bar, seen)
                if self.finished:
                    break
                if deadline is not None and time.monotonic() > deadline:
                    raise WaitTimeout(
                        f"Job {self.id} is still {self.status} after {timeout:g} s.", code="wait_timeout"
                    )
                time.sleep(poll)
                if not outage.attempt(self.refresh):
                    bar.set_postfix(
                        {"status": f"{self.status} (platform unreachable, retrying)"}, refresh=True
                    )
        finally:
            bar.close()
        if raise_on_failure and self.status != "succeeded":
            reason = self.data.get("error") or self.status
            raise JobFailed(f"Job {self.id} ({self.data.get('kind')}) {self.status}: {reason}", job=self)
        return self

    def _last_metrics(self) -> dict[str, Any]:
        """The latest recorded value of each shown metric (reports carry different subsets)."""
        latest: dict[str, Any] = {}
        for point in self.progress_series():
            latest.update({key: point[key] for key in SHOWN_METRICS if key in point})
        return latest

    def _show(self, bar: Any, seen: dict[str, Any]) -> None:
        """Move the bar to the job's fraction; its postfix keeps the latest value of each metric seen
        (a final "recording the model version" report carries none)."""
        progress = self.data.get("progress") or {}
        if self.status == "succeeded":
            target = 100.0
        elif progress.get("fraction") is not None:
            target = 100.0 * float(progress["fraction"])
        else:
            target = bar.n
        if target > bar.n:
            bar.update(target - bar.n)
        seen.update({key: progress[key] for key in SHOWN_METRICS if key in progress})
        shown: dict[str, Any] = {"status": self.status}
        for key in SHOWN_METRICS:
            if key in seen:
                value = seen[key]
                shown[key] = f"{value:.4g}" if isinstance(value, float) else value
        bar.set_postfix(shown, refresh=True)

    def model_version(self) -> ModelVersion:
        """The model version a finished training (or model import) job recorded."""
        result = self.data.get("result") or {}
        if "model_version" not in result:
            self.refresh()
            result = self.data.get("result") or {}
        if "model_version" not in result:
            raise ValueError(f"Job {self.id} ({self.status}) recorded no model version.")
        return self._client.models.get(result["model_version"])

    def _repr_html_(self) -> str:
        return _html.job(self.data)


class Jobs:
    """``client.jobs``: list, get, cancel."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def list(
        self,
        *,
        project: int | Resource | None = None,
        status: str | None = None,
        kind: str | None = None,
        workspace: int | Resource | None = None,
    ) -> list[Job]:
        return [
            Job(self._client, j)
            for j in self._client.http.paginate(
                "jobs/",
                project=_id(project) if project is not None else None,
                status=status,
                kind=kind,
                workspace=_id(workspace) if workspace is not None else None,
            )
        ]

    def get(self, job_id: int) -> Job:
        return Job(self._client, self._client.http.get(f"jobs/{int(job_id)}/"))

    def cancel(self, job: int | Job) -> Job:
        return Job(self._client, self._client.http.post(f"jobs/{_id(job)}/cancel/"))

    def retry(self, job: int | Job) -> Job:
        """Retry a failed or cancelled job from its last checkpoint; see :meth:`Job.retry`."""
        return Job(self._client, self._client.http.post(f"jobs/{_id(job)}/retry/", idempotent=True))

    def kinds(self) -> list[dict[str, Any]]:
        return self._client.http.get("job-kinds/")


class Training:
    """``client.training``: templates and their presets, and starting training jobs."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def templates(self) -> list[dict[str, Any]]:
        return self._client.http.get("templates/")

    def template(self, name: str = "image_classification") -> dict[str, Any]:
        return self._client.http.get(f"templates/{name}/")

    def start(
        self,
        dataset_version: int | Resource,
        *,
        preset: str | None = None,
        params: dict[str, Any] | None = None,
        template: str | None = None,
        backbone: int | Resource | None = None,
    ) -> Job:
        """Train on a dataset version with a preset (fast, balanced, accurate) and optional parameter overrides.

        e.g. ``client.training.start(version, preset="fast", params={"epochs": 3}).wait()``
        """
        body: dict[str, Any] = {"dataset_version": _id(dataset_version), "params": params or {}}
        if preset is not None:
            body["preset"] = preset
        if template is not None:
            body["template"] = template
        if backbone is not None:
            body["backbone"] = _id(backbone)
        return Job(self._client, self._client.http.post("training-jobs/", body, idempotent=True))
