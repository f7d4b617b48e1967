"""The AutoML tasks, thin per DESIGN §2: the template's trainer and evaluation do the work; the
services record it in Optuna's storage and the study's rows and schedule the next trial."""

from __future__ import annotations

from celery import shared_task
from jobs.runner import JobPreempted, LeaseLost, run_job

from workers.progress import JobCancelled


class TrialPrunedHere(Exception):
    """The pruner stopped the trial after an epoch (raised through the trainer's ``report``)."""

    def __init__(self, epoch: int) -> None:
        super().__init__(f"pruned after epoch {epoch}")
        self.epoch = epoch


class PruningReport:
    """The job's ``report``, plus: each finished epoch's validation value goes to the study, and
    the pruner's "stop" ends the run there."""

    def __init__(self, report, *, trial, metric: str) -> None:
        self.report = report
        self.trial = trial
        self.metric = metric

    def __call__(self, message: str = "", *, fraction=None, milestone: bool = False, **metrics) -> None:
        from automl import services

        self.report(message, fraction=fraction, milestone=milestone, **metrics)
        value = metrics.get(self.metric)
        if milestone and value is not None and metrics.get("epoch"):
            epoch = int(metrics["epoch"])
            last = metrics.get("epochs") is not None and epoch >= int(metrics["epochs"])
            # after the last epoch there is nothing left to save: the run completes and counts
            if services.trial_report_epoch(
                trial=self.trial, epoch=epoch, value=float(value), may_prune=not last
            ):
                self.report(f"pruned after epoch {epoch}", milestone=True, epoch=epoch, pruned=True)
                raise TrialPrunedHere(epoch)


def _objective(result: dict, metric: str, direction: str) -> float:
    values = [h[metric] for h in result.get("history", []) if h.get(metric) is not None]
    if not values:
        raise ValueError(f"the run reported no {metric}; a study needs a validation split to score trials")
    return max(values) if direction == "maximize" else min(values)


def _train_and_evaluate(*, template, params: dict, version, job, report):
    from datasets.services import dataset_version_manifest
    from training.services import run_dir_for

    manifest = dataset_version_manifest(version=version)
    result = template.load("train")(params, manifest, run_dir_for(job), report)
    evaluation = template.load("evaluate")(
        result["onnx"], manifest, preprocessing=result["preprocessing"], report=report
    )
    return result, evaluation


def _trial(job, report) -> dict:
    from automl import services
    from automl.models import Trial, TrialState
    from workers.templates import registry

    trial = Trial.objects.select_related("study", "study__dataset_version").get(
        study_id=job.params["study"], number=job.params["trial"]
    )
    if trial.state != TrialState.RUNNING:  # recorded by an earlier attempt
        return {"trial": trial.number, "state": trial.state}
    study = trial.study
    template = registry.get(study.template)
    metric, direction = study.objective.get("metric", "val_acc"), study.objective.get("direction", "maximize")
    pruning = PruningReport(report, trial=trial, metric=metric)
    try:
        result, evaluation = _train_and_evaluate(
            template=template,
            params=trial.train_params,
            version=study.dataset_version,
            job=job,
            report=pruning,
        )
        value = _objective(result, metric, direction)
    except TrialPrunedHere as pruned:
        services.trial_record_pruned(trial=trial, epoch=pruned.epoch)
        return {"trial": trial.number, "state": "pruned", "epoch": pruned.epoch}
    except (LeaseLost, JobPreempted):
        raise  # another attempt owns the trial now, or will resume it after this worker's shutdown
    except JobCancelled:
        services.trial_record_failed(trial=trial, error="cancelled")
        raise
    except Exception as exc:
        services.trial_record_failed(trial=trial, error=f"{type(exc).__name__}: {exc}")
        raise
    services.trial_record_complete(trial=trial, value=value, result=result, evaluation=evaluation)
    return {
        "trial": trial.number,
        "state": "complete",
        "value": value,
        "test_accuracy": evaluation.get("accuracy"),
    }


@shared_task(name="automl.trial")
def automl_trial(job_id: int) -> None:
    run_job(job_id, _trial)


def _report_run(job, report) -> dict:
    from automl import services
    from automl.models import ReportRun
    from workers.templates import registry

    run = ReportRun.objects.select_related("study", "study__dataset_version").get(pk=job.params["report_run"])
    if run.finished:
        return {"report_run": run.pk, "test_metric": run.test_metric}
    template = registry.get(run.study.template)
    try:
        _, evaluation = _train_and_evaluate(
            template=template, params=run.params, version=run.study.dataset_version, job=job, report=report
        )
    except LeaseLost:
        raise
    except Exception as exc:
        services.report_run_record(run=run, error=f"{type(exc).__name__}: {exc}")
        raise
    metric = evaluation.get(services.TEST_METRIC)
    services.report_run_record(run=run, test_metric=metric)
    return {"report_run": run.pk, "role": run.role, "seed": run.seed, "test_metric": metric}


@shared_task(name="automl.report_run")
def automl_report_run(job_id: int) -> None:
    run_job(job_id, _report_run)


@shared_task(name="automl.reconcile")
def automl_reconcile() -> dict:
    from automl import services

    return services.studies_reconcile()
