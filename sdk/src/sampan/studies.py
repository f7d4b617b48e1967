"""Hyperparameter studies: trials are training runs on workers; best trial, promote."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from sampan import _html
from sampan._resource import Resource
from sampan._resource import id_of as _id
from sampan._transport import Outage, _bar
from sampan.errors import WaitTimeout

if TYPE_CHECKING:
    from sampan.models import ModelVersion

FINISHED = frozenset({"completed", "stopped"})


class Study(Resource):
    """An automatic hyperparameter search on a dataset version.

    >>> study = client.studies.create(version, n_trials=8, fixed_params={"epochs": 3})
    >>> study.wait()
    >>> study.trials_frame().sort_values("value", ascending=False).head()
    >>> model = study.promote()          # the best trial as a model version
    """

    _path = "studies/"

    @property
    def status(self) -> str:
        return str(self.data["status"])

    def trials(self) -> list[dict[str, Any]]:
        return self._client.http.get(f"studies/{self.id}/trials/")

    def trials_frame(self) -> Any:
        """Trials as a pandas DataFrame: number, state, value, duration, one ``params.<name>`` column per parameter."""
        import pandas as pd

        rows = []
        for trial in self.trials():
            row = {
                k: trial.get(k)
                for k in (
                    "number",
                    "state",
                    "value",
                    "duration_seconds",
                    "pruned_at_epoch",
                    "model_version",
                    "job",
                )
            }
            row.update({f"params.{k}": v for k, v in (trial.get("params") or {}).items()})
            row.update(
                {
                    f"test.{k}": v
                    for k, v in (trial.get("test_metrics") or {}).items()
                    if not isinstance(v, (dict, list))
                }
            )
            rows.append(row)
        frame = pd.DataFrame(rows)
        return frame.set_index("number") if "number" in frame else frame

    def results(self) -> dict[str, Any]:
        """Best trial, optimization history, parameter importances and the honest-lift report."""
        return self._client.http.get(f"studies/{self.id}/results/")

    def best_trial(self) -> dict[str, Any] | None:
        self.refresh()
        return self.data.get("best_trial")

    def promote(self, trial: int | None = None) -> ModelVersion:
        """Record a completed trial (the best by default) as a model version."""
        from sampan.models import ModelVersion

        body = {} if trial is None else {"trial": int(trial)}
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
        bar = _bar(
            progress, total=int(self.data.get("n_trials") or 0) or None, desc=f"study {self.id}", unit="trial"
        )
        try:
            while True:
                counts = self.data.get("trials") or {}
                done = sum(int(counts.get(k, 0)) for k in ("complete", "pruned", "failed"))
                if done > bar.n:
                    bar.update(done - bar.n)
                best = self.data.get("best_trial") or {}
                bar.set_postfix(status=self.status, best=best.get("value"))
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

    def __init__(self, client: Any) -> None:
        self._client = client

    def list(
        self,
        *,
        project: int | Resource | None = None,
        dataset_version: int | Resource | None = None,
        status: str | None = None,
    ) -> list[Study]:
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

    def create(
        self,
        dataset_version: int | Resource,
        *,
        n_trials: int = 20,
        name: str = "",
        preset: str | None = None,
        fixed_params: dict[str, Any] | None = None,
        search_space: list[dict[str, Any]] | None = None,
        sampler: str | None = None,
        pruner: str | None = None,
        parallelism: int | None = None,
        timeout_seconds: int | None = None,
        seed: int | None = None,
        report_seeds: int | None = None,
        template: str | None = None,
    ) -> Study:
        """Start a study; unset options take the server's defaults (sampler sde, pruner median, the
        template's search space). A parameter in ``fixed_params`` is taken out of the default search
        space (fix it or search it), so ``fixed_params={"epochs": 5}`` searches everything else.

        e.g. ``client.studies.create(version, n_trials=6, fixed_params={"epochs": 2}, parallelism=1)``
        """
        if fixed_params and search_space is None:
            search_space = self._default_space_without(dataset_version, template, fixed_params)
        body: dict[str, Any] = {
            "dataset_version": _id(dataset_version),
            "n_trials": n_trials,
            "name": name,
            "fixed_params": fixed_params or {},
        }
        for key, value in (
            ("preset", preset),
            ("search_space", search_space),
            ("sampler", sampler),
            ("pruner", pruner),
            ("parallelism", parallelism),
            ("timeout_seconds", timeout_seconds),
            ("seed", seed),
            ("report_seeds", report_seeds),
            ("template", template),
        ):
            if value is not None:
                body[key] = value
        return Study(self._client, self._client.http.post("studies/", body, idempotent=True))

    def _default_space_without(
        self, dataset_version: int | Resource, template: str | None, fixed: dict[str, Any]
    ) -> list[dict[str, Any]] | None:
        """The template's default search space less the fixed parameters (None: nothing to remove)."""
        if template is None:
            dataset = dataset_version.data.get("dataset") if isinstance(dataset_version, Resource) else None
            if dataset is None:  # a bare id: the server's default space, and its 400 on a clash
                return None
            template = self._client.http.get(f"datasets/{int(dataset)}/")["task_type"]
        space = self._client.training.template(template)["search_space"]
        kept = [dim for dim in space if dim["name"] not in fixed]
        return kept if len(kept) != len(space) else None
