"""What becomes of the model a custom job writes (live worker): a valid ONNX classifier without a
dataset version is recorded (source custom, lineage) without an evaluation; a file that is not a
usable classifier fails the job naming the check; a notebook entry point runs cell by cell."""

from __future__ import annotations

import json

import pytest

from tests.customjobs.run_support import code_archive, custom_job, finished, log_text, script_archive

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

# An ONNX classifier built with onnx's helpers (no torch): [batch, 3, 8, 8] -> [batch, 2] scores.
TINY_ONNX = """
import numpy as np, onnx
from onnx import TensorProto, helper, numpy_helper
import sampan.run as run

weights = numpy_helper.from_array(np.ones((192, 2), dtype=np.float32) / 192, name="w")
graph = helper.make_graph(
    [helper.make_node("Flatten", ["image"], ["flat"]), helper.make_node("MatMul", ["flat", "w"], ["scores"])],
    "tiny",
    [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 8, 8])],
    [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", 2])],
    initializer=[weights],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
path = run.output_dir / "tiny.onnx"
onnx.save(model, str(path))
run.log_metrics(step=1, accuracy=0.75)
run.save_model(path, labels=["cat", "dog"], preprocessing={"image_size": [8, 8]})
print("saved", flush=True)
"""


def test_a_model_without_a_dataset_version_is_recorded_without_an_evaluation(live_worker, tenants):
    from training.models import ModelVersion

    archive = script_archive(tenants["project_a"], tenants["alice"], TINY_ONNX, name="tiny")
    job = finished(custom_job(archive, tenants["alice"], hyperparameters={"width": 2}), timeout=180)
    assert job.status == "succeeded", f"{job.error}\n{log_text(job)}"
    model = ModelVersion.objects.get(pk=job.result["model_version"])
    assert model.source == "custom" and model.classes == ["cat", "dog"] and model.dataset_version is None
    assert model.preprocessing["image_size"] == [8, 8] and model.evaluation == {} and model.metrics == {}
    assert model.params["custom_metrics"] == {"accuracy": 0.75} and model.params["hyperparameters"] == {
        "width": 2
    }
    assert model.lineage["dataset_version"] is None and model.lineage["hyperparameters"] == {"width": 2}
    assert f"model recorded as {model.name}" in log_text(job, "system")


def test_a_model_that_is_not_a_usable_classifier_fails_the_job(live_worker, tenants):
    from training.models import ModelVersion

    archive = script_archive(
        tenants["project_a"],
        tenants["alice"],
        """
        import json, os
        out = os.environ["SAMPAN_OUTPUT_DIR"]
        open(os.path.join(out, "model.onnx"), "wb").write(b"not an onnx file")
        json.dump(["a", "b"], open(os.path.join(out, "labels.json"), "w"))
        json.dump({"image_size": [8, 8]}, open(os.path.join(out, "preprocess.json"), "w"))
        """,
        name="broken",
    )
    job = finished(custom_job(archive, tenants["alice"]), timeout=120)
    assert job.status == "failed" and job.error.startswith("The run's model was refused:"), job.error
    assert "model.onnx" in job.error
    assert not ModelVersion.objects.filter(job=job).exists()


def test_a_notebook_runs_cell_by_cell(live_worker, tenants):
    cells = [
        "import sampan.run as run\nprint('first cell', run.params['n'])",
        "for i in range(run.params['n']):\n    run.log_metrics(step=i, value=float(i))\nprint('second cell')",
    ]
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "cells": [
            {
                "cell_type": "code",
                "id": f"c{i}",
                "metadata": {},
                "execution_count": None,
                "outputs": [],
                "source": src,
            }
            for i, src in enumerate(cells)
        ],
    }
    archive = code_archive(
        tenants["project_a"],
        tenants["alice"],
        data=json.dumps(notebook).encode(),
        filename="train.ipynb",
        entry_point="train.ipynb",
        name="nb",
    )
    job = finished(custom_job(archive, tenants["alice"], hyperparameters={"n": 3}), timeout=240)
    assert job.status == "succeeded", f"{job.error}\n{log_text(job)}"
    out = log_text(job, "stdout")
    assert (
        "first cell 3" in out and "second cell" in out and out.index("first cell") < out.index("second cell")
    )
    assert job.result["metrics"] == {"value": 2.0} and len(job.result["history"]) == 3
