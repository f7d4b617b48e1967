"""Hosted forecast requests against hosted tabular regression requests, side by side, with the bare
in-process calls for attribution.

Two models are trained here: a forecaster (the time-series template's fast preset on the synthetic
store sales of workers.time_series.synthetic: 12 daily series, known covariates price and holiday,
static region, horizon 14) and a tabular regressor (the tabular regression template's fast preset on
scikit-learn's diabetes table, 10 numeric features). Both are deployed on one web server started as
`manage.py up` starts it (gunicorn with Sampan's worker, config/gunicorn_worker.py, 8 threads, 1
process, access log on) in embedded mode (SQLite, filesystem broker, a temporary SAMPAN_HOME). Each
request carries the deployment's API key:

- forecast: one series, 56 days of history with its known covariates over history and horizon, the
  14-day forecast with the model's 10 % and 90 % quantiles;
- regression: one row of 10 numbers.

Measured in rounds, the two alternating (medians of the rounds' p50/p99):

- bare: the serving pipeline in this process (parse the JSON body as the hosted API does, the
  predictor, no HTTP and no Django): ``parse_request`` then ``predict_instances``, one intra-op thread;
- WSGI: ``config.wsgi.application`` (the prediction fast path in front of Django) called in a
  process of its own, no HTTP (benchmarks/hosted_predict.py's ``wsgi_in_process``);
- hosted: one keep-alive client, sequential requests, client-side round trip.

    nice -n 10 .venv/bin/python benchmarks/forecasting_serving.py            # print the Markdown section
    nice -n 10 .venv/bin/python benchmarks/forecasting_serving.py --write    # also update docs/benchmarks.md

Target: a hosted forecast's p50 at most 3x a hosted regression row's (the forecaster runs its ONNX
member and its statistical members per series; the rest of the request path is shared).
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import os
import platform as stdlib_platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.hosted_predict import clean_env, start_web, wsgi_in_process  # noqa: E402

PLATFORM_DIR = REPO / "platform"
DOCS = REPO / "docs" / "benchmarks.md"
SECTION = "forecasting_serving"
HORIZON = 14
CONTEXT = 56
TARGET_RATIO = 3.0

SETUP = """
import hashlib, json
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from accounts.models import User
from workspaces.services import project_create, workspace_create
from training.models import ModelVersion
from deploy import services
runs = {runs!r}
user = User.objects.create_user(username="bench", password="bench-password-1")
workspace = workspace_create(user=user, name="Bench")
project = project_create(user=user, workspace=workspace, name="Bench")
out = {{}}
for number, (name, run) in enumerate(runs.items(), start=1):
    data = open(run["onnx"], "rb").read()
    key = default_storage.save(f"models/bench/{{name}}.onnx", ContentFile(data))
    mv = ModelVersion.objects.create(workspace=workspace, project=project, number=number,
        template=run["template"], preset="fast", classes=[], preprocessing=run["preprocessing"],
        onnx_key=key, onnx_sha256=hashlib.sha256(data).hexdigest())
    deployment = services.deployment_create(user=user, model_version=mv, name=name)
    _, secret = services.deployment_key_create(
        user=user, deployment=deployment, name="bench", quota_per_minute=10_000_000
    )
    out[name] = {{"deployment": deployment.pk, "key": secret}}
print("BENCH " + json.dumps(out))
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(times_s: list[float]) -> dict[str, float]:
    ms = [t * 1000 for t in times_s]
    return {"p50_ms": percentile(ms, 0.5), "p99_ms": percentile(ms, 0.99)}


def train_models(out: Path) -> tuple[dict[str, dict[str, Any]], dict[str, bytes]]:
    """Both models trained; (runs for the setup script, request bodies)."""
    from tests.templates_tabular.measure_templates import tabular_manifest
    from workers.templates import registry
    from workers.time_series import synthetic
    from workers.time_series.trainer import train as train_forecaster

    rows = synthetic.multi_series(n_series=12, length=200 + HORIZON, freq="D", seed=0, intermittent=2)
    cutoff = rows[199]["date"]
    manifest = synthetic.manifest([r for r in rows if r["date"] <= cutoff], HORIZON, "D")
    forecaster = train_forecaster({"preset": "fast"}, manifest, out / "forecast")
    tabular = tabular_manifest("diabetes", "regression")
    regression = registry.get("tabular_regression").load("train")(
        {"preset": "fast"}, tabular, out / "tabular"
    )
    mine = [r for r in rows if r["store"] == "s01"]
    history, future = mine[-CONTEXT - HORIZON : -HORIZON], mine[-CONTEXT - HORIZON :]
    forecast_body = {
        "instances": [
            {
                "id": "s01",
                "timestamps": [r["date"] for r in history],
                "values": [r["sales"] for r in history],
                "known": {c: [float(r[c]) for r in future] for c in ("price", "holiday")},
            }
        ]
    }
    row = tabular["samples"][0]["values"]
    runs = {
        "forecast": {
            "onnx": forecaster["onnx"],
            "preprocessing": forecaster["preprocessing"],
            "template": "time_series_forecasting",
            "dir": str(Path(forecaster["onnx"]).parent),
        },
        "regression": {
            "onnx": regression["onnx"],
            "preprocessing": regression["preprocessing"],
            "template": "tabular_regression",
            "dir": str(Path(regression["onnx"]).parent),
        },
    }
    bodies = {
        "forecast": json.dumps(forecast_body).encode(),
        "regression": json.dumps({"instances": [row]}).encode(),
    }
    return runs, bodies


class Bare:
    """The serving pipeline in this process: parse the body, predict (no HTTP, no Django)."""

    def __init__(self, run: dict[str, Any], body: bytes) -> None:
        from workers.serving.predictors import load_predictor, predict_instances
        from workers.serving.protocol import parse_request

        self.predictor = load_predictor(run["dir"], template=run["template"], threads=1)
        self.parse_request, self.predict_instances = parse_request, predict_instances
        self.body = body

    def once(self) -> None:
        parsed = self.parse_request(
            content_type="application/json", body=self.body, data_kind=self.predictor.data_kind, max_batch=32
        )
        self.predict_instances(self.predictor, parsed.instances, parsed.top_k, options=parsed.options)

    def timed(self, n: int) -> list[float]:
        times = []
        for _ in range(n):
            start = time.perf_counter()
            self.once()
            times.append(time.perf_counter() - start)
        return times


def sequential(port: int, path: str, key: str, body: bytes, n: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    times = []
    for _ in range(n):
        start = time.perf_counter()
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
        data = response.read()
        times.append(time.perf_counter() - start)
        if response.status != 200:
            raise RuntimeError(f"{path} {response.status}: {data[:300]!r}")
    conn.close()
    return times


def cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return stdlib_platform.processor() or stdlib_platform.machine()


def median_of(rounds: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in rounds)


def section(results: dict[str, list[dict[str, float]]], args: argparse.Namespace, members: str) -> str:
    context = (
        f"Measured {datetime.date.today().isoformat()} on {cpu()}, {os.cpu_count()} cores, Python "
        f"{stdlib_platform.python_version()}; 1-minute load average {os.getloadavg()[0]:.1f} at the end of "
        "the run "
        f"(other work shares these cores). {args.rounds} rounds of {args.requests} sequential requests each, "
        "forecast and regression alternating; medians of the rounds' percentiles. The forecaster: the fast "
        f"preset on the synthetic store sales (12 daily series, horizon {HORIZON}; members: {members}); a "
        f"request sends one series' {CONTEXT} days of history with its known covariates. The regressor: "
        "the tabular regression fast preset on diabetes; a request sends one row."
    )
    table = [
        "| path | forecast p50 | forecast p99 | regression p50 | regression p99 "
        "| forecast / regression (p50) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, prefix in (
        ("bare: parse + predict in process", "bare"),
        ("the WSGI application in process (fast path, no HTTP)", "wsgi"),
        ("**hosted API** (gunicorn, HTTP)", "hosted"),
    ):
        f50, f99 = (
            median_of(results[f"{prefix}_forecast"], "p50_ms"),
            median_of(results[f"{prefix}_forecast"], "p99_ms"),
        )
        r50 = median_of(results[f"{prefix}_regression"], "p50_ms")
        r99 = median_of(results[f"{prefix}_regression"], "p99_ms")
        table.append(
            f"| {label} | {f50:.2f} ms | {f99:.2f} ms | {r50:.2f} ms | {r99:.2f} ms | {f50 / r50:.2f} |"
        )
    ratio = median_of(results["hosted_forecast"], "p50_ms") / median_of(
        results["hosted_regression"], "p50_ms"
    )
    overhead = median_of(results["hosted_forecast"], "p50_ms") - median_of(results["bare_forecast"], "p50_ms")
    verdict = (
        f"The hosted path adds {overhead:.2f} ms to a forecast's bare call (HTTP, authentication, the key's "
        f"quota, usage). Target: a hosted forecast's p50 at most {TARGET_RATIO:.0f}x a hosted regression "
        f"row's: {'met' if ratio <= TARGET_RATIO else 'NOT met'} ({ratio:.2f}x)."
    )
    return "\n".join(
        [
            f"<!-- {SECTION}:start -->",
            "## Hosted forecasts (`benchmarks/forecasting_serving.py`)",
            "",
            context,
            "",
            *table,
            "",
            verdict,
            f"<!-- {SECTION}:end -->",
            "",
        ]
    )


def write(text: str) -> None:
    docs = DOCS.read_text()
    pattern = re.compile(rf"<!-- {SECTION}:start -->.*?<!-- {SECTION}:end -->\n", re.S)
    docs = pattern.sub(lambda _: text, docs) if pattern.search(docs) else docs.rstrip("\n") + "\n\n" + text
    DOCS.write_text(docs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=500, help="sequential requests per model per round")
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sampan-bench-forecast-") as tmp:
        tmp_dir = Path(tmp)
        print("training the forecaster and the regressor ...", file=sys.stderr)
        runs, bodies = train_models(tmp_dir)
        members = ", ".join(m["model"] for m in runs["forecast"]["preprocessing"]["members"])
        env = clean_env(SAMPAN_HOME=str(tmp_dir / "home"))
        manage = [sys.executable, str(PLATFORM_DIR / "manage.py")]
        subprocess.run([*manage, "migrate", "--verbosity", "0"], env=env, check=True, cwd=REPO)
        subprocess.run(
            [*manage, "collectstatic", "--no-input", "--verbosity", "0"], env=env, check=True, cwd=REPO
        )
        setup = SETUP.format(
            runs={k: {x: v[x] for x in ("onnx", "preprocessing", "template")} for k, v in runs.items()}
        )
        out = subprocess.run(
            [*manage, "shell", "-c", setup], env=env, check=True, cwd=REPO, capture_output=True, text=True
        ).stdout
        created = json.loads(next(line for line in out.splitlines() if line.startswith("BENCH "))[6:])
        bare = {name: Bare(runs[name], bodies[name]) for name in runs}
        web, port = start_web(env, tmp_dir / "web.log", 1)
        results: dict[str, list[dict[str, float]]] = {
            f"{p}_{n}": [] for p in ("bare", "wsgi", "hosted") for n in ("forecast", "regression")
        }
        try:
            for name in runs:  # warm up: the web process loads each model on its first call
                path = f"/api/v1/deployments/{created[name]['deployment']}/predict/"
                sequential(port, path, created[name]["key"], bodies[name], 100)
                bare[name].timed(100)
            for round_ in range(args.rounds):
                print(f"round {round_ + 1}/{args.rounds}", file=sys.stderr)
                order = list(runs) if round_ % 2 == 0 else list(reversed(list(runs)))
                for name in order:
                    path = f"/api/v1/deployments/{created[name]['deployment']}/predict/"
                    results[f"bare_{name}"].append(summary(bare[name].timed(args.requests)))
                    results[f"wsgi_{name}"].append(
                        summary(wsgi_in_process(env, path, created[name]["key"], bodies[name], args.requests))
                    )
                    results[f"hosted_{name}"].append(
                        summary(sequential(port, path, created[name]["key"], bodies[name], args.requests))
                    )
        finally:
            web.terminate()
            web.wait(timeout=30)
    text = section(results, args, members)
    print(text)
    if args.write:
        write(text)
    ratio = median_of(results["hosted_forecast"], "p50_ms") / median_of(
        results["hosted_regression"], "p50_ms"
    )
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
