"""Custom-code studies: a study whose trials run the user's own training code (``template="custom"``).

A custom-code study keeps its code on the study (``Study.custom_code``: the code archive, entry
point, arguments, requirements, limits); its search space is the user's (there is no template
default) and so is its objective ``{metric, direction}``. Each trial is an ``automl.trial`` job whose
params also carry what a ``training.custom`` job's do (``code_archive``, ``spec``, ``dataset_version``),
so its body is the custom job's run (``customjobs.running.custom_job_run``) with the sampled values
as ``spec.hyperparameters`` (passed as ``--name=value``) and ``spec.objective`` the study's. Each
``run.log_metrics(step, **{metric: v})`` is an intermediate value of the Optuna trial at ``step``
(the pruner may answer "prune"); the trial's value is the metric's last reported value.
"""

from __future__ import annotations

import math
import re
from typing import Any

from config.exceptions import InvalidInput

from workers.contracts.custom_code import CUSTOM_JOB_SPEC_VERSION, CustomJobSpec

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
METRIC = re.compile(r"^[A-Za-z_][A-Za-z0-9_./-]{0,99}$")


class CustomStudyInvalid(InvalidInput):
    default_code = "custom_study_invalid"


def _refused(field: str, message: str, cls: type[InvalidInput] = CustomStudyInvalid) -> InvalidInput:
    refused = cls(f"{field}: {message}")
    refused.details = {field: [message]}
    return refused


def objective_validate(objective: Any) -> dict[str, str]:
    if not isinstance(objective, dict) or "metric" not in objective:
        raise _refused(
            "objective",
            "Give the metric your code reports with run.log_metrics and its direction: "
            '{"metric": "score", "direction": "maximize"}.',
        )
    metric = objective.get("metric")
    if not isinstance(metric, str) or not METRIC.match(metric):
        raise _refused("objective.metric", f"Must be a metric name like val_acc, got {metric!r}.")
    direction = objective.get("direction", "maximize")
    if direction not in ("maximize", "minimize"):
        raise _refused("objective.direction", f"Must be maximize or minimize, got {direction!r}.")
    unknown = set(objective) - {"metric", "direction"}
    if unknown:
        raise _refused("objective", f"Unknown key {sorted(unknown)[0]!r}; use metric and direction.")
    return {"metric": metric, "direction": direction}


class _Param:
    """A hyperparameter of the user's code as the search-space checks see it: any value of its
    dimension's type (the code itself decides what it accepts)."""

    def __init__(self, name: str, kind: str) -> None:
        self.name, self.kind = name, kind

    def validate(self, value: Any) -> Any:
        return value


class _CodeTemplate:
    """The user's code, shaped like a template for ``automl.search_space``: every dimension of the
    search space is a parameter of its own type, and any combination is a valid run."""

    name = "custom"

    def __init__(self, search_space: list[Any]) -> None:
        self.params = []
        for dim in search_space:
            if isinstance(dim, dict) and isinstance(dim.get("name"), str):
                kind = dim.get("type")
                self.params.append(_Param(dim["name"], kind if kind in ("int", "float") else "categorical"))

    def validate_params(self, preset: str, params: dict[str, Any]) -> dict[str, Any]:
        return dict(params)


def search_space_validate(search_space: Any) -> list[Any]:
    """A custom-code study's search space (required): the same checks as a template study's,
    names that are valid ``--name=value`` hyperparameters, finite numbers."""
    from automl.search_space import search_space_validate as template_space_validate

    if search_space is None or search_space == []:
        raise _refused(
            "search_space",
            "A custom-code study needs a search space: dimensions over your code's hyperparameters.",
        )
    if not isinstance(search_space, list):
        raise _refused("search_space", "Give a non-empty list of dimensions.")
    for index, dim in enumerate(search_space):
        name = dim.get("name") if isinstance(dim, dict) else None
        if not isinstance(name, str) or not IDENTIFIER.match(name):
            raise _refused(
                f"search_space[{index}].name",
                f"Must be a hyperparameter name ([A-Za-z_][A-Za-z0-9_]*), got {name!r}.",
            )
        for bound in ("low", "high", "step"):
            value = dim.get(bound)
            if isinstance(value, float) and not math.isfinite(value):
                raise _refused(f"search_space[{index}].{bound}", "Must be a finite number.")
    return template_space_validate(
        template=_CodeTemplate(search_space), preset="", fixed_params={}, search_space=search_space
    )


def custom_code_record(
    *,
    archive,
    entry_point: str | None,
    args: Any,
    requirements: str | None,
    limits: Any,
    network: bool,
) -> dict[str, Any]:
    """What the study keeps of its code (``Study.custom_code``), checked as a custom job's body is
    (``customjobs.services.custom_job_spec``: 400 ``custom_job_invalid`` /
    ``custom_job_limit_too_high``)."""
    from customjobs.services import custom_job_spec

    spec = custom_job_spec(
        code_archive=archive,
        entry_point=entry_point,
        args=args,
        requirements=requirements,
        limits=limits,
        network=network,
    )
    return {
        "code_archive": archive.pk,
        "code_name": archive.name,
        "code_sha256": spec["code_sha256"],
        "code_kind": spec["code_kind"],
        "entry_point": spec["entry_point"],
        "args": spec["args"],
        "requirements": spec["requirements"],
        "requirements_hash": spec["requirements_hash"],
        "limits": spec["limits"],
        "network": spec["network"],
    }


def trial_spec(
    *, custom_code: dict[str, Any], hyperparameters: dict[str, Any], objective: dict[str, str], queue: str
) -> CustomJobSpec:
    """The CustomJobSpec of one trial: the study's code with the sampled hyperparameters."""
    return {
        "kind": "custom_job_spec",
        "version": CUSTOM_JOB_SPEC_VERSION,
        "code_sha256": custom_code["code_sha256"],
        "code_kind": custom_code["code_kind"],
        "entry_point": custom_code["entry_point"],
        "args": list(custom_code["args"]),
        "hyperparameters": dict(hyperparameters),
        "requirements": custom_code["requirements"],
        "requirements_hash": custom_code["requirements_hash"],
        "limits": custom_code["limits"],
        "network": bool(custom_code["network"]),
        "queue": "gpu" if queue == "gpu" else "cpu",
        "objective": dict(objective),
    }


class CustomTrialFailed(Exception):
    """A custom-code trial's run ended without a value (non-zero exit, a limit, no metric)."""
