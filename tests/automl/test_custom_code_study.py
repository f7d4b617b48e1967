"""AutoML over custom code, end to end with a live worker (PostgreSQL, Redis, a Celery worker, the
sandbox): a study over a tiny script (no torch: a quadratic of its hyperparameter ``x``, reported
with ``run.log_metrics(step=i, score=...)`` for five steps) runs its four trials, each as the user's
code in the sandbox with ``--x=value``; the median pruner stops a poor trial at its first report;
the best trial's params and value are recorded and the trial's value is its last reported score.
A trial whose code never reports the objective's metric fails with that reason."""

from __future__ import annotations

import pytest

from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

# The score rises over five steps towards 1 - (x - 0.7)^2: a trial's curve stays below a better
# trial's at every step, so a trial worse than the first two completed ones is pruned at step 1
# (median pruner: 2 startup trials, pruning from step 1).
SCRIPT = b"""import argparse

import sampan.run as run

parser = argparse.ArgumentParser()
parser.add_argument("--x", type=float, required=True)
x = parser.parse_args().x
assert x == run.params["x"], (x, run.params)
quality = 1.0 - (x - 0.7) ** 2
for step in range(1, 6):
    run.log_metrics(step=step, score=quality * step / 5)
print(f"done x={x:.4f} score={quality:.4f}")
"""

SILENT = b"""import sampan.run as run

run.log_metrics(step=1, loss=float(run.params["x"]))
"""

# Random sampling with this seed asks x for trials 0-3 such that trial 2 or 3 scores below the
# median of trials 0 and 1 (checked below from the recorded params, so a change of sampler shows).
SEED = 3


def archive(tenants, name: str, content: bytes):
    from customjobs.services import code_archive_create
    from django.core.files.uploadedfile import SimpleUploadedFile

    return code_archive_create(
        project=tenants["project_a"], upload=SimpleUploadedFile(name, content), user=tenants["alice"]
    )


def test_a_custom_code_study_runs_the_code_per_trial_prunes_and_records_the_best(
    live_web, live_worker, tenants, api_client, token_for, tmp_path
):
    """Started with the SDK (``client.studies.create_custom`` uploads the script), checked through the API."""
    import sampan
    from automl.services import studies_reconcile
    from jobs.models import Job

    script = tmp_path / "quadratic.py"
    script.write_bytes(SCRIPT)
    sdk = sampan.Client(live_web, token_for(tenants["alice"]), timeout=60, backoff=0.1, max_backoff=2)
    started = sdk.studies.create_custom(
        tenants["project_a"].pk,
        script,
        name="quadratic",
        search_space=[{"name": "x", "type": "float", "low": 0.0, "high": 1.0}],
        objective={"metric": "score", "direction": "maximize"},
        sampler="random",
        pruner="median",
        n_trials=4,
        parallelism=1,
        seed=SEED,
        limits={"wall_time_s": 120, "memory_mb": 1024, "cpus": 1},
    )
    code = started.data["custom_code"]
    assert started.data["template"] == "custom" and code is not None and code["entry_point"] == "quadratic.py"
    study_id = started.id
    client = api_client(tenants["alice"])

    def done() -> bool:
        studies_reconcile()
        return started.refresh().status == "completed"

    wait_for(done, timeout=600, interval=1, what="the custom-code study to run its four trials")
    frame = started.trials_frame()
    assert list(frame.index) == [0, 1, 2, 3] and "params.x" in frame

    study = client.get(f"/api/v1/studies/{study_id}/").json()
    trials = client.get(f"/api/v1/studies/{study_id}/trials/").json()
    assert [t["number"] for t in trials] == [0, 1, 2, 3]
    failed = [(t["number"], t["error"]) for t in trials if t["state"] == "failed"]
    assert not failed, failed

    def quality(t) -> float:
        return 1.0 - (t["params"]["x"] - 0.7) ** 2

    # the first two complete with five reports each; the value is the last reported score
    for trial in trials[:2]:
        assert trial["state"] == "complete", trial
        assert [p["epoch"] for p in trial["intermediate"]] == [1, 2, 3, 4, 5]
        assert trial["value"] == pytest.approx(quality(trial))
        job = Job.objects.get(pk=trial["job"])
        assert job.status == "succeeded" and job.params["spec"]["hyperparameters"] == trial["params"]
        assert job.result is not None and job.result["metrics"]["score"] == pytest.approx(quality(trial))
    # the seed's draws make a later trial worse than both: the median pruner stops it at step 1
    median = sorted(quality(t) for t in trials[:2])
    worse = [t for t in trials[2:] if quality(t) < sum(median) / 2]
    assert worse, "the seed no longer draws a poor trial; pick another SEED"
    pruned = [t for t in trials if t["state"] == "pruned"]
    assert pruned and {t["number"] for t in pruned} <= {t["number"] for t in worse}
    for trial in pruned:
        assert trial["pruned_at_epoch"] == 1 and [p["epoch"] for p in trial["intermediate"]] == [1]
        assert trial["value"] == pytest.approx(quality(trial) / 5)
        assert Job.objects.get(pk=trial["job"]).status == "succeeded"
    assert study["trials"] == {
        "total": 4,
        "complete": 4 - len(pruned),
        "pruned": len(pruned),
        "failed": 0,
        "running": 0,
    }

    # the best trial: the completed one with the highest last score, its params recorded
    complete = [t for t in trials if t["state"] == "complete"]
    best = max(complete, key=lambda t: t["value"])
    assert study["best_trial"]["number"] == best["number"]
    assert study["best_trial"]["params"] == best["params"]
    assert study["best_trial"]["value"] == pytest.approx(quality(best))
    results = client.get(f"/api/v1/studies/{study_id}/results/").json()
    assert results["best_trial"]["params"] == best["params"]
    assert results["lift"]["status"] == "disabled"
    # the code's output is the trial job's log
    logs = client.get(f"/api/v1/jobs/{best['job']}/logs/").json()
    assert any(f"done x={best['params']['x']:.4f}" in line["text"] for line in logs["lines"]), logs


@pytest.mark.django_db  # not committed: no live worker of the session takes this trial's job
def test_a_trial_whose_code_never_reports_the_metric_fails_with_that_reason(tenants, isolated_storage):
    from automl.models import Study, Trial
    from automl.services import study_create_custom, trial_run
    from jobs.models import Job

    study = study_create_custom(
        user=tenants["alice"],
        project=tenants["project_a"],
        code_archive=archive(tenants, "silent.py", SILENT),
        search_space=[{"name": "x", "type": "float", "low": 0.0, "high": 1.0}],
        objective={"metric": "score", "direction": "maximize"},
        n_trials=1,
        limits={"wall_time_s": 60, "memory_mb": 1024, "cpus": 1},
    )
    job = Job.objects.get(kind="automl.trial", params__study=study.pk)
    with pytest.raises(Exception, match="never reported 'score'"):
        trial_run(job=job, report=lambda *a, **k: None)
    trial = Trial.objects.get(study=study, number=0)
    assert trial.state == "failed" and "never reported 'score'" in trial.error, trial.error
    assert "loss" in trial.error, "the reason names what the code did report"
    assert Study.objects.get(pk=study.pk).status == "completed"
