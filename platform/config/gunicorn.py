"""gunicorn settings from Sampan's environment: ``gunicorn --config platform/config/gunicorn.py ...``
(`manage.py up`, the Dockerfile and docker-compose.yml start the web server so). gunicorn executes
this file before it changes into --chdir, so it puts platform/ on sys.path itself, as manage.py
does. Options given on the command line win over these.

- ``workers`` = SAMPAN_WEB_PROCESSES: web processes, each with SAMPAN_WEB_THREADS request threads.
  More than one lets hosted predictions (and the rest of the API) use more than one core: a process
  runs its Python under one GIL. Default 2 when the broker is Redis, which also counts the
  deployment keys' quotas for every process; 1 in embedded mode, where quotas are counted per
  process (with N processes a key could make up to N times its quota per minute). Each process
  loads its own copy of Django and of every served model's ONNX Runtime session.
"""

import sys
from pathlib import Path

_platform_dir = str(Path(__file__).resolve().parents[1])
if _platform_dir not in sys.path:
    sys.path.insert(0, _platform_dir)

from config.env import broker_url, env_int  # noqa: E402

_quotas_shared = (broker_url("CELERY_BROKER_URL") or "").startswith(("redis://", "rediss://"))
workers = env_int("SAMPAN_WEB_PROCESSES", 2 if _quotas_shared else 1, minimum=1, maximum=64)

# Request line and header limits above Django's (config.errors: 8190-byte URL, 100 headers, 8190 bytes
# per header), so Django refuses what is too big with its JSON 414/431 in the one error shape. Only a
# request far past them meets gunicorn's own plain-HTML page (docs/deploy.md, "Limits"): a request
# line over 1 MiB (0 = gunicorn's 1 MiB cap), more than 256 headers or one header over 16 KiB. The
# product of the two header limits bounds what one connection may buffer (about 4 MiB).
limit_request_line = 0
limit_request_fields = 256
limit_request_field_size = 16384

# gthread, with kept-alive connections served on by their request thread (config/gunicorn_worker.py);
# the command lines of `manage.py up`, the Dockerfile and docker-compose.yml name it too.
worker_class = "config.gunicorn_worker.KeepAliveThreadWorker"
# The same access-log lines, built from the atoms the format uses only (config/gunicorn_logging.py).
logger_class = "config.gunicorn_logging.SampanLogger"


def post_worker_init(worker):
    """Each web process preloads the models of the active deployments (deploy.warm) once its app is
    loaded, and keeps them current after every deploy, switch, canary or shadow change; and sweeps
    its host's stale spooled uploads (config.uploads)."""
    from deploy import warm

    from config.uploads import upload_spool_sweep_start

    warm.start()
    upload_spool_sweep_start()  # a web-only host's stale spooled uploads (no worker there tidies them)
