"""Usage of hosted endpoints, counted cheaply: each web process aggregates calls, errors and a latency
histogram per (deployment, key, minute) in memory and a background thread writes the minutes that
changed about once a second (one row per process per key per minute, absolute values, so a rewrite
is idempotent). Percentiles of any window come from merged histograms.

Latency buckets are log-spaced, 8 per doubling from 0.01 ms: an estimate is within ~4.5 % of the
true value, and a minute's histogram has at most a few dozen non-empty buckets.

Rows are per model version too (the version that answered: the primary or a canary), with the
distribution of its answers (``scores``): the top-1 score of classifiers and detectors in 20 buckets
of 0.05, or a regression model's value in signed log-spaced buckets (:func:`answer_bucket`).

While the database is away, predictions go on and their usage stays in memory (a few rows per key
per minute): a failed flush keeps every minute it did not write for the next one, and one log line
says so, so nothing is lost when the database returns (as long as the process lives).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import math
import os
import socket
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

logger = logging.getLogger("sampan.deploy")

BASE_MS = 0.01
PER_DOUBLING = 8
MAX_BUCKET = 8 * 30  # ~10,700 s: anything slower lands in the last bucket
FLUSH_SECONDS = 1.0


def bucket_of(latency_ms: float) -> int:
    if latency_ms <= BASE_MS:
        return 0
    return min(MAX_BUCKET, int(math.log2(latency_ms / BASE_MS) * PER_DOUBLING) + 1)


def bucket_value(index: int) -> float:
    """A bucket's representative latency: the geometric middle of its bounds."""
    if index <= 0:
        return BASE_MS
    return BASE_MS * 2 ** ((index - 0.5) / PER_DOUBLING)


def merge(histograms: Iterable[Mapping[str | int, int]]) -> dict[int, int]:
    merged: dict[int, int] = {}
    for histogram in histograms:
        for index, count in histogram.items():
            merged[int(index)] = merged.get(int(index), 0) + int(count)
    return merged


def percentiles(
    histogram: Mapping[int, int], qs: tuple[float, ...] = (0.5, 0.95, 0.99)
) -> list[float | None]:
    total = sum(histogram.values())
    if not total:
        return [None for _ in qs]
    ordered = sorted(histogram.items())
    answers: list[float | None] = []
    for q in qs:
        rank, seen = q * total, 0
        for index, count in ordered:
            seen += count
            if seen >= rank:
                answers.append(round(bucket_value(index), 3))
                break
    return answers


SCORE_BUCKETS = 20
VALUE_BASE = 1e-3
VALUE_PER_DOUBLING = 2
VALUE_MAX_BUCKET = VALUE_PER_DOUBLING * 70


def answer_bucket(x: float, *, regression: bool) -> int:
    """The bucket of one answer: a score in [0, 1] (20 buckets of 0.05) or a regression value
    (0 around zero, +-i log-spaced by the magnitude, 2 per doubling from 0.001)."""
    if not regression:
        return min(SCORE_BUCKETS - 1, max(0, int(x * SCORE_BUCKETS)))
    magnitude = abs(x)
    if not magnitude < math.inf:
        return VALUE_MAX_BUCKET if x > 0 else -VALUE_MAX_BUCKET
    if magnitude < VALUE_BASE:
        return 0
    index = min(VALUE_MAX_BUCKET, int(math.log2(magnitude / VALUE_BASE) * VALUE_PER_DOUBLING) + 1)
    return index if x > 0 else -index


def answer_bucket_bounds(index: int, *, regression: bool) -> tuple[float, float]:
    """(low, high) of an :func:`answer_bucket` index."""
    if not regression:
        return (index / SCORE_BUCKETS, (index + 1) / SCORE_BUCKETS)
    if index == 0:
        return (-VALUE_BASE, VALUE_BASE)
    magnitude = abs(index)
    low = VALUE_BASE * 2 ** ((magnitude - 1) / VALUE_PER_DOUBLING)
    high = VALUE_BASE * 2 ** (magnitude / VALUE_PER_DOUBLING)
    return (low, high) if index > 0 else (-high, -low)


def answer_values(kind: str, predictions: Iterable) -> list[float]:
    """Each answered instance's top-1 score (classification; detection: its best box, none without
    boxes) or value (regression)."""
    values: list[float] = []
    for prediction in predictions:
        try:
            if kind == "detection_prediction":
                boxes = prediction.get("boxes") or ()
                if boxes:
                    values.append(float(max(box["score"] for box in boxes)))
            elif kind == "regression_prediction":
                values.append(float(prediction[0]["value"]))
            elif prediction:
                values.append(float(prediction[0]["score"]))
        except (KeyError, IndexError, TypeError, ValueError):
            continue
    return values


@dataclass
class MinuteUsage:
    calls: int = 0
    errors: int = 0
    latency_ms_sum: float = 0.0
    histogram: dict[int, int] = field(default_factory=dict)
    dirty: bool = True
    scores: dict[int, int] = field(default_factory=dict)


class MinuteRecorder:
    """Figures per minute kept in this process under a lock and written by a background thread about
    once a second (``flush``, in the subclass); the thread starts with the first record of each
    process (after a fork too), holds no database connection while idle, keeps the figures while the
    database is away and writes what is left at exit."""

    what = "figures"  # for the log lines
    thread_name = "sampan-flush"

    def __init__(self) -> None:
        self.writer = f"{socket.gethostname()}/{os.getpid()}"[:100]
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()

    def flush(self) -> int:
        raise NotImplementedError

    def _ensure_started(self) -> None:
        if self._thread is None or self._pid != os.getpid():
            self._start()

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None and self._pid == os.getpid():
                return
            self._pid = os.getpid()
            self.writer = f"{socket.gethostname()}/{os.getpid()}"[:100]
            self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
            self._thread.start()
            atexit.register(self._final_flush)

    def _run(self) -> None:
        from django.db import DatabaseError, connection

        failing = False
        while True:
            time.sleep(FLUSH_SECONDS)
            try:
                written = self.flush()
                if failing:
                    failing = False
                    logger.warning("%s are written again (%d buffered rows)", self.what, written)
                if not written:
                    connection.close()  # idle: hold no database connection
            except DatabaseError as exc:  # the database is away: the minutes stay buffered for the next flush
                if not failing:
                    failing = True
                    logger.warning(
                        "writing %s failed (%s: %s); keeping them in memory until the database answers",
                        self.what,
                        type(exc).__name__,
                        str(exc).strip()[:200],
                    )
                self._close_quietly(connection)
            except Exception:
                logger.exception("writing %s failed", self.what)
                self._close_quietly(connection)

    @staticmethod
    def _close_quietly(connection) -> None:
        # a connection the database dropped may fail to close: it is gone either way
        with contextlib.suppress(Exception):
            connection.close()

    def _final_flush(self) -> None:
        try:
            self.flush()
        except Exception as exc:  # exiting: the database may already be gone
            logger.warning("the last %s could not be written: %s", self.what, exc)


class UsageRecorder(MinuteRecorder):
    """The per-process aggregator. ``record`` is a dict update under a lock (~1 us)."""

    what = "deployment usage figures"
    thread_name = "sampan-usage-flush"

    def __init__(self) -> None:
        super().__init__()
        self._minutes: dict[tuple[int, int | None, int | None, int], MinuteUsage] = {}
        self._used_keys: set[int] = set()

    def record(
        self,
        *,
        deployment_id: int,
        key_id: int | None,
        latency_ms: float,
        error: bool,
        model_version_id: int | None = None,
        answers: Iterable[float] = (),
        regression: bool = False,
    ) -> None:
        """Count one call; ``answers`` are its instances' top-1 scores or values (answer_values)."""
        minute = int(time.time() // 60)
        buckets = [answer_bucket(x, regression=regression) for x in answers]
        slot = (deployment_id, key_id, model_version_id, minute)
        with self._lock:
            usage = self._minutes.get(slot)
            if usage is None:
                usage = self._minutes[slot] = MinuteUsage()
            for index in buckets:
                usage.scores[index] = usage.scores.get(index, 0) + 1
            usage.calls += 1
            usage.errors += error
            usage.latency_ms_sum += latency_ms
            bucket = bucket_of(latency_ms)
            usage.histogram[bucket] = usage.histogram.get(bucket, 0) + 1
            usage.dirty = True
            if key_id is not None:
                self._used_keys.add(key_id)
        self._ensure_started()

    def flush(self) -> int:
        """Write the minutes that changed since the last flush; returns how many rows were written."""
        from django.db import IntegrityError, transaction

        from deploy.models import DeploymentKey, UsageMinute

        current = int(time.time() // 60)
        with self._lock:
            pending = [
                (k, MinuteUsage(u.calls, u.errors, u.latency_ms_sum, dict(u.histogram), True, dict(u.scores)))
                for k, u in self._minutes.items()
                if u.dirty
            ]
            for k, _ in pending:
                self._minutes[k].dirty = False
            for k in [k for k in self._minutes if k[3] < current - 1 and not self._minutes[k].dirty]:
                del self._minutes[k]  # finished minutes, written: forget them
            used_keys, self._used_keys = self._used_keys, set()
        written = 0
        try:
            for (deployment_id, key_id, model_version_id, minute), usage in pending:
                values = {
                    "calls": usage.calls,
                    "errors": usage.errors,
                    "latency_ms_sum": usage.latency_ms_sum,
                    "histogram": {str(k): v for k, v in usage.histogram.items()},
                    "scores": {str(k): v for k, v in usage.scores.items()},
                }
                at = datetime.fromtimestamp(minute * 60, tz=UTC)
                try:
                    with transaction.atomic():
                        updated = UsageMinute.objects.filter(
                            deployment_id=deployment_id,
                            key_id=key_id,
                            model_version_id=model_version_id,
                            minute=at,
                            writer=self.writer,
                        ).update(**values)
                        if not updated:
                            UsageMinute.objects.create(
                                deployment_id=deployment_id,
                                key_id=key_id,
                                model_version_id=model_version_id,
                                minute=at,
                                writer=self.writer,
                                **values,
                            )
                    written += 1
                except IntegrityError:  # the deployment (or key) was deleted meanwhile
                    continue
            if used_keys:
                from django.utils import timezone

                DeploymentKey.objects.filter(pk__in=used_keys).update(last_used_at=timezone.now())
                used_keys = set()
        except BaseException:
            # not written: mark them again (rows hold absolute values, so rewriting one that did land is
            # harmless)
            with self._lock:
                for k, usage in pending:
                    live = self._minutes.get(k)
                    if live is None:  # a finished minute, forgotten above: keep the copy taken
                        usage.dirty = True
                        self._minutes[k] = usage
                    else:  # still counting (a newer total): write that
                        live.dirty = True
                self._used_keys |= used_keys
            raise
        return written


recorder = UsageRecorder()
