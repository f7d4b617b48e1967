"""Row builders for automl: studies and their trials (rows only: nothing here writes Optuna's record
of a study, so only routes that read Sampan's rows may be given them)."""

from __future__ import annotations

import itertools

_serial = itertools.count(1)

SEARCH_SPACE = [{"name": "learning_rate", "type": "float", "low": 1e-4, "high": 1e-2, "log": True}]


def study(dataset_version, *, name: str | None = None, n_trials: int = 2, **fields):
    """A study of ``dataset_version``'s project (image classification, fast preset, one searched
    parameter, val_acc maximised)."""
    from automl.models import Study

    project = dataset_version.dataset.project
    serial = next(_serial)
    values = {
        "template": "image_classification",
        "preset": "fast",
        "search_space": SEARCH_SPACE,
        "objective": {"metric": "val_acc", "direction": "maximize"},
        "optuna_name": f"test-study-{serial}",
        **fields,
    }
    return Study.objects.create(
        workspace=project.workspace,
        project=project,
        name=name or f"Study {serial}",
        dataset_version=dataset_version,
        n_trials=n_trials,
        **values,
    )


def trial(study, *, number: int | None = None, state: str = "complete", value: float | None = 0.5, **fields):
    """Trial ``number`` (the next one unless given) of ``study``."""
    from automl.models import Trial

    if number is None:
        number = Trial.objects.filter(study=study).count()
    return Trial.objects.create(
        study=study,
        number=number,
        optuna_trial_id=number + 1,
        params={"learning_rate": 1e-3},
        state=state,
        value=value,
        **fields,
    )
