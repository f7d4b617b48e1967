"""A study's SDE sampler turns on its surrogate screen where the benchmarks found it helps (mostly
continuous spaces, several objectives, constraints) and keeps the plain swarm on mostly discrete
spaces, where the screen ranked worse (docs/benchmarks.md, hpo-nextbar)."""

from __future__ import annotations

import pytest

LR = {"name": "learning_rate", "type": "float", "low": 1e-4, "high": 1e-2, "log": True}
EPOCHS = {"name": "epochs", "type": "int", "low": 5, "high": 60}
BATCH = {"name": "batch_size", "type": "int", "low": 1, "high": 4}
MODEL = {"name": "model", "type": "categorical", "choices": ["cnn_small", "resnet_narrow"]}


@pytest.mark.parametrize(
    ("space", "expected"),
    [
        ([LR], True),
        ([LR, EPOCHS, MODEL], True),
        ([LR, MODEL], True),
        ([LR, BATCH, MODEL], False),
        ([MODEL, BATCH], False),
        ([], False),
    ],
)
def test_mostly_continuous(space, expected):
    from automl.engine import mostly_continuous

    assert mostly_continuous(space) is expected


@pytest.mark.parametrize(
    ("kwargs", "screened"),
    [
        ({"continuous": True}, True),
        ({"multi_objective": True}, True),
        ({"constraints": 1}, True),
        ({}, False),
    ],
)
def test_the_sde_sampler_screens_where_it_helps(kwargs, screened):
    from automl.engine import make_sampler

    sampler = make_sampler("sde", seed=0, **kwargs)
    assert (sampler._surrogate > 0) is screened
