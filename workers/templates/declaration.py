"""What a task template declares: parameters, presets, a search space, data needs, entry points.

Everything here is plain data plus validation, importable by the web process (no torch, no onnx).
The heavy code a template runs is named by import strings (``"package.module:function"``) and
imported only by :meth:`TaskTemplate.load`, i.e. inside a worker's task body.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from workers.contracts.data_kind import DataKind
from workers.contracts.templates import (
    TEMPLATE_VERSION,
    DataProfile,
    DataRequirementsDescription,
    HardwareProfile,
    Objective,
    ParamDescription,
    ParamValue,
    PresetDescription,
    TemplateDescription,
)
from workers.contracts.templates import (
    SearchDimension as SearchDimensionDescription,
)

ParamKind = Literal["int", "float", "bool", "choice"]


@dataclass(frozen=True)
class Reason:
    """Why an adapt rule chose a value: a stable ``code`` the UI translates (training.json
    ``recommendation.reasons.<code>``) with its ``params``, and the sentence in English.

    >>> str(Reason("rows_batch", "1,200 training rows: batches of 64 rows", {"count": 1200, "batch": 64}))
    '1,200 training rows: batches of 64 rows'
    """

    code: str
    text: str
    params: Mapping[str, str | int | float] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.text


# (values, data profile, hardware profile) -> {param: (value, reason)}; see TaskTemplate.adapt
Adapt = Callable[
    [Mapping[str, Any], DataProfile, HardwareProfile], dict[str, tuple[ParamValue, "str | Reason"]]
]
ENTRY_POINTS = ("train", "evaluate", "export", "check_data")


class TemplateParamError(ValueError):
    """A parameter value (or preset name) is not acceptable; ``field`` names it for a 400 answer."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field, "message": self.message}


def _describe(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"


@dataclass(frozen=True)
class Param:
    """One tunable parameter: its type, range or choices, default and the words the UI shows."""

    name: str
    kind: ParamKind
    title: str
    default: ParamValue
    help: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple[ParamValue, ...] = ()
    log: bool = False  # a hint for sliders and search spaces: the range spans orders of magnitude

    def __post_init__(self) -> None:
        if self.kind in ("int", "float") and (self.low is None or self.high is None or self.low > self.high):
            raise ValueError(f"parameter {self.name!r}: numeric parameters need low <= high")
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"parameter {self.name!r}: a choice parameter needs choices")
        if self.log and (self.kind not in ("int", "float") or (self.low or 0) <= 0):
            raise ValueError(f"parameter {self.name!r}: log scale needs a positive numeric range")
        self.validate(self.default)

    def validate(self, value: Any) -> Any:
        """Return ``value`` in canonical form (ints as int, floats as float) or raise TemplateParamError."""
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise TemplateParamError(self.name, f"must be true or false, got {_describe(value)}")
            return value
        if self.kind == "choice":
            if isinstance(value, bool) or value not in self.choices:
                options = ", ".join(repr(c) for c in self.choices)
                raise TemplateParamError(self.name, f"must be one of {options}, got {value!r}")
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            expected = "an integer" if self.kind == "int" else "a number"
            raise TemplateParamError(self.name, f"must be {expected}, got {_describe(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise TemplateParamError(self.name, f"must be a finite number, got {value!r}")
        if self.kind == "int":
            if isinstance(value, float):
                if not value.is_integer():
                    raise TemplateParamError(self.name, f"must be an integer, got {value!r}")
                value = int(value)
        else:
            value = float(value)
        assert self.low is not None and self.high is not None
        if not self.low <= value <= self.high:
            raise TemplateParamError(
                self.name, f"must be between {_number(self.low)} and {_number(self.high)}, got {value!r}"
            )
        return value

    def as_dict(self) -> ParamDescription:
        described: ParamDescription = {
            "name": self.name,
            "type": self.kind,
            "title": self.title,
            "help": self.help,
            "default": self.default,
        }
        if self.kind in ("int", "float"):
            assert self.low is not None and self.high is not None  # checked in __post_init__
            described["minimum"], described["maximum"] = _number(self.low), _number(self.high)
            described["log"] = self.log
        if self.kind == "choice":
            described["choices"] = list(self.choices)
        return described


def _number(value: float) -> float | int:
    if float(value).is_integer() and abs(value) < 2**53:
        return int(value)
    return value


@dataclass(frozen=True)
class Preset:
    """A named set of parameter values (fast / balanced / accurate); unset ones take the defaults."""

    name: str
    title: str
    description: str
    values: Mapping[str, ParamValue]

    def as_dict(self) -> PresetDescription:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "values": dict(self.values),
        }


@dataclass(frozen=True)
class SearchDimension:
    """One axis of the default AutoML search space, over one parameter (Optuna-shaped)."""

    name: str
    kind: Literal["float", "int", "categorical"]
    low: float | None = None
    high: float | None = None
    log: bool = False
    step: float | None = None
    choices: tuple[ParamValue, ...] = ()

    def as_dict(self) -> SearchDimensionDescription:
        if self.kind == "categorical":
            return {"name": self.name, "type": "categorical", "choices": list(self.choices)}
        assert self.low is not None and self.high is not None
        described: SearchDimensionDescription = {
            "name": self.name,
            "type": self.kind,
            "low": self.low,
            "high": self.high,
            "log": self.log,
        }
        if self.step is not None:
            described["step"] = self.step
        return described


@dataclass(frozen=True)
class DataRequirements:
    """What a dataset version needs before training may start (checked again by the trainer)."""

    min_classes: int = 2
    min_samples_per_class: int = 1
    required_splits: tuple[str, ...] = ("train",)

    def as_dict(self) -> DataRequirementsDescription:
        return {
            "min_classes": self.min_classes,
            "min_samples_per_class": self.min_samples_per_class,
            "required_splits": list(self.required_splits),
        }


@dataclass(frozen=True)
class TaskTemplate:
    """A task template (DESIGN §3). Entry points are ``"module:function"`` strings, resolved lazily."""

    name: str
    title: str
    description: str
    data_kind: DataKind  # what it trains on: workers.contracts.data_kind
    label_kind: str
    params: tuple[Param, ...]
    presets: tuple[Preset, ...]
    default_preset: str
    search_space: tuple[SearchDimension, ...]
    objective: Mapping[str, str]  # {"metric": "val_acc", "direction": "maximize"}
    metrics: tuple[str, ...]  # names of the progress metrics the trainer reports
    data: DataRequirements
    train: str
    evaluate: str
    export: str
    check_data: str
    cross_check: Callable[[dict[str, Any]], None] | None = field(default=None, compare=False)
    # data- and hardware-aware defaults (workers.templates.recommend): given the validated values of a
    # preset, the data profile and the hardware profile, returns {param: (value, reason)} for the
    # parameters it would change; torch-free (the web process calls it to show the choice)
    adapt: Adapt | None = field(default=None, compare=False)
    # its trainer accepts ``warm_start`` (a model version's model.pt to start from: retrain from a version)
    warm_start: bool = False

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        if len(set(names)) != len(names) or "preset" in names:
            raise ValueError(f"template {self.name!r}: parameter names must be unique and not 'preset'")
        if self.default_preset not in {p.name for p in self.presets}:
            raise ValueError(
                f"template {self.name!r}: default preset {self.default_preset!r} is not declared"
            )
        for preset in self.presets:  # a broken declaration fails at import, not in a user's job
            self.validate_params(preset.name)
        by_name = {p.name: p for p in self.params}
        for dim in self.search_space:
            param = by_name.get(dim.name)
            if param is None:
                raise ValueError(f"template {self.name!r}: search dimension {dim.name!r} is not a parameter")
            if dim.kind == "categorical":
                for choice in dim.choices:
                    param.validate(choice)
            else:
                param.validate(dim.low)
                param.validate(dim.high)
        for entry in ENTRY_POINTS:
            module, _, function = getattr(self, entry).partition(":")
            if not module or not function:
                raise ValueError(f"template {self.name!r}: entry point {entry} must be 'module:function'")

    def param(self, name: str) -> Param:
        for param in self.params:
            if param.name == name:
                return param
        raise KeyError(name)

    def preset(self, name: str) -> Preset:
        for preset in self.presets:
            if preset.name == name:
                return preset
        raise TemplateParamError("preset", f"unknown preset {name!r}; choose one of {self._preset_names()}")

    def _preset_names(self) -> str:
        return ", ".join(p.name for p in self.presets)

    def validate_params(
        self, preset: str | None = None, overrides: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """The complete parameter set of a run: defaults, then the preset, then ``overrides``.

        Returns ``{"preset": name, <every parameter>: value}``, which is also valid input (the
        result of a previous call may be passed back as ``overrides``). A ``None`` override means
        "not set". Raises :class:`TemplateParamError` naming the first bad field.

        >>> from workers.templates import registry
        >>> registry.get("image_classification").validate_params("fast", {"epochs": 3})["epochs"]
        3
        """
        preset_name = self.default_preset if preset is None else preset
        if not isinstance(preset_name, str):
            raise TemplateParamError(
                "preset", f"must be a preset name ({self._preset_names()}), got {_describe(preset_name)}"
            )
        chosen = self.preset(preset_name)
        if overrides is not None and not isinstance(overrides, Mapping):
            raise TemplateParamError(
                "params", f"must be an object mapping parameter names to values, got {_describe(overrides)}"
            )
        overrides = dict(overrides or {})
        named = overrides.pop("preset", None)
        if named is not None and named != preset_name:
            raise TemplateParamError(
                "preset", f"the parameters name preset {named!r} but preset {preset_name!r} was chosen"
            )
        known = {p.name for p in self.params}
        for key in overrides:
            if key not in known:
                raise TemplateParamError(
                    str(key), f"unknown parameter; {self.name} accepts {', '.join(sorted(known))}"
                )
        values: dict[str, Any] = {"preset": preset_name}
        for param in self.params:
            value = overrides.get(param.name)
            if value is None:
                value = chosen.values.get(param.name, param.default)
            values[param.name] = param.validate(value)
        if self.cross_check is not None:
            self.cross_check(values)
        return values

    def load(self, entry: str) -> Callable[..., Any]:
        """Import and return an entry point (``train``, ``evaluate``, ``export`` or ``check_data``)."""
        if entry not in ENTRY_POINTS:
            raise KeyError(f"unknown entry point {entry!r}; one of {', '.join(ENTRY_POINTS)}")
        module_name, _, function = getattr(self, entry).partition(":")
        entry_point: Callable[..., Any] = getattr(importlib.import_module(module_name), function)
        return entry_point

    def as_dict(self) -> TemplateDescription:
        """A JSON-able description for the API and the UI."""
        return {
            "kind": "template",
            "version": TEMPLATE_VERSION,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "data_kind": self.data_kind,
            "label_kind": self.label_kind,
            "default_preset": self.default_preset,
            "presets": [p.as_dict() for p in self.presets],
            "params": [p.as_dict() for p in self.params],
            "search_space": [d.as_dict() for d in self.search_space],
            "objective": cast(Objective, dict(self.objective)),
            "metrics": list(self.metrics),
            "data": self.data.as_dict(),
        }


def validation_params(*, threshold: int, unit: str = "samples") -> tuple[Param, Param]:
    """The ``validation`` and ``folds`` parameters every classification/regression template declares
    (workers.shared.validation): ``auto`` cross-validates below ``threshold`` training ``unit``."""
    return (
        Param(
            "validation",
            "choice",
            "Validation",
            "auto",
            choices=("auto", "holdout", "cross_validation"),
            help=(
                f"auto: with fewer than {threshold:,} {unit} (train + val), k-fold cross-validation "
                "chooses the model and when to stop, the report shows the spread over the folds, and "
                "the final model trains on all of them; with more, the val split does. "
                "holdout: always the val split. cross_validation: always k-fold."
            ),
        ),
        Param("folds", "int", "Folds", 5, low=2, high=10, help="Folds of the cross-validation."),
    )
