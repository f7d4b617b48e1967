"""The web process never imports torch, and Optuna's GPSampler fits its model with torch once a study
has finished its random start: so the web process asks a gp study for trials only during that start,
and leaves later asks to the worker that records a trial and to the housekeeping reconciler."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.automl.factories import trial
from tests.datasets.factories import dataset_with_samples
from tests.harness import REPO

pytestmark = pytest.mark.django_db


@pytest.fixture
def version(tenants):
    from datasets.services import dataset_version_create

    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="Digits", per_class=6, classes=range(3)
    )
    return dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)


def test_past_its_random_start_a_gp_study_is_asked_only_where_torch_may_load(
    tenants, api_client, version, monkeypatch
):
    from automl import engine
    from automl.models import Study, TrialState
    from automl.services import study_schedule

    client = api_client(tenants["alice"])
    created = client.post(
        "/api/v1/studies/",
        {"dataset_version": version.pk, "sampler": "gp", "n_trials": 20, "parallelism": 1},
        format="json",
    )
    assert created.status_code == 201, created.content
    study = Study.objects.get(pk=created.json()["id"])
    assert study.trials.count() == 1, "the random start is asked by the web process as before"
    study.trials.update(state=TrialState.COMPLETE, value=0.5)
    for _ in range(engine.GP_STARTUP_TRIALS - 1):
        trial(study, state="complete")

    monkeypatch.setattr(engine, "_torch_allowed", False)  # what config/wsgi.py does in the web process
    study_schedule(study=study)
    assert study.trials.count() == engine.GP_STARTUP_TRIALS, "the web process left the ask"
    assert Study.objects.get(pk=study.pk).status == "running"

    assert engine.may_ask_here("gp", engine.GP_STARTUP_TRIALS) is False
    monkeypatch.setattr(engine, "_torch_allowed", True)  # a worker or the reconciler asks it
    assert engine.may_ask_here("gp", engine.GP_STARTUP_TRIALS) is True


def test_the_wsgi_application_forbids_torch_loading_asks():
    probe = (
        "import sys; sys.path.insert(0, 'platform'); import config.wsgi; from automl import engine; "
        "print(engine.may_ask_here('gp', 50), engine.may_ask_here('gp', 3), engine.may_ask_here('sde', 50))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split()[-3:] == ["False", "True", "True"]
