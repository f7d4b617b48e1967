"""The shadow version of a deployment: a copy of every answered request, predicted off the request
thread, compared with the served answer, never returned.

After the served answer is computed, ``deploy.api.predict`` hands the parsed instances and the
served predictions to :data:`runner` (``submit``: a put on a bounded queue, never a wait). One
background thread per web process takes them in order, predicts with the shadow's predictor,
compares (:func:`compare`) and counts the result in :data:`recorder`, which writes one
``ShadowMinute`` row per (deployment, served version, shadow version, minute) per process about once
a second, as deploy.usage writes usage. Then it offers the request to deploy.capture with both
answers. When the queue is full (the shadow is slower than the traffic) the request is dropped for
the shadow and counted (``runner.dropped``, logged once a minute): the served answer never waits.

Comparison per instance:

- classification: the same top-1 label (by name: versions may order their classes differently);
  delta = |served top-1 score - shadow top-1 score|;
- regression: no agreement; delta = |served value - shadow value|;
- detection: the same label of the best box (both without boxes: agreed); delta = |best scores|
  (a missing box scores 0).
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from deploy import usage

logger = logging.getLogger("sampan.deploy")

DEFAULT_QUEUE = 64


def _top(kind: str, prediction: Any) -> tuple[str | None, float | None]:
    """(top-1 label, its score) of one answered instance; (None, value) for regression."""
    if kind == "detection_prediction":
        boxes = prediction.get("boxes") or ()
        if not boxes:
            return None, 0.0
        best = max(boxes, key=lambda box: box["score"])
        return str(best["label"]), float(best["score"])
    if kind == "regression_prediction":
        return None, float(prediction[0]["value"]) if prediction else None
    if not prediction:
        return None, None
    return str(prediction[0]["label"]), float(prediction[0]["score"])


def compare(kind: str, served: Sequence[Any], shadow: Sequence[Any]) -> tuple[int, int, list[float]]:
    """(instances compared, top-1 agreements, |deltas|) of two answers to the same instances."""
    compared = agreed = 0
    deltas: list[float] = []
    for mine, theirs in zip(served, shadow, strict=False):
        label_a, value_a = _top(kind, mine)
        label_b, value_b = _top(kind, theirs)
        compared += 1
        if kind != "regression_prediction" and label_a == label_b:
            agreed += 1
        if value_a is not None and value_b is not None:
            deltas.append(abs(value_a - value_b))
    return compared, agreed, deltas


@dataclass
class ShadowMinuteFigures:
    compared: int = 0
    agreed: int = 0
    delta_sum: float = 0.0
    delta_histogram: dict[int, int] = field(default_factory=dict)
    errors: int = 0
    latency_ms_sum: float = 0.0
    dirty: bool = True

    def copy(self) -> ShadowMinuteFigures:
        return ShadowMinuteFigures(
            self.compared,
            self.agreed,
            self.delta_sum,
            dict(self.delta_histogram),
            self.errors,
            self.latency_ms_sum,
            True,
        )


Slot = tuple[int, int, int, int]  # deployment, served version, shadow version, minute


class ShadowRecorder(usage.MinuteRecorder):
    """Per-process shadow comparison figures, written by a background thread (deploy.usage)."""

    what = "shadow comparisons"
    thread_name = "sampan-shadow-flush"

    def __init__(self) -> None:
        super().__init__()
        self._minutes: dict[Slot, ShadowMinuteFigures] = {}

    def record(
        self,
        *,
        deployment_id: int,
        served_version: int,
        shadow_version: int,
        compared: int = 0,
        agreed: int = 0,
        deltas: Sequence[float] = (),
        errors: int = 0,
        latency_ms: float = 0.0,
        regression: bool = False,
    ) -> None:
        slot = (deployment_id, served_version, shadow_version, int(time.time() // 60))
        buckets = [usage.answer_bucket(d, regression=regression) for d in deltas]
        with self._lock:
            figures = self._minutes.get(slot)
            if figures is None:
                figures = self._minutes[slot] = ShadowMinuteFigures()
            figures.compared += compared
            figures.agreed += agreed
            figures.delta_sum += sum(deltas)
            for index in buckets:
                figures.delta_histogram[index] = figures.delta_histogram.get(index, 0) + 1
            figures.errors += errors
            figures.latency_ms_sum += latency_ms
            figures.dirty = True
        self._ensure_started()

    def forget(self) -> None:
        with self._lock:
            self._minutes.clear()

    def flush(self) -> int:
        from django.db import IntegrityError, transaction

        from deploy.models import ShadowMinute

        current = int(time.time() // 60)
        with self._lock:
            pending = [(k, f.copy()) for k, f in self._minutes.items() if f.dirty]
            for k, _ in pending:
                self._minutes[k].dirty = False
            for k in [k for k in self._minutes if k[3] < current - 1 and not self._minutes[k].dirty]:
                del self._minutes[k]
        written = 0
        try:
            for (deployment_id, served, shadow, minute), figures in pending:
                values = {
                    "compared": figures.compared,
                    "agreed": figures.agreed,
                    "delta_sum": figures.delta_sum,
                    "delta_histogram": {str(k): v for k, v in figures.delta_histogram.items()},
                    "errors": figures.errors,
                    "latency_ms_sum": figures.latency_ms_sum,
                }
                at = datetime.fromtimestamp(minute * 60, tz=UTC)
                try:
                    with transaction.atomic():
                        where = {
                            "deployment_id": deployment_id,
                            "serving_version_id": served,
                            "shadow_version_id": shadow,
                            "minute": at,
                            "writer": self.writer,
                        }
                        if not ShadowMinute.objects.filter(**where).update(**values):
                            ShadowMinute.objects.create(**where, **values)
                    written += 1
                except IntegrityError:  # the deployment or a version was deleted meanwhile
                    continue
        except BaseException:
            with self._lock:
                for k, figures in pending:
                    live = self._minutes.get(k)
                    if live is None:
                        self._minutes[k] = figures
                    else:
                        live.dirty = True
            raise
        return written


recorder = ShadowRecorder()


@dataclass(slots=True)
class ShadowTask:
    state: Any  # deploy.serving.DeploymentState
    key_id: int | None
    served: Any  # deploy.serving.ModelVersionState
    data_kind: str
    kind: str
    instances: Sequence[Any]
    predictions: Sequence[Any]
    top_k: int
    options: dict[str, Any] | None


class ShadowRunner:
    """One background thread per process predicting queued requests with their deployment's shadow."""

    def __init__(self, maxsize: int | None = None) -> None:
        self._maxsize = maxsize
        self._queue: queue.Queue[ShadowTask] | None = None
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self.dropped = 0
        self._dropped_logged_at = 0.0
        self.processed = 0

    def _ensure(self) -> queue.Queue[ShadowTask]:
        if self._queue is not None and self._pid == os.getpid():
            return self._queue
        with self._lock:
            if self._queue is None or self._pid != os.getpid():
                from django.conf import settings

                size = self._maxsize or int(getattr(settings, "SAMPAN_DEPLOY_SHADOW_QUEUE", DEFAULT_QUEUE))
                self._pid = os.getpid()
                self._queue = queue.Queue(maxsize=max(1, size))
                self._thread = threading.Thread(target=self._run, name="sampan-shadow", daemon=True)
                self._thread.start()
        return self._queue

    def submit(self, task: ShadowTask) -> bool:
        """Queue a request for the shadow; False (dropped, counted) when the queue is full."""
        try:
            self._ensure().put_nowait(task)
            return True
        except queue.Full:
            with self._lock:
                self.dropped += 1
                now = time.monotonic()
                if now - self._dropped_logged_at > 60:
                    self._dropped_logged_at = now
                    logger.warning(
                        "the shadow cannot keep up: %d requests dropped for it so far in this process",
                        self.dropped,
                    )
            return False

    def idle(self) -> bool:
        """Nothing queued or running (tests wait on it)."""
        q = self._queue
        return q is None or q.unfinished_tasks == 0

    def _run(self) -> None:
        q = self._queue
        assert q is not None
        while True:
            task = q.get()
            try:
                run(task)
            except Exception:
                logger.exception("the shadow's comparison failed")
            finally:
                self.processed += 1
                q.task_done()


runner = ShadowRunner()


def run(task: ShadowTask, *, offer: Callable[..., None] | None = None) -> None:
    """Predict ``task`` with its deployment's shadow, record the comparison, offer it to capture."""
    from deploy import serving
    from workers.serving.predictors import predict_instances

    state, shadow = task.state, task.state.shadow
    if shadow is None:
        return
    regression = task.kind == "regression_prediction"
    started = time.perf_counter()
    shadow_predictions: list[Any] | None = None
    try:
        predictor = serving.predictors.get(shadow)
        if predictor.data_kind != task.data_kind or predictor.prediction_kind != task.kind:
            raise ValueError(f"shadow {shadow.name} answers {predictor.prediction_kind}, not {task.kind}")
        shadow_predictions, _ = predict_instances(predictor, task.instances, task.top_k, options=task.options)
    except Exception as exc:
        logger.info("shadow version %s failed on a request of deployment %s: %s", shadow.id, state.id, exc)
        recorder.record(
            deployment_id=state.id,
            served_version=task.served.id,
            shadow_version=shadow.id,
            errors=len(task.instances),
            latency_ms=(time.perf_counter() - started) * 1000,
        )
    else:
        compared, agreed, deltas = compare(task.kind, task.predictions, shadow_predictions)
        recorder.record(
            deployment_id=state.id,
            served_version=task.served.id,
            shadow_version=shadow.id,
            compared=compared,
            agreed=agreed,
            deltas=deltas,
            latency_ms=(time.perf_counter() - started) * 1000,
            regression=regression,
        )
    offer_capture(
        state=state,
        key_id=task.key_id,
        model_version=task.served,
        data_kind=task.data_kind,
        instances=task.instances,
        predictions=task.predictions,
        shadow_version=shadow,
        shadow_predictions=shadow_predictions,
    )


def offer_capture(**kwargs: Any) -> None:
    """deploy.capture.offer (h5's hook) when it is installed and the state captures; never raises."""
    if kwargs["state"].capture is None:
        return
    try:
        from deploy import capture
    except ImportError:
        return
    offer = getattr(capture, "offer", None)
    if offer is None:
        return
    try:
        offer(**kwargs)
    except Exception:
        logger.exception("offering a request to capture failed")
