"""Hyperparameter studies: trials are training runs on workers; best trial, promote."""

from __future__ import annotations

import builtins
import os
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sampan import _html, _optional
from sampan import _schema as schema
from sampan._resource import Resource
from sampan._resource import id_of as _id
from sampan._transport import Outage, _bar
from sampan.datasets import DatasetVersion
from sampan.errors import WaitTimeout

if TYPE_CHECKING:
    from sampan.client import Client
    from sampan.models import ModelVersion

FINISHED = frozenset({"completed", "stopped"})


class Study(Resource[schema.Study]):
    """An automatic hyperparameter search on a dataset version, or over your own training code
    (:meth:`Studies.create_custom`).

    >>> study = client.studies.create(version, n_trials=8, fixed_params={"epochs": 3})
    >>> study.wait()
    >>> study.trials_frame().sort_values("value", ascending=False).head()
    >>> model = study.promote()          # the best trial as a model version
    """

    _path = "studies/"

    @property
    def status(self) -> schema.StudyStatusEnum:
        return self.data["status"]

    def pareto_front(self) -> list[dict[str, Any]]:
        """The trials of the study's Pareto front (completed, feasible, non-dominated), each with its
        ``values`` (one per objective) and ``measurements`` (latency_ms, size_bytes ...); promote
        one with :meth:`promote` ``(trial=number)``."""
        data: dict[str, Any] = dict(self.refresh().data)
        front: list[int] = list(data.get("pareto_front") or [])
        return [dict(t) for t in self.trials() if t["number"] in front]

    def trials(self) -> list[schema.Trial]:
        trials: list[schema.Trial] = self._client.http.get(f"studies/{self.id}/trials/")
        return trials

    def trials_frame(self) -> Any:
        """Trials as a pandas DataFrame: number, state, value, duration, one ``params.<name>`` column
        per parameter and one ``test.<metric>`` column per test metric."""
        pd = _optional.pandas()
        rows = []
        for trial in self.trials():
            row: dict[str, Any] = {
                "number": trial["number"],
                "state": trial["state"],
                "value": trial["value"],
                "duration_seconds": trial["duration_seconds"],
                "pruned_at_epoch": trial["pruned_at_epoch"],
                "model_version": trial["model_version"],
                "job": trial["job"],
            }
            row.update({f"params.{k}": v for k, v in trial["params"].items()})
            row.update({f"test.{k}": v for k, v in trial["test_metrics"].items()})
            rows.append(row)
        frame = pd.DataFrame(rows)
        return frame.set_index("number") if "number" in frame else frame

    def results(self) -> schema.StudyResults:
        """Best trial, optimization history, parameter importances and the honest-lift report."""
        results: schema.StudyResults = self._client.http.get(f"studies/{self.id}/results/")
        return results

    def best_trial(self) -> schema.BestTrial | None:
        self.refresh()
        return self.data["best_trial"]

    def promote(self, trial: int | None = None) -> ModelVersion:
        """Record a completed trial (the best by default) as a model version."""
        from sampan.models import ModelVersion

        body: dict[str, Any] = {} if trial is None else {"trial": int(trial)}
        return ModelVersion(self._client, self._client.http.post(f"studies/{self.id}/promote/", body))

    def pause(self) -> Study:
        self.data = self._client.http.post(f"studies/{self.id}/pause/")
        return self

    def resume(self) -> Study:
        self.data = self._client.http.post(f"studies/{self.id}/resume/")
        return self

    def stop(self) -> Study:
        self.data = self._client.http.post(f"studies/{self.id}/stop/")
        return self

    def wait(
        self,
        *,
        timeout: float | None = None,
        poll: float = 2.0,
        progress: bool = True,
        max_outage: float = 300.0,
    ) -> Study:
        """Block until the study ends, with a bar over its trial budget and the best value so far.
        Polling goes on across a web restart for up to ``max_outage`` seconds (as :meth:`Job.wait`)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        outage = Outage(max_outage)
        bar = _bar(progress, total=self.data["n_trials"] or None, desc=f"study {self.id}", unit="trial")
        try:
            while True:
                counts = self.data["trials"]
                done = counts["complete"] + counts["pruned"] + counts["failed"]
                if done > bar.n:
                    bar.update(done - bar.n)
                best = self.data["best_trial"]
                bar.set_postfix(status=self.status, best=best["value"] if best else None)
                if self.status in FINISHED:
                    return self
                if deadline is not None and time.monotonic() > deadline:
                    raise WaitTimeout(
                        f"Study {self.id} is still {self.status} after {timeout:g} s.", code="wait_timeout"
                    )
                time.sleep(poll)
                outage.attempt(self.refresh)
        finally:
            bar.close()

    def _repr_html_(self) -> str:
        try:
            trials = self.trials()
        except Exception:  # a notebook's repr must not raise
            trials = []
        return _html.study(self.data, trials)


class Studies:
    """``client.studies``: create, list, get."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self,
        *,
        project: int | Resource[Any] | None = None,
        dataset_version: int | Resource[Any] | None = None,
        status: str | None = None,
    ) -> builtins.list[Study]:
        return [
            Study(self._client, s)
            for s in self._client.http.paginate(
                "studies/",
                project=_id(project) if project is not None else None,
                dataset_version=_id(dataset_version) if dataset_version is not None else None,
                status=status,
            )
        ]

    def get(self, study_id: int) -> Study:
        return Study(self._client, self._client.http.get(f"studies/{int(study_id)}/"))

    def defaults(self, template: str) -> schema.StudyDefaults:
        """The budget a study of ``template`` gets when it leaves one out, fitted to the workers online:
        ``parallelism`` (the jobs the workers of the trials' queue run at once, at least 1),
        ``n_trials``, ``timeout_seconds`` (from measured runs; None until one was measured) and the
        reasoning in ``explanation``.

        e.g. ``client.studies.defaults("image_classification")["parallelism"]`` -> ``1``
        """
        fitted: schema.StudyDefaults = self._client.http.get("studies/defaults/", template=template)
        return fitted

    def create(
        self,
        dataset_version: int | Resource[Any],
        *,
        n_trials: int | None = None,
        name: str = "",
        preset: str | None = None,
        fixed_params: dict[str, Any] | None = None,
        search_space: Sequence[Mapping[str, Any]] | None = None,
        sampler: str | None = None,
        pruner: str | None = None,
        parallelism: int | None = None,
        timeout_seconds: int | None = None,
        seed: int | None = None,
        report_seeds: int | None = None,
        template: str | None = None,
        objectives: Sequence[Mapping[str, Any]] | None = None,
        constraints: Sequence[Mapping[str, Any]] | None = None,
        target: int | str | Resource[Any] | None = None,
    ) -> Study:
        """Start a study; unset options take the server's defaults (sampler sde, pruner median, the
        template's search space, and a budget that fits the workers online: see :meth:`defaults`).
        A parameter in ``fixed_params`` is taken out of the default search space (fix it or search
        it), so ``fixed_params={"epochs": 5}`` searches everything else.

        e.g. ``client.studies.create(version, n_trials=6, fixed_params={"epochs": 2}, parallelism=1)``

        Deployment-aware: ``objectives=[{"metric": "val_acc"}, {"metric": "latency_ms"}]``,
        ``constraints=[{"metric": "latency_ms", "op": "<=", "value": 5}]``, ``target="edge-arm-slow"``
        (a builtin's name or a target profile); then :meth:`Study.pareto_front`.
        """
        if fixed_params and search_space is None:
            search_space = self._default_space_without(dataset_version, template, fixed_params)
        body: dict[str, Any] = {
            "dataset_version": _id(dataset_version),
            "name": name,
            "fixed_params": fixed_params or {},
        }
        for key, value in (
            ("n_trials", n_trials),
            ("preset", preset),
            ("search_space", search_space),
            ("sampler", sampler),
            ("pruner", pruner),
            ("parallelism", parallelism),
            ("timeout_seconds", timeout_seconds),
            ("seed", seed),
            ("report_seeds", report_seeds),
            ("template", template),
            ("objectives", [dict(o) for o in objectives] if objectives is not None else None),
            ("constraints", [dict(c) for c in constraints] if constraints is not None else None),
            ("target_profile", target if isinstance(target, int | str) or target is None else _id(target)),
        ):
            if value is not None:
                body[key] = value
        return Study(self._client, self._client.http.post("studies/", body, idempotent=True))

    def create_custom(
        self,
        project: int | Resource[Any],
        code: int | str | os.PathLike[str] | Resource[Any],
        *,
        search_space: Sequence[Mapping[str, Any]],
        objective: Mapping[str, str],
        n_trials: int,
        dataset_version: int | Resource[Any] | None = None,
        entry_point: str | None = None,
        args: Sequence[str] | None = None,
        requirements: str | None = None,
        limits: Mapping[str, int] | None = None,
        network: bool | None = None,
        name: str = "",
        sampler: str | None = None,
        pruner: str | None = None,
        parallelism: int | None = None,
        timeout_seconds: int | None = None,
        seed: int | None = None,
    ) -> Study:
        """Start a study over your own training code: each trial runs ``code`` (a code archive, its
        id, or a path to a script, notebook, zip or folder, uploaded here with
        ``client.code_archives.upload``) with the sampled hyperparameters as ``--name=value`` (and
        ``sampan.run.params``). The code reports the objective's metric with
        ``run.log_metrics(step=i, **{metric: value})``: each report may prune the trial, and the
        trial's value is the last one reported. ``search_space`` and ``objective``
        (``{"metric": ..., "direction": "maximize" | "minimize"}``) are required.

        e.g. ``client.studies.create_custom(project, "train.py", n_trials=8,
        search_space=[{"name": "lr", "type": "float", "low": 1e-4, "high": 1e-1, "log": True}],
        objective={"metric": "val_acc", "direction": "maximize"})``
        """
        if isinstance(code, int | Resource):
            archive = _id(code)
        elif isinstance(code, str) and code.isdigit():
            archive = int(code)
        else:
            archive = self._client.code_archives.upload(project, code).id
        body: dict[str, Any] = {
            "project": _id(project),
            "code_archive": archive,
            "search_space": [dict(dim) for dim in search_space],
            "objective": dict(objective),
            "n_trials": n_trials,
            "name": name,
        }
        for key, value in (
            ("dataset_version", _id(dataset_version) if dataset_version is not None else None),
            ("entry_point", entry_point),
            ("args", list(args) if args is not None else None),
            ("requirements", requirements),
            ("limits", dict(limits) if limits is not None else None),
            ("network", network),
            ("sampler", sampler),
            ("pruner", pruner),
            ("parallelism", parallelism),
            ("timeout_seconds", timeout_seconds),
            ("seed", seed),
        ):
            if value is not None:
                body[key] = value
        return Study(self._client, self._client.http.post("studies/", body, idempotent=True))

    def _default_space_without(
        self, dataset_version: int | Resource[Any], template: str | None, fixed: dict[str, Any]
    ) -> builtins.list[schema.SearchDimension] | None:
        """The template's default search space less the fixed parameters (None: nothing to remove)."""
        if template is None:
            if not isinstance(
                dataset_version, DatasetVersion
            ):  # an id: the server's default space, its 400 on a clash
                return None
            template = self._client.datasets.get(dataset_version.data["dataset"]).data["task_type"]
        space = self._client.training.template(template)["search_space"]
        kept = [dim for dim in space if dim["name"] not in fixed]
        return kept if len(kept) != len(space) else None
