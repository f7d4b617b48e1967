"""Studies through the SDK: create, wait, trials as a DataFrame, best trial, promote, notebook view."""

from __future__ import annotations

import pytest
import sampan

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_study_create_trials_best_promote(sdk, project, digits_folder):
    dataset = sdk.datasets.create("study digits", project=project)
    dataset.upload(digits_folder, progress=False)
    version = dataset.create_version(seed=4)
    study = sdk.studies.create(
        version,
        n_trials=2,
        parallelism=1,
        preset="fast",
        report_seeds=0,
        name="tiny",
        fixed_params={"epochs": 1, "image_size": 32},
        search_space=[{"name": "learning_rate", "type": "float", "low": 1e-3, "high": 1e-2, "log": True}],
    )
    assert study.status == "running" and study.name == "tiny"
    assert [s.id for s in sdk.studies.list(project=project)] == [study.id]
    with pytest.raises(sampan.Conflict):
        study.promote()  # nothing completed yet
    study.wait(progress=False, poll=1, timeout=600)
    assert study.status == "completed"

    frame = study.trials_frame()
    assert len(frame) == 2 and set(frame["state"]) <= {"complete", "pruned", "failed"}
    assert "params.learning_rate" in frame.columns and frame["value"].notna().all()
    best = study.best_trial()
    assert best is not None and best["value"] == frame["value"].max()
    assert study.results()["best_trial"]["number"] == best["number"]

    html = study._repr_html_()
    assert "Best trials" in html and "learning_rate" in html
    model = study.promote()
    assert isinstance(model, sampan.ModelVersion) and model.dataset_version == version.id
    assert model.params["learning_rate"] == pytest.approx(best["params"]["learning_rate"])
