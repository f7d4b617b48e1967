"""Web process footprint: Sampan's gunicorn process against a Django + DRF hello world, side by side.

Both are served exactly as `manage.py up` serves Sampan (gunicorn, one gthread worker, 8 threads)
and measured the same way, alternating, in one run:

- start-up: from launching gunicorn to the first 200 from /healthz;
- RSS of gunicorn's master plus its worker (psutil), idle after start-up and after N API requests
  (Sampan: authenticated GETs of workspaces, projects, jobs and auth/me with a Bearer token, after
  creating one workspace and project; baseline: GETs of one DRF view), sent by 8 client threads;
- whether libtorch is mapped into any gunicorn process (/proc/<pid>/maps): it must not be.

Sampan runs in embedded mode (SQLite and the filesystem broker in a temporary SAMPAN_HOME, after
`manage.py migrate` and `collectstatic`, as `up` does); the baseline is `django-admin startproject`
plus DRF, on SQLite too.

    .venv/bin/python benchmarks/web_process.py            # print the Markdown table
    .venv/bin/python benchmarks/web_process.py --write    # also update docs/benchmarks.md

Exits 1 when torch is loaded in the web process or the RSS after the requests exceeds the target.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import platform as stdlib_platform  # the stdlib module; Sampan's platform/ is never a package
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import requests

REPO = Path(__file__).resolve().parents[1]
PLATFORM_DIR = REPO / "platform"
DOCS = REPO / "docs" / "benchmarks.md"
SECTION = "web_process"
TARGET_RSS_MB = 250
THREADS = 8  # SAMPAN_WEB_THREADS' default, what `manage.py up` passes to gunicorn
CLIENT_THREADS = 8
SAMPAN_PATHS = ["/api/v1/workspaces/", "/api/v1/projects/", "/api/v1/jobs/", "/api/v1/auth/me/"]
BASELINE_PATHS = ["/api/v1/hello/"]
MB = 1024 * 1024


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gunicorn_argv(app: str, chdir: Path, port: int) -> list[str]:
    """The command `platform/jobs/management/commands/up.py` runs, bound to a free local port."""
    return [
        sys.executable,
        "-m",
        "gunicorn",
        app,
        "--chdir",
        str(chdir),
        "--bind",
        f"127.0.0.1:{port}",
        "--worker-class",
        "gthread",
        "--workers",
        "1",
        "--threads",
        str(THREADS),
        "--timeout",
        "120",
        "--graceful-timeout",
        "10",
        "--access-logfile",
        "-",
        "--error-logfile",
        "-",
        "--no-control-socket",
    ]


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without any Sampan setting (a developer's DATABASE_URL would otherwise leak in)."""
    if str(PLATFORM_DIR) not in sys.path:
        sys.path.insert(0, str(PLATFORM_DIR))
    from config.env import ENV_VARS

    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS and not k.startswith("SAMPAN_")}
    env.update(PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1", **extra)
    return env


def run(argv: list[str], *, env: dict[str, str], cwd: Path) -> str:
    result = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv[1:4])} failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    return result.stdout


@dataclass
class Measurement:
    startup_s: float
    rss_idle: int
    rss_after: int
    worker_rss_after: int
    requests_per_s: float
    torch_loaded: bool


@dataclass
class Target:
    """A web application served by gunicorn the way `up` serves Sampan."""

    name: str
    app: str
    chdir: Path
    env: dict[str, str]
    paths: list[str]
    headers: dict[str, str] = field(default_factory=dict)
    log: Path | None = None

    def measure(self, n_requests: int, prepare=None) -> Measurement:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        assert self.log is not None
        with self.log.open("ab") as log:
            started = time.perf_counter()
            proc = subprocess.Popen(
                gunicorn_argv(self.app, self.chdir, port),
                env=self.env,
                cwd=self.chdir,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                startup = self._wait_healthy(url, proc, started)
                time.sleep(1.0)  # let start-up work finish before calling it idle
                master = psutil.Process(proc.pid)
                rss_idle = _rss(master)
                if prepare is not None:
                    prepare(url, self.headers)
                elapsed = self._load(url, n_requests)
                time.sleep(0.5)
                workers = master.children()
                rss_after = _rss(master)
                worker_rss = sum(w.memory_info().rss for w in workers)
                torch_loaded = any(_maps_torch(p.pid) for p in [master, *workers])
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        return Measurement(startup, rss_idle, rss_after, worker_rss, n_requests / elapsed, torch_loaded)

    def _wait_healthy(self, url: str, proc: subprocess.Popen, started: float) -> float:
        deadline = started + 120
        while time.perf_counter() < deadline:
            if proc.poll() is not None:
                raise SystemExit(f"{self.name}: gunicorn exited with {proc.returncode}; see {self.log}")
            try:
                if requests.get(url + "/healthz", timeout=2).status_code == 200:
                    return time.perf_counter() - started
            except requests.RequestException:
                pass
            time.sleep(0.02)
        raise SystemExit(f"{self.name}: no 200 from /healthz within 120 s; see {self.log}")

    def _load(self, url: str, n_requests: int) -> float:
        counter = iter(range(n_requests))
        lock = threading.Lock()
        failures: list[str] = []

        def client() -> None:
            with requests.Session() as session:
                session.headers.update(self.headers)
                while True:
                    with lock:
                        index = next(counter, None)
                    if index is None or failures:
                        return
                    path = self.paths[index % len(self.paths)]
                    response = session.get(url + path, timeout=30)
                    if response.status_code != 200:
                        failures.append(f"GET {path}: {response.status_code} {response.text[:300]}")

        threads = [threading.Thread(target=client) for _ in range(CLIENT_THREADS)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise SystemExit(f"{self.name}: {failures[0]}")
        return time.perf_counter() - started


def _rss(master: psutil.Process) -> int:
    return sum(p.memory_info().rss for p in [master, *master.children(recursive=True)])


def _maps_torch(pid: int) -> bool:
    return "libtorch" in Path(f"/proc/{pid}/maps").read_text()


def check_torch_probe() -> None:
    """The maps probe must see torch where it is loaded, or its "no" would prove nothing."""
    probe = subprocess.Popen(
        [sys.executable, "-c", "import sys, torch; print('ready', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        if probe.stdout.readline().strip() != "ready":
            print("torch is not installed here; the libtorch probe is unverified", file=sys.stderr)
            return
        if not _maps_torch(probe.pid):
            raise SystemExit("the libtorch probe does not see torch in a process that imported it")
    finally:
        probe.kill()
        probe.wait()


# --- the two applications -------------------------------------------------------------------------


def sampan_target(workdir: Path) -> tuple[Target, object]:
    home = workdir / "sampan-home"
    env = clean_env(SAMPAN_HOME=str(home), DJANGO_SETTINGS_MODULE="config.settings.local")
    manage = [sys.executable, str(PLATFORM_DIR / "manage.py")]
    run([*manage, "migrate", "--noinput", "--verbosity", "0"], env=env, cwd=REPO)
    run([*manage, "collectstatic", "--noinput", "--verbosity", "0"], env=env, cwd=REPO)
    out = run(
        [
            *manage,
            "shell",
            "-c",
            textwrap.dedent("""
        from accounts.services import api_token_create, user_create
        user = user_create(username="bench", password="bench-password-not-used")
        print(api_token_create(user=user, name="benchmark").key)
    """),
        ],
        env=env,
        cwd=REPO,
    )
    key = next(line for line in out.splitlines() if line.startswith("spk_"))
    created: list[bool] = []

    def prepare(url: str, headers: dict[str, str]) -> None:
        if created:
            return
        workspace = requests.post(
            url + "/api/v1/workspaces/", json={"name": "Benchmark"}, headers=headers, timeout=30
        )
        workspace.raise_for_status()
        project = requests.post(
            url + "/api/v1/projects/",
            json={"workspace": workspace.json()["id"], "name": "Web"},
            headers=headers,
            timeout=30,
        )
        project.raise_for_status()
        created.append(True)

    target = Target(
        "Sampan",
        "config.wsgi:application",
        PLATFORM_DIR,
        env,
        SAMPAN_PATHS,
        headers={"Authorization": f"Bearer {key}"},
        log=workdir / "sampan-gunicorn.log",
    )
    return target, prepare


def baseline_target(workdir: Path) -> Target:
    """`django-admin startproject` + DRF: one JSON view and a /healthz, SQLite, production-like DEBUG off."""
    project = workdir / "baseline"
    project.mkdir()
    env = clean_env(DJANGO_SETTINGS_MODULE="hello_baseline.settings")
    run(
        [sys.executable, "-m", "django", "startproject", "hello_baseline", str(project)],
        env=clean_env(),
        cwd=workdir,
    )
    with (project / "hello_baseline" / "settings.py").open("a") as settings:
        settings.write(
            textwrap.dedent("""
            DEBUG = False
            ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
            INSTALLED_APPS += ["rest_framework"]
            REST_FRAMEWORK = {"DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"]}
        """)
        )
    (project / "hello_baseline" / "urls.py").write_text(
        textwrap.dedent("""
        from django.http import JsonResponse
        from django.urls import path
        from rest_framework.permissions import AllowAny
        from rest_framework.response import Response
        from rest_framework.views import APIView


        class Hello(APIView):
            permission_classes = [AllowAny]

            def get(self, request):
                return Response({"hello": "world"})


        urlpatterns = [
            path("healthz", lambda request: JsonResponse({"status": "ok"})),
            path("api/v1/hello/", Hello.as_view()),
        ]
    """)
    )
    run([sys.executable, "manage.py", "migrate", "--noinput", "--verbosity", "0"], env=env, cwd=project)
    return Target(
        "Baseline",
        "hello_baseline.wsgi:application",
        project,
        env,
        BASELINE_PATHS,
        headers={"Authorization": "Bearer not-checked"},
        log=workdir / "baseline-gunicorn.log",
    )


# --- report ---------------------------------------------------------------------------------------


def _median(ms: list[Measurement], attr: str) -> float:
    return statistics.median(getattr(m, attr) for m in ms)


def _versions() -> str:
    import django
    import gunicorn
    import rest_framework

    cpu = "unknown CPU"
    with contextlib.suppress(OSError, TypeError):
        cpu = re.search(r"model name\s*:\s*(.+)", Path("/proc/cpuinfo").read_text())[1].strip()
    return (
        f"{cpu}, {os.cpu_count()} cores, Linux {stdlib_platform.release()}; Python "
        f"{stdlib_platform.python_version()}, Django {django.__version__}, DRF {rest_framework.VERSION}, "
        f"gunicorn {gunicorn.__version__}"
    )


def report(sampan: list[Measurement], baseline: list[Measurement], n_requests: int) -> tuple[str, bool]:
    def row(label: str, attr: str, fmt, scale: float = 1.0) -> str:
        s, b = _median(sampan, attr) / scale, _median(baseline, attr) / scale
        return f"| {label} | {fmt(s)} | {fmt(b)} | {s / b:.2f} |"

    rss_after = _median(sampan, "rss_after") / MB
    torch_loaded = any(m.torch_loaded for m in sampan)
    ok = rss_after <= TARGET_RSS_MB and not torch_loaded
    mb = "{:.1f} MB".format
    lines = [
        f"Measured {datetime.date.today().isoformat()} on {_versions()}. Medians of {len(sampan)} rounds, "
        "Sampan and baseline alternating; RSS is gunicorn's master plus its worker (MB = 2^20 bytes). "
        f"Requests: {n_requests:,} GETs from {CLIENT_THREADS} client threads on the same machine (Sampan: "
        "workspaces, projects, jobs, auth/me with a Bearer token; baseline: one DRF view).",
        "",
        "| web process (gunicorn, 1 gthread worker, 8 threads) | Sampan | Django + DRF hello world | Sampan "
        "/ baseline |",
        "| --- | ---: | ---: | ---: |",
        row("start-up to first 200 from /healthz", "startup_s", "{:.2f} s".format),
        row("RSS idle", "rss_idle", mb, MB),
        row(f"RSS after {n_requests:,} API requests", "rss_after", mb, MB),
        row("RSS of the worker process alone, after the requests", "worker_rss_after", mb, MB),
        row("requests per second (client on the same cores)", "requests_per_s", "{:.0f}".format),
        f"| libtorch mapped into the web process | {'yes' if torch_loaded else 'no'} | "
        f"{'yes' if any(m.torch_loaded for m in baseline) else 'no'} | |",
        "",
        f"Target: at most {TARGET_RSS_MB} MB RSS after {n_requests:,} requests, and no torch in the web "
        "process: " + ("met." if ok else "**not met**."),
    ]
    return "\n".join(lines), ok


def write_section(body: str) -> None:
    start, end = f"<!-- {SECTION}:start -->", f"<!-- {SECTION}:end -->"
    section = f"{start}\n## Web process (`benchmarks/web_process.py`)\n\n{body}\n{end}"
    if DOCS.exists():
        text = DOCS.read_text()
    else:
        text = (
            "# Benchmarks\n\nLatest figures of the scripts in `benchmarks/` (see its README). Each script "
            "measures Sampan side by side with a baseline in one run and reports ratios, because these "
            "machines are noisy; absolute figures are for orientation. Each section is rewritten by its "
            "script's `--write`; edit the text outside the markers only.\n"
        )
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    text = (
        pattern.sub(lambda _: section, text)
        if pattern.search(text)
        else text.rstrip("\n") + f"\n\n{section}\n"
    )
    DOCS.parent.mkdir(parents=True, exist_ok=True)
    DOCS.write_text(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--write", action="store_true", help=f"replace the {SECTION} section of {DOCS.relative_to(REPO)}"
    )
    args = parser.parse_args()

    check_torch_probe()
    with tempfile.TemporaryDirectory(prefix="sampan-bench-web-") as tmp:
        workdir = Path(tmp)
        sampan, prepare = sampan_target(workdir)
        baseline = baseline_target(workdir)
        results: dict[str, list[Measurement]] = {"Sampan": [], "Baseline": []}
        for index in range(args.rounds):
            order = [(sampan, prepare), (baseline, None)]
            for target, prep in order if index % 2 == 0 else order[::-1]:
                m = target.measure(args.requests, prep)
                results[target.name].append(m)
                print(
                    f"round {index + 1} {target.name}: start-up {m.startup_s:.2f} s, RSS idle "
                    f"{m.rss_idle / MB:.1f} MB, after {m.rss_after / MB:.1f} MB, {m.requests_per_s:.0f} "
                    f"req/s, torch {m.torch_loaded}",
                    file=sys.stderr,
                )
    body, ok = report(results["Sampan"], results["Baseline"], args.requests)
    print(body)
    if args.write:
        write_section(body)
        print(f"\nwrote {DOCS.relative_to(REPO)}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
