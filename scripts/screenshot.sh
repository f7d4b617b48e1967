#!/usr/bin/env bash
# The README's picture (docs/screenshot.png) and the screenshots of the main pages in both languages
# (docs/screenshots.md), taken from a real run: starts Sampan on embedded defaults (SQLite and the
# filesystem broker in a throwaway SAMPAN_HOME, no PostgreSQL or Redis) on a free port, drives the
# browser flow frontend/e2e/zh_cn_flow.mjs through it (import a zip of digits with Chinese class
# names, label, train, try, deploy, then the screenshot tour in zh-CN and English) and copies the
# English labeling grid at 1440x900 to docs/screenshot.png.
#
# `make screenshot` runs it after building what it needs (the virtualenv, the web app, Chromium).
# Env: SCREENSHOTS (the tour's folder, default artifacts/screenshots), E2E_EPOCHS (default 8),
#      CHROMIUM (default /usr/bin/chromium), SAMPAN_FRONTEND_DIST (default frontend/dist).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
shots=$(realpath -m "${SCREENSHOTS:-artifacts/screenshots}")
test -f "${SAMPAN_FRONTEND_DIST:-frontend/dist}/index.html" || { echo "the web app is not built: run make frontend"; exit 1; }
fc-list :lang=zh | grep -q . || { echo "no Chinese font: install one (Debian: apt-get install fonts-wqy-zenhei)"; exit 1; }

work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill -TERM -- "-$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

port=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
password=$($PY -c 'import secrets; print(secrets.token_urlsafe(18))')
echo "starting Sampan on embedded defaults at http://127.0.0.1:$port/ (log: $work/up.log)"
env -u DATABASE_URL -u CELERY_BROKER_URL -u DJANGO_SETTINGS_MODULE \
  SAMPAN_HOME="$work/home" SAMPAN_ADMIN_USERNAME=xiaoming SAMPAN_ADMIN_PASSWORD="$password" \
  setsid "$PY" platform/manage.py up --port "$port" >"$work/up.log" 2>&1 &
pid=$!
for _ in $(seq 180); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/up.log"; echo "Sampan did not start"; exit 1; }
  sleep 1
done

# The data: digits with Chinese class folders, the same as the browser test's.
$PY - "$work" <<'EOF'
import json, pathlib, sys
sys.path.insert(0, ".")
from tests.e2e.test_browser_zh_cn import CLASSES, UNLABELED, digits_archive
work = pathlib.Path(sys.argv[1])
archive, probe = digits_archive(per_class=20)
(work / "手写数字.zip").write_bytes(archive)
(work / "probe.png").write_bytes(probe)
(work / "truth.json").write_text(json.dumps(UNLABELED, ensure_ascii=False))
(work / "classes.json").write_text(json.dumps(CLASSES, ensure_ascii=False))
EOF

rm -rf "$shots"
(cd frontend && SAMPAN_URL="http://127.0.0.1:$port" SAMPAN_USER=xiaoming SAMPAN_PASSWORD="$password" \
  E2E_ZIP="$work/手写数字.zip" E2E_IMAGE="$work/probe.png" E2E_TRUTH="$(cat "$work/truth.json")" \
  E2E_CLASSES="$(cat "$work/classes.json")" E2E_EPOCHS="${E2E_EPOCHS:-8}" E2E_ARTIFACTS="$(dirname "$shots")/screenshot-run" \
  E2E_SCREENSHOTS="$shots" CHROMIUM_PATH="${CHROMIUM:-/usr/bin/chromium}" node e2e/zh_cn_flow.mjs)
cp "$shots/en/1440/labeling.png" docs/screenshot.png
echo "wrote docs/screenshot.png and the screenshots of the main pages under $shots"
