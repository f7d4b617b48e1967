"""The hosted prediction endpoint's machinery, kept per web process and off Django's slow paths.

- Serving state: a deployment's status, model version and keys, cached per process and checked on
  every request against the deployment's ``serving_stamp`` (one indexed single-column read), so a
  revoked key, a stop or a switch takes effect on the very next request in every process.
- Predictors: each model version's files are copied from blob storage into
  SAMPAN_HOME/serving-cache once, loaded into an ONNX Runtime session once per process, and kept.
  A request takes the predictor of the state it read at its start, so a switch is atomic: requests
  already running finish on the old session, later ones use the new one; nothing is dropped.
  ONNX Runtime releases the GIL while it computes, so the other gthread threads keep serving.
- Quotas: a fixed one-minute window per key, counted in Redis when the broker is Redis (shared by
  every web process), else in this process (exact for the embedded single-process web server).
- Usage: recorded in memory and written about once a second (deploy.usage).
- The database away (refusing connections, a failover): a deployment whose state this process
  verified less than SAMPAN_DEPLOY_STALE_SECONDS (30) ago is served from that cached state: its
  keys, revocations and expiry dates as they were then (a revocation it had not read yet is
  honoured within the same bound: the stale state is never used longer; none can be committed
  during the outage). Past that bound the answer is a 503
  ``database_unavailable`` with Retry-After, never a 500. After a failed read the database is not
  asked again for a second (every request would otherwise wait for its own connection attempt).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import DatabaseError, connection

logger = logging.getLogger("sampan.deploy")

DEFAULT_MAX_BATCH = 32
DEFAULT_TRY_MAX_BATCH = 10
DEFAULT_TRY_PER_MINUTE = 60


def max_batch() -> int:
    return int(getattr(settings, "SAMPAN_DEPLOY_MAX_BATCH", DEFAULT_MAX_BATCH))


def try_max_batch() -> int:
    """The batch limit of the try routes (deploy.api.try_it): a few instances, never more than the API's."""
    return min(max_batch(), int(getattr(settings, "SAMPAN_TRY_MAX_BATCH", DEFAULT_TRY_MAX_BATCH)))


def try_per_minute() -> int:
    """Try calls per user per minute (deploy.api.try_it); 0 turns the limit off."""
    return int(getattr(settings, "SAMPAN_TRY_PER_MINUTE", DEFAULT_TRY_PER_MINUTE))


def max_body_bytes() -> int:
    return int(getattr(settings, "SAMPAN_DEPLOY_MAX_BODY_BYTES", settings.SAMPAN_MAX_REQUEST_BYTES))


def max_image_pixels() -> int:
    return int(getattr(settings, "SAMPAN_DEPLOY_MAX_IMAGE_PIXELS", settings.SAMPAN_DATASET_MAX_IMAGE_PIXELS))


@dataclass(frozen=True, slots=True)
class KeyState:
    id: int
    revoked: bool
    expires_at: float | None  # unix time
    quota_per_minute: int | None


@dataclass(frozen=True, slots=True)
class ModelVersionState:
    id: int
    name: str
    template: str
    onnx_key: str
    onnx_sha256: str
    classes: tuple[str, ...]
    preprocessing_json: str

    @property
    def public(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "template": self.template}


def model_version_state(mv: Any) -> ModelVersionState:
    """What serving needs of a ``training.ModelVersion`` row."""
    return ModelVersionState(
        id=mv.pk,
        name=mv.name,
        template=mv.template,
        onnx_key=mv.onnx_key,
        onnx_sha256=mv.onnx_sha256,
        classes=tuple(mv.classes),
        preprocessing_json=json.dumps(mv.preprocessing),
    )


@dataclass(frozen=True, slots=True)
class DeploymentState:
    """What serving needs of one deployment at one stamp. ``model_version`` is the primary;
    ``canaries`` answer their weight (percent) of the requests, the primary the rest; ``shadow``
    gets a copy of every answered request (deploy.shadow); ``capture`` is deploy.capture's policy
    snapshot (None: off)."""

    id: int
    stamp: int
    active: bool
    model_version: ModelVersionState
    keys: Mapping[str, KeyState]  # by digest
    canaries: tuple[tuple[ModelVersionState, int], ...] = ()
    shadow: ModelVersionState | None = None
    sticky: bool = False
    capture: Any = None

    def versions(self) -> list[ModelVersionState]:
        """Every version this deployment may run: the primary, the canaries, the shadow."""
        versions = [self.model_version, *(mv for mv, _ in self.canaries)]
        if self.shadow is not None:
            versions.append(self.shadow)
        return versions

    def choose(self, key_id: int | None = None) -> ModelVersionState:
        """The version that answers one request: weighted random over the canaries and the primary;
        with sticky traffic, a hash of the key (the same in every process) picks the percentile, so
        each key stays on one version while the split is unchanged."""
        if not self.canaries:
            return self.model_version
        sticky = self.sticky and key_id is not None
        point = sticky_point(self.id, key_id) if sticky and key_id is not None else random.randrange(100)
        for mv, weight in self.canaries:
            if point < weight:
                return mv
            point -= weight
        return self.model_version


def sticky_point(deployment_id: int, key_id: int) -> int:
    """A key's fixed percentile (0-99) in a deployment's split: the same in every web process."""
    digest = hashlib.blake2b(f"{deployment_id}:{key_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % 100


STAMP_SQL = "SELECT serving_stamp FROM deploy_deployment WHERE id = %s"


class StampReader:
    """Reads serving stamps from embedded SQLite over its own long-lived read-only connection per
    thread, in autocommit (it sees committed data only).

    Django closes its SQLite connection at the end of every request (CONN_MAX_AGE 0), and opening
    it again (with its WAL pragma) costs milliseconds, ten times the rest of a prediction.
    PostgreSQL connections persist across requests (CONN_MAX_AGE 60), so there Django's connection
    is used as it is (``read`` answers None).
    """

    def __init__(self) -> None:
        self._local = threading.local()

    def read(self, deployment_id: int) -> int | None:
        db = settings.DATABASES["default"]
        if db["ENGINE"] != "django.db.backends.sqlite3":
            return None
        import sqlite3

        for attempt in (1, 2):
            conn = getattr(self._local, "conn", None)
            try:
                if conn is None:
                    conn = self._local.conn = sqlite3.connect(
                        f"file:{db['NAME']}?mode=ro",
                        uri=True,
                        isolation_level=None,
                        check_same_thread=True,
                        timeout=float(db.get("OPTIONS", {}).get("timeout", 5)),
                    )
                row = conn.execute(STAMP_SQL.replace("%s", "?"), (deployment_id,)).fetchone()
                return None if row is None else row[0]
            except sqlite3.Error:
                self._local.conn = None
                if conn is not None:
                    conn.close()
                if attempt == 2:
                    logger.warning("reading a serving stamp from SQLite failed", exc_info=True)
        return None


stamp_reader = StampReader()


DATABASE_RETRY_SECONDS = 1.0
UNAVAILABLE_RETRY_AFTER = 5


def stale_seconds() -> float:
    return float(getattr(settings, "SAMPAN_DEPLOY_STALE_SECONDS", 30))


class ServingUnavailable(Exception):
    """The database cannot be read and this process holds no state of the deployment recent enough."""

    retry_after = UNAVAILABLE_RETRY_AFTER


class ServingStates:
    """Deployment id -> DeploymentState, reloaded when the stored stamp moves; served from the cache
    for a bounded staleness while the database cannot be read (module docstring)."""

    def __init__(self) -> None:
        self._states: dict[int, DeploymentState] = {}
        self._verified: dict[int, float] = {}  # deployment id -> monotonic time its stamp was last read
        self._lock = threading.Lock()
        self._database_down_until = 0.0
        self._outage_logged = False

    def _stamp(self, deployment_id: int) -> int | None:
        stamp = stamp_reader.read(deployment_id)
        if stamp is not None:
            return stamp
        # Not found by the reader (or no reader): ask through Django's connection, which also sees
        # rows of a transaction still open in this thread (tests).
        with connection.cursor() as cursor:
            cursor.execute(STAMP_SQL, [deployment_id])
            row = cursor.fetchone()
        return None if row is None else row[0]

    @staticmethod
    def _load(deployment_id: int) -> DeploymentState | None:
        from deploy.models import Deployment, DeploymentKey, DeploymentStatus, DeploymentTraffic, TrafficRole

        deployment = Deployment.objects.select_related("model_version").filter(pk=deployment_id).first()
        if deployment is None:
            return None
        canaries: list[tuple[ModelVersionState, int]] = []
        shadow = None
        for row in DeploymentTraffic.objects.filter(deployment_id=deployment_id).select_related(
            "model_version"
        ):
            if row.role == TrafficRole.SHADOW:
                shadow = model_version_state(row.model_version)
            elif row.weight > 0:
                canaries.append((model_version_state(row.model_version), row.weight))
        keys = {
            digest: KeyState(
                id=pk,
                revoked=revoked_at is not None,
                expires_at=None if expires_at is None else expires_at.timestamp(),
                quota_per_minute=quota,
            )
            for pk, digest, revoked_at, expires_at, quota in DeploymentKey.objects.filter(
                deployment_id=deployment_id
            ).values_list("pk", "digest", "revoked_at", "expires_at", "quota_per_minute")
        }
        return DeploymentState(
            id=deployment.pk,
            stamp=deployment.serving_stamp,
            active=deployment.status == DeploymentStatus.ACTIVE,
            model_version=model_version_state(deployment.model_version),
            keys=keys,
            canaries=tuple(canaries),
            shadow=shadow,
            sticky=deployment.sticky_traffic,
            capture=_capture_policy(deployment_id),
        )

    def get(self, deployment_id: int) -> DeploymentState | None:
        """The deployment's current state (None: no such deployment). Raises ServingUnavailable when
        the database cannot be read and the cached state is older than the staleness bound."""
        now = time.monotonic()
        if now < self._database_down_until:
            return self._cached(deployment_id, now)
        try:
            state = self._read(deployment_id)
        except DatabaseError as exc:
            self._database_down_until = time.monotonic() + DATABASE_RETRY_SECONDS
            if not self._outage_logged:
                self._outage_logged = True
                logger.warning(
                    "the database cannot be read (%s: %s); serving cached deployment states for up to %s s",
                    type(exc).__name__,
                    str(exc).strip().splitlines()[0][:200] if str(exc) else "",
                    stale_seconds(),
                )
            return self._cached(deployment_id, now)
        if self._outage_logged:
            self._outage_logged = False
            logger.warning("the database answers again; deployment states are read from it")
        if state is None:
            self._verified.pop(deployment_id, None)
        else:
            self._verified[deployment_id] = now
        return state

    def _cached(self, deployment_id: int, now: float) -> DeploymentState:
        state, verified = self._states.get(deployment_id), self._verified.get(deployment_id)
        limit = stale_seconds()
        if state is None or verified is None:
            raise ServingUnavailable(
                f"The platform's database cannot be reached and this web process holds no state "
                f"of deployment {deployment_id} to serve it from."
            )
        if now - verified > limit:
            raise ServingUnavailable(
                f"The platform's database cannot be reached and this deployment's cached state is "
                f"{now - verified:.0f} s old, past the {limit:g} s this server may serve it for "
                f"(SAMPAN_DEPLOY_STALE_SECONDS)."
            )
        return state

    def _read(self, deployment_id: int) -> DeploymentState | None:
        stamp = self._stamp(deployment_id)
        if stamp is None:
            self._states.pop(deployment_id, None)
            return None
        state = self._states.get(deployment_id)
        if state is not None and state.stamp == stamp:
            return state
        state = self._load(deployment_id)
        if state is not None:
            with self._lock:
                current = self._states.get(deployment_id)
                if current is None or current.stamp <= state.stamp:
                    self._states[deployment_id] = state
        return state


def _capture_policy(deployment_id: int) -> Any:
    """deploy.capture's policy snapshot of the deployment (None: capture off, or not installed)."""
    try:
        from deploy import capture
    except ImportError:
        return None
    load_policy = getattr(capture, "load_policy", None)
    return None if load_policy is None else load_policy(deployment_id)


class ModelUnavailable(Exception):
    """The model version's files cannot be read from storage or loaded."""


class ModelRejected(ModelUnavailable):
    """The model version's ONNX file is not a model ONNX Runtime can serve: retrying cannot help."""


class PredictorCache:
    """Model version id -> loaded predictor, loaded once per process (one loader per version).

    At most SAMPAN_DEPLOY_MAX_LOADED_MODELS (default 8) stay loaded, the least recently used
    leaving first; a request that still holds an evicted predictor finishes with it.
    """

    def __init__(self) -> None:
        self._predictors: OrderedDict[int, Any] = OrderedDict()
        self._locks: dict[int, threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, mv: ModelVersionState) -> Any:
        predictor = self._predictors.get(mv.id)
        if predictor is not None:
            if next(reversed(self._predictors), None) != mv.id:
                with self._lock:
                    if mv.id in self._predictors:
                        self._predictors.move_to_end(mv.id)
            return predictor
        with self._lock:
            lock = self._locks.setdefault(mv.id, threading.Lock())
        with lock:
            predictor = self._predictors.get(mv.id)
            if predictor is None:
                predictor = self._load(mv)
                limit = int(getattr(settings, "SAMPAN_DEPLOY_MAX_LOADED_MODELS", 8))
                with self._lock:
                    self._predictors[mv.id] = predictor
                    while len(self._predictors) > max(1, limit):
                        evicted, _ = self._predictors.popitem(last=False)
                        self._locks.pop(evicted, None)
        return predictor

    @staticmethod
    def model_dir(mv: ModelVersionState) -> Path:
        # keyed by everything materialize writes: the ONNX file's sha256 and the class names, the
        # preprocessing and the template (8 hex digits of their digest)
        # (canonical JSON: PostgreSQL's jsonb does not keep the keys' order)
        files = hashlib.sha256(
            json.dumps(
                [mv.template, list(mv.classes), json.loads(mv.preprocessing_json or "null")], sort_keys=True
            ).encode()
        ).hexdigest()[:8]
        return (
            Path(settings.SAMPAN_HOME)
            / "serving-cache"
            / f"model-version-{mv.id}-{mv.onnx_sha256[:16]}{files}"
        )

    def _load(self, mv: ModelVersionState) -> Any:
        from workers.serving.predictors import load_predictor
        from workers.shared.onnx_model import OnnxRejected

        directory = self.model_dir(mv)
        try:
            if not (directory / "manifest.json").is_file():
                materialize(mv, directory)
            threads = int(getattr(settings, "SAMPAN_DEPLOY_ORT_THREADS", 1))
            return load_predictor(directory, threads=threads)
        except ModelUnavailable:
            raise
        except OnnxRejected as exc:
            raise ModelRejected(f"Model version {mv.name} cannot be served: {exc}") from None
        except Exception as exc:
            logger.exception("loading model version %s for serving failed", mv.id)
            raise ModelUnavailable(
                f"Model version {mv.name} cannot be loaded: {type(exc).__name__}: {exc}"
            ) from None


def materialize(mv: ModelVersionState, directory: Path) -> Path:
    """Copy a model version's ONNX file from storage (checking its sha256) and write its JSON files."""
    temp = directory.with_name(f".{directory.name}.{os.getpid()}.{threading.get_ident()}")
    shutil.rmtree(temp, ignore_errors=True)
    temp.mkdir(parents=True)
    digest = hashlib.sha256()
    try:
        with default_storage.open(mv.onnx_key, "rb") as source, (temp / "model.onnx").open("wb") as out:
            for chunk in iter(lambda: source.read(1 << 20), b""):
                digest.update(chunk)
                out.write(chunk)
    except (FileNotFoundError, OSError) as exc:
        shutil.rmtree(temp, ignore_errors=True)
        raise ModelUnavailable(
            f"The ONNX file of model version {mv.name} cannot be read from storage ({exc})."
        ) from None
    if mv.onnx_sha256 and digest.hexdigest() != mv.onnx_sha256:
        shutil.rmtree(temp, ignore_errors=True)
        raise ModelUnavailable(
            f"The stored ONNX file of model version {mv.name} no longer matches its sha256."
        )
    (temp / "preprocess.json").write_text(mv.preprocessing_json)
    (temp / "labels.json").write_text(json.dumps(list(mv.classes)))
    (temp / "manifest.json").write_text(
        json.dumps(
            {
                "template": mv.template,
                "model_version": mv.public,
                "files": {"model.onnx": {"sha256": digest.hexdigest()}},
            }
        )
    )
    try:
        os.replace(temp, directory)
    except OSError:  # another process got there first: its copy is the same bytes
        shutil.rmtree(temp, ignore_errors=True)
    return directory


class QuotaCounter:
    """Calls per key per minute (fixed windows). ``hit`` returns seconds to wait, or 0 when allowed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[tuple[str, int], int] = {}
        self._redis: Any = None
        self._redis_checked = False

    def _client(self):
        if not self._redis_checked:
            self._redis_checked = True
            url = getattr(settings, "CELERY_BROKER_URL", "") or ""
            if url.startswith(("redis://", "rediss://")):
                import redis

                self._redis = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        return self._redis

    def hit(self, key: KeyState, now: float) -> int:
        if not key.quota_per_minute:
            return 0
        return self.count(f"quota:{key.id}", key.quota_per_minute, now)

    def count(self, name: str, limit: int, now: float) -> int:
        """Count one call of ``name`` (e.g. ``quota:<key id>``, ``try:user:<id>``) in this minute:
        seconds to wait when it is over ``limit``, else 0."""
        window = int(now // 60)
        retry_after = max(1, int(60 * (window + 1) - now + 0.999))
        client = self._client()
        if client is not None:
            redis_name = f"sampan:deploy:{name}:{window}"
            try:
                pipe = client.pipeline()
                pipe.incr(redis_name)
                pipe.expire(redis_name, 120)
                count = pipe.execute()[0]
            except Exception:  # Redis away: count in this process rather than refuse or ignore the quota
                logger.warning("quota counting in Redis failed; counting in this process", exc_info=True)
                count = self._local(name, window)
        else:
            count = self._local(name, window)
        return retry_after if count > limit else 0

    def _local(self, name: str, window: int) -> int:
        with self._lock:
            count = self._counts.get((name, window), 0) + 1
            self._counts[(name, window)] = count
            if len(self._counts) > 10_000:
                for stale in [k for k in self._counts if k[1] < window]:
                    del self._counts[stale]
        return count


def expired(key: KeyState, now: float) -> bool:
    return key.expires_at is not None and key.expires_at <= now


states = ServingStates()
predictors = PredictorCache()
quotas = QuotaCounter()
