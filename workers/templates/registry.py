"""The task templates this installation offers, by name. Safe to import in the web process.

>>> from workers.templates import registry
>>> [t.name for t in registry.all()]  # doctest: +NORMALIZE_WHITESPACE
['image_classification', 'object_detection', 'tabular_classification', 'tabular_regression',
 'text_classification', 'time_series_forecasting']
>>> registry.get("image_classification").title
'Image classification'
"""

from __future__ import annotations

from workers.image_classification.template import TEMPLATE as IMAGE_CLASSIFICATION
from workers.object_detection.template import TEMPLATE as OBJECT_DETECTION
from workers.tabular.template import CLASSIFICATION as TABULAR_CLASSIFICATION
from workers.tabular.template import REGRESSION as TABULAR_REGRESSION
from workers.templates.declaration import TaskTemplate
from workers.text_classification.template import TEMPLATE as TEXT_CLASSIFICATION
from workers.time_series.template import TEMPLATE as TIME_SERIES_FORECASTING


class UnknownTemplate(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


_TEMPLATES: dict[str, TaskTemplate] = {}


def register(template: TaskTemplate) -> TaskTemplate:
    """Add a template; registering the same declaration twice is harmless, a different one is an error."""
    existing = _TEMPLATES.get(template.name)
    if existing is not None and existing is not template:
        raise ValueError(f"task template {template.name!r} registered twice")
    _TEMPLATES[template.name] = template
    return template


def get(name: str) -> TaskTemplate:
    try:
        return _TEMPLATES[name]
    except KeyError:
        raise UnknownTemplate(f"unknown task template {name!r}; available: {', '.join(_TEMPLATES)}") from None


def all() -> list[TaskTemplate]:  # noqa: A001 - the registry's public vocabulary: registry.all()
    return list(_TEMPLATES.values())


register(IMAGE_CLASSIFICATION)
register(OBJECT_DETECTION)
register(TABULAR_CLASSIFICATION)
register(TABULAR_REGRESSION)
register(TEXT_CLASSIFICATION)
register(TIME_SERIES_FORECASTING)
