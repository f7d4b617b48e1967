"""Sample list latency: GET /api/v1/datasets/{id}/samples/ (a page of 100 with the dataset's counts)
at 1,000 and at 100,000 samples, side by side in one run.

Both datasets live in one PostgreSQL database (10 labels, 20% of the samples unlabeled), their rows
inserted in bulk directly (bulk_create; no images are needed to list samples, nothing reads
blobs), then VACUUM ANALYZE, as autovacuum leaves a table at rest. Requests go through Django's
test client in this process with a Bearer token: middleware, token authentication, the tenancy
lookup, the counts and the page, serialised to JSON; no network. Scenarios alternate between the two
sizes request by request:

- first page: no filter (the labeling grid's first view);
- a random page: no filter, any page (OFFSET up to the end);
- one label: filter by a random label;
- unlabeled: the unlabeled samples;
- file name search: a substring of the file name (icontains: a scan of the dataset's rows).

    .venv/bin/python benchmarks/sample_list.py            # print the Markdown table
    .venv/bin/python benchmarks/sample_list.py --write    # also update docs/benchmarks.md

Needs PostgreSQL: --database-url (default postgres://postgres@127.0.0.1:5432/sampan_bench_datasets;
a database of that name is dropped and recreated). Exits 1 when the first page's p95 at 100,000
samples is over 100 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from dataset_bench import DEFAULT_DATABASE_URL, drop_database, machine, setup_django, write_section

SECTION = "sample_list"
TARGET_P95_MS = 100
SIZES = (1_000, 100_000)
LABELS = 10


def populate(n: int, *, user, project, name: str):
    """A dataset of n samples inserted directly: 10 labels, every fifth sample unlabeled."""
    import hashlib

    from datasets.models import Label, Sample
    from datasets.services import dataset_create

    dataset = dataset_create(user=user, project=project, name=name, task_type="image_classification")
    labels = Label.objects.bulk_create(
        [Label(dataset=dataset, name=f"class {i}", color="#336699") for i in range(LABELS)]
    )
    batch = []
    for i in range(n):
        sha = hashlib.sha256(f"{name}:{i}".encode()).hexdigest()
        batch.append(
            Sample(
                dataset=dataset,
                label=None if i % 5 == 4 else labels[(i // 5) % LABELS],
                sha256=sha,
                blob_key=f"samples/{sha[:2]}/{sha}.png",
                thumbnail_key=f"thumbnails/{sha[:2]}/{sha}.jpg",
                original_name=f"class_{(i // 5) % LABELS}/img_{i:06d}.png",
                format="PNG",
                width=32,
                height=32,
                size_bytes=1400,
            )
        )
        if len(batch) == 10_000:
            Sample.objects.bulk_create(batch)
            batch = []
    Sample.objects.bulk_create(batch)
    return dataset, [label.pk for label in labels]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="per scenario and size")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument(
        "--write", action="store_true", help=f"replace the {SECTION} section of docs/benchmarks.md"
    )
    args = parser.parse_args()

    setup_django(args.database_url)
    try:
        body, ok = run(args.requests)
    finally:
        drop_database(args.database_url)
    print(body)
    if args.write:
        write_section(SECTION, "Sample list (`benchmarks/sample_list.py`)", body)
        print("\nwrote docs/benchmarks.md", file=sys.stderr)
    return 0 if ok else 1


def run(n_requests: int) -> tuple[str, bool]:
    from accounts.models import User
    from accounts.services import api_token_create
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from workspaces.services import project_create, workspace_create

    user = User.objects.create_user("bench", password="x" * 20)
    project = project_create(user=user, workspace=workspace_create(user=user, name="Benchmark"), name="Lists")
    token = api_token_create(user=user, name="bench").key
    datasets = {}
    for n in SIZES:
        started = time.perf_counter()
        datasets[n] = populate(n, user=user, project=project, name=f"{n} samples")
        print(f"inserted {n:,} samples in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE datasets_sample")
        cursor.execute("VACUUM ANALYZE datasets_label")

    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    rng = random.Random(1)

    def url(n: int, scenario: str) -> str:
        dataset, labels = datasets[n]
        base = f"/api/v1/datasets/{dataset.pk}/samples/?page_size=100"
        if scenario == "first page":
            return base
        if scenario == "a random page":
            return f"{base}&page={rng.randint(1, n // 100)}"
        if scenario == "one label":
            return f"{base}&label={rng.choice(labels)}"
        if scenario == "unlabeled":
            return f"{base}&unlabeled=true"
        return f"{base}&search=img_{rng.randint(0, min(n, 100_000) // 1000 - 1):03d}"

    scenarios = ["first page", "a random page", "one label", "unlabeled", "file name search"]
    latencies: dict[tuple[str, int], list[float]] = {(s, n): [] for s in scenarios for n in SIZES}
    queries: dict[tuple[str, int], int] = {}
    for scenario in scenarios:
        for n in SIZES:  # warm up, check the answer, count the queries
            with CaptureQueriesContext(connection) as captured:
                response = client.get(url(n, scenario))
            body = response.json()
            if (
                response.status_code != 200
                or len(body["results"]) != min(100, body["count"])
                or body["counts"]["total"] != n
                or not body["results"]
            ):
                raise SystemExit(f"{scenario} at {n}: {response.status_code} {str(body)[:300]}")
            queries[scenario, n] = len(captured)
        for i in range(n_requests):
            for n in SIZES if i % 2 == 0 else SIZES[::-1]:
                target = url(n, scenario)
                started = time.perf_counter()
                response = client.get(target)
                latencies[scenario, n].append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, target
        print(
            f"{scenario}: "
            + ", ".join(f"{n:,}: p95 {percentile(latencies[scenario, n], 95):.1f} ms" for n in SIZES),
            file=sys.stderr,
        )
    return report(latencies, queries, n_requests)


def percentile(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1]


def report(latencies, queries, n_requests: int) -> tuple[str, bool]:
    big, small = SIZES[1], SIZES[0]
    first_p95 = percentile(latencies["first page", big], 95)
    ok = first_p95 <= TARGET_P95_MS
    lines = [
        f"Measured {machine()}. {n_requests} requests per scenario and size, the two sizes alternating "
        "request by request; each request is a page of 100 samples with the dataset's counts (total, "
        "labeled, unlabeled, per label), through Django's test client in-process with a Bearer token "
        "(authentication and tenancy included, no network). Rows inserted directly, then VACUUM ANALYZE.",
        "",
        f"| scenario | p50 at {small:,} | p95 at {small:,} | p50 at {big:,} | p95 at {big:,} | "
        f"p95 {big:,} / {small:,} | SQL queries |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for scenario in ["first page", "a random page", "one label", "unlabeled", "file name search"]:
        s, b = latencies[scenario, small], latencies[scenario, big]
        lines.append(
            f"| {scenario} | {statistics.median(s):.1f} ms | {percentile(s, 95):.1f} ms | "
            f"{statistics.median(b):.1f} ms | {percentile(b, 95):.1f} ms | "
            f"{percentile(b, 95) / percentile(s, 95):.2f} | {queries[scenario, big]} |"
        )
    lines += [
        "",
        f"Target: p95 at most {TARGET_P95_MS} ms for the first page at {big:,} samples: "
        + (f"met ({first_p95:.1f} ms)." if ok else f"**not met** ({first_p95:.1f} ms)."),
        "For scale, the issue quotes Label Studio 1.23 on this machine type at 100,000 tasks: task list p50 "
        "229 / p95 362 ms, project counts 396 ms (a different product and request; not measured here).",
        "",
        "Why it stays flat: the counts are one GROUP BY label_id answered from the (dataset, label, id) "
        "index plus the labels; a label or unlabeled filter takes its count from that result instead of a "
        "second COUNT; the page is an index range on (dataset, id), so a deep page pays for its OFFSET. A "
        "file name search adds one COUNT; both it and the page use a trigram index on the name (PostgreSQL's "
        "pg_trgm; without it a search scans the dataset's rows). A version/split filter (not measured here) "
        "adds a COUNT over the version's entries.",
    ]
    return "\n".join(lines), ok


if __name__ == "__main__":
    sys.exit(main())
