"""Smart-labeling rounds: start one (``smart_round_create``), run it on a worker
(``smart_round_run``, the ``labeling.smart_round`` job's body), store its suggestions; a person
accepts (``suggestions_accept``) or rejects (``suggestions_reject``) them.

Suggestions are kept apart from human labels (DESIGN §11): accepting one writes the sample's label
(or boxes) through the datasets services with ``source="suggestion"``, so it lands in the sample's
activity log, and it is only ever written on a sample that is still unlabeled.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

from config.exceptions import Conflict, InvalidInput, field_error
from datasets.models import (
    ANNOTATION_TASKS,
    REGRESSION_TASKS,
    AnnotationStatus,
    Dataset,
    Label,
    Sample,
)
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max, QuerySet
from django.utils import timezone
from jobs.models import Job
from jobs.services import job_create

from labeling.models import RoundStatus, SmartLabelingRound, Suggestion, SuggestionStatus
from labeling.selectors import pending_suggestions, unlabeled_samples
from workers.contracts.smart_labeling import (
    STRATEGIES,
    LabelPool,
    ModelFeatures,
    SmartLabelingParams,
    Strategy,
)

MIN_CLASSES = 2
MIN_LABELED_PER_CLASS = 2
MIN_ANNOTATED_IMAGES = 4  # detection: images with boxes
MIN_LABELED_TARGETS = 4  # regression
MAX_BATCH_SIZE = 500
ACTIVE = (RoundStatus.QUEUED, RoundStatus.RUNNING)


class NotEnoughLabels(InvalidInput):
    default_code = "not_enough_labels"


class NothingToSuggest(InvalidInput):
    default_code = "nothing_to_suggest"


class RoundRunning(Conflict):
    default_code = "round_running"


# --- starting a round ------------------------------------------------------------------------------


def _require_enough_labels(dataset: Dataset) -> None:
    samples = Sample.objects.filter(dataset=dataset)
    if dataset.task_type in ANNOTATION_TASKS:
        annotated = samples.filter(annotation_status=AnnotationStatus.ANNOTATED).count()
        if annotated < MIN_ANNOTATED_IMAGES:
            raise NotEnoughLabels(
                f"Smart labeling needs at least {MIN_ANNOTATED_IMAGES} images with boxes; this dataset "
                f"has {annotated}. Annotate a few more first.",
                needed=MIN_ANNOTATED_IMAGES,
                labeled=annotated,
            )
        return
    if dataset.task_type in REGRESSION_TASKS:
        labeled = samples.filter(target__isnull=False).count()
        if labeled < MIN_LABELED_TARGETS:
            raise NotEnoughLabels(
                f"Smart labeling needs at least {MIN_LABELED_TARGETS} rows with a target; this dataset "
                f"has {labeled}.",
                needed=MIN_LABELED_TARGETS,
                labeled=labeled,
            )
        return
    labeled_per_label = samples.filter(label__isnull=False).values("label").annotate(n=Count("id"))
    per_label = {row["label"]: row["n"] for row in labeled_per_label}
    enough = sorted(label for label, n in per_label.items() if n >= MIN_LABELED_PER_CLASS)
    if len(enough) < MIN_CLASSES:
        raise NotEnoughLabels(
            f"Smart labeling needs at least {MIN_CLASSES} classes with {MIN_LABELED_PER_CLASS} or more "
            f"labeled samples each; {len(enough)} class(es) have that many. Label a few samples of each "
            "class first.",
            needed_classes=MIN_CLASSES,
            per_class=MIN_LABELED_PER_CLASS,
            classes_with_enough=len(enough),
        )


def smart_round_create(
    *,
    dataset: Dataset,
    user,
    batch_size: int = 50,
    strategy: Strategy = "uncertainty_diversity",
    seed: int | None = None,
) -> SmartLabelingRound:
    """Start a round: refuse before queueing anything when it cannot work (400 ``not_enough_labels``,
    400 ``nothing_to_suggest``, 409 ``round_running``), else record the round and its job.

    e.g. ``smart_round_create(dataset=d, user=u, batch_size=50)`` -> round 1, its job queued
    """
    from datasets.services.time_series import refuse_forecasting

    refuse_forecasting(dataset, "smart labeling")
    if not 1 <= batch_size <= MAX_BATCH_SIZE:
        raise field_error("batch_size", f"batch_size must be between 1 and {MAX_BATCH_SIZE}.")
    if strategy not in STRATEGIES:
        raise field_error("strategy", f"strategy must be one of {', '.join(STRATEGIES)}.")
    with transaction.atomic():
        # one round starts at a time per dataset: the dataset row is the lock
        Dataset.objects.select_for_update().filter(pk=dataset.pk).first()
        running = (
            SmartLabelingRound.objects.filter(dataset=dataset, status__in=ACTIVE)
            .exclude(job__status__in=["succeeded", "failed", "cancelled"])
            .order_by("-number")
            .first()
        )
        if running is not None:
            raise RoundRunning(
                f"Round {running.number} of this dataset is still {running.status}; wait for it to finish "
                "or cancel its job.",
                round=running.pk,
                job=running.job_id,
            )
        _require_enough_labels(dataset)
        if not unlabeled_samples(dataset=dataset).exists():
            raise NothingToSuggest(
                "Every sample of this dataset is labeled: there is nothing to suggest a label for."
            )
        number = (SmartLabelingRound.objects.filter(dataset=dataset).aggregate(n=Max("number"))["n"] or 0) + 1
        params: SmartLabelingParams = {
            "batch_size": int(batch_size),
            "strategy": strategy,
            "seed": int(seed if seed is not None else number),
        }
        smart_round = SmartLabelingRound.objects.create(
            dataset=dataset, number=number, params=dict(params), created_by=user
        )
        smart_round.job = job_create(
            workspace=dataset.workspace,
            project=dataset.project,
            kind="labeling.smart_round",
            params={"smart_round": smart_round.pk},
            user=user,
        )
        smart_round.save(update_fields=["job"])
    return smart_round


# --- running it on a worker ------------------------------------------------------------------------


def _round_end(smart_round: SmartLabelingRound, status: str, error: str = "") -> None:
    SmartLabelingRound.objects.filter(pk=smart_round.pk).update(
        status=status, error=error[:4000], finished_at=timezone.now()
    )


def _label_ids(dataset: Dataset, classes: list[str]) -> list[int | None]:
    """The Label id of each of the pool's class indices (classes are label names in the user's order)."""
    by_name = dict(Label.objects.filter(dataset=dataset).values_list("name", "pk"))
    return [by_name.get(name) for name in classes]


def _suggestion_rows(
    smart_round: SmartLabelingRound, suggestions: list[Any], label_ids: list[int | None], existing: set[int]
) -> list[Suggestion]:
    def label_of(index: int | None) -> int | None:
        return label_ids[index] if index is not None and 0 <= index < len(label_ids) else None

    rows = []
    for item in suggestions:
        if item["id"] not in existing:  # deleted while the round ran
            continue
        rows.append(
            Suggestion(
                round=smart_round,
                dataset_id=smart_round.dataset_id,
                sample_id=item["id"],
                label_id=label_of(item["label"]),
                confidence=float(item["confidence"]),
                scores=[{"label": label_of(s["label"]), "score": float(s["score"])} for s in item["scores"]],
                boxes=[
                    {
                        "label": label_of(box["label"]),
                        **{k: float(box[k]) for k in ("x", "y", "width", "height", "score")},
                    }
                    for box in item["boxes"]
                ],
                value=item["value"],
                priority=float(item["priority"]),
                rank=item["rank"],
            )
        )
    return rows


def smart_round_run(*, round_id: int, job: Job, report) -> dict:
    """The ``labeling.smart_round`` job's body: the dataset as a pool, the compute plane's quick model
    and ranking, then one Suggestion row per unlabeled sample; older rounds' pending suggestions
    become ``superseded``. A refusal of the compute plane (too few labels, nothing unlabeled) fails
    the round with its message."""
    from datasets.services.pools import label_pool
    from jobs.runner import JobInputRejected

    from workers.progress import JobCancelled

    smart_round = SmartLabelingRound.objects.select_related("dataset").get(pk=round_id)
    SmartLabelingRound.objects.filter(pk=round_id).update(status=RoundStatus.RUNNING, error="")
    dataset = smart_round.dataset
    work_dir = Path(settings.SAMPAN_HOME) / "runs" / f"smart-round-{smart_round.pk}-job-{job.pk}"
    work_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        import workers.smart_labeling as smart_labeling  # torch: only inside the worker's task

        report("reading the dataset", fraction=0.0, milestone=True)
        pool = label_pool(dataset=dataset, cache_dir=Path(settings.SAMPAN_HOME) / "cache")
        params: SmartLabelingParams = {
            "batch_size": int(smart_round.params.get("batch_size", 50)),
            "strategy": smart_round.params.get("strategy", "uncertainty_diversity"),
            "seed": int(smart_round.params.get("seed", 0)),
        }
        try:
            result = smart_labeling.run(
                pool, params, work_dir=work_dir, report=report, model=_model_of(dataset, pool, work_dir)
            )
        except (smart_labeling.NotEnoughLabels, smart_labeling.NothingToSuggest) as exc:
            raise JobInputRejected(str(exc)) from exc
        report("storing the suggestions", fraction=0.99, milestone=True)
        label_ids = _label_ids(dataset, pool["classes"])
        with transaction.atomic():
            existing = set(Sample.objects.filter(dataset=dataset).values_list("pk", flat=True))
            rows = _suggestion_rows(smart_round, result["suggestions"], label_ids, existing)
            Suggestion.objects.filter(dataset=dataset, status=SuggestionStatus.PENDING).exclude(
                round=smart_round
            ).update(status=SuggestionStatus.SUPERSEDED, decided_at=timezone.now())
            Suggestion.objects.filter(round=smart_round).delete()  # an earlier attempt's rows
            Suggestion.objects.bulk_create(rows, batch_size=2000)
            summary = dict(result["summary"])
            summary.setdefault("seconds", round(time.monotonic() - started, 3))
            SmartLabelingRound.objects.filter(pk=smart_round.pk).update(
                status=RoundStatus.SUCCEEDED, summary=summary, error="", finished_at=timezone.now()
            )
    except JobCancelled:
        _round_end(smart_round, RoundStatus.CANCELLED)
        raise
    except Exception as exc:
        _round_end(smart_round, RoundStatus.FAILED, str(exc) or type(exc).__name__)
        raise
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    return {"smart_round": smart_round.pk, "suggestions": len(rows), "ranked": summary.get("ranked", 0)}


def _model_of(dataset: Dataset, pool: LabelPool, work_dir: Path) -> ModelFeatures | None:
    """Image classification: the newest model trained on this dataset, copied into the work dir."""
    if pool["task_type"] != "image_classification":
        return None
    from training.model_files import dataset_model_features

    return dataset_model_features(dataset=dataset, work_dir=work_dir)


# --- accepting and rejecting ---------------------------------------------------------------------


def _selected(
    *,
    dataset: Dataset,
    ids: Collection[int] | None,
    label: int | None,
    min_confidence: float | None,
    max_confidence: float | None,
    round: int | None,
) -> tuple[QuerySet[Suggestion], list[dict]]:
    """The pending suggestions a decision applies to, and the ids given that it skips (with why)."""
    if ids is not None:
        ids = sorted(set(ids))
        found = dict(Suggestion.objects.filter(dataset=dataset, pk__in=ids).values_list("pk", "status"))
        missing = [pk for pk in ids if pk not in found]
        if missing:
            raise field_error("ids", f"No suggestion(s) {missing[:20]} in this dataset; nothing was changed.")
        pending = set(pending_suggestions(dataset=dataset).filter(pk__in=ids).values_list("pk", flat=True))
        skipped = [
            {
                "id": pk,
                "reason": "human_labeled" if found[pk] == SuggestionStatus.PENDING else "not_pending",
            }
            for pk in ids
            if pk not in pending
        ]
        return Suggestion.objects.filter(pk__in=pending), skipped
    if label is None and min_confidence is None and max_confidence is None and round is None:
        raise field_error("ids", "Give the suggestions' ids or a filter (label, min_confidence, round).")
    queryset = pending_suggestions(dataset=dataset)
    if label is not None:
        queryset = queryset.filter(label_id=label)
    if min_confidence is not None:
        queryset = queryset.filter(confidence__gte=min_confidence)
    if max_confidence is not None:
        queryset = queryset.filter(confidence__lte=max_confidence)
    if round is not None:
        queryset = queryset.filter(round_id=round)
    return queryset, []


def _inside(box: dict, width: int, height: int) -> dict | None:
    """A suggested box clipped to the image (a detector's box may reach over an edge); None when
    nothing of it is left."""
    x0, y0 = max(0.0, float(box["x"])), max(0.0, float(box["y"]))
    x1 = min(float(width), float(box["x"]) + float(box["width"]))
    y1 = min(float(height), float(box["y"]) + float(box["height"]))
    if x1 - x0 < 1 or y1 - y0 < 1:
        return None
    return {**box, "x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0}


@transaction.atomic
def suggestions_accept(
    *,
    dataset: Dataset,
    user,
    ids: Collection[int] | None = None,
    label: int | None = None,
    min_confidence: float | None = None,
    max_confidence: float | None = None,
    round: int | None = None,
    min_score: float | None = None,
) -> dict:
    """Accept pending suggestions (by ``ids`` or by a filter): each becomes its sample's label (or
    boxes: ``min_score`` drops boxes scored under it; regression: its ``value`` becomes the target)
    through the datasets services, recorded in the activity log with source ``suggestion``. A sample
    labeled by a person meanwhile keeps its label: that suggestion is skipped (``human_labeled``)
    and superseded.

    e.g. ``suggestions_accept(dataset=d, user=u, label=5, min_confidence=0.95)`` ->
    ``{"accepted": 40, "skipped": []}``
    """
    from datasets.services.annotations import annotations_bulk_write
    from datasets.services.labels import samples_set_labels, samples_set_targets

    queryset, skipped = _selected(
        dataset=dataset,
        ids=ids,
        label=label,
        min_confidence=min_confidence,
        max_confidence=max_confidence,
        round=round,
    )
    chosen = list(queryset.select_for_update(of=("self",)).order_by("sample_id", "-round__number"))
    by_sample: dict[int, Suggestion] = {}
    for suggestion in chosen:
        by_sample.setdefault(suggestion.sample_id, suggestion)  # the latest round's, if ever two
    samples = {
        s.pk: s for s in Sample.objects.select_for_update().filter(dataset=dataset, pk__in=list(by_sample))
    }
    detection = dataset.task_type in ANNOTATION_TASKS
    regression = dataset.task_type in REGRESSION_TASKS
    accepted: list[Suggestion] = []
    for sample_id, suggestion in by_sample.items():
        sample = samples.get(sample_id)
        if sample is None:
            still_unlabeled = False
        elif detection:
            still_unlabeled = sample.annotation_status == AnnotationStatus.UNLABELED
        elif regression:  # a suggested value, never over a target a person (or an import) set
            still_unlabeled = sample.target is None and suggestion.value is not None
        else:
            still_unlabeled = sample.label_id is None and suggestion.label_id is not None
        if still_unlabeled:
            accepted.append(suggestion)
        else:
            skipped.append({"id": suggestion.pk, "reason": "human_labeled"})
    if accepted and detection:
        names = dict(Label.objects.filter(dataset=dataset).values_list("pk", "name"))
        items = []
        for suggestion in accepted:
            sample = samples[suggestion.sample_id]
            boxes = [
                box
                for box in (_inside(b, sample.width, sample.height) for b in suggestion.boxes)
                if box is not None
                and box.get("label") in names
                and (min_score is None or box.get("score", 0.0) >= min_score)
            ]
            items.append(
                {
                    "sample": suggestion.sample_id,
                    "revision": samples[suggestion.sample_id].label_version,
                    "status": AnnotationStatus.ANNOTATED if boxes else AnnotationStatus.NO_OBJECTS,
                    "annotations": [
                        {
                            "kind": "box",
                            "label": names[box["label"]],
                            "geometry": {k: box[k] for k in ("x", "y", "width", "height")},
                        }
                        for box in boxes
                    ],
                }
            )
        annotations_bulk_write(dataset=dataset, items=items, actor=user, source="suggestion")
    elif accepted and regression:
        samples_set_targets(
            dataset=dataset,
            changes=[
                {
                    "id": s.sample_id,
                    "target": s.value,
                    "label_version": samples[s.sample_id].label_version,
                }
                for s in accepted
            ],
            actor=user,
            source="suggestion",
        )
    elif accepted:
        samples_set_labels(
            dataset=dataset,
            changes=[
                {
                    "id": s.sample_id,
                    "label": s.label_id,
                    "label_version": samples[s.sample_id].label_version,
                }
                for s in accepted
            ],
            actor=user,
            source="suggestion",
        )
    now = timezone.now()
    Suggestion.objects.filter(pk__in=[s.pk for s in accepted]).update(
        status=SuggestionStatus.ACCEPTED, decided_by=user, decided_at=now
    )
    human = [item["id"] for item in skipped if item["reason"] == "human_labeled"]
    # every other pending suggestion of a sample that now has a label is moot
    settled = [s.sample_id for s in accepted] + [s.sample_id for s in chosen if s.pk in set(human)]
    Suggestion.objects.filter(dataset=dataset, sample_id__in=settled, status=SuggestionStatus.PENDING).update(
        status=SuggestionStatus.SUPERSEDED, decided_at=now
    )
    return {"accepted": len(accepted), "skipped": sorted(skipped, key=lambda item: item["id"])}


@transaction.atomic
def suggestions_reject(
    *,
    dataset: Dataset,
    user,
    ids: Collection[int] | None = None,
    label: int | None = None,
    min_confidence: float | None = None,
    max_confidence: float | None = None,
    round: int | None = None,
) -> dict:
    """Reject pending suggestions (by ``ids`` or a filter); the samples stay unlabeled.
    e.g. ``suggestions_reject(dataset=d, user=u, ids=[4, 5])`` -> ``{"rejected": 2}``"""
    queryset, _ = _selected(
        dataset=dataset,
        ids=ids,
        label=label,
        min_confidence=min_confidence,
        max_confidence=max_confidence,
        round=round,
    )
    rejected = Suggestion.objects.filter(pk__in=list(queryset.values_list("pk", flat=True))).update(
        status=SuggestionStatus.REJECTED, decided_by=user, decided_at=timezone.now()
    )
    return {"rejected": rejected}
