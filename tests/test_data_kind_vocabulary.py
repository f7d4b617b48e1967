"""One name and one set of values for the data modality (workers.contracts.data_kind): every
template's ``data_kind``, every predictor's input and every task type's data kind
(``task_data_kind``: the first word, except object_detection's "image") agree."""

from __future__ import annotations

import pytest
from datasets.models import FORECASTING_TASKS, IMAGE_TASKS, TABULAR_TASKS, TaskType

from workers.contracts.data_kind import DATA_KINDS, task_data_kind
from workers.serving.predictors import PREDICTORS, predictor_class
from workers.templates import registry


@pytest.mark.parametrize("template", [t.name for t in registry.all()])
def test_a_template_its_predictor_and_its_task_type_name_the_same_data_kind(template):
    declared = registry.get(template)
    assert declared.data_kind in DATA_KINDS
    assert declared.as_dict()["data_kind"] == declared.data_kind
    if template in PREDICTORS:
        assert predictor_class(template).data_kind == declared.data_kind
    if template in TaskType.values:  # a template trains the task type of its name
        assert task_data_kind(template) == declared.data_kind


def test_task_type_groups_follow_the_data_kind():
    assert {task_data_kind(t) for t in TaskType.values} <= set(DATA_KINDS)
    assert {t for t in TaskType.values if task_data_kind(t) == "tabular"} == set(TABULAR_TASKS)
    assert {t for t in TaskType.values if task_data_kind(t) == "image"} == set(IMAGE_TASKS)
    assert {t for t in TaskType.values if task_data_kind(t) == "time_series"} == set(FORECASTING_TASKS)
    # a task type is "<data kind>_<what is predicted>" (time_series_forecasting), except object_detection
    assert all(t.startswith(task_data_kind(t) + "_") for t in TaskType.values if t != "object_detection")
