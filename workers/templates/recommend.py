"""Hardware- and data-aware defaults: a preset fitted to a dataset and the workers online.

A template may declare a rule (``TaskTemplate.adapt``) that, given a preset's validated values, the
data profile and the hardware profile, proposes values for some parameters with a reason each
("1,797 training images: small data needs more passes"). :func:`recommend` applies it the same way
everywhere (the training job, the estimates, the benchmarks, a notebook): the parameters the user set
are never changed, every proposed value is validated, and each change is listed as an
:class:`~workers.contracts.templates.AutoChoice`. Torch-free: the web process calls it.

>>> from workers.templates import registry
>>> hardware = {"gpus": 0, "cpu_count": 4, "workers": 1}
>>> data = {"train_samples": 12, "classes": 2}
>>> rec = recommend(registry.get("object_detection"), "balanced", data, hardware)
>>> rec["values"]["batch_size"], rec["choices"][0]["param"]
(2, 'batch_size')
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from workers.contracts.templates import (
    RECOMMENDATION_VERSION,
    AutoChoice,
    DataProfile,
    HardwareProfile,
    ParamValues,
    PresetRecommendation,
)
from workers.templates.declaration import Reason, TaskTemplate, TemplateParamError


def cpu_hardware() -> HardwareProfile:
    """This machine as a worker without a GPU (found without torch): for benchmarks and notebooks.

    >>> cpu_hardware()["gpus"]
    0
    """
    return {"gpus": 0, "cpu_count": os.cpu_count() or 1, "workers": 1}


def _user_set(overrides: Mapping[str, Any] | None) -> set[str]:
    """The parameters the user chose (a ``None`` override means "not set", as in validate_params)."""
    return {str(k) for k, v in (overrides or {}).items() if v is not None and k != "preset"}


def recommend(
    template: TaskTemplate,
    preset: str | None,
    data: DataProfile,
    hardware: HardwareProfile,
    overrides: Mapping[str, Any] | None = None,
) -> PresetRecommendation:
    """The run's parameters for ``preset`` (and the user's ``overrides``) fitted to ``data`` and
    ``hardware`` by the template's rule, with the choices it made and why.

    Raises :class:`~workers.templates.declaration.TemplateParamError` for a bad preset or override
    (as ``validate_params`` does), ``ValueError`` when the template's rule proposes a parameter it
    does not declare or a value that does not validate (a bug in the declaration, not in the input).

    e.g. ``recommend(registry.get("tabular_classification"), "balanced", {"train_samples": 150,
    "classes": 3, "features": 4}, cpu_hardware())["choices"]``
    """
    declared = template.validate_params(preset, overrides)
    values: dict[str, Any] = dict(declared)
    changed: dict[str, str | Reason] = {}
    if template.adapt is not None:
        proposed = template.adapt(dict(declared), data, hardware)
        kept = _user_set(overrides)
        updates: dict[str, Any] = {}
        for name, (value, reason) in proposed.items():
            try:
                param = template.param(name)
            except KeyError:
                raise ValueError(
                    f"template {template.name!r}: its adapt rule sets {name!r}, which is not a parameter"
                ) from None
            if name in kept:
                continue  # the user's own value is never changed
            try:
                canonical = param.validate(value)
            except TemplateParamError as exc:
                raise ValueError(f"template {template.name!r}: its adapt rule proposes {exc}") from None
            if canonical == declared[name] and type(canonical) is type(declared[name]):
                continue
            updates[name] = canonical
            changed[name] = reason
        if updates:
            try:
                values = template.validate_params(declared["preset"], {**declared, **updates})
            except TemplateParamError as exc:
                raise ValueError(
                    f"template {template.name!r}: its adapt rule's values do not validate together: {exc}"
                ) from None
    choices: list[AutoChoice] = []
    for param in template.params:  # the template's order, whatever order the rule returned
        if param.name not in changed:
            continue
        reason = changed[param.name]
        choice: AutoChoice = {
            "param": param.name,
            "value": values[param.name],
            "preset_value": declared[param.name],
            "reason": str(reason),
        }
        if isinstance(reason, Reason):
            choice["reason_code"] = reason.code
            choice["reason_params"] = dict(reason.params)
        choices.append(choice)
    run_values: ParamValues = dict(values)
    return {
        "kind": "preset_recommendation",
        "version": RECOMMENDATION_VERSION,
        "template": template.name,
        "preset": str(values["preset"]),
        "data": data.copy(),
        "hardware": hardware.copy(),
        "values": run_values,
        "choices": choices,
    }
