"""Settings read from environment variables, failing loudly on malformed values.

Every variable Sampan reads is declared in ``ENV_VARS`` so docs and the docker-compose check
can be verified against the code. A bad value raises ``EnvError`` naming the variable, before
anything starts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import overload
from urllib.parse import parse_qs, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured


class EnvError(ImproperlyConfigured):
    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"environment variable {name}: {problem}")
        self.name = name


@dataclass(frozen=True)
class EnvVar:
    name: str
    help: str


ENV_VARS: dict[str, EnvVar] = {
    v.name: v
    for v in [
        EnvVar("SAMPAN_HOME", "data directory for the embedded database, broker, blobs (default ~/.sampan)"),
        EnvVar("SAMPAN_HOST", "address the web server binds (default 127.0.0.1)"),
        EnvVar("SAMPAN_FRONTEND_DIST", "folder of a built web app to serve (default frontend/dist)"),
        EnvVar("SAMPAN_PORT", "port the web server listens on (default 8000)"),
        EnvVar("DATABASE_URL", "postgres://user:pass@host:5432/name; unset: SQLite under SAMPAN_HOME"),
        EnvVar(
            "CELERY_BROKER_URL",
            "redis://host:6379/0 or amqp://...; unset: filesystem transport under SAMPAN_HOME",
        ),
        EnvVar("DJANGO_SECRET_KEY", "secret key; required in production"),
        EnvVar("DJANGO_SETTINGS_MODULE", "config.settings.local (default) or config.settings.production"),
        EnvVar("DJANGO_ALLOWED_HOSTS", "comma-separated host names; required in production"),
        EnvVar("SAMPAN_CSRF_TRUSTED_ORIGINS", "comma-separated origins such as https://sampan.example.com"),
        EnvVar("SAMPAN_SECURE_COOKIES", "true when served over HTTPS (production default true)"),
        EnvVar("SAMPAN_ADMIN_USERNAME", "username of the first administrator (default admin)"),
        EnvVar(
            "SAMPAN_ADMIN_PASSWORD",
            "password of the first administrator; required to create one in production",
        ),
        EnvVar("SAMPAN_ADMIN_EMAIL", "e-mail of the first administrator"),
        EnvVar(
            "SAMPAN_WORKER_QUEUES",
            "queues a worker consumes: auto (cpu, plus gpu when a GPU is found), or a list",
        ),
        EnvVar("SAMPAN_WORKER_CONCURRENCY", "worker processes per worker host (default 1)"),
        EnvVar(
            "SAMPAN_MAX_PROCESSES",
            "most data-parallel processes (ranks) a training job may ask for on one worker host (default 8)",
        ),
        EnvVar("SAMPAN_JOB_HEARTBEAT_SECONDS", "how often a running job reports it is alive (default 5)"),
        EnvVar("SAMPAN_JOB_STALE_SECONDS", "a running job silent this long is reaped (default 60)"),
        EnvVar(
            "SAMPAN_JOB_MAX_ATTEMPTS", "attempts before a job whose worker keeps dying is failed (default 3)"
        ),
        EnvVar("SAMPAN_REAPER_INTERVAL_SECONDS", "how often the reaper looks for stale jobs (default 15)"),
        EnvVar(
            "SAMPAN_CHECKPOINT_MIRROR_SECONDS",
            "how often a training's newest checkpoint is copied to remote blob storage, so another host "
            "can resume it (seconds, default 2)",
        ),
        EnvVar(
            "SAMPAN_BLOB_GC_GRACE_HOURS",
            "an unreferenced blob younger than this is kept by the blob garbage collector (default 24)",
        ),
        EnvVar(
            "SAMPAN_JOB_SCHEDULING",
            "which queued job a free worker slot gets: fair (priority class, then the workspace running "
            "the fewest jobs, then the oldest) or fifo (the oldest) (default fair)",
        ),
        EnvVar(
            "SAMPAN_WORKSPACE_MAX_JOBS",
            "jobs a workspace without its own limits may run at once; 0: unlimited (default 0)",
        ),
        EnvVar(
            "SAMPAN_WORKSPACE_MAX_GPU_JOBS",
            "gpu-queue jobs a workspace without its own limits may run at once; 0: unlimited (default 0)",
        ),
        EnvVar(
            "SAMPAN_CUSTOM_JOB_WALL_TIME_S",
            "a custom job's default wall-time limit in seconds (default 3600)",
        ),
        EnvVar(
            "SAMPAN_CUSTOM_JOB_MAX_WALL_TIME_S", "the most wall time a custom job may ask for (default 86400)"
        ),
        EnvVar("SAMPAN_CUSTOM_JOB_MEMORY_MB", "a custom job's default memory limit in MiB (default 4096)"),
        EnvVar(
            "SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB",
            "the most memory a custom job may ask for in MiB (default 65536)",
        ),
        EnvVar("SAMPAN_CUSTOM_JOB_CPUS", "a custom job's default CPU threads (default 2)"),
        EnvVar("SAMPAN_CUSTOM_JOB_MAX_CPUS", "the most CPU threads a custom job may ask for (default 64)"),
        EnvVar(
            "SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES", "the largest code upload (script, zip, notebook) in bytes"
        ),
        EnvVar(
            "SAMPAN_SANDBOX_USER",
            "the unprivileged user custom code and notebooks run as when the worker is root (default nobody; "
            "empty: the worker's own user)",
        ),
        EnvVar(
            "SAMPAN_CUSTOM_JOB_NETWORK", "whether custom jobs may use the network by default (default false)"
        ),
        EnvVar(
            "SAMPAN_CUSTOM_ENV_CACHE",
            "where per-job virtual environments are cached (default $SAMPAN_HOME/custom-envs)",
        ),
        EnvVar(
            "SAMPAN_NOTEBOOK_IDLE_TIMEOUT_S",
            "a notebook server with no activity this long stops (default 3600)",
        ),
        EnvVar(
            "SAMPAN_NOTEBOOK_HOST", "the address notebook servers bind and are reached at (default 127.0.0.1)"
        ),
        EnvVar("SAMPAN_NOTEBOOK_TOKEN_TTL_S", "lifetime of the SDK token a notebook gets (default 43200)"),
        EnvVar(
            "SAMPAN_NOTEBOOK_PORTS",
            "the range of ports notebook servers take, e.g. 8800-8819 (default: any free port)",
        ),
        EnvVar(
            "SAMPAN_NOTEBOOK_PLATFORM_URL",
            "the platform's URL as a notebook reaches it (default: the URL the user started it from)",
        ),
        EnvVar(
            "SAMPAN_UMASK",
            "octal umask for Sampan's processes, e.g. 002 where a root worker shares SAMPAN_HOME with a web "
            "server of its group (docker-compose); unset: the inherited one",
        ),
        EnvVar(
            "SAMPAN_SANDBOX_ROOT",
            "where custom jobs and notebooks get their working folders (default $SAMPAN_HOME/sandbox)",
        ),
        EnvVar(
            "SAMPAN_STORAGE_URL",
            "blob storage: unset for files under SAMPAN_HOME/blobs, or "
            "s3://bucket/prefix?endpoint_url=https://minio:9000&region=us-east-1 for S3-compatible storage",
        ),
        EnvVar(
            "SAMPAN_STORAGE_ACCESS_KEY",
            "S3 access key (else boto3's usual sources: AWS_ACCESS_KEY_ID, roles)",
        ),
        EnvVar(
            "SAMPAN_STORAGE_SECRET_KEY",
            "S3 secret key (else boto3's usual sources: AWS_SECRET_ACCESS_KEY, roles)",
        ),
        EnvVar(
            "SAMPAN_MAX_REQUEST_BYTES",
            "largest API request body accepted, file uploads aside (default 10 MiB)",
        ),
        EnvVar("SAMPAN_WEB_THREADS", "request threads of the web process (default 8)"),
        EnvVar(
            "SAMPAN_WEB_PROCESSES",
            "web server processes, each with SAMPAN_WEB_THREADS threads and its own copy of the served "
            "models (default 2 with a Redis broker; 1 in embedded mode, where key quotas are counted per "
            "process)",
        ),
        EnvVar("SAMPAN_LOG_LEVEL", "DEBUG, INFO, WARNING or ERROR (default INFO)"),
        EnvVar(
            "SAMPAN_DATASET_MAX_UPLOAD_BYTES",
            "largest archive (or set of image files) one dataset import accepts; it also caps "
            "multipart upload requests (default 2 GiB)",
        ),
        EnvVar(
            "SAMPAN_DATASET_MAX_UNCOMPRESSED_BYTES",
            "largest total uncompressed size of an imported archive, checked while streaming (default 8 GiB)",
        ),
        EnvVar("SAMPAN_DATASET_MAX_FILES", "most files one dataset import may hold (default 200000)"),
        EnvVar(
            "SAMPAN_DATASET_MAX_COMPRESSION_RATIO",
            "highest uncompressed/compressed ratio of an imported archive or of one entry over 1 MiB "
            "(default 100)",
        ),
        EnvVar(
            "SAMPAN_DATASET_MAX_IMAGE_PIXELS",
            "largest image (width x height) a dataset accepts; larger ones are rejected, never decoded "
            "(default 50000000)",
        ),
        EnvVar(
            "SAMPAN_DATASET_MAX_IMAGE_BYTES", "largest single image file a dataset accepts (default 64 MiB)"
        ),
        EnvVar(
            "SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES",
            "imports with more files than this run as a background job instead of inside the request "
            "(default 300)",
        ),
        EnvVar(
            "SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES",
            "dataset versions of more samples than this are made by a background job (the API answers 202 "
            "with the job) instead of inside the request (default 5000)",
        ),
        EnvVar(
            "SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES",
            "exports of more samples than this are refused inside the request (409 export_needs_job) and run "
            "as a job that stores the zip for download (default 5000)",
        ),
        EnvVar(
            "SAMPAN_DATASET_EXPORT_RETENTION_HOURS",
            "the zip an export job stored is deleted this many hours after the job finished; its download "
            "then answers 404 export_expired (default 168: 7 days)",
        ),
        EnvVar(
            "SAMPAN_DATASET_MAX_TABLE_BYTES",
            "largest table file (CSV, TSV, JSONL, XLSX, Parquet) one text or tabular import accepts (default "
            "256 MiB)",
        ),
        EnvVar(
            "SAMPAN_AUTH_FAILURE_WINDOW_SECONDS",
            "window in which failed logins, personal tokens and deployment keys are counted (default 300)",
        ),
        EnvVar(
            "SAMPAN_LOGIN_FAILURES_PER_ACCOUNT",
            "wrong passwords for one account per window before its logins answer 429 (default 10)",
        ),
        EnvVar(
            "SAMPAN_LOGIN_FAILURES_PER_ADDRESS",
            "wrong passwords from one client address per window before its logins answer 429 (default 50)",
        ),
        EnvVar(
            "SAMPAN_AUTH_FAILURES_PER_ADDRESS",
            "invalid personal tokens, and apart from them invalid deployment keys, from one client address "
            "per window before they answer 429 (default 50)",
        ),
        EnvVar(
            "SAMPAN_TRUSTED_PROXY_COUNT",
            "reverse proxies in front of the web server whose X-Forwarded-For is trusted for the client "
            "address (default 0: the address of the connection)",
        ),
        EnvVar(
            "SAMPAN_BACKBONE_MAX_UPLOAD_BYTES",
            "largest backbone state_dict file (transfer learning weights) one upload accepts (default 512 "
            "MiB)",
        ),
        EnvVar(
            "SAMPAN_DEPLOY_STALE_SECONDS",
            "how long hosted predictions are served from a deployment's cached state while the database "
            "cannot be read; past it they answer 503 with Retry-After (default 30)",
        ),
        EnvVar(
            "SAMPAN_DEPLOY_MAX_BATCH",
            "most instances one hosted prediction request may carry; more answer 400 (default 32)",
        ),
        EnvVar(
            "SAMPAN_DEPLOY_MAX_BODY_BYTES",
            "largest hosted prediction request body; larger ones answer 413 (default and most: "
            "SAMPAN_MAX_REQUEST_BYTES)",
        ),
        EnvVar(
            "SAMPAN_DEPLOY_MAX_IMAGE_PIXELS",
            "largest image (width x height) a hosted prediction decodes; larger ones answer 400 (default: "
            "SAMPAN_DATASET_MAX_IMAGE_PIXELS)",
        ),
        EnvVar(
            "SAMPAN_DEPLOY_MAX_LOADED_MODELS",
            "model versions each web process keeps loaded for serving, the least recently used leaving "
            "first (default 8)",
        ),
        EnvVar(
            "SAMPAN_DEPLOY_ORT_THREADS",
            "ONNX Runtime intra-op threads per served model in a web process (default 1)",
        ),
        EnvVar(
            "SAMPAN_DEPLOY_SHADOW_QUEUE",
            "requests each web process may hold for a deployment's shadow version; when the shadow falls "
            "behind, further copies are dropped (counted, logged), never the answers delayed (default 64)",
        ),
        EnvVar(
            "SAMPAN_DEPLOY_PRELOAD",
            "each web process loads the models of every active deployment at start and after every "
            "deploy, switch, canary or shadow change, so no request waits for a load (default true)",
        ),
        EnvVar(
            "SAMPAN_DEPLOY_WARM_INTERVAL_SECONDS",
            "how often each web process checks the active deployments for a change to preload (default 1)",
        ),
        EnvVar(
            "SAMPAN_DEPLOY_CACHE_GRACE_SECONDS",
            "a model directory under SAMPAN_HOME/serving-cache that no deployment uses is removed once "
            "it is this old (default 600)",
        ),
        EnvVar(
            "SAMPAN_TRY_MAX_BATCH",
            "most instances one 'try it' request (signed-in users, no key) may carry (default 10, never "
            "more than SAMPAN_DEPLOY_MAX_BATCH)",
        ),
        EnvVar(
            "SAMPAN_TRY_PER_MINUTE",
            "'try it' requests per user per minute; 0 turns the limit off (default 60)",
        ),
    ]
}


def _raw(name: str) -> str | None:
    if name not in ENV_VARS:
        raise KeyError(f"{name} is read but not declared in config.env.ENV_VARS")
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


@overload
def env_str(name: str, default: str) -> str: ...
@overload
def env_str(name: str, default: None = None) -> str | None: ...
def env_str(name: str, default: str | None = None) -> str | None:
    value = _raw(name)
    return default if value is None else value


def env_required(name: str) -> str:
    value = _raw(name)
    if value is None:
        raise EnvError(name, "is required here but not set")
    return value


def env_int(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise EnvError(name, f"expected an integer, got {value!r}") from None
    if minimum is not None and number < minimum:
        raise EnvError(name, f"must be at least {minimum}, got {number}")
    if maximum is not None and number > maximum:
        raise EnvError(name, f"must be at most {maximum}, got {number}")
    return number


def env_float(
    name: str, default: float, *, minimum: float | None = None, maximum: float | None = None
) -> float:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise EnvError(name, f"expected a number, got {value!r}") from None
    if number != number or (minimum is not None and number < minimum):  # NaN too
        raise EnvError(name, f"must be at least {minimum}, got {value}")
    if maximum is not None and number > maximum:
        raise EnvError(name, f"must be at most {maximum}, got {value}")
    return number


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise EnvError(name, f"expected true/false, got {value!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_choice(name: str, default: str, choices: set[str]) -> str:
    value = _raw(name)
    if value is None:
        return default
    if value.upper() not in choices:
        raise EnvError(name, f"expected one of {', '.join(sorted(choices))}, got {value!r}")
    return value.upper()


def sampan_home() -> Path:
    value = _raw("SAMPAN_HOME")
    path = Path(value).expanduser() if value else Path.home() / ".sampan"
    if path.exists() and not path.is_dir():
        raise EnvError("SAMPAN_HOME", f"{path} exists and is not a directory")
    umask = _raw("SAMPAN_UMASK")
    if umask is not None:
        try:
            mask = int(umask, 8)
        except ValueError:
            raise EnvError("SAMPAN_UMASK", f"must be an octal number such as 002, got {umask!r}") from None
        if not 0 <= mask <= 0o777:
            raise EnvError("SAMPAN_UMASK", f"must be between 000 and 777, got {umask!r}")
        os.umask(mask)
    path.mkdir(parents=True, exist_ok=True)
    path = path.resolve()
    sampan_home_harden(path)
    return path


# What the sandbox user (custom code, notebooks) may reach under SAMPAN_HOME by its exact path: the
# working folders and the cached environments. Everything else (blobs, the SQLite database, the broker,
# caches, run directories) is closed to other users.
SANDBOX_REACHABLE = frozenset({"sandbox", "custom-envs"})


def sampan_home_harden(path: Path) -> None:
    """Close SAMPAN_HOME to other users (the sandbox user among them): SAMPAN_HOME keeps only o+x
    (others may pass through, not list it) and each entry in it but the sandbox's own folders loses
    every permission for others, so code run as the sandbox user cannot read blobs, databases or the
    broker even by a known path. The owner's and the group's bits stay (docker-compose's web server
    shares the volume through its group). Only what this user owns is changed; a failure to change a
    mode (a read-only mount) is left as it is."""
    me = os.geteuid()

    def restrict(target: Path, *, others: int) -> None:
        try:
            info = target.lstat()
            mode = (info.st_mode & 0o770) | others
            if info.st_uid == me and (info.st_mode & 0o777) != mode:
                target.chmod(mode)
        except OSError:
            pass

    restrict(path, others=0o001)
    try:
        entries = list(path.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.name in SANDBOX_REACHABLE or entry.is_symlink():
            continue
        restrict(entry, others=0)


def database_from_url(name: str, default_sqlite: Path) -> dict:
    """DATABASES['default'] from a postgres:// or sqlite:// URL; SQLite under SAMPAN_HOME when unset."""
    value = _raw(name)
    if value is None:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(default_sqlite),
            "OPTIONS": {
                "timeout": 30,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL;",
            },
        }
    parts = urlsplit(value)
    if parts.scheme in {"postgres", "postgresql", "pgsql"}:
        try:
            port = parts.port
        except ValueError:
            raise EnvError(name, f"port is not a number in {_redact(value)}") from None
        db_name = unquote(parts.path.lstrip("/"))
        if not parts.hostname and not parse_qs(parts.query).get("host"):
            raise EnvError(name, f"no host in {_redact(value)}; expected postgres://user:pass@host:5432/name")
        if not db_name or "/" in db_name:
            raise EnvError(
                name, f"no database name in {_redact(value)}; expected postgres://user:pass@host:5432/name"
            )
        options = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        host = options.pop("host", parts.hostname or "")
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": db_name,
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": host,
            "PORT": str(port or ""),
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": options,
        }
    if parts.scheme == "sqlite":
        path = unquote(value[len("sqlite://") :])
        if not path.startswith("/") or len(path) < 2:
            raise EnvError(name, f"expected sqlite:////absolute/path.db, got {value!r}")
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": path, "OPTIONS": {"timeout": 30}}
    raise EnvError(
        name, f"unsupported scheme {parts.scheme!r} in {_redact(value)}; use postgres:// or sqlite://"
    )


BROKER_SCHEMES = {
    "redis",
    "rediss",
    "amqp",
    "amqps",
    "pyamqp",
    "filesystem",
    "sqla+postgresql",
    "sqla+sqlite",
}


def broker_url(name: str) -> str | None:
    """The broker URL if set and well formed; None means the embedded filesystem transport."""
    value = _raw(name)
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in BROKER_SCHEMES:
        raise EnvError(
            name, f"unsupported scheme {parts.scheme!r}; use redis://host:6379/0 or amqp://host:5672//"
        )
    if parts.scheme in {"redis", "rediss", "amqp", "amqps", "pyamqp"}:
        if not parts.hostname:
            raise EnvError(name, f"no host in {_redact(value)}")
        try:
            parts.port  # noqa: B018 - raises on a non-numeric port
        except ValueError:
            raise EnvError(name, f"port is not a number in {_redact(value)}") from None
    if parts.scheme in {"redis", "rediss"} and parts.path.strip("/") and not parts.path.strip("/").isdigit():
        raise EnvError(name, f"redis database must be a number, got {parts.path!r}")
    return value


def _redact(url: str) -> str:
    parts = urlsplit(url)
    if parts.password:
        return url.replace(f":{parts.password}@", ":***@")
    return url


_S3_OPTIONS = {"endpoint_url", "region", "addressing_style", "signature_version"}


def storage_from_url(name: str, default_location: Path) -> dict:
    """STORAGES['default']: the local filesystem under SAMPAN_HOME, or S3-compatible object storage."""
    value = _raw(name)
    if value is None:
        return {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(default_location)},
        }
    parts = urlsplit(value)
    if parts.scheme != "s3":
        raise EnvError(
            name,
            f"unsupported scheme {parts.scheme!r}; use s3://bucket/prefix?endpoint_url=... or leave it unset",
        )
    if not parts.hostname:
        raise EnvError(name, f"no bucket in {value!r}; expected s3://bucket/prefix")
    query = parse_qs(parts.query)
    unknown = sorted(set(query) - _S3_OPTIONS)
    if unknown:
        raise EnvError(
            name, f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(_S3_OPTIONS))}"
        )
    options: dict = {
        "bucket_name": parts.hostname,
        "location": parts.path.strip("/"),
        "file_overwrite": True,
        "querystring_auth": False,
        "default_acl": None,
    }
    if "endpoint_url" in query:
        endpoint = query["endpoint_url"][-1]
        if urlsplit(endpoint).scheme not in {"http", "https"} or not urlsplit(endpoint).hostname:
            raise EnvError(name, f"endpoint_url must be an http(s) URL, got {endpoint!r}")
        options["endpoint_url"] = endpoint
    if "region" in query:
        options["region_name"] = query["region"][-1]
    if "addressing_style" in query:
        style = query["addressing_style"][-1]
        if style not in {"path", "virtual", "auto"}:
            raise EnvError(name, f"addressing_style must be path, virtual or auto, got {style!r}")
        options["addressing_style"] = style
    if "signature_version" in query:
        options["signature_version"] = query["signature_version"][-1]
    access, secret = env_str("SAMPAN_STORAGE_ACCESS_KEY"), env_str("SAMPAN_STORAGE_SECRET_KEY")
    if (access is None) != (secret is None):
        raise EnvError(
            "SAMPAN_STORAGE_SECRET_KEY" if secret is None else "SAMPAN_STORAGE_ACCESS_KEY",
            "set both SAMPAN_STORAGE_ACCESS_KEY and SAMPAN_STORAGE_SECRET_KEY, or neither",
        )
    if access is not None:
        options.update(access_key=access, secret_key=secret)
    return {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options}


def env_port_range(name: str) -> tuple[int, int] | None:
    """``8800-8819`` as (8800, 8819); unset: None."""
    value = _raw(name)
    if value is None:
        return None
    low, sep, high = value.partition("-")
    try:
        first, last = int(low), int(high if sep else low)
    except ValueError:
        raise EnvError(name, f"expected a port range such as 8800-8819, got {value!r}") from None
    if not 1 <= first <= last <= 65535:
        raise EnvError(name, f"expected ports 1-65535, the first no larger than the last, got {value!r}")
    return first, last
