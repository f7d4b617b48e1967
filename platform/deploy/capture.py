"""Request capture: what a deployment keeps of the requests it answers (off by default).

- ``load_policy(deployment_id)``: the deployment's policy as a frozen snapshot (None: capture off),
  read with the serving state (deploy.serving) and held in ``DeploymentState.capture``; a policy
  change bumps the serving stamp, so every web process reads the new one on its next request.
- ``offer(...)``: called once per answered 200 request (by the serving path: in the request thread,
  or by the shadow worker once the shadow answered). It decides per instance in microseconds: an
  instance is eligible when no filter is set or any set filter matches it (top-1 score below
  ``low_confidence_below``; the shadow's top-1 differs; the served top-1 is one of ``labels``), then
  kept with probability ``sample_rate``. The kept instances go to a per-process background writer
  (a bounded queue: when it is full, the instances are dropped and counted, never waited for).
- The writer encodes each input (a PIL image as PNG, a text as UTF-8, a row as JSON), stores it with
  default_storage under ``captures/<deployment>/<date>/``, and inserts its ``CapturedRequest`` row
  (the requests queued meanwhile together: one insert per deployment per batch),
  refusing inputs past the policy's ``max_bytes`` (the stored bytes summed from the rows, cached per
  process and re-read every CAP_REFRESH_SECONDS). It never blocks or fails a request (its errors
  are logged and counted: ``writer.stats``), but shares the web process's CPU: each kept instance
  costs it about a small model's prediction (docs/benchmarks.md, capture_overhead).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import queue
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

logger = logging.getLogger("sampan.deploy")

QUEUE_SIZE = 1000  # pending captures (each one request's kept instances) per process
CAP_REFRESH_SECONDS = 30.0
WRITE_BATCH = 256  # queued requests written together (one insert per deployment)
IDLE_CLOSE_SECONDS = 1.0  # the writer closes its database connection after this long idle


@dataclass(frozen=True, slots=True)
class CaptureSnapshot:
    """A deployment's enabled capture policy, as the serving path holds it."""

    deployment_id: int
    sample_rate: float
    max_bytes: int
    low_confidence_below: float | None
    shadow_disagreement: bool
    labels: frozenset[str]

    @property
    def filtered(self) -> bool:
        return self.low_confidence_below is not None or self.shadow_disagreement or bool(self.labels)


def load_policy(deployment_id: int) -> CaptureSnapshot | None:
    """The deployment's capture policy when it is enabled, else None (one indexed read)."""
    from deploy.models import CapturePolicy

    row = (
        CapturePolicy.objects.filter(deployment_id=deployment_id, enabled=True)
        .values("sample_rate", "max_bytes", "low_confidence_below", "shadow_disagreement", "labels")
        .first()
    )
    if row is None:
        return None
    return CaptureSnapshot(
        deployment_id=deployment_id,
        sample_rate=float(row["sample_rate"]),
        max_bytes=int(row["max_bytes"]),
        low_confidence_below=row["low_confidence_below"],
        shadow_disagreement=bool(row["shadow_disagreement"]),
        labels=frozenset(str(name) for name in row["labels"] or ()),
    )


# --- the served answer of one instance -----------------------------------------------------------


def answer_of(prediction: Any) -> dict[str, Any]:
    """The ``CapturedAnswer`` (workers.contracts.deployments) of one instance's prediction as the
    predictor made it: a classifier's top_k list (or ``{"top_k": [...]}``), a regressor's
    ``[{"value": v}]``, or a detector's ``{"boxes": [...], "width", "height"}``."""
    if isinstance(prediction, dict) and "boxes" in prediction:
        boxes = list(prediction.get("boxes") or [])
        best = max(boxes, key=lambda b: b.get("score", 0.0)) if boxes else None
        return {
            "label": None if best is None else best.get("label"),
            "score": None if best is None else float(best.get("score", 0.0)),
            "value": None,
            "boxes": boxes,
            "width": int(prediction.get("width") or 0),
            "height": int(prediction.get("height") or 0),
        }
    if isinstance(prediction, dict) and "top_k" in prediction:
        top_k = list(prediction["top_k"])
    else:
        top_k = list(prediction) if isinstance(prediction, list | tuple) else []
    first = top_k[0] if top_k else {}
    if "value" in first:
        return {"label": None, "score": None, "value": float(first["value"])}
    score = first.get("score")
    return {
        "label": first.get("label"),
        "score": None if score is None else float(score),
        "value": None,
        "top_k": top_k,
    }


def _reason(policy: CaptureSnapshot, answer: dict[str, Any], shadow: dict[str, Any] | None) -> str | None:
    if not policy.filtered:
        return "sampled"
    if policy.low_confidence_below is not None and answer["value"] is None:
        score = answer["score"]
        if score is None or score < policy.low_confidence_below:
            return "low_confidence"
    if policy.shadow_disagreement and shadow is not None:
        if answer["value"] is None:
            if shadow["label"] != answer["label"]:
                return "disagreement"
        elif shadow["value"] is not None and shadow["value"] != answer["value"]:
            return "disagreement"
    if policy.labels and answer["label"] is not None and answer["label"] in policy.labels:
        return "label"
    return None


@dataclass(slots=True)
class _Pending:
    deployment_id: int
    key_id: int | None
    model_version_id: int | None
    shadow_version_id: int | None
    data_kind: str
    at: datetime
    max_bytes: int
    items: list[tuple[Any, dict[str, Any], dict[str, Any] | None, str]]  # input, answer, shadow, reason


def _version_id(version: Any) -> int | None:
    if version is None:
        return None
    return int(getattr(version, "id", version))


def offer(
    *,
    state: Any,
    key_id: int | None,
    model_version: Any,
    data_kind: str,
    instances: Any,
    predictions: Any,
    shadow_version: Any = None,
    shadow_predictions: Any = None,
) -> None:
    """Keep what the deployment's capture policy asks of one answered request (module docstring).
    Returns at once when capture is off; never raises."""
    policy = getattr(state, "capture", None)
    if policy is None:
        return
    try:
        kept = []
        rate = policy.sample_rate
        for index, (instance, prediction) in enumerate(zip(instances, predictions, strict=False)):
            answer = answer_of(prediction)
            shadow = None
            if shadow_predictions is not None and index < len(shadow_predictions):
                shadow = answer_of(shadow_predictions[index])
            reason = _reason(policy, answer, shadow)
            if reason is None or (rate < 1.0 and random.random() >= rate):
                continue
            kept.append((instance, answer, shadow, reason))
        if not kept:
            return
        writer.put(
            _Pending(
                deployment_id=policy.deployment_id,
                key_id=key_id,
                model_version_id=_version_id(model_version),
                shadow_version_id=_version_id(shadow_version) if shadow_predictions is not None else None,
                data_kind=data_kind,
                at=datetime.now(tz=UTC),
                max_bytes=policy.max_bytes,
                items=kept,
            )
        )
    except Exception:  # capture never fails a request
        writer.stats["errors"] += 1
        logger.exception("capturing a request of deployment %s failed", getattr(state, "id", "?"))


# --- encoding and the writer ---------------------------------------------------------------------


def encode_input(data_kind: str, instance: Any) -> tuple[bytes, str, str]:
    """(bytes, content type, file extension) of one input as it is stored."""
    if data_kind == "image":
        image = instance
        if image.mode not in ("RGB", "RGBA", "L", "LA", "I;16", "1", "P"):
            image = image.convert("RGB")
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue(), "image/png", "png"
    if data_kind == "text":
        return str(instance).encode("utf-8", "surrogatepass"), "text/plain; charset=utf-8", "txt"
    return (
        json.dumps(instance, ensure_ascii=False, default=str, allow_nan=False).encode(),
        "application/json",
        "json",
    )


def blob_key(deployment_id: int, at: datetime, extension: str) -> str:
    return f"captures/{deployment_id}/{at:%Y-%m-%d}/{uuid.uuid4().hex}.{extension}"


@dataclass
class CaptureWriter:
    """The per-process background writer (module docstring). ``flush()`` waits until everything
    queued so far is written (tests; shutdown)."""

    stats: dict[str, int] = field(
        default_factory=lambda: {"written": 0, "dropped": 0, "over_cap": 0, "errors": 0}
    )

    def __post_init__(self) -> None:
        self._queue: queue.Queue[_Pending] = queue.Queue(maxsize=QUEUE_SIZE)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()
        self._stored: dict[int, tuple[int, float]] = {}  # deployment -> (bytes, monotonic time read)

    def put(self, pending: _Pending) -> None:
        if self._thread is None or self._pid != os.getpid():
            self._start()
        try:
            self._queue.put_nowait(pending)
        except queue.Full:
            self.stats["dropped"] += len(pending.items)

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None and self._pid == os.getpid():
                return
            if self._pid != os.getpid():  # forked: the parent's queue and thread are not ours
                self._queue = queue.Queue(maxsize=QUEUE_SIZE)
                self._stored.clear()
            self._pid = os.getpid()
            self._thread = threading.Thread(target=self._run, name="sampan-capture-writer", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        from django.db import connection

        while True:
            try:
                batch = [self._queue.get(timeout=IDLE_CLOSE_SECONDS)]
            except queue.Empty:  # idle: hold no database connection (reopening one costs milliseconds)
                connection.close()
                continue
            while len(batch) < WRITE_BATCH:  # what queued meanwhile goes in the same inserts
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                self.write_many(batch)
            except Exception:
                self.stats["errors"] += 1
                logger.exception("writing captured requests failed")
                with contextlib.suppress(Exception):  # a dropped connection may fail to close
                    connection.close()
            finally:
                for _ in batch:
                    self._queue.task_done()

    def flush(self) -> None:
        if self._thread is not None and self._pid == os.getpid():
            self._queue.join()

    def forget(self, deployment_id: int | None = None) -> None:
        """Drop the cached stored-bytes sums (all, or one deployment's): deletions call it."""
        if deployment_id is None:
            self._stored.clear()
        else:
            self._stored.pop(deployment_id, None)

    def _stored_bytes(self, deployment_id: int) -> int:
        cached = self._stored.get(deployment_id)
        now = time.monotonic()
        if cached is not None and now - cached[1] < CAP_REFRESH_SECONDS:
            return cached[0]
        from django.db.models import Sum

        from deploy.models import CapturedRequest

        total = (
            CapturedRequest.objects.filter(deployment_id=deployment_id).aggregate(total=Sum("size_bytes"))[
                "total"
            ]
            or 0
        )
        self._stored[deployment_id] = (total, now)
        return total

    def write(self, pending: _Pending) -> int:
        """Store one request's kept instances; returns how many were written."""
        return self.write_many([pending])

    def write_many(self, batch: list[_Pending]) -> int:
        """Store the kept instances of several requests: their blobs, then one insert per deployment;
        returns how many were written."""
        by_deployment: dict[int, list[_Pending]] = {}
        for pending in batch:
            by_deployment.setdefault(pending.deployment_id, []).append(pending)
        return sum(self._write_deployment(d, pendings) for d, pendings in by_deployment.items())

    def _write_deployment(self, deployment_id: int, batch: list[_Pending]) -> int:
        from django.core.files.base import ContentFile
        from django.core.files.storage import default_storage
        from django.db import IntegrityError

        from deploy.models import CapturedRequest

        stored = self._stored_bytes(deployment_id)
        rows: list[CapturedRequest] = []
        keys: list[str] = []
        for pending in batch:
            for instance, answer, shadow, reason in pending.items:
                try:
                    data, content_type, extension = encode_input(pending.data_kind, instance)
                except Exception:
                    self.stats["errors"] += 1
                    logger.exception("encoding a captured input of deployment %s failed", deployment_id)
                    continue
                if stored + len(data) > pending.max_bytes:
                    self.stats["over_cap"] += 1
                    continue
                key = default_storage.save(blob_key(deployment_id, pending.at, extension), ContentFile(data))
                keys.append(key)
                stored += len(data)
                rows.append(
                    CapturedRequest(
                        deployment_id=deployment_id,
                        model_version_id=pending.model_version_id,
                        key_id=pending.key_id,
                        at=pending.at,
                        reason=reason,
                        data_kind=pending.data_kind,
                        blob_key=key,
                        content_type=content_type,
                        size_bytes=len(data),
                        answer=answer,
                        top_label="" if answer.get("label") is None else str(answer["label"])[:200],
                        top_score=answer.get("score"),
                        value=answer.get("value"),
                        shadow_version_id=pending.shadow_version_id if shadow is not None else None,
                        shadow_answer=shadow,
                    )
                )
        if not rows:
            return 0
        try:
            CapturedRequest.objects.bulk_create(rows)
        except IntegrityError:  # the deployment (or a version, a key) was deleted meanwhile
            for key in keys:
                default_storage.delete(key)
            self._stored.pop(deployment_id, None)
            return 0
        except BaseException:
            for key in keys:
                default_storage.delete(key)
            raise
        cached = self._stored.get(deployment_id)
        if cached is not None:
            self._stored[deployment_id] = (stored, cached[1])
        self.stats["written"] += len(rows)
        return len(rows)


writer = CaptureWriter()
