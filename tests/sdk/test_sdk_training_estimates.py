"""``client.training.estimates(version)`` against the live platform: before any run every preset's
time is ``basis: "none"`` (the first run measures it), with the live worker counted as online; each
preset's recommendation (fitted to the data and the workers) is what a job started now records, and
``adapt=False`` runs the preset as declared."""

from __future__ import annotations

import pytest

from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_estimates_before_any_run_say_the_first_run_measures_it(sdk, project, digits_folder):
    dataset = sdk.datasets.create("estimates", project=project)
    dataset.upload(digits_folder, progress=False)
    version = dataset.create_version(seed=1)
    # the live worker's row comes back with its next heartbeat (every 3 s) after the previous test's
    # database flush: wait until the platform sees it online again
    plan = wait_for(
        lambda: (p := sdk.training.estimates(version))["workers"]["online"] >= 1 and p,
        timeout=30,
        what="the live worker to be seen online",
    )
    assert plan["kind"] == "training_estimates" and plan["dataset_version"] == version.id
    assert plan["template"] == "image_classification" and plan["train_samples"] > 0
    assert plan["workers"]["online"] >= 1 and plan["workers"]["queue"] in ("cpu", "gpu")
    assert [p["preset"] for p in plan["presets"]] == ["fast", "balanced", "accurate"]
    for preset in plan["presets"]:
        assert preset["time"]["basis"] == "none" and preset["time"]["seconds"] is None
        assert "the first run measures it" in preset["time"]["message"]
        assert preset["quality"]["basis"] == "none"

    recommendations = sdk.training.recommendations(version)
    assert list(recommendations) == ["fast", "balanced", "accurate"]
    fast = recommendations["fast"]
    assert fast["kind"] == "preset_recommendation" and fast["hardware"]["workers"] >= 1
    assert fast["data"]["train_samples"] == plan["train_samples"] + sum(
        version.data["counts"]["val"].values()
    )
    declared = sdk.training.template("image_classification")["presets"][0]["values"]
    adapted = sdk.training_jobs.create(version, preset="fast")
    as_declared = sdk.training.start(version, preset="fast", adapt=False)
    for job in (adapted, as_declared):
        job.cancel()
    assert adapted.recommendation == fast and adapted.data["params"] == fast["values"]
    lines = adapted.choices_summary().splitlines()
    assert len(lines) == len(fast["choices"]) and all(" -> " in line for line in lines)
    assert as_declared.recommendation is None
    assert {k: as_declared.data["params"]["params"][k] for k in declared} == declared
