# Sampan: one image for the web server, the workers and the one-shot migrate step
# (see docker-compose.yml). Build from the repository root:
#
#   docker build -t sampan .                       # torch from PyPI: CUDA build on x86-64 (GPU hosts)
#   docker build -t sampan \
#     --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu .   # CPU-only torch, far smaller

# --- the browser app -------------------------------------------------------------------------
FROM node:20 AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci
COPY frontend/ ./
RUN npm run build

# --- the platform ----------------------------------------------------------------------------
FROM python:3.11-slim AS app
SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# Index that torch alone is installed from before everything else. Empty: PyPI, whose Linux x86-64
# wheel bundles CUDA (what worker-gpu needs; several GB). For a CPU-only image pass
# --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu (the same torch version, +cpu).
ARG TORCH_INDEX_URL=""

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# UID 1000 so a bind-mounted data directory can simply be chown'ed to 1000:1000.
RUN groupadd --gid 1000 sampan \
    && useradd --uid 1000 --gid sampan --create-home --home-dir /home/sampan --shell /usr/sbin/nologin sampan \
    && mkdir /data \
    && chown sampan:sampan /data

WORKDIR /app

# Dependencies in their own layer, read from pyproject.toml, so a code change does not download
# torch again. The torch pin also comes from pyproject.toml: the image cannot drift from it.
COPY pyproject.toml README.md ./
RUN if [ -n "$TORCH_INDEX_URL" ]; then \
        pip install --index-url "$TORCH_INDEX_URL" "$(grep -oE '"torch([=<>!~;[ ][^"]*)?"' pyproject.toml | tr -d '"')"; \
    fi \
    && python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY workers/ workers/
COPY platform/ platform/
RUN pip install . && rm -rf build ./*.egg-info
COPY --from=frontend /src/frontend/dist frontend/dist

ENV DJANGO_SETTINGS_MODULE=config.settings.production \
    SAMPAN_HOME=/data

# Numeric, so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000

# Static files into /data/static (STATIC_ROOT is under SAMPAN_HOME): a fresh named volume starts
# with them, and the migrate service collects them again on every start, so an upgraded image never
# serves a stale manifest. Production settings refuse to load without a secret and hosts; these
# build-time stand-ins exist only for this command and are never used at run time.
RUN DJANGO_SECRET_KEY=build-time-stand-in-for-collectstatic-only-never-used-at-run-time \
    DJANGO_ALLOWED_HOSTS=build.invalid \
    CELERY_BROKER_URL=redis://build.invalid:6379/0 \
    python platform/manage.py collectstatic --noinput --verbosity 0

EXPOSE 8000

# The web server, as `manage.py up` runs it; workers and migrate override the command.
CMD ["gunicorn", "config.wsgi:application", "--chdir", "platform", "--bind", "0.0.0.0:8000", \
     "--worker-class", "config.gunicorn_worker.KeepAliveThreadWorker", "--config", "platform/config/gunicorn.py", "--threads", "8", "--timeout", "120", \
     "--graceful-timeout", "10", "--access-logfile", "-", "--no-control-socket"]
