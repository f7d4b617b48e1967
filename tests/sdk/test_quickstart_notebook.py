"""examples/quickstart.ipynb runs top to bottom with nbclient against the live platform (a few
digits per class, the fast preset, two epochs): upload, train, evaluate, deploy, predict."""

from __future__ import annotations

import json

import pytest

from tests.harness import REPO

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def outputs_text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        data = output.get("data", {})
        parts.append(data.get("text/plain", ""))
        parts.append(data.get("text/html", ""))
    return "\n".join(parts)


def test_quickstart_notebook_runs_against_the_live_platform(
    live_web, live_worker, tenants, token_for, monkeypatch, tmp_path
):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("SAMPAN_URL", live_web)
    monkeypatch.setenv("SAMPAN_API_KEY", token_for(tenants["alice"]))
    monkeypatch.setenv("SAMPAN_CONFIG", str(tmp_path / "none.json"))
    monkeypatch.setenv("QUICKSTART_PER_CLASS", "10")
    monkeypatch.setenv("QUICKSTART_PRESET", "fast")
    monkeypatch.setenv("QUICKSTART_PARAMS", json.dumps({"epochs": 2, "image_size": 32}))
    notebook = nbformat.read(REPO / "examples" / "quickstart.ipynb", as_version=4)
    NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()

    text = "\n".join(outputs_text(cell) for cell in notebook.cells if cell.cell_type == "code")
    assert "as alice" in text and "100 images in" in text
    assert "Model version V1" in text and "Confusion matrix" in text  # the model version's HTML view
    assert "succeeded" in text  # the job's HTML view
    assert "'template': 'image_classification'" in text and "'preset': 'fast'" in text  # training_jobs
    assert "test images through /api/v1/deployments/" in text and "accuracy" in text
    assert any(o.get("data", {}).get("image/png") for c in notebook.cells for o in c.get("outputs", []))

    from deploy.models import Deployment
    from training.models import ModelVersion

    model = ModelVersion.objects.get(project__name__startswith="Quickstart digits")
    assert model.params["epochs"] == 2 and Deployment.objects.filter(model_version=model).count() == 1
