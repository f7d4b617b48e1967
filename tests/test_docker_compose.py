"""docker-compose.yml, .env.example and the Dockerfile agree with the code they start.

No Docker here: the compose file is parsed with PyYAML and its `${VAR}` references are filled the
way compose fills them, from .env.example. Commands are checked against the real management
commands and gunicorn's own parser, variables against config.env.ENV_VARS, URLs against the
parsers the settings use, and the web healthcheck is run against a stand-in server.
"""

from __future__ import annotations

import http.server
import json
import re
import secrets
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
COMPOSE_FILE = REPO / "docker-compose.yml"
ENV_EXAMPLE = REPO / ".env.example"
DOCKERFILE = REPO / "Dockerfile"

COMPOSE = yaml.safe_load(COMPOSE_FILE.read_text())
SERVICES: dict[str, dict] = COMPOSE["services"]
# Sampan's own services: the ones built from the repository's Dockerfile.
APP_SERVICES = sorted(name for name, service in SERVICES.items() if "build" in service)
LONG_RUNNING_APP_SERVICES = ["housekeeping", "web", "worker-cpu", "worker-gpu"]
PRODUCTION_REQUIRED = {"DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DATABASE_URL", "CELERY_BROKER_URL"}
# Read by compose itself, not interpolated and never passed to a container.
COMPOSE_SETTINGS = {"COMPOSE_PROFILES"}


# --- compose's variable interpolation ----------------------------------------------------------

_REFERENCE = re.compile(
    r"\$(?:(?P<escaped>\$)|\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}"
    r"|(?P<plain>[A-Za-z_][A-Za-z0-9_]*))"
)


class MissingVariable(Exception):
    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name


def interpolate(text: str, env: dict[str, str]) -> str:
    """Fill `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `${VAR?error}`."""

    def fill(match: re.Match) -> str:
        if match["escaped"]:
            return "$"
        name = match["braced"] or match["plain"]
        value, op, arg = env.get(name), match["op"], match["arg"] or ""
        if op == ":-":
            return value if value else arg
        if op == "-":
            return arg if value is None else value
        if (op == ":?" and not value) or (op == "?" and value is None):
            raise MissingVariable(name, arg)
        return value or ""

    return _REFERENCE.sub(fill, text)


def interpolated(node, env: dict[str, str]):
    if isinstance(node, str):
        return interpolate(node, env)
    if isinstance(node, dict):
        return {key: interpolated(value, env) for key, value in node.items()}
    if isinstance(node, list):
        return [interpolated(item, env) for item in node]
    return node


def referenced_variables(node) -> set[str]:
    if isinstance(node, str):
        return {m["braced"] or m["plain"] for m in _REFERENCE.finditer(node) if not m["escaped"]}
    if isinstance(node, dict):
        return set().union(*(referenced_variables(value) for value in node.values()), set())
    if isinstance(node, list):
        return set().union(*(referenced_variables(item) for item in node), set())
    return set()


def env_example() -> dict[str, str]:
    values = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, sep, value = line.partition("=")
            assert sep and re.fullmatch(r"[A-Z_][A-Z0-9_]*", name), f".env.example: not NAME=value: {line!r}"
            values[name] = value
    return values


def filled_env() -> dict[str, str]:
    """.env.example with its required-but-empty secrets filled as a user is told to fill them."""
    env = env_example()
    for name in ("DJANGO_SECRET_KEY", "POSTGRES_PASSWORD", "SAMPAN_ADMIN_PASSWORD"):
        env[name] = env[name] or secrets.token_hex(32)
    return env


def service(name: str, env: dict[str, str] | None = None) -> dict:
    return interpolated(SERVICES[name], filled_env() if env is None else env)


def environment_of(svc: dict) -> dict[str, str]:
    env = svc.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.partition("=")[::2] for item in env)
    return {key: "" if value is None else str(value) for key, value in env.items()}


# --- commands ------------------------------------------------------------------------------------


def argv_of(svc: dict) -> list[list[str]]:
    """The programs a service's command runs: `sh -c "a && b"` gives [a, b]."""
    command = svc.get("command")
    if command is None:
        return []
    words = shlex.split(command) if isinstance(command, str) else [str(word) for word in command]
    if words[:2] in (["sh", "-c"], ["bash", "-c"], ["/bin/sh", "-c"]):
        words = shlex.split(words[2], posix=True)
    programs, current = [], []
    for word in words:
        if word in ("&&", "||", ";"):
            programs.append(current)
            current = []
        else:
            current.append(word)
    programs.append(current)
    return [program for program in programs if program]


def manage_py_calls(svc: dict) -> list[tuple[str, list[str]]]:
    calls = []
    for program in argv_of(svc):
        for index, word in enumerate(program):
            if word.endswith("manage.py"):
                assert (REPO / word).is_file(), (
                    f"{word} is not a file in the repository (commands run from its root)"
                )
                calls.append((program[index + 1], program[index + 2 :]))
    return calls


def test_the_stack_has_every_service():
    assert {"postgres", "redis", "migrate", "housekeeping", "web", "worker-cpu", "worker-gpu"} <= set(
        SERVICES
    )
    assert APP_SERVICES == ["housekeeping", "migrate", "web", "worker-cpu", "worker-gpu"], (
        "Sampan services build from the Dockerfile"
    )
    assert SERVICES["postgres"]["image"] == "postgres:16"
    assert SERVICES["redis"]["image"] == "redis:7"
    images = {SERVICES[name].get("image") for name in APP_SERVICES}
    builds = {json.dumps(SERVICES[name]["build"], sort_keys=True) for name in APP_SERVICES}
    assert len(images) == 1 and len(builds) == 1, "every Sampan service runs the same image"


def test_redis_keeps_an_append_only_file_on_a_volume():
    words = argv_of(service("redis"))[0]
    assert "--appendonly" in words and words[words.index("--appendonly") + 1] == "yes", words
    assert any(str(volume).endswith(":/data") for volume in SERVICES["redis"].get("volumes", [])), (
        "the AOF lives in /data; without a volume it is lost when the container is recreated"
    )


def test_worker_gpu_reserves_an_nvidia_gpu():
    devices = SERVICES["worker-gpu"]["deploy"]["resources"]["reservations"]["devices"]
    assert any(
        device.get("driver") == "nvidia"
        and "gpu" in device.get("capabilities", [])
        and (device.get("count") == "all" or int(device.get("count", 0)) >= 1)
        for device in devices
    ), devices


def test_exactly_one_service_runs_the_scheduler_outside_the_job_workers():
    calls = {name: manage_py_calls(service(name)) for name in SERVICES}
    scheduler = [
        name
        for name, invocations in calls.items()
        if any(command == "housekeeping" or "--beat" in args for command, args in invocations)
    ]
    assert scheduler == ["housekeeping"], (
        f"the reaper schedule must run exactly once per installation, got {scheduler}"
    )
    assert SERVICES["housekeeping"].get("deploy", {}).get("replicas", 1) == 1, (
        "a replicated scheduler runs the schedule more than once"
    )
    for name in ("worker-cpu", "worker-gpu"):
        ((command, args),) = calls[name]
        assert command == "worker" and "--beat" not in args, (
            f"{name}: the reaper must not wait behind this worker's jobs (issue 12 item 2)"
        )


def test_periodic_tasks_go_to_the_housekeeping_queue_only_housekeeping_consumes():
    from django.conf import settings
    from jobs.management.commands.housekeeping import HOUSEKEEPING_QUEUE

    for name, entry in settings.CELERY_BEAT_SCHEDULE.items():
        assert entry["options"]["queue"] == HOUSEKEEPING_QUEUE, name
    from jobs.management.commands.worker import KNOWN_QUEUES

    assert HOUSEKEEPING_QUEUE not in KNOWN_QUEUES, "job workers must not consume the housekeeping queue"


def test_manage_py_commands_exist_and_accept_their_arguments():
    from django.core.management import get_commands, load_command_class
    from django.core.management.base import CommandError

    known = get_commands()
    calls = {name: manage_py_calls(service(name)) for name in SERVICES}
    assert calls["migrate"] and all(calls[name] for name in ("housekeeping", "worker-cpu", "worker-gpu"))
    for svc, invocations in calls.items():
        for command, args in invocations:
            assert command in known, f"{svc}: `manage.py {command}` is not a management command"
            if not known[command].startswith("django."):
                app_dir = REPO / "platform" / known[command]
                assert (app_dir / "management" / "commands" / f"{command}.py").is_file(), (svc, command)
            parser = load_command_class(known[command], command).create_parser("manage.py", command)
            try:
                parser.parse_args(args)
            except CommandError as exc:
                pytest.fail(f"{svc}: manage.py {command} {' '.join(args)}: {exc}")


def test_migrate_runs_migrations_then_creates_the_first_admin():
    commands = [command for command, _ in manage_py_calls(service("migrate"))]
    assert commands[0] == "migrate" and "ensure_admin" in commands, commands
    assert str(SERVICES["migrate"].get("restart")) == "no", "a one-shot service must not restart"


def test_workers_consume_the_queues_their_hardware_serves():
    from jobs.management.commands.worker import resolve_queues

    def queues(name: str) -> list[str]:
        ((command, args),) = manage_py_calls(service(name))
        assert command == "worker"
        return resolve_queues(args[args.index("--queues") + 1], {"cuda": []})

    assert queues("worker-cpu") == ["cpu"]
    assert queues("worker-gpu") == ["gpu"]


def test_web_runs_gunicorn_with_the_wsgi_application_as_up_does():
    from gunicorn.config import Config

    ((program, *args),) = argv_of(service("web"))
    assert program == "gunicorn"
    parsed = Config().parser().parse_args(args)  # exits on an option this gunicorn does not know
    # gthread with kept-alive connections served on by their thread (config/gunicorn_worker.py)
    assert parsed.worker_class == "config.gunicorn_worker.KeepAliveThreadWorker" and parsed.threads == 8
    # processes from SAMPAN_WEB_PROCESSES via platform/config/gunicorn.py (2 by default with Redis)
    assert parsed.config == "platform/config/gunicorn.py" and parsed.workers is None
    probe = "import runpy; print(runpy.run_path('platform/config/gunicorn.py')['workers'])"
    env = {**environment_of(service("web")), "SAMPAN_HOME": "/tmp"}
    for value, expected in (("", "2"), ("3", "3")):
        result = subprocess.run(
            [sys.executable, "-c", probe],
            env={**env, "SAMPAN_WEB_PROCESSES": value},
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.stdout.split() == [expected], result.stderr[-2000:]
    assert parsed.bind == ["0.0.0.0:8000"] and parsed.control_socket_disable is True
    module, _, attribute = parsed.args[0].partition(":")
    source = REPO / parsed.chdir / (module.replace(".", "/") + ".py")
    assert source.is_file() and re.search(rf"^{attribute} = ", source.read_text(), re.M), parsed.args


def test_dockerfile_default_command_is_the_web_command():
    cmd = _final_stage_instructions("CMD")[-1]
    assert json.loads(cmd) == [str(word) for word in SERVICES["web"]["command"]]


# --- environment ---------------------------------------------------------------------------------


def test_app_services_set_only_variables_the_code_reads():
    from config.env import ENV_VARS

    for name in APP_SERVICES:
        assert "env_file" not in SERVICES[name], (
            f"{name}: env_file would pass every .env entry (POSTGRES_PASSWORD, ...) into the container; "
            "list the variables under x-sampan-env instead"
        )
        env = environment_of(service(name))
        unknown = sorted(set(env) - set(ENV_VARS))
        assert not unknown, f"{name} sets variables the code never reads: {unknown}"
        assert set(env) >= PRODUCTION_REQUIRED, f"{name} lacks {sorted(PRODUCTION_REQUIRED - set(env))}"
        assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production", name


def test_production_settings_load_from_the_compose_environment(tmp_path):
    env = environment_of(service("web"))
    env["SAMPAN_HOME"] = str(tmp_path)  # /data in the container; nothing here connects to a service
    probe = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.SECRET_KEY == __import__('os').environ['DJANGO_SECRET_KEY'], s.SECURE_SSL_REDIRECT, "
        "s.DATABASES['default']['HOST'], s.CELERY_BROKER_URL)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        cwd=REPO / "platform",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["True", "True", "postgres", "redis://redis:6379/0"]


def test_env_example_documents_exactly_the_variables_compose_reads():
    documented = set(env_example())
    used = referenced_variables(COMPOSE)
    assert not used - documented, f".env.example does not mention {sorted(used - documented)}"
    assert not documented - used - COMPOSE_SETTINGS, f".env.example lists unused {sorted(documented - used)}"
    for paragraph in ENV_EXAMPLE.read_text().split("\n\n"):
        lines = [line for line in paragraph.splitlines() if line.strip()]
        if any(not line.startswith("#") for line in lines):
            assert any(line.startswith("#") for line in lines), f"uncommented variables:\n{paragraph}"


@pytest.mark.parametrize("secret", ["DJANGO_SECRET_KEY", "POSTGRES_PASSWORD", "DJANGO_ALLOWED_HOSTS"])
def test_a_missing_secret_stops_compose(secret):
    env = filled_env()
    env[secret] = ""
    with pytest.raises(MissingVariable) as error:
        interpolated(COMPOSE, env)
    assert error.value.name == secret


def test_database_and_broker_urls_are_accepted_by_the_settings_parsers(monkeypatch):
    from config.env import broker_url, database_from_url

    env = filled_env()
    postgres = environment_of(service("postgres", env))
    for name in APP_SERVICES:
        app_env = environment_of(service(name, env))
        monkeypatch.setenv("DATABASE_URL", app_env["DATABASE_URL"])
        monkeypatch.setenv("CELERY_BROKER_URL", app_env["CELERY_BROKER_URL"])
        database = database_from_url("DATABASE_URL", Path("/unused.sqlite3"))
        assert database["ENGINE"] == "django.db.backends.postgresql", name
        assert (database["HOST"], database["PORT"]) == ("postgres", "5432"), name
        assert (database["NAME"], database["USER"], database["PASSWORD"]) == (
            postgres["POSTGRES_DB"],
            postgres["POSTGRES_USER"],
            postgres["POSTGRES_PASSWORD"],
        ), name
        broker = broker_url("CELERY_BROKER_URL")
        assert broker is not None and broker.startswith("redis://redis:"), (name, broker)


def test_blobs_live_on_one_volume_shared_by_web_and_workers():
    homes = set()
    for name in APP_SERVICES:
        home = environment_of(service(name))["SAMPAN_HOME"]
        mounts = {
            str(volume).split(":")[1]: str(volume).split(":")[0] for volume in SERVICES[name]["volumes"]
        }
        assert home in mounts, f"{name}: SAMPAN_HOME {home} is not on a volume"
        homes.add((home, mounts[home]))
    assert len(homes) == 1, f"web and workers must see the same files: {homes}"
    ((_, volume),) = homes
    assert volume in COMPOSE["volumes"], "a named volume, declared at the top level"


# --- start-up order and health ------------------------------------------------------------------


def test_long_running_services_wait_for_migrate_and_healthy_services():
    migrate_deps = SERVICES["migrate"]["depends_on"]
    assert migrate_deps["postgres"]["condition"] == "service_healthy"
    for name in LONG_RUNNING_APP_SERVICES:
        deps = SERVICES[name]["depends_on"]
        assert deps["migrate"]["condition"] == "service_completed_successfully", name
        assert deps["postgres"]["condition"] == deps["redis"]["condition"] == "service_healthy", name


def test_postgres_redis_and_web_have_healthchecks():
    def check(name: str) -> str:
        test = SERVICES[name]["healthcheck"]["test"]
        return " ".join(test) if isinstance(test, list) else test

    assert "pg_isready" in check("postgres")
    assert re.search(r"\bredis-cli\b.*\bping\b", check("redis"))
    assert "/healthz" in check("web")


class _StandInSampan(http.server.BaseHTTPRequestHandler):
    status = 200
    seen: list[tuple[str, str]] = []

    def do_GET(self):  # noqa: N802 - the http.server API
        self.seen.append((self.path, self.headers["Host"]))
        self.send_response(self.status)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def stand_in_web():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _StandInSampan)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    _StandInSampan.seen = []
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    ("allowed", "expected_host"),
    [
        ("sampan.example.com,localhost", "sampan.example.com"),
        (".example.com", "example.com"),
        ("*", "localhost"),
    ],
)
def test_web_healthcheck_asks_healthz_with_an_allowed_host(stand_in_web, allowed, expected_host):
    from django.http.request import validate_host

    test = SERVICES["web"]["healthcheck"]["test"]
    assert test[0] == "CMD" and test[1] == "python", "exec form with python: the image has no curl"
    port = stand_in_web.server_address[1]
    argv = [sys.executable, *(word.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for word in test[2:])]
    env = {"DJANGO_ALLOWED_HOSTS": allowed}

    _StandInSampan.status = 200
    assert subprocess.run(argv, env=env, capture_output=True, timeout=30).returncode == 0
    assert _StandInSampan.seen == [("/healthz", expected_host)]
    assert validate_host(expected_host, allowed.split(",")), "Django would answer 400 to this Host"

    _StandInSampan.status = 503  # /healthz: database or broker down
    assert subprocess.run(argv, env=env, capture_output=True, timeout=30).returncode != 0


# --- Dockerfile ----------------------------------------------------------------------------------


def _final_stage_instructions(keyword: str) -> list[str]:
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    last_from = max(index for index, line in enumerate(lines) if line.upper().startswith("FROM "))
    return [
        line.split(None, 1)[1].strip() for line in lines[last_from:] if line.upper().startswith(keyword + " ")
    ]


def test_dockerfile_final_stage_runs_as_a_non_root_user():
    users = _final_stage_instructions("USER")
    assert users, "the final stage never sets USER, so the container runs as root"
    user = users[-1].split(":")[0]
    assert user not in {"root", "0"}, users[-1]


def test_dockerfile_exposes_the_web_port_and_build_context_excludes_secrets():
    assert "8000" in " ".join(_final_stage_instructions("EXPOSE")).split()
    ignored = {line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()}
    assert {".env", ".git", ".venv", "**/node_modules"} <= ignored


def test_workers_can_sandbox_users_code_and_share_the_volume_with_the_web():
    """Custom code and notebooks run as users of their own in a network namespace: a worker starts as
    root (group sampan, the web's) with only the capabilities that takes, and writes group-writable."""
    for name in ("worker-cpu", "worker-gpu"):
        worker = service(name)
        assert worker["user"] == "0:1000", name
        assert worker["cap_drop"] == ["ALL"], name
        assert set(worker["cap_add"]) == {
            "CHOWN",
            "DAC_OVERRIDE",
            "FOWNER",
            "KILL",
            "SETGID",
            "SETUID",
            "SYS_ADMIN",
        }
        assert worker["environment"]["SAMPAN_UMASK"] == "002"
        assert worker["environment"]["SAMPAN_SANDBOX_USER"] == "nobody"
    for name in ("web", "housekeeping", "migrate"):
        assert "user" not in service(name) and "cap_add" not in service(name), name  # the image's uid 1000
