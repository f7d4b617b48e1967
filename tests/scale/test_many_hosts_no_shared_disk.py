"""Three hosts that share no disk (issue 22): a web and two workers, each with its own SAMPAN_HOME, sharing
only PostgreSQL, Redis and an S3 bucket (moto's server). Everything a user does goes through the web's REST
API with a personal token (the SDK): a dataset imported through the web is trained on worker A; worker A is
killed and its SAMPAN_HOME deleted; worker B evaluates, packages and batch-predicts; the web serves the
deployment and hands out the package. No host's blob folder ever holds a blob: they live in the bucket."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import pytest
import sampan

from tests.harness import wait_for
from tests.sdk.live_platform import write_digits_folder

pytestmark = pytest.mark.django_db(transaction=True)


def _ran_in(job, host) -> bool:
    """Whether the job's last attempt ran in one of ``host``'s processes: the running event names the
    process as "<machine>/<pid>", and the pid is the worker's pool child."""
    running = [e for e in job.events(type="status") if e["data"].get("status") == "running"]
    pid = int(running[-1]["data"]["worker"].rsplit("/", 1)[1])
    return pid in host.pids


def _remember_pids(host) -> None:
    import psutil

    parent = psutil.Process(host.process.proc.pid)
    host.pids = {parent.pid, *(child.pid for child in parent.children(recursive=True))}


def _noise_archive(path, *, count: int):
    """A zip of ``count`` noise images (folder "noise"), about 270 kB each: PNG cannot compress noise."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(7)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for i in range(count):
            out = io.BytesIO()
            Image.fromarray(rng.integers(0, 256, (300, 300, 3), dtype=np.uint8)).save(out, "PNG")
            archive.writestr(f"noise/noise-{i:02d}.png", out.getvalue())
    return path


def test_trained_on_one_host_packaged_on_another_served_by_the_web(
    hosts, object_storage, tenants, token_for, tmp_path
):
    web = hosts.web()
    worker_a = hosts.worker("a")
    client = sampan.Client(web.url, token_for(tenants["alice"]), timeout=60, backoff=0.1, max_backoff=2)
    project = client.projects.get(tenants["project_a"].pk)

    # --- data through the web, stored in the bucket ---------------------------------------------
    folder = write_digits_folder(tmp_path / "digits", per_class=8)
    dataset = client.datasets.create("digits", project=project)
    dataset.upload(folder)
    assert dataset.refresh().data["sample_count"] == 80
    sample = next(iter(dataset.samples()))
    for what in ("image", "thumbnail"):  # the web reads them from the bucket
        answer = client.http.session.get(
            f"{web.url}/api/v1/datasets/{dataset.id}/samples/{sample['id']}/{what}/", timeout=30
        )
        assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("image/"), what
    version = dataset.create_version(seed=7)

    # --- trained on worker A alone ----------------------------------------------------------------
    job = version.train("fast", params={"epochs": 1})
    _remember_pids(worker_a)
    job.wait(progress=False, timeout=900)
    assert job.refresh().status == "succeeded", job.data.get("error")
    _remember_pids(worker_a)
    assert _ran_in(job, worker_a)
    model = job.model_version()
    assert any((worker_a.home / "runs").iterdir()), "A trained in its own SAMPAN_HOME"
    # no other host can reach A's disk (the housekeeping process tidies only its own): a worker tidies
    # its own SAMPAN_HOME, here when it starts again, and the finished run's directory goes
    worker_a.stop()
    worker_a.start()
    wait_for(lambda: not any((worker_a.home / "runs").iterdir()), timeout=60, what="A to prune its run")

    # --- worker A is lost with its disk; worker B takes over -------------------------------------
    worker_a.kill()
    worker_a.wipe_home()
    worker_b = hosts.worker("b")
    _remember_pids(worker_b)

    report = model.evaluation()
    assert 0.0 <= report.accuracy <= 1.0 and len(report.data["classes"]) == 10
    onnx = model.download_onnx(tmp_path / "model.onnx")
    assert hashlib.sha256(onnx.read_bytes()).hexdigest() == model.data["onnx_sha256"]

    batch = model.batch_predict(version, split="test").wait(progress=False, timeout=600)
    assert _ran_in(client.jobs.get(batch.data["job"]), worker_b)
    assert batch.metrics is not None and 0.0 <= batch.metrics["accuracy"] <= 1.0
    out = io.BytesIO()
    batch.download(out)
    rows = [json.loads(line) for line in out.getvalue().decode().splitlines()]
    assert len(rows) == batch.summary["rows"] == batch.summary["predicted"] > 0
    assert all(row["prediction"] and row["truth"] and not row.get("error") for row in rows), rows[0]

    package = model.package("server")
    package.wait(progress=False, timeout=900)
    assert package.refresh().status == "succeeded", package.data
    assert _ran_in(client.jobs.get(package.data["job"]), worker_b)
    downloaded = package.download(tmp_path / "server.zip")
    assert downloaded.stat().st_size == package.size_bytes
    with zipfile.ZipFile(downloaded) as archive:
        names = archive.namelist()
    assert any(n.endswith("model.onnx") for n in names) and any(n.endswith("manifest.json") for n in names)

    # B's disk vanishes under the running worker: the next job fetches what it needs again
    worker_b.wipe_home()
    device = model.package("device")
    device.wait(progress=False, timeout=900)
    assert device.refresh().status == "succeeded", device.data
    assert device.download(tmp_path / "device.zip").stat().st_size == device.size_bytes

    # --- served by the web (its serving cache comes from the bucket) ------------------------------
    deployment = model.deploy("digits")
    deployment.create_key("scale test")
    image = next((folder / "3").iterdir())
    first = deployment.predict(image)
    assert first.label in [str(i) for i in range(10)]

    # the web's own disk is a cache too: lose it, restart, serve the same answer
    web.kill()
    web.wipe_home()
    web.start()
    client = sampan.Client(web.url, token_for(tenants["alice"]), timeout=60, backoff=0.1, max_backoff=2)
    again = client.deployments.get(deployment.id).predict(image, key=deployment.key)
    assert again.label == first.label and again.score == pytest.approx(first.score, rel=1e-5)

    # ... and lost under the running web: it still serves, and an upload big enough to be spooled to its
    # disk (over Django's 2.5 MB in memory) still lands, imported by worker B from the bucket
    web.wipe_home()
    assert client.deployments.get(deployment.id).predict(image, key=deployment.key).label == first.label
    archive = _noise_archive(tmp_path / "noise.zip", count=12)
    assert archive.stat().st_size > 2.5 * 2**20
    imported = client.datasets.get(dataset.id).upload_archive(archive, background=True, progress=False)
    assert imported.imported == 12 and imported.failed == 0, imported.problems
    assert _ran_in(client.jobs.get(imported.batches[-1]["job"]), worker_b)

    # --- nothing was stored on any host's disk: every blob is in the bucket ----------------------
    assert hosts.blob_files() == {}
    keys = object_storage.keys()
    assert len(keys) > 80 and worker_b.alive()
