"""The task template description (``GET /api/v1/templates/``), its search space and parameter values.

``TaskTemplate.as_dict()`` (workers/templates/declaration.py) produces :class:`TemplateDescription`;
a study's search space (``Study.search_space``, ``StudyCreateRequest.search_space``) is a list of
:class:`SearchDimension`; the values of a run (``params``, ``fixed_params``, a trial's ``params``)
are :data:`ParamValues`.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from workers.contracts.data_kind import DataKind

TEMPLATE_VERSION = 1

# A parameter's value: templates declare int, float, bool and choice (str, or a number) parameters.
ParamValue = int | float | str | bool
# The values of a run, by parameter name (a run's full set also names its ``preset``).
ParamValues = dict[str, int | float | str | bool]
ParamType = Literal["int", "float", "bool", "choice"]


class ParamDescription(TypedDict):
    """One tunable parameter as the UI shows it. Numeric ones have ``minimum``/``maximum``/``log``
    (``log``: the range spans orders of magnitude), choice ones ``choices``."""

    name: str
    type: ParamType
    title: str
    help: str
    default: int | float | str | bool
    minimum: NotRequired[int | float]
    maximum: NotRequired[int | float]
    log: NotRequired[bool]
    choices: NotRequired[list[int | float | str | bool]]


class PresetDescription(TypedDict):
    """A named set of parameter values (fast / balanced / accurate); unset ones take the defaults."""

    name: str
    title: str
    description: str
    values: dict[str, int | float | str | bool]


class SearchDimension(TypedDict):
    """One axis of an AutoML search space, over one parameter (Optuna-shaped): ``float`` and ``int``
    dimensions have ``low``, ``high``, ``log`` and an optional ``step``; ``categorical`` ones ``choices``."""

    name: str
    type: Literal["float", "int", "categorical"]
    low: NotRequired[int | float]
    high: NotRequired[int | float]
    log: NotRequired[bool]
    step: NotRequired[int | float | None]
    choices: NotRequired[list[int | float | str | bool]]


# A search space as stored and sent: a list of dimensions.
SearchSpace = list[SearchDimension]


class Objective(TypedDict):
    """What trials are scored by: a progress metric and whether higher is better."""

    metric: str
    direction: Literal["maximize", "minimize"]


class DataRequirementsDescription(TypedDict):
    """What a dataset version needs before training may start."""

    min_classes: int
    min_samples_per_class: int
    required_splits: list[str]


class TemplateDescription(TypedDict):
    """A task template: what it trains on, its parameters, presets and default search space."""

    kind: Literal["template"]
    version: int
    name: str
    title: str
    description: str
    data_kind: DataKind
    label_kind: str
    default_preset: str
    presets: list[PresetDescription]
    params: list[ParamDescription]
    search_space: list[SearchDimension]
    objective: Objective
    metrics: list[str]
    data: DataRequirementsDescription


RECOMMENDATION_VERSION = 1


class DataProfile(TypedDict):
    """What a preset adapts to about the data: training samples (train + val splits), classes (0 for
    regression and forecasting) and, for tables, the feature columns."""

    train_samples: int
    classes: int
    features: NotRequired[int]


class HardwareProfile(TypedDict):
    """The workers online for the queue a training run would go to: ``gpus`` GPUs in all, the
    smallest ``cpu_count`` among them, ``workers`` hosts (0: none online; the defaults assume a CPU)."""

    gpus: int
    cpu_count: int
    workers: int


class AutoChoice(TypedDict):
    """A parameter the preset set for this data and hardware: ``value`` instead of the preset's
    declared ``preset_value``, and why, in words (e.g. "1,797 training images on CPU workers: ...")."""

    param: str
    value: ParamValue
    preset_value: ParamValue
    reason: str
    # the reason as a stable code and its values, for the UI to say in the user's language
    reason_code: NotRequired[str]
    reason_params: NotRequired[dict[str, str | int | float]]


class PresetRecommendation(TypedDict):
    """A preset fitted to a dataset and the workers online (hardware- and data-aware defaults).

    ``values`` is the complete parameter set the run would use (``validate_params`` output, preset
    included); ``choices`` the parameters that differ from the preset's declaration, each with its
    reason. Parameters the user set explicitly are never changed and never listed.
    """

    kind: Literal["preset_recommendation"]
    version: int
    template: str
    preset: str
    data: DataProfile
    hardware: HardwareProfile
    values: ParamValues
    choices: list[AutoChoice]
