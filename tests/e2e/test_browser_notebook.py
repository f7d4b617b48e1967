"""Browser end to end of a project's notebook (frontend/e2e/notebook_flow.mjs) in headless Chromium,
against a live web process and worker: sign in, the project's Notebooks tab, Start, wait running,
Open (JupyterLab in a new tab), a notebook from the launcher with a cell that uses the SDK (signed in
already: `sampan.Client().projects.get(id).name` prints the project's name), back to Sampan, Stop,
see it stopped. Screenshots under artifacts/e2e-notebook."""

from __future__ import annotations

import io
import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.harness import ARTIFACTS, REPO

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = REPO / "frontend" / "e2e" / "notebook_flow.mjs"
PASSWORD = "e2e-passphrase-123"
PROJECT_NAME = "Notebook e2e · 笔记本项目"


def frontend_dist() -> Path:
    return Path(os.environ.get("SAMPAN_FRONTEND_DIST") or REPO / "frontend" / "dist")


def result_of(stdout: str) -> dict:
    lines = [line for line in stdout.splitlines() if line.startswith("[e2e] RESULT ")]
    assert lines, f"no RESULT line:\n{stdout[-4000:]}"
    return json.loads(lines[-1].removeprefix("[e2e] RESULT "))


def test_start_open_run_an_sdk_cell_and_stop_a_notebook(live_web, live_worker, make_user):
    assert (frontend_dist() / "index.html").exists(), "the frontend is not built: run `make frontend`"
    from notebooks.models import Notebook
    from notebooks.services import notebook_files_restore
    from workspaces.services import project_create, workspace_create

    user = make_user("e2e-notebook", password=PASSWORD)
    workspace = workspace_create(user=user, name="Notebook e2e workspace")
    project = project_create(user=user, workspace=workspace, name=PROJECT_NAME)

    out_dir = ARTIFACTS / "e2e-notebook"
    env = dict(
        os.environ,
        SAMPAN_URL=live_web,
        SAMPAN_USER="e2e-notebook",
        SAMPAN_PASSWORD=PASSWORD,
        E2E_PROJECT=str(project.pk),
        E2E_PROJECT_NAME=PROJECT_NAME,
        E2E_ARTIFACTS=str(out_dir),
        CHROMIUM_PATH=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
    )
    result = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=600, cwd=REPO / "frontend"
    )
    print(result.stdout[-6000:])
    assert result.returncode == 0, f"notebook e2e failed:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    outcome = result_of(result.stdout)

    # what the browser saw is what the platform recorded
    notebook = Notebook.objects.get(pk=outcome["notebook"])
    assert notebook.owner_id == user.pk and notebook.project_id == project.pk
    assert notebook.status == "stopped", (notebook.status, notebook.stop_reason)
    assert notebook.started_at is not None and notebook.stopped_at is not None
    assert notebook.limits.get("memory_mb") == 2048 and notebook.limits.get("cpus") == 1
    assert outcome["sent"]["limits"] == {"memory_mb": 2048, "cpus": 1}
    assert outcome["firstStatus"] in ("starting", "running")
    assert f"PROJECT={PROJECT_NAME}" in outcome["output"]
    # the notebook saved in JupyterLab is kept in the platform's storage, its SDK cell and output with it
    archive = notebook_files_restore(notebook=notebook)
    assert archive is not None, "stopping saved no files"
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        member = tar.extractfile(outcome["saved"])
        assert member is not None, (outcome["saved"], tar.getnames())
        saved = json.loads(member.read())
    cell = saved["cells"][0]
    assert "sampan.Client().projects.get(" in "".join(cell["source"])
    printed = "".join("".join(output.get("text", "")) for output in cell["outputs"])
    assert f"PROJECT={PROJECT_NAME}" in printed
    # the server was not Sampan's own origin, and Open carried the owner's secret only to it
    assert outcome["labOrigin"] != live_web.rstrip("/")
    for name in ("notebooks-tab", "running", "jupyterlab", "new-notebook", "sdk-cell", "saved", "stopped"):
        assert any(out_dir.glob(f"*-{name}.png")), f"no {name} screenshot"
