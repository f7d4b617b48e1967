"""What a custom job's code cannot reach (live worker, PostgreSQL, Redis): another workspace's dataset
blob by its exact path, the platform's data folder, the worker's secrets (its environment, the
settings' SECRET_KEY, DATABASE_URL, any /proc/<pid>/environ) or PostgreSQL itself; and a model file
left as a link to a file only the platform may read is refused, never copied into a model version."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.customjobs.run_support import custom_job, finished, log_text, script_archive
from tests.datasets.factories import dataset_with_samples

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

PROBE = r"""
import json, os, socket, sys

blob, home, db_host, db_port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


def attempt(name, action):
    try:
        action()
        print(f"{name}: allowed", flush=True)
    except Exception as exc:
        print(f"{name}: {type(exc).__name__}", flush=True)


attempt("other workspace blob", lambda: open(blob, "rb").read(1))
attempt("list SAMPAN_HOME", lambda: os.listdir(home))
attempt("list blobs", lambda: os.listdir(os.path.join(home, "blobs")))
attempt("parent environ", lambda: open(f"/proc/{os.getppid()}/environ", "rb").read())
attempt("init environ", lambda: open("/proc/1/environ", "rb").read())

readable = []
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        text = open(f"/proc/{pid}/environ", "rb").read()
    except OSError:
        continue
    if b"DATABASE_URL" in text or b"SECRET_KEY" in text or b"CELERY_BROKER_URL" in text:
        readable.append(pid)
print("environs with platform secrets:", len(readable), flush=True)

names = sorted(os.environ)
print("secret names in env:", [n for n in names if n in ("DATABASE_URL", "SECRET_KEY", "DJANGO_SECRET_KEY",
      "CELERY_BROKER_URL", "SAMPAN_STORAGE_URL", "AWS_SECRET_ACCESS_KEY")], flush=True)


def connect(host, port):
    with socket.create_connection((host, port), timeout=3):
        pass


attempt("postgres", lambda: connect(db_host, db_port))
attempt("postgres loopback", lambda: connect("127.0.0.1", 5432))
attempt("redis loopback", lambda: connect("127.0.0.1", 6379))
print("uid", os.getuid(), flush=True)
"""


def test_the_code_reaches_no_blob_secret_or_database(live_worker, tenants, settings):
    from datasets.models import Sample
    from django.core.files.storage import default_storage
    from django.db import connection

    if os.geteuid() != 0:
        pytest.fail("this test needs a worker running as root (it runs the code as the sandbox user)")
    other = dataset_with_samples(user=tenants["bob"], project=tenants["project_b"], name="Bob's", per_class=2)
    blob = Path(default_storage.path(Sample.objects.filter(dataset=other).first().blob_key))
    assert blob.is_file()
    db = connection.settings_dict
    archive = script_archive(tenants["project_a"], tenants["alice"], PROBE, name="probe")
    where = [str(blob), str(settings.SAMPAN_HOME), db.get("HOST") or "127.0.0.1", str(db.get("PORT") or 5432)]
    job = custom_job(archive, tenants["alice"], args=where)
    job = finished(job, timeout=120)
    assert job.status == "succeeded", f"{job.error}\n{log_text(job)}"
    out = log_text(job, "stdout")
    assert "other workspace blob: PermissionError" in out, out
    assert "list SAMPAN_HOME: PermissionError" in out and "list blobs: PermissionError" in out
    assert "parent environ: PermissionError" in out and "init environ: PermissionError" in out
    assert "environs with platform secrets: 0" in out
    assert "secret names in env: []" in out
    for target in ("postgres", "postgres loopback", "redis loopback"):
        line = next(x for x in out.splitlines() if x.startswith(f"{target}: "))
        assert line != f"{target}: allowed", out
    assert f"uid {os.getuid()}" not in out
    everything = log_text(job) + job.error + str(job.result)
    assert settings.SECRET_KEY not in everything
    assert db["NAME"] not in everything and settings.CELERY_BROKER_URL not in everything


def test_a_model_file_linked_to_a_private_file_is_refused(live_worker, tenants, settings):
    from training.models import ModelVersion

    secret = Path(settings.SAMPAN_HOME) / "blobs" / "h4-private-probe.bin"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_bytes(b"platform-only " * 10)
    archive = script_archive(
        tenants["project_a"],
        tenants["alice"],
        f"""
        import json, os
        out = os.environ["SAMPAN_OUTPUT_DIR"]
        os.symlink({str(secret)!r}, os.path.join(out, "model.onnx"))
        json.dump(["a", "b"], open(os.path.join(out, "labels.json"), "w"))
        json.dump({{"image_size": [8, 8]}}, open(os.path.join(out, "preprocess.json"), "w"))
        print("linked", flush=True)
        """,
        name="link",
    )
    job = finished(custom_job(archive, tenants["alice"]), timeout=120)
    assert "linked" in log_text(job, "stdout")
    assert job.status == "succeeded" and job.result["model"] is None, (job.error, job.result)
    assert not ModelVersion.objects.filter(job=job).exists()
    assert "no model recorded" in log_text(job, "system") and "model.onnx" in log_text(job, "system")
    assert "platform-only" not in log_text(job) + str(job.result)


def test_sampan_home_lets_others_pass_but_keeps_its_data_private(tmp_path):
    from config.env import sampan_home_harden

    home = tmp_path / "home"
    for folder in ("blobs/ab", "broker", "tmp/uploads", "sandbox/jobs", "custom-envs/x"):
        (home / folder).mkdir(parents=True)
    for folder in (home, home / "broker", home / "tmp", home / "sandbox", home / "custom-envs"):
        folder.chmod(0o755)
    (home / "blobs").chmod(0o775)  # group-writable: a web server of the group shares the volume
    (home / "sampan.sqlite3").write_bytes(b"db")
    (home / "sampan.sqlite3").chmod(0o644)
    sampan_home_harden(home)

    def mode(path: Path) -> int:
        return path.stat().st_mode & 0o777

    assert mode(home) == 0o751
    assert mode(home / "broker") == mode(home / "tmp") == 0o750
    assert mode(home / "blobs") == 0o770, "the group keeps its access"
    assert mode(home / "sampan.sqlite3") == 0o640
    assert mode(home / "sandbox") == mode(home / "custom-envs") == 0o755, (
        "the sandbox's own folders stay open"
    )
    assert mode(home / "blobs" / "ab") == 0o755, "inside a closed folder nothing needs changing"


def _zip(entries: dict[str, bytes], *, link: str | None = None) -> bytes:
    import io
    import stat
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as bundle:
        for name, data in entries.items():
            bundle.writestr(name, data)
        if link is not None:
            info = zipfile.ZipInfo("link.py")
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            bundle.writestr(info, link)
    return out.getvalue()


@pytest.mark.django_db
def test_code_that_climbs_out_holds_a_link_or_changed_in_storage_is_refused(
    tenants, isolated_storage, tmp_path
):
    from customjobs.running import extract_code
    from django.core.files.storage import default_storage
    from jobs.runner import JobInputRejected

    from tests.customjobs.run_support import code_archive

    project, alice = tenants["project_a"], tenants["alice"]
    spec = {"entry_point": "train.py"}
    cases = {
        "climbs": (
            _zip({"train.py": b"print(1)", "../../escaped.py": b"x"}),
            "unsafe path: '../../escaped.py'",
        ),
        "absolute": (_zip({"train.py": b"print(1)", "/etc/evil.py": b"x"}), "unsafe path: '/etc/evil.py'"),
        "link": (_zip({"train.py": b"print(1)"}, link="/etc/shadow"), "a link: 'link.py'"),
        "clash": (_zip({"a": b"a file", "a/b.py": b"x"}), "cannot be unpacked at 'a/b.py'"),
    }
    for name, (data, message) in cases.items():
        archive = code_archive(
            project, alice, data=data, filename=f"{name}.zip", entry_point="train.py", name=name
        )
        dest = tmp_path / name / "code"
        dest.mkdir(parents=True)
        with pytest.raises(JobInputRejected) as refused:
            extract_code(archive, spec, dest)
        assert message in str(refused.value), str(refused.value)
    assert not list(tmp_path.rglob("escaped.py")) and not list(tmp_path.rglob("link.py"))

    good = code_archive(
        project, alice, data=_zip({"pkg/train.py": b"print(2)"}), filename="ok.zip", entry_point="x"
    )
    extract_code(good, spec, tmp_path / "ok")
    assert (tmp_path / "ok" / "pkg" / "train.py").read_bytes() == b"print(2)"
    with default_storage.open(good.blob_key, "wb") as blob:
        blob.write(_zip({"pkg/train.py": b"print('changed')"}))
    (tmp_path / "changed").mkdir()
    with pytest.raises(JobInputRejected, match="no longer matches its sha256"):
        extract_code(good, spec, tmp_path / "changed")
