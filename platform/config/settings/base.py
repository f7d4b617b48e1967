"""Settings shared by every environment; everything configurable comes from config.env."""

from __future__ import annotations

from pathlib import Path

from config.env import (
    broker_url,
    database_from_url,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_port_range,
    env_str,
    sampan_home,
    storage_from_url,
)

PLATFORM_DIR = Path(__file__).resolve().parents[2]
REPO_DIR = PLATFORM_DIR.parent
# The built web app; SAMPAN_FRONTEND_DIST points elsewhere (a second build side by side, a package).
FRONTEND_DIST = Path(env_str("SAMPAN_FRONTEND_DIST") or REPO_DIR / "frontend" / "dist")
SAMPAN_HOME = sampan_home()

SECRET_KEY = env_str("DJANGO_SECRET_KEY") or "dev-only-insecure-key-not-for-production"
DEBUG = False
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("SAMPAN_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts.apps.AccountsConfig",
    "workspaces.apps.WorkspacesConfig",
    "jobs.apps.JobsConfig",
    "datasets.apps.DatasetsConfig",
    "labeling.apps.LabelingConfig",
    "training.apps.TrainingConfig",
    "automl.apps.AutomlConfig",
    "deploy.apps.DeployConfig",
    "customjobs.apps.CustomJobsConfig",
    "notebooks.apps.NotebooksConfig",
    "blobs.apps.BlobsConfig",
]

MIDDLEWARE = [
    "config.errors.ApiErrorMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.security.SecurityHeadersMiddleware",  # CSP everywhere, no-store on API answers
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "jobs.idempotency.IdempotencyMiddleware",  # Idempotency-Key on POSTs (issue 12): a retry never duplicates
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

DATABASES = {"default": database_from_url("DATABASE_URL", SAMPAN_HOME / "sampan.sqlite3")}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = SAMPAN_HOME / "static"
STATIC_ROOT.mkdir(exist_ok=True)
# The built single-page app is served from the site root (index.html, /assets/...).
WHITENOISE_ROOT = FRONTEND_DIST if FRONTEND_DIST.is_dir() else None
WHITENOISE_INDEX_FILE = False
STORAGES = {
    "default": storage_from_url("SAMPAN_STORAGE_URL", SAMPAN_HOME / "blobs"),
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

SAMPAN_MAX_REQUEST_BYTES = env_int("SAMPAN_MAX_REQUEST_BYTES", 10 * 1024 * 1024, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = SAMPAN_MAX_REQUEST_BYTES
# Large uploads spill here (not /tmp) so housekeeping can delete the files a killed web leaves.
FILE_UPLOAD_TEMP_DIR = str(SAMPAN_HOME / "tmp" / "uploads")
(SAMPAN_HOME / "tmp" / "uploads").mkdir(parents=True, exist_ok=True)
FILE_UPLOAD_HANDLERS = [
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "config.uploads.RecreatingTemporaryFileUploadHandler",  # the folder above may vanish (a cache)
]

# --- datasets: limits on imports (DESIGN §6) ----------------------------------------------------
SAMPAN_DATASET_MAX_UPLOAD_BYTES = env_int("SAMPAN_DATASET_MAX_UPLOAD_BYTES", 2 * 1024**3, minimum=1024)
# A multipart request carries the upload plus its framing and form fields.
SAMPAN_MAX_UPLOAD_REQUEST_BYTES = SAMPAN_DATASET_MAX_UPLOAD_BYTES + 1024 * 1024
SAMPAN_DATASET_MAX_UNCOMPRESSED_BYTES = env_int(
    "SAMPAN_DATASET_MAX_UNCOMPRESSED_BYTES", 8 * 1024**3, minimum=1024
)
SAMPAN_DATASET_MAX_FILES = env_int("SAMPAN_DATASET_MAX_FILES", 200_000, minimum=1)
SAMPAN_DATASET_MAX_COMPRESSION_RATIO = env_int("SAMPAN_DATASET_MAX_COMPRESSION_RATIO", 100, minimum=1)
SAMPAN_DATASET_MAX_IMAGE_PIXELS = env_int("SAMPAN_DATASET_MAX_IMAGE_PIXELS", 50_000_000, minimum=1)
SAMPAN_DATASET_MAX_IMAGE_BYTES = env_int("SAMPAN_DATASET_MAX_IMAGE_BYTES", 64 * 1024**2, minimum=1024)
SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES = env_int("SAMPAN_DATASET_SYNC_IMPORT_MAX_FILES", 300, minimum=0)
SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES = env_int("SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES", 5000, minimum=0)
SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES = env_int("SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES", 5000, minimum=0)
# a datasets.export job's stored zip is deleted this long after the job finished (the hourly
# datasets.exports_expire task); its download then answers 404 export_expired
SAMPAN_DATASET_EXPORT_RETENTION_HOURS = env_int(
    "SAMPAN_DATASET_EXPORT_RETENTION_HOURS", 7 * 24, minimum=1, maximum=24 * 3650
)
# Table files (CSV, TSV, JSONL, XLSX, Parquet) of text and tabular datasets: one file at most this big.
SAMPAN_DATASET_MAX_TABLE_BYTES = env_int("SAMPAN_DATASET_MAX_TABLE_BYTES", 256 * 1024**2, minimum=1024)

# --- training: uploaded backbone state_dicts (transfer learning) --------------------------------
# ResNet-18 is about 45 MB; the limit leaves room for bigger checkpoints that wrap a state_dict.
SAMPAN_BACKBONE_MAX_UPLOAD_BYTES = env_int("SAMPAN_BACKBONE_MAX_UPLOAD_BYTES", 512 * 1024**2, minimum=1024)
# --- deploy: hosted predictions serve their cached deployment state this long while the database is away --
SAMPAN_DEPLOY_STALE_SECONDS = env_int("SAMPAN_DEPLOY_STALE_SECONDS", 30, minimum=0, maximum=3600)
# --- deploy: hosted prediction limits and per-process model loading (deploy.serving, deploy.warm) --
SAMPAN_DEPLOY_MAX_BATCH = env_int("SAMPAN_DEPLOY_MAX_BATCH", 32, minimum=1, maximum=10_000)
# Above SAMPAN_MAX_REQUEST_BYTES Django refuses the request before the prediction route sees it.
SAMPAN_DEPLOY_MAX_BODY_BYTES = env_int(
    "SAMPAN_DEPLOY_MAX_BODY_BYTES", SAMPAN_MAX_REQUEST_BYTES, minimum=1024, maximum=SAMPAN_MAX_REQUEST_BYTES
)
SAMPAN_DEPLOY_MAX_IMAGE_PIXELS = env_int(
    "SAMPAN_DEPLOY_MAX_IMAGE_PIXELS", SAMPAN_DATASET_MAX_IMAGE_PIXELS, minimum=1
)
SAMPAN_DEPLOY_MAX_LOADED_MODELS = env_int("SAMPAN_DEPLOY_MAX_LOADED_MODELS", 8, minimum=1, maximum=1000)
SAMPAN_DEPLOY_ORT_THREADS = env_int("SAMPAN_DEPLOY_ORT_THREADS", 1, minimum=1, maximum=256)
SAMPAN_DEPLOY_SHADOW_QUEUE = env_int("SAMPAN_DEPLOY_SHADOW_QUEUE", 64, minimum=1, maximum=100_000)
SAMPAN_DEPLOY_PRELOAD = env_bool("SAMPAN_DEPLOY_PRELOAD", True)
SAMPAN_DEPLOY_WARM_INTERVAL_SECONDS = env_int(
    "SAMPAN_DEPLOY_WARM_INTERVAL_SECONDS", 1, minimum=1, maximum=3600
)
SAMPAN_DEPLOY_CACHE_GRACE_SECONDS = env_int("SAMPAN_DEPLOY_CACHE_GRACE_SECONDS", 600, minimum=0)
SAMPAN_TRY_MAX_BATCH = env_int("SAMPAN_TRY_MAX_BATCH", 10, minimum=1, maximum=10_000)
SAMPAN_TRY_PER_MINUTE = env_int("SAMPAN_TRY_PER_MINUTE", 60, minimum=0)
SAMPAN_MAX_UPLOAD_REQUEST_BYTES = max(
    SAMPAN_MAX_UPLOAD_REQUEST_BYTES, SAMPAN_BACKBONE_MAX_UPLOAD_BYTES + 1024 * 1024
)

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "accounts.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.parsers.JSONParser"],  # JSON with a nesting limit
    "DEFAULT_PAGINATION_CLASS": "config.pagination.PageNumberPagination",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.errors.api_exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Sampan API",
    "DESCRIPTION": "The REST API behind the Sampan browser app and SDK. Errors always have the shape "
    '{"error": {"code", "message", "details"}}.',
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SWAGGER_UI_DIST": "SIDECAR",
    # no badge from validator.swagger.io; tags start collapsed: rendering every operation of the whole
    # API at once left Swagger UI stuck after its first tags (about 130 operations and up)
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None, "docExpansion": "none"},
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "PredictionKindEnum": ["classification_prediction", "regression_prediction", "detection_prediction"],
        "JobStatusEnum": "jobs.models.JobStatus",
        "RoleEnum": "workspaces.models.Role",
        "TokenStatusEnum": ["active", "revoked", "expired"],
        "JobEventTypeEnum": "jobs.models.JobEventType",
        "ImportStatusEnum": "datasets.models.ImportStatus",
        "ImportSourceEnum": "datasets.models.ImportSource",
        "LabelConflictCodeEnum": ["label_conflict"],
        "LabelDeletedCodeEnum": ["label_deleted"],
        "AnnotationConflictCodeEnum": ["annotation_conflict"],
        "AnnotationStatusEnum": ["unlabeled", "annotated", "no_objects"],  # workers.contracts.annotations
        # an object-detection import's format (datasets.services.detection_imports)
        "AnnotationFormatEnum": ["auto", "coco", "voc", "yolo", "label_studio", "images"],
        "TableTaskEnum": ["classification", "regression"],  # workers.contracts.manifest.TableTask
        "TableFormatEnum": ["csv", "tsv", "jsonl", "xlsx", "parquet"],
        # the contracts' "type" fields (workers.contracts.templates/preprocessing, datasets profiles)
        "SearchDimensionTypeEnum": ["float", "int", "categorical"],
        "ParamTypeEnum": ["int", "float", "bool", "choice"],
        "TableFeatureTypeEnum": ["numeric", "datetime", "categorical"],
        "ColumnTypeEnum": ["numeric", "categorical", "datetime", "text", "empty"],
        "TargetTypeEnum": ["classes", "numeric"],
        "KindEnum": "deploy.models.PackageKind",
        "BatchSourceKindEnum": "deploy.models.BatchSourceKind",  # a batch prediction's source
        "BatchFormatEnum": "workers.contracts.batch.BATCH_FORMATS",  # its result files' formats
        "QueueWaitReasonEnum": [
            "no_worker",
            "workspace_limit",
            "workers_busy",
            "next",
        ],  # jobs.selectors.queue_states
        "DeviceEnum": ["cpu", "gpu"],  # a job's queue (custom jobs ask for one)
        "FindingCodeEnum": "workers.contracts.quality.FINDING_CODES",  # a quality finding's code
        "LabelingTaskStatusEnum": "labeling.models.LabelingTask.Status",
        "AssignmentStatusEnum": "labeling.models.AssignmentStatus",
        "SkippedSuggestionReasonEnum": ["human_labeled", "not_pending"],  # labeling.api.smart accept
        "CaptureReasonEnum": "deploy.models.CaptureReason",
        "SuggestionSourceEnum": "labeling.models.SuggestionSource",
        "CaptureSkippedReasonEnum": "deploy.api.capture_views.SKIPPED_REASONS",  # send to dataset
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.errors.add_error_responses",
        "config.contracts.overlapping_unions_as_any_of",
    ],
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer"}},  # config.routing: 64-bit object ids
}

# --- jobs and Celery -------------------------------------------------------------------------
SAMPAN_JOB_HEARTBEAT_SECONDS = env_int("SAMPAN_JOB_HEARTBEAT_SECONDS", 5, minimum=1, maximum=600)
SAMPAN_JOB_STALE_SECONDS = env_int("SAMPAN_JOB_STALE_SECONDS", 60, minimum=3, maximum=86400)
if SAMPAN_JOB_STALE_SECONDS <= 2 * SAMPAN_JOB_HEARTBEAT_SECONDS:
    from config.env import EnvError

    raise EnvError(
        "SAMPAN_JOB_STALE_SECONDS",
        f"must be more than twice SAMPAN_JOB_HEARTBEAT_SECONDS ({SAMPAN_JOB_HEARTBEAT_SECONDS})",
    )
SAMPAN_JOB_MAX_ATTEMPTS = env_int("SAMPAN_JOB_MAX_ATTEMPTS", 3, minimum=1, maximum=100)
# jobs.scheduling: which queued job a free worker slot gets. "fair": the highest priority class, then
# the workspace running the fewest jobs, then the oldest; "fifo": the oldest (the benchmark's baseline).
SAMPAN_JOB_SCHEDULING = env_choice("SAMPAN_JOB_SCHEDULING", "FAIR", {"FAIR", "FIFO"}).lower()
# What a workspace without its own limits (jobs.WorkspaceLimits) may run at once; 0: unlimited.
SAMPAN_WORKSPACE_MAX_JOBS = env_int("SAMPAN_WORKSPACE_MAX_JOBS", 0, minimum=0)
SAMPAN_WORKSPACE_MAX_GPU_JOBS = env_int("SAMPAN_WORKSPACE_MAX_GPU_JOBS", 0, minimum=0)

# Custom code jobs and notebooks (docs/custom-code.md): the defaults a job gets and the caps it may ask
# up to; the sandbox's unprivileged user (a worker running as root drops to it; "" runs the code as
# the worker's own user, which a plain non-root host has to); the network default; where per-job
# virtual environments are cached by the hash of their requirements.
SAMPAN_CUSTOM_JOB_WALL_TIME_S = env_int("SAMPAN_CUSTOM_JOB_WALL_TIME_S", 3600, minimum=1)
SAMPAN_CUSTOM_JOB_MAX_WALL_TIME_S = env_int("SAMPAN_CUSTOM_JOB_MAX_WALL_TIME_S", 24 * 3600, minimum=1)
SAMPAN_CUSTOM_JOB_MEMORY_MB = env_int("SAMPAN_CUSTOM_JOB_MEMORY_MB", 4096, minimum=64)
SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB = env_int("SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB", 65536, minimum=64)
SAMPAN_CUSTOM_JOB_CPUS = env_int("SAMPAN_CUSTOM_JOB_CPUS", 2, minimum=1, maximum=1024)
SAMPAN_CUSTOM_JOB_MAX_CPUS = env_int("SAMPAN_CUSTOM_JOB_MAX_CPUS", 64, minimum=1, maximum=1024)
SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES = env_int("SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES", 100 * 1024**2, minimum=1024)
SAMPAN_SANDBOX_USER = env_str("SAMPAN_SANDBOX_USER", "nobody")
SAMPAN_CUSTOM_JOB_NETWORK = env_bool("SAMPAN_CUSTOM_JOB_NETWORK", False)
SAMPAN_CUSTOM_ENV_CACHE = Path(env_str("SAMPAN_CUSTOM_ENV_CACHE") or SAMPAN_HOME / "custom-envs")
SAMPAN_NOTEBOOK_IDLE_TIMEOUT_S = env_int("SAMPAN_NOTEBOOK_IDLE_TIMEOUT_S", 3600, minimum=10)
SAMPAN_NOTEBOOK_HOST = env_str("SAMPAN_NOTEBOOK_HOST", "127.0.0.1")
SAMPAN_NOTEBOOK_TOKEN_TTL_S = env_int("SAMPAN_NOTEBOOK_TOKEN_TTL_S", 12 * 3600, minimum=60)
SAMPAN_NOTEBOOK_PLATFORM_URL = env_str("SAMPAN_NOTEBOOK_PLATFORM_URL")
SAMPAN_NOTEBOOK_PORTS = env_port_range("SAMPAN_NOTEBOOK_PORTS")
SAMPAN_SANDBOX_ROOT = Path(env_str("SAMPAN_SANDBOX_ROOT") or SAMPAN_HOME / "sandbox")
SAMPAN_REAPER_INTERVAL_SECONDS = env_int("SAMPAN_REAPER_INTERVAL_SECONDS", 15, minimum=1, maximum=3600)
SAMPAN_WORKER_QUEUES = env_str("SAMPAN_WORKER_QUEUES", "auto")
# blobs.services: an unreferenced blob younger than this is kept (an upload or a job may be about to
# record it); the sweep runs every 6 hours on the housekeeping queue.
SAMPAN_BLOB_GC_GRACE_HOURS = env_int("SAMPAN_BLOB_GC_GRACE_HOURS", 24, minimum=1, maximum=24 * 365)
# training.checkpoint_mirror: how often a run's newest complete checkpoint is looked for and copied to
# remote blob storage (a host lost mid-run costs the epochs since the last copy)
SAMPAN_CHECKPOINT_MIRROR_SECONDS = env_float(
    "SAMPAN_CHECKPOINT_MIRROR_SECONDS", 2.0, minimum=0.05, maximum=3600
)
SAMPAN_WORKER_CONCURRENCY = env_int("SAMPAN_WORKER_CONCURRENCY", 1, minimum=1, maximum=64)
# a training job's `processes` (DDP ranks on one worker host: CPU processes or GPUs) is at most this
SAMPAN_MAX_PROCESSES = env_int("SAMPAN_MAX_PROCESSES", 8, minimum=1, maximum=256)
SAMPAN_WEB_THREADS = env_int("SAMPAN_WEB_THREADS", 8, minimum=1, maximum=256)
SAMPAN_HOST = env_str("SAMPAN_HOST", "127.0.0.1")
SAMPAN_PORT = env_int("SAMPAN_PORT", 8000, minimum=1, maximum=65535)

_broker = broker_url("CELERY_BROKER_URL")
SAMPAN_EMBEDDED_BROKER = _broker is None
if _broker is None:
    _queue_dir = SAMPAN_HOME / "broker"
    for sub in ("queue", "processed", "control"):
        (_queue_dir / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    # kombu's filesystem transport with messages written whole before consumers can see them
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir / "queue"),
        "data_folder_out": str(_queue_dir / "queue"),
        "processed_folder": str(_queue_dir / "processed"),
        "control_folder": str(_queue_dir / "control"),
        "store_processed": False,
        "polling_interval": 0.5,
    }
else:
    CELERY_BROKER_URL = _broker
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 12 * 3600}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "cpu"
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Periodic tasks go to the `housekeeping` queue, consumed only by `manage.py housekeeping` (never
# behind a job in a worker's pool).
_housekeeping = {"queue": "housekeeping", "expires": float(SAMPAN_REAPER_INTERVAL_SECONDS)}
CELERY_BEAT_SCHEDULE = {
    "reap-stale-jobs": {
        "task": "jobs.reap_stale",
        "schedule": float(SAMPAN_REAPER_INTERVAL_SECONDS),
        "options": _housekeeping,
    },
    # studies: settle trials whose worker was lost for good and keep `parallelism` trials in flight
    "reconcile-studies": {
        "task": "automl.reconcile",
        "schedule": float(SAMPAN_REAPER_INTERVAL_SECONDS),
        "options": _housekeeping,
    },
    # stale upload temp files; checkpoints of runs whose model version is stored
    "tidy": {"task": "jobs.tidy", "schedule": 600.0, "options": {"queue": "housekeeping", "expires": 600.0}},
    # blobs nothing references any more, older than SAMPAN_BLOB_GC_GRACE_HOURS (blobs.services)
    "blobs-gc": {
        "task": "blobs.collect_garbage",
        "schedule": 6 * 3600.0,
        "options": {"queue": "housekeeping", "expires": 6 * 3600.0},
    },
    # stored export zips older than SAMPAN_DATASET_EXPORT_RETENTION_HOURS (datasets.services.dataset_jobs)
    "exports-expire": {
        "task": "datasets.exports_expire",
        "schedule": 3600.0,
        "options": {"queue": "housekeeping", "expires": 3600.0},
    },
    # captured prediction requests past their deployment's retention (deploy.capture_services)
    "capture-cleanup": {
        "task": "deploy.capture_cleanup",
        "schedule": 3600.0,
        "options": {"queue": "housekeeping", "expires": 3600.0},
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = str(SAMPAN_HOME / "celerybeat-schedule")

LOG_LEVEL = env_choice("SAMPAN_LOG_LEVEL", "INFO", {"DEBUG", "INFO", "WARNING", "ERROR"})
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {"django.request": {"level": "ERROR"}},
}

SAMPAN_SECURE_COOKIES = env_bool("SAMPAN_SECURE_COOKIES", False)
CSRF_FAILURE_VIEW = "config.errors.csrf_failure"
SAMPAN_PRODUCTION = False

# --- brute-force protection (accounts.throttle): failures per window, then 429 with Retry-After ----
SAMPAN_AUTH_FAILURE_WINDOW_SECONDS = env_int(
    "SAMPAN_AUTH_FAILURE_WINDOW_SECONDS", 300, minimum=1, maximum=86400
)
SAMPAN_LOGIN_FAILURES_PER_ACCOUNT = env_int("SAMPAN_LOGIN_FAILURES_PER_ACCOUNT", 10, minimum=1)
SAMPAN_LOGIN_FAILURES_PER_ADDRESS = env_int("SAMPAN_LOGIN_FAILURES_PER_ADDRESS", 50, minimum=1)
SAMPAN_AUTH_FAILURES_PER_ADDRESS = env_int("SAMPAN_AUTH_FAILURES_PER_ADDRESS", 50, minimum=1)
SAMPAN_TRUSTED_PROXY_COUNT = env_int("SAMPAN_TRUSTED_PROXY_COUNT", 0, minimum=0, maximum=10)
