# Sampan: `make up` runs the platform, `make test` runs every test. See README.md.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
NPM ?= npm
CHROMIUM ?= /usr/bin/chromium

.PHONY: up dev install frontend api-client test test-python test-fast test-frontend browser sandbox lint screenshot clean

up: install frontend ## start web + worker (embedded SQLite/filesystem broker unless DATABASE_URL/CELERY_BROKER_URL are set)
	$(PY) platform/manage.py up

dev: install frontend/node_modules/.installed ## Django + worker on :8000 and the Vite dev server on :5173
	@trap 'kill 0' EXIT; $(PY) platform/manage.py up & (cd frontend && $(NPM) run dev -- --host 127.0.0.1)

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml sdk/pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Sampan needs Python >= 3.11"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]' -e ./sdk
	touch $@

frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	cd frontend && $(NPM) ci --no-audit --no-fund
	touch $@

frontend: frontend/dist/index.html

frontend/dist/index.html: frontend/node_modules/.installed $(shell find frontend/src frontend/index.html frontend/vite.config.ts frontend/public -type f 2>/dev/null)
	cd frontend && $(NPM) run build

api-client: install frontend/node_modules/.installed ## regenerate frontend/openapi.json, the TypeScript client and the SDK's types
	$(PY) platform/manage.py spectacular --format openapi-json --file frontend/openapi.json --validate --fail-on-warn
	cd frontend && $(NPM) run gen:api
	$(PY) sdk/tools/generate_types.py

browser: ## headless Chromium for the browser tests and a Chinese font for their zh-CN pages (Debian packages)
	@{ test -x $(CHROMIUM) && fc-list :lang=zh 2>/dev/null | grep -q .; } || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-zenhei >/dev/null; \
	  elif command -v sudo >/dev/null; then sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-zenhei >/dev/null; \
	  else echo "Install Chromium and a Chinese font (Debian: apt-get install chromium fonts-wqy-zenhei) or set CHROMIUM=/path/to/chromium"; exit 1; fi; }

# Custom code and notebooks run as an unprivileged user (SAMPAN_SANDBOX_USER, default nobody) when the
# worker is root; that user must be able to run the venv's Python. A Python under a private home
# (/root/.pyenv) needs the directories on its path to be traversable (o+x, not readable): this adds
# exactly that, and nothing when the user can already run it or when make is not run as root.
SANDBOX_USER ?= nobody
sandbox: install
	@if [ "$$(id -u)" = 0 ] && id $(SANDBOX_USER) >/dev/null 2>&1 && ! su -s /bin/sh $(SANDBOX_USER) -c '$(CURDIR)/$(PY) -c pass' 2>/dev/null; then \
	  d=$$(dirname "$$(readlink -f $(PY))"); while [ "$$d" != / ]; do chmod o+x "$$d"; d=$$(dirname "$$d"); done; \
	  su -s /bin/sh $(SANDBOX_USER) -c '$(CURDIR)/$(PY) -c pass' || { echo "the sandbox user $(SANDBOX_USER) cannot run $(PY)"; exit 1; }; fi

test: lint install frontend browser sandbox test-frontend test-python ## lint, then every test: frontend unit, backend, integration, browser e2e

test-frontend: frontend/node_modules/.installed
	cd frontend && $(NPM) run typecheck && $(NPM) test

# The tests that start their own workers and kill them (-m own_workers: the fault suite, tests/faults,
# and the many-hosts tests, tests/scale) run in a pytest process of their own after the rest: the
# session-wide live worker of the other tests must not be consuming the same test broker, or
# dispatching from the same database, meanwhile. With PYTEST_ARGS naming other tests it may select none.
test-python: install frontend browser sandbox
	CHROMIUM=$(CHROMIUM) $(PY) -m pytest -m "not own_workers" --durations=25 $(PYTEST_ARGS)
	CHROMIUM=$(CHROMIUM) $(PY) -m pytest -m own_workers $(PYTEST_ARGS)$(if $(PYTEST_ARGS), || test $$? -eq 5,)

# The fast subset: no live worker, browser, package build, fault injection or test measured over
# ~20 s (the markers are applied in tests/conftest.py). Needs PostgreSQL and Redis, not a built frontend.
FAST_TESTS := not slow and not browser and not packages and not integration and not faults
test-fast: install ## the fast subset of the Python tests (a few minutes; `make test` runs everything)
	$(PY) -m pytest -m "$(FAST_TESTS)" $(PYTEST_ARGS)

# Lint and type checks: ruff (rules and formatting), mypy (configured in pyproject.toml), tsc and eslint.
PY_TREES := platform workers sdk tests benchmarks

lint: install frontend/node_modules/.installed ## ruff check, ruff format --check, mypy, tsc --noEmit, eslint
	$(VENV)/bin/ruff check $(PY_TREES)
	$(VENV)/bin/ruff format --check $(PY_TREES)
	$(VENV)/bin/mypy
	cd frontend && $(NPM) run typecheck
	cd frontend && $(NPM) run lint

# docs/screenshot.png (the README's picture) and the main pages at 1440 and 1024 px in both languages
# (artifacts/screenshots): the zh-CN browser test, which takes them; PostgreSQL and Redis as for
# `make test`. See docs/screenshots.md.
screenshot: install frontend browser ## refresh docs/screenshot.png and artifacts/screenshots/<lang>/<width>/<page>.png
	SAMPAN_README_SCREENSHOT=$(CURDIR)/docs/screenshot.png CHROMIUM=$(CHROMIUM) \
	  $(PY) -m pytest -p no:cacheprovider tests/e2e/test_browser_zh_cn.py

clean:
	rm -rf $(VENV) frontend/node_modules frontend/dist artifacts
