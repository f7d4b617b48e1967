"""Retrain from a version through the SDK, against the live platform: ``deployment.retrain`` and
``model.retrain`` answer a ``TrainingJob`` warm-started from the served (or given) version, whose
model version names its parent; ``client.training.start(..., warm_start_from=)`` refuses another
network with a ``BadRequest`` naming the parameter."""

from __future__ import annotations

import pytest
import sampan

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_deployment_and_model_retrain_start_warm_started_jobs(sdk, project, digits_folder):
    dataset = sdk.datasets.create("digits", project=project)
    dataset.upload(digits_folder, progress=False)
    version = dataset.create_version(seed=3)
    model = version.train("fast", params={"epochs": 1}).wait(progress=False).model_version()
    assert model.data["warm_start_from"] is None
    deployment = model.deploy("digits")

    run = deployment.retrain(version, epochs=1)
    assert isinstance(run, sampan.TrainingJob)
    assert run.data["warm_start_from"] == model.id and run.data["params"]["model"] == "cnn_small"
    child = run.wait(progress=False).model_version()
    assert child.data["warm_start_from"] == model.id
    assert child.data["warm_start_from_name"] == model.name

    again = child.retrain(version, seed=9)  # from a version directly; a parameter overridden
    assert again.data["warm_start_from"] == child.id and again.data["params"]["seed"] == 9
    again.cancel()

    with pytest.raises(sampan.BadRequest) as refused:
        sdk.training.start(version, preset="fast", params={"model": "resnet_narrow"}, warm_start_from=model)
    assert "params.model" in str(refused.value) and "cnn_small" in str(refused.value)
