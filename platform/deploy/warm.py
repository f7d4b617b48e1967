"""No cold start: every web process loads the models of every active deployment before a request needs them.

A per-process background thread (``start()``; config/gunicorn.py calls it in every web process once
the app is loaded) polls the serving stamps of the active deployments, one query a second
(SAMPAN_DEPLOY_WARM_INTERVAL_SECONDS). At its first look, and whenever a deployment's stamp moves
(a deploy, a start, a switch, a promote, a canary or shadow change: deploy.services bump the stamp),
it reads the deployment's serving state through ``serving.states`` (so the request that follows finds
it current) and loads the predictor of every version the deployment serves (primary, canaries,
shadow: ``DeploymentState.versions()``) into ``serving.predictors``, then runs one dummy inference
on it so ONNX Runtime's first-run allocations are made before a client pays for them.

After each change it also removes the model directories under SAMPAN_HOME/serving-cache that no
deployment uses any more (``cleanup_serving_cache``), never one loaded in this process, one a
deployment uses, or one written within the last SAMPAN_DEPLOY_CACHE_GRACE_SECONDS (another process
may be loading it).

SAMPAN_DEPLOY_PRELOAD=false turns the thread off (models are then loaded by the first request that
needs them, as before). The thread never raises: a model that cannot be loaded is logged and tried
again at its deployment's next stamp change (the request then answers 503/409 as it always did).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections

from deploy import serving

logger = logging.getLogger("sampan.deploy")

MODEL_DIR = re.compile(r"model-version-(\d+)-([0-9a-f]{1,64})\Z")


def preload_enabled() -> bool:
    return bool(getattr(settings, "SAMPAN_DEPLOY_PRELOAD", True))


def interval_seconds() -> float:
    return float(getattr(settings, "SAMPAN_DEPLOY_WARM_INTERVAL_SECONDS", 1.0))


def grace_seconds() -> float:
    return float(getattr(settings, "SAMPAN_DEPLOY_CACHE_GRACE_SECONDS", 600))


def state_versions(state: serving.DeploymentState) -> list[serving.ModelVersionState]:
    """The versions a deployment serves: primary, canaries, shadow (``DeploymentState.versions()``
    where serving has it, else the primary)."""
    versions = getattr(state, "versions", None)
    found = list(versions()) if callable(versions) else [state.model_version]
    seen: set[int] = set()
    unique = []
    for mv in found:
        if mv is not None and mv.id not in seen:
            seen.add(mv.id)
            unique.append(mv)
    return unique


def forecast_warm_up_instance(spec: dict[str, Any]) -> dict[str, Any]:
    """A flat history a forecaster takes: ``min_history`` points at its frequency, its known
    covariates at 0 over the history and the horizon, a training series' id (its static covariates)."""
    import numpy as np

    from workers.time_series.frequency import format_timestamp, parse_frequency

    n = max(int(spec.get("min_history", 1)), 2)
    stamps = parse_frequency(spec["frequency"]).grid(np.datetime64("2020-01-01T00:00:00"), n)
    ids = list(spec.get("series_ids") or [])
    return {
        "id": ids[0] if ids else "warm-up",
        "timestamps": [format_timestamp(t) for t in stamps],
        "values": [1.0] * n,
        "known": {name: [0.0] * (n + int(spec["horizon"])) for name in spec.get("known_covariates", [])},
    }


def warm_up(predictor: Any) -> None:
    """One dummy inference, so ONNX Runtime's first run (allocations, kernel selection) is not a
    client's. Best effort: a model that refuses the dummy input is simply not warmed further."""
    try:
        kind = getattr(predictor, "data_kind", "")
        if kind == "image":
            from PIL import Image

            image = Image.new("RGB", (32, 32), (127, 127, 127))
            if getattr(predictor, "prediction_kind", "") == "detection_prediction":
                predictor.detect([image])
            else:
                predictor.predict([image], 1)
        elif kind == "text":
            predictor.predict(["warm up"], 1)
        elif kind == "time_series":
            predictor.forecast({"instances": [forecast_warm_up_instance(predictor.preprocessing)]})
        elif kind == "tabular":
            model = getattr(predictor, "model", None)
            columns = list(getattr(model, "columns", []) or [])
            if columns:
                predictor.predict([dict.fromkeys(columns)], 1)
    except Exception as exc:  # the dummy is ours, not a client's: never an error worth more than a line
        logger.debug("warm-up inference of %s skipped: %s: %s", predictor, type(exc).__name__, exc)


def used_model_versions() -> set[int]:
    """Ids of the model versions some deployment serves (any status: primary, canary or shadow)."""
    from deploy.models import Deployment, DeploymentTraffic

    used = set(Deployment.objects.values_list("model_version_id", flat=True))
    used.update(DeploymentTraffic.objects.values_list("model_version_id", flat=True))
    return used


def used_model_dirs(used: set[int]) -> set[str]:
    """The serving-cache directory names of model versions ``used`` (the name holds the version's
    id and a digest of its files: a directory of the same id with other files is stale)."""
    from training.models import ModelVersion

    return {
        serving.PredictorCache.model_dir(serving.model_version_state(mv)).name
        for mv in ModelVersion.objects.filter(pk__in=used)
    }


def loaded_model_versions() -> set[int]:
    """Ids of the model versions whose predictor this process holds loaded."""
    return set(serving.predictors._predictors)


def cleanup_serving_cache(*, used: set[int] | None = None, now: float | None = None) -> list[str]:
    """Remove the model directories of SAMPAN_HOME/serving-cache that no deployment uses: not the
    directory of a version some deployment serves (a directory of the same version id with other
    files is stale), not of a version loaded in this process, not written within the grace period
    (a request of another process may be loading it), and leftover temporary copies older than the
    grace period. Returns the names removed."""
    root = Path(settings.SAMPAN_HOME) / "serving-cache"
    if not root.is_dir():
        return []
    used = used_model_versions() if used is None else used
    used_dirs = used_model_dirs(used)
    loaded = loaded_model_versions()
    now = time.time() if now is None else now
    grace = grace_seconds()
    removed = []
    for entry in root.iterdir():
        try:
            if not entry.is_dir() or entry.is_symlink():
                continue
            match = MODEL_DIR.match(entry.name)
            if entry.name.startswith("."):  # a copy in progress (serving.materialize), or one left by a crash
                pass
            elif match is None or entry.name in used_dirs or int(match[1]) in loaded:
                continue
            if now - entry.stat().st_mtime < grace:
                continue
        except OSError:
            continue
        shutil.rmtree(entry, ignore_errors=True)
        if not entry.exists():
            removed.append(entry.name)
    if removed:
        logger.info("serving cache: removed %d unused model dirs: %s", len(removed), ", ".join(removed))
    return removed


class Warmer:
    """The per-process preloader (module docstring). ``run_once`` is one poll, for tests and the loop."""

    def __init__(self) -> None:
        self._seen: dict[int, int] = {}  # deployment id -> stamp warmed
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid: int | None = None
        self._lock = threading.Lock()

    def run_once(self) -> list[int]:
        """Warm the active deployments whose stamp moved since the last poll; returns the ids of the
        model versions loaded by this poll."""
        from deploy.models import Deployment, DeploymentStatus

        stamps = dict(
            Deployment.objects.filter(status=DeploymentStatus.ACTIVE).values_list("id", "serving_stamp")
        )
        changed = [pk for pk, stamp in stamps.items() if self._seen.get(pk) != stamp]
        gone = [pk for pk in self._seen if pk not in stamps]
        for pk in gone:
            del self._seen[pk]
        loaded: list[int] = []
        for pk in sorted(changed):
            try:
                state = serving.states.get(pk)
            except serving.ServingUnavailable:
                continue
            if state is None:
                continue
            for mv in state_versions(state):
                if self._stop.is_set():
                    return loaded
                already = mv.id in loaded_model_versions()
                try:
                    predictor = serving.predictors.get(mv)
                except serving.ModelUnavailable as exc:  # ModelRejected too: the request will say so
                    logger.warning("preloading model version %s of deployment %s failed: %s", mv.id, pk, exc)
                    continue
                if not already:
                    warm_up(predictor)
                    loaded.append(mv.id)
                    logger.info(
                        "web process %d preloaded model version %s (deployment %s)", os.getpid(), mv.id, pk
                    )
            self._seen[pk] = state.stamp  # a failed load is tried again at the next stamp change
        if changed or gone:
            try:
                cleanup_serving_cache()
            except Exception:
                logger.warning("serving cache cleanup failed", exc_info=True)
        return loaded

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.run_once()
            except DatabaseError as exc:  # the database is away: try again at the next poll
                logger.debug("preloading: the database cannot be read (%s)", exc)
            except Exception:
                logger.exception("preloading deployment models failed")
            finally:
                close_old_connections()
            self._stop.wait(interval_seconds())

    def start(self) -> bool:
        """Start the thread in this process (again after a fork); False when preloading is off or it runs."""
        if not preload_enabled():
            return False
        with self._lock:
            if self._pid == os.getpid() and self._thread is not None and self._thread.is_alive():
                return False
            self._pid = os.getpid()
            self._seen = {}
            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._loop, name="sampan-deploy-warmer", daemon=True)
            self._thread.start()
            return True

    def stop(self, timeout: float = 10) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)


warmer = Warmer()


def start() -> bool:
    """Start this process's warmer (config/gunicorn.py's post_worker_init; any other server's start)."""
    return warmer.start()
