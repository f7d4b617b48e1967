"""Jobs (status, progress series, cancel, wait with a live progress bar) and training runs."""

from __future__ import annotations

import builtins
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, TypeVar, cast

from sampan import _html, _optional
from sampan import _schema as schema
from sampan._resource import Resource
from sampan._resource import id_of as _id
from sampan._transport import Outage, _bar
from sampan.errors import JobFailed, WaitTimeout

if TYPE_CHECKING:
    from typing import Self  # Python 3.11 (annotations are not evaluated on 3.10)

    from sampan.client import Client
    from sampan.models import ModelVersion

FINISHED = frozenset({"succeeded", "failed", "cancelled"})
# Progress keys shown in the bar, in this order (when present).
SHOWN_METRICS = ("epoch", "loss", "train_acc", "val_loss", "val_acc", "val_map50", "lr", "eta_s")
ENVELOPE = frozenset({"kind", "version"})  # every contract's own fields, not a metric
LOG_PAGE = 1000  # lines per GET /jobs/{id}/logs/ (the server's most)


# A job's payload: any job (GET /jobs/{id}/) or a training job with what it trains (GET /training-jobs/{id}/).
JobData = TypeVar("JobData", schema.Job, schema.TrainingJob)


class BaseJob(Resource[JobData]):
    """What every job does (status, progress, cancel, retry, wait), for :class:`Job` and
    :class:`TrainingJob`: the database row is the truth."""

    @property
    def status(self) -> schema.JobStatusEnum:
        return self.data["status"]

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def fraction(self) -> float | None:
        return self.data["progress"].get("fraction")

    @property
    def queue_state(self) -> schema.QueueState | None:
        """Why a queued job waits (None unless it is queued): ``queue``, ``position`` (1 is next),
        ``ahead``, ``reason`` (``no_worker``, ``workers_busy`` or ``next``), the ``workers`` online for
        the queue, their ``slots`` and ``busy_with`` (each ``worker`` and the ``job_id`` it runs, None
        for another workspace's job). As of the last read: ``refresh()`` reads it again.

        e.g. ``client.jobs.get(42).queue_state["reason"]`` -> ``"no_worker"``
        """
        return self.data.get("queue_state")

    @property
    def recommendation(self) -> schema.PresetRecommendation | None:
        """A training job's preset as fitted to its dataset version and the workers online when it
        was created (None when started with ``adapt=False``, or for other kinds): ``values`` (what it
        runs), ``data`` and ``hardware`` (what it was fitted to) and ``choices``, each ``param``,
        ``preset_value``, ``value`` and ``reason``.

        e.g. ``[c["param"] for c in version.train("fast").recommendation["choices"]]`` -> ``["epochs"]``
        """
        data = cast(dict[str, Any], self.data)
        found = (
            data.get("recommendation")
            if "template" in data
            else (data.get("params") or {}).get("recommendation")
        )
        return cast("schema.PresetRecommendation | None", found)

    def choices_summary(self) -> str:
        """The preset's choices for the data and the workers, one line each ("" when none):
        ``batch_size: 16 -> 4 (18 training images: ...)``."""
        return describe_choices(self.recommendation)

    def _answered(self, job: schema.Job) -> None:
        """Take the job's new state from a /jobs/ action's answer."""
        raise NotImplementedError

    def cancel(self) -> Self:
        """Ask the job to stop: a queued job stops at once, a running one at its next progress report."""
        self._answered(self._client.http.post(f"jobs/{self.id}/cancel/"))
        return self

    def retry(self) -> Self:
        """Run a failed or cancelled job again from its last complete checkpoint (same job, same run
        directory); returns self, now queued. A job in another state, or of a kind that cannot be
        retried, raises :class:`sampan.Conflict` (``job_conflict``) with the server's reason.

        e.g. ``client.jobs.get(42).retry().wait()`` resumes a failed training where it stopped.
        """
        self._answered(self._client.http.post(f"jobs/{self.id}/retry/", idempotent=True))
        return self

    def events(self, *, type: str | None = None, after: int | None = None) -> list[schema.JobEvent]:
        """The job's history: status changes, progress points, log lines (``seq``, ``at``, ``type``,
        ``message``, ``data``)."""
        return list(self._client.http.paginate(f"jobs/{self.id}/events/", type=type, after=after))

    def logs(
        self,
        after: int = 0,
        *,
        follow: bool = False,
        poll: float = 1.0,
        timeout: float | None = None,
        max_outage: float = 300.0,
    ) -> Iterator[schema.LogLine]:
        """The job's output lines after ``seq`` ``after``, in order: ``seq``, ``stream`` (stdout,
        stderr, system), ``text``, ``at``. ``follow=True`` polls for new lines until the job has
        finished and every line was read (then the job is refreshed: ``job.status`` is final);
        :class:`sampan.WaitTimeout` after ``timeout`` seconds. The platform being unreachable for
        less than ``max_outage`` seconds does not end a follow.

        e.g. ``for line in job.logs(follow=True): print(line["text"])``
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        outage = Outage(max_outage)
        while True:
            if outage.attempt(
                lambda after=after: self._client.http.get(
                    f"jobs/{self.id}/logs/", after=after, limit=LOG_PAGE
                )
            ):
                page: schema.JobLogPage = outage.value
                lines = page["lines"]
                yield from lines
                after = max(int(page["next_after"]), after)
                if len(lines) >= LOG_PAGE:
                    continue  # a full page: more is there already
                if page["finished"]:
                    if follow:
                        self.refresh()
                    return
                if not follow:
                    return
            if deadline is not None and time.monotonic() > deadline:
                raise WaitTimeout(f"Job {self.id} is still running after {timeout:g} s.", code="wait_timeout")
            time.sleep(poll)

    def artifacts(self) -> list[dict[str, Any]]:
        """The files a custom run kept with ``sampan.run.log_artifact``: ``path`` (in its output
        folder), ``name``, ``sha256``, ``size_bytes`` (empty for other kinds, or before it ends)."""
        result = cast(Mapping[str, Any], self.data.get("result") or {})
        return list(result.get("artifacts") or [])

    def download_artifact(
        self, path: str, dest: str | os.PathLike[str] | None = None, *, progress: bool = False
    ) -> Path:
        """Download one of :meth:`artifacts` (by its ``path``) to ``dest`` (default: its file name in
        the current folder); returns where it was written."""
        target = Path(dest) if dest is not None else Path(PurePosixPath(path).name)
        written = self._client.http.download(
            f"jobs/{self.id}/artifacts/", target, params={"path": path}, progress=progress, description=path
        )
        return written or target

    def progress_series(self) -> list[dict[str, Any]]:
        """Every recorded progress point: ``{"at", "seq", **data}`` (fraction, epoch, loss, val_acc, ...;
        the event's ``kind`` and ``version`` left out)."""
        return [
            {"seq": e["seq"], "at": e["at"], **{k: v for k, v in e["data"].items() if k not in ENVELOPE}}
            for e in self.events(type="progress")
        ]

    def metrics_frame(self) -> Any:
        """The progress series as a pandas DataFrame (needs ``pip install sampan[pandas]``)."""
        return _optional.pandas().DataFrame(self.progress_series())

    def wait(
        self,
        *,
        timeout: float | None = None,
        poll: float = 1.0,
        progress: bool = True,
        raise_on_failure: bool = True,
        max_outage: float = 300.0,
    ) -> Self:
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
            desc=f"job {self.id} {self.data['kind']}".strip(),
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
            reason = self.data["error"] or self.status
            raise JobFailed(f"Job {self.id} ({self.data['kind']}) {self.status}: {reason}", job=self)
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
        progress: Mapping[str, Any] = self.data["progress"]  # the shown metrics, by name
        fraction = self.fraction
        if self.status == "succeeded":
            target = 100.0
        elif fraction is not None:
            target = 100.0 * fraction
        else:
            target = bar.n
        if target > bar.n:
            bar.update(target - bar.n)
        seen.update({key: progress[key] for key in SHOWN_METRICS if key in progress})
        custom = progress.get("custom_metrics")  # custom code's own metrics (sampan.run.log_metrics)
        if isinstance(custom, Mapping):
            seen.update({"step": progress.get("step"), **custom} if "step" in progress else custom)
        shown: dict[str, Any] = {"status": self.status}
        custom_keys: list[str] = [str(k) for k in seen if k not in SHOWN_METRICS][:5]
        for key in [*SHOWN_METRICS, *custom_keys]:
            if key in seen and seen[key] is not None:
                value = seen[key]
                shown[key] = f"{value:.4g}" if isinstance(value, float) else value
        bar.set_postfix(shown, refresh=True)

    def _repr_html_(self) -> str:
        return _html.job(self.data)


def describe_choices(recommendation: Mapping[str, Any] | None) -> str:
    """A recommendation's choices, one line each: ``param: preset value -> value (reason)``.

    >>> describe_choices({"choices": [{"param": "epochs", "preset_value": 10, "value": 30,
    ...                                "reason": "120 training images: more passes."}]})
    'epochs: 10 -> 30 (120 training images: more passes.)'
    """
    return "\n".join(
        f"{c['param']}: {c['preset_value']} -> {c['value']} ({c['reason']})"
        for c in (recommendation or {}).get("choices") or []
    )


class Job(BaseJob[schema.Job]):
    """A background job (training, import, check, study, package build): the database row is the truth.

    >>> job = version.train("fast")
    >>> job.wait()                      # a tqdm bar with epoch, loss and val_acc
    >>> job.model_version().metrics["test"]["accuracy"]
    """

    _path = "jobs/"

    def _answered(self, job: schema.Job) -> None:
        self.data = job

    def model_version(self) -> ModelVersion:
        """The model version a finished training (or model import) job recorded in its result."""
        result = self.data["result"]  # by the job's kind
        if result is None:
            result = self.refresh().data["result"]  # this object may predate the job's end
        if result is not None and (
            result["kind"] == "training_job_result" or result["kind"] == "model_import_result"
        ):
            return self._client.model_versions.get(result["model_version"])
        produced = cast(Mapping[str, Any], result or {})
        if produced.get("kind") == "custom_job_result" and produced.get("model_version") is not None:
            # custom code: the model its run wrote to $SAMPAN_OUTPUT_DIR, recorded after the upload checks
            return self._client.model_versions.get(int(produced["model_version"]))
        raise ValueError(f"Job {self.id} ({self.status}) recorded no model version.")


class TrainingJob(BaseJob[schema.TrainingJob]):
    """A training job (``client.training_jobs``): a job with what it trains (``template``, ``preset``,
    ``params``, ``dataset_version``, ``backbone``) and the model version it produced.

    >>> run = client.training_jobs.create(version, preset="fast").wait()
    >>> run.model_version().evaluation().accuracy
    """

    _path = "training-jobs/"

    def _answered(self, job: schema.Job) -> None:
        self.refresh()  # /jobs/ answers a plain job; the training job's own fields come from its route

    def model_version(self) -> ModelVersion:
        """The model version this (succeeded) training job produced."""
        produced = self.data["model_version"]
        if produced is None:
            produced = self.refresh().data["model_version"]  # this object may predate the job's end
        if produced is None:
            raise ValueError(f"Training job {self.id} ({self.status}) produced no model version.")
        return self._client.model_versions.get(produced["id"])


class Jobs:
    """``client.jobs``: list, get, cancel."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self,
        *,
        project: int | Resource[Any] | None = None,
        status: str | None = None,
        kind: str | None = None,
        workspace: int | Resource[Any] | None = None,
    ) -> builtins.list[Job]:
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

    def cancel(self, job: int | BaseJob[Any]) -> Job:
        return Job(self._client, self._client.http.post(f"jobs/{_id(job)}/cancel/"))

    def retry(self, job: int | BaseJob[Any]) -> Job:
        """Retry a failed or cancelled job from its last checkpoint; see :meth:`Job.retry`."""
        return Job(self._client, self._client.http.post(f"jobs/{_id(job)}/retry/", idempotent=True))

    def kinds(self) -> builtins.list[schema.JobKind]:
        kinds: builtins.list[schema.JobKind] = self._client.http.get("job-kinds/")
        return kinds


class Training:
    """``client.training``: templates and their presets, and starting training jobs."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def templates(self) -> list[schema.TemplateDescription]:
        """Every task template: presets, parameters (types, bounds, choices), the default search space."""
        templates: list[schema.TemplateDescription] = self._client.http.get("templates/")
        return templates

    def template(self, name: str = "image_classification") -> schema.TemplateDescription:
        template: schema.TemplateDescription = self._client.http.get(f"templates/{name}/")
        return template

    def estimates(self, dataset_version: int | Resource[Any]) -> schema.TrainingEstimates:
        """What each preset of the version's template will take and give, measured by earlier runs:
        ``time`` on the workers online (``basis`` ``"measured"`` with the ``runs`` it rests on, or
        ``"none"`` with the reason: the first run measures it), ``quality`` (the last test metric of
        that preset on this dataset), ``size`` (ONNX bytes) and ``speed`` (hosted latency); ``workers``
        says which are online for the job's queue.

        e.g. ``{p["preset"]: p["time"]["seconds"] for p in client.training.estimates(version)["presets"]}``
        """
        estimates: schema.TrainingEstimates = self._client.http.get(
            "training-estimates/", dataset_version=_id(dataset_version)
        )
        return estimates

    def recommendations(self, dataset_version: int | Resource[Any]) -> dict[str, dict[str, Any]]:
        """Each preset fitted to the version's data and the workers online, by preset name: what a
        job started now would run (``values``) and the ``choices`` made, with why (see
        :attr:`Job.recommendation`). From the estimates.

        e.g. ``client.training.recommendations(version)["balanced"]["choices"]``
        """
        presets = cast(list[dict[str, Any]], self.estimates(dataset_version)["presets"])
        return {p["preset"]: p["recommendation"] for p in presets}

    def start(
        self,
        dataset_version: int | Resource[Any],
        *,
        preset: str | None = None,
        params: dict[str, Any] | None = None,
        template: str | None = None,
        backbone: int | Resource[Any] | None = None,
        warm_start_from: int | Resource[Any] | None = None,
        adapt: bool = True,
        target: int | str | Resource[Any] | None = None,
        processes: int = 1,
    ) -> Job:
        """Train on a dataset version with a preset (fast, balanced, accurate) and optional parameter
        overrides; returns the job (see :meth:`TrainingJobs.create` for the training job resource).
        ``warm_start_from``: a model version of the project (same template and model) to start from
        (see :meth:`sampan.ModelVersion.retrain`, which also repeats its parameters).
        ``adapt``: the server fits the preset to the data and the workers online (batch size, epochs,
        model size; ``params`` are never changed) and records why in ``job.recommendation``;
        ``False`` runs the preset's values as declared.
        ``target``: where the model will run (a builtin target's name such as ``"edge-arm-slow"``, or a
        target profile with a latency or size budget; image classification): the worker fits image size,
        width and int8 to the budget before training and records why in the model version's
        ``metrics["target"]``.
        ``processes``: data-parallel processes on the worker's host (image classification; CPU
        processes, or one GPU each): the same global ``batch_size``, split between them; the model
        version's ``metrics["runtime"]`` records ``processes``.

        e.g. ``client.training.start(version, preset="fast", params={"epochs": 3}).wait()``
        """
        body: dict[str, Any] = {
            "dataset_version": _id(dataset_version),
            "params": params or {},
            "adapt": adapt,
        }
        if preset is not None:
            body["preset"] = preset
        if template is not None:
            body["template"] = template
        if backbone is not None:
            body["backbone"] = _id(backbone)
        if warm_start_from is not None:
            body["warm_start_from"] = _id(warm_start_from)
        if target is not None:
            body["target_profile"] = target if isinstance(target, int | str) else _id(target)
        if processes != 1:
            body["processes"] = processes
        return Job(self._client, self._client.http.post("training-jobs/", body, idempotent=True))


class TrainingJobs:
    """``client.training_jobs``: training jobs as a resource (what each trains, its status and
    progress, the model version it produced); cancel, retry and wait on a :class:`TrainingJob`.

    e.g. ``[run.data["preset"] for run in client.training_jobs.list(dataset_version=version)]``
    """

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self,
        *,
        project: int | Resource[Any] | None = None,
        dataset_version: int | Resource[Any] | None = None,
        status: str | None = None,
        workspace: int | Resource[Any] | None = None,
    ) -> builtins.list[TrainingJob]:
        return [
            TrainingJob(self._client, j)
            for j in self._client.http.paginate(
                "training-jobs/",
                project=_id(project) if project is not None else None,
                dataset_version=_id(dataset_version) if dataset_version is not None else None,
                status=status,
                workspace=_id(workspace) if workspace is not None else None,
            )
        ]

    def get(self, training_job_id: int | BaseJob[Any]) -> TrainingJob:
        """A training job by id (a :class:`Job` of kind ``training.run`` works too)."""
        return TrainingJob(self._client, self._client.http.get(f"training-jobs/{_id(training_job_id)}/"))

    def create(
        self,
        dataset_version: int | Resource[Any],
        *,
        preset: str | None = None,
        params: dict[str, Any] | None = None,
        template: str | None = None,
        backbone: int | Resource[Any] | None = None,
        adapt: bool = True,
        target: int | str | Resource[Any] | None = None,
        processes: int = 1,
    ) -> TrainingJob:
        """Start a training job (as :meth:`Training.start`) and answer it as a :class:`TrainingJob`.

        e.g. ``client.training_jobs.create(version, preset="fast", params={"epochs": 3}).wait()``
        """
        job = self._client.training.start(
            dataset_version,
            preset=preset,
            params=params,
            template=template,
            backbone=backbone,
            adapt=adapt,
            target=target,
            processes=processes,
        )
        return self.get(job)
