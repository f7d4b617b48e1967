"""Request capture's cost to hosted predictions: the same deployment answering with capture off
(the baseline) and with capture on, keeping every instance (sample rate 1, no filter: the most work
capture can do), side by side in alternating rounds (medians).

In process, embedded mode (SQLite, a temporary SAMPAN_HOME): the hosted endpoint's own ``serve()``
(key check, serving stamp, parsing, ONNX Runtime, usage record, and with capture on the per-instance
decision and the queue put in the request thread) on one 32x32 digit PNG per request (base64 JSON),
with a small CNN (the `fast` preset's cnn_small at 32x32, trained here for 2 epochs). With capture
on, the background writer (PNG encoding, blob write, row insert) runs in its own thread meanwhile,
as in a web process; each capture-on round ends when the writer has written everything, so its
throughput counts the writer's work too.

    nice -n 10 .venv/bin/python benchmarks/capture_overhead.py            # print the Markdown table
    nice -n 10 .venv/bin/python benchmarks/capture_overhead.py --write    # also update docs/benchmarks.md

Also capture on at the default sample rate (0.1). Target, every instance kept: p50 latency within
1.1x of capture off; throughput (writer included) at least 0.8x.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "benchmarks.md"
SECTION = "capture_overhead"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "platform"))


def setup(home: Path):
    for name in list(os.environ):
        if name.startswith("SAMPAN_") or name in ("DATABASE_URL", "CELERY_BROKER_URL"):
            del os.environ[name]
    os.environ["SAMPAN_HOME"] = str(home)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.local"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def deployment_with_key(home: Path):
    from accounts.models import User
    from deploy import services
    from workspaces.services import project_create, workspace_create

    from tests.deploy.factories import model_version_from, train_digits

    user = User.objects.create_user(username="bench", password="benchmark-password-1")
    workspace = workspace_create(user=user, name="bench")
    project = project_create(user=user, workspace=workspace, name="bench")
    run = train_digits(home / "train")
    mv = model_version_from({"project_a": project}, run)
    deployment = services.deployment_create(user=user, model_version=mv, name="bench")
    _, secret = services.deployment_key_create(user=user, deployment=deployment, name="bench")
    return user, deployment, secret


def block(deployment_id: int, secret: str, body: bytes, n: int) -> tuple[list[float], float]:
    """n requests through serve(): per-request latencies (ms) and the block's wall time (s) until
    the capture writer has written what it was given."""
    from deploy.api.predict import serve
    from deploy.capture import writer

    meta = {
        "HTTP_AUTHORIZATION": f"Bearer {secret}",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "REMOTE_ADDR": "127.0.0.1",
    }
    latencies = []
    started = time.perf_counter()
    for _ in range(n):
        t = time.perf_counter()
        answer = serve(
            deployment_id, method="POST", meta=meta, read_body=lambda: body, query_top_k=lambda: None
        )
        latencies.append((time.perf_counter() - t) * 1000)
        assert answer.status == 200, answer.body[:300]
    writer.flush()
    return latencies, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sampan-capture-bench-") as tmp:
        home = Path(tmp)
        setup(home)
        from deploy.capture import writer
        from deploy.capture_services import capture_policy_update
        from deploy.models import CapturedRequest

        from tests.deploy.factories import png

        user, deployment, secret = deployment_with_key(home)
        body = json.dumps({"instances": [{"image": base64.b64encode(png(3)).decode()}], "top_k": 3}).encode()
        block(deployment.pk, secret, body, 50)  # warm: the model loaded, the state cached
        rates = {"off": 1.0, "on": 1.0, "default": 0.1}
        results: dict[str, list[tuple[float, float]]] = {mode: [] for mode in rates}
        for _ in range(args.rounds):
            for mode, rate in rates.items():
                capture_policy_update(
                    user=user,
                    deployment=deployment,
                    enabled=mode != "off",
                    sample_rate=rate,
                    max_bytes=1 << 40,
                )
                latencies, wall = block(deployment.pk, secret, body, args.requests)
                results[mode].append((statistics.median(latencies), args.requests / wall))
        kept = CapturedRequest.objects.filter(deployment=deployment).count()
        stats = dict(writer.stats)

    def med(mode: str, i: int) -> float:
        return statistics.median(r[i] for r in results[mode])

    p50_off, p50_on = med("off", 0), med("on", 0)
    rps_off, rps_on = med("off", 1), med("on", 1)
    p50_default, rps_default = med("default", 0), med("default", 1)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        f"<!-- {SECTION}:start -->",
        "## Request capture's cost to hosted predictions (`benchmarks/capture_overhead.py`)",
        "",
        f"Measured {datetime.date.today()} on {os.cpu_count()} CPU cores (load average at the end {load}), "
        f"{args.rounds} alternating rounds of {args.requests} requests each way (medians), in process "
        "(the endpoint's `serve()`, embedded mode), one 32x32 digit PNG per request, cnn_small at 32x32. "
        f"Capture on keeps every instance (sample rate 1, no filter); {kept:,} captures written, "
        f"dropped {stats['dropped']}, errors {stats['errors']}. "
        f"`nice -n 10 .venv/bin/python benchmarks/capture_overhead.py --write`",
        "",
        "| | capture off | on, every instance | on / off | on, sample rate 0.1 (default) | on / off |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        f"| p50 latency per request, ms | {p50_off:.3f} | {p50_on:.3f} | {p50_on / p50_off:.2f} "
        f"| {p50_default:.3f} | {p50_default / p50_off:.2f} |",
        f"| requests/s, the writer's work included | {rps_off:,.0f} | {rps_on:,.0f} | {rps_on / rps_off:.2f} "
        f"| {rps_default:,.0f} | {rps_default / rps_off:.2f} |",
        "",
        f"Targets, every instance kept: p50 within 1.1x ({'met' if p50_on <= 1.1 * p50_off else 'not met'}); "
        f"throughput at least 0.8x ({'met' if rps_on >= 0.8 * rps_off else 'not met'}; at the default "
        f"rate {'met' if rps_default >= 0.8 * rps_off else 'not met'}). The request thread only decides and "
        "queues (a few microseconds); each kept instance costs the writer thread about as much CPU as a "
        "whole 32x32 prediction (PNG encoding ~0.2 ms, the blob file ~0.5 ms, its share of the insert "
        "~0.25 ms; one insert per batch of queued requests), on the same GIL and cores as the requests, "
        "so the cost scales with the share of instances kept (sample rate, filters).",
        f"<!-- {SECTION}:end -->",
    ]
    section = "\n".join(lines)
    print(section)
    if args.write:
        text = DOCS.read_text()
        pattern = re.compile(rf"<!-- {SECTION}:start -->.*?<!-- {SECTION}:end -->", re.S)
        text = (
            pattern.sub(section, text)
            if pattern.search(text)
            else text.rstrip("\n") + "\n\n" + section + "\n"
        )
        DOCS.write_text(text)


if __name__ == "__main__":
    main()
