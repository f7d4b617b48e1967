"""Compression through the SDK and the CLI, against the live platform: ``model.compress(wait=True)``
answers a ``Compression`` whose variants are model versions compressed from the model (int8, smaller
file, measured against it on the same test split); ``client.compressions`` lists and gets runs; a bad
recipe is a ``BadRequest`` carrying the server's code; ``sampan compress`` prints the run as JSON."""

from __future__ import annotations

import json
import os

import pytest
import sampan
from sampan.cli import main

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_compress_wait_variants_rows_and_the_cli(
    sdk, project, digits_folder, live_web, token_for, tenants, capsys, tmp_path, monkeypatch
):
    dataset = sdk.datasets.create("digits", project=project)
    dataset.upload(digits_folder, progress=False)
    version = dataset.create_version(seed=3)
    model = version.train("fast", params={"epochs": 1}).wait(progress=False).model_version()

    with pytest.raises(sampan.BadRequest) as refused:
        model.compress(recipes=[{"name": "nothing"}])
    assert refused.value.code == "compression_bad_recipe" and "nothing to do" in str(refused.value)

    run = model.compress(preset="smaller", wait=True, progress=False)
    assert isinstance(run, sampan.Compression) and run.status == "succeeded"
    [small] = run.variants()
    assert small.data["source"] == "compressed" and small.data["compressed_from"] == model.id
    assert small.data["lineage"]["recipe"] == {"name": "int8", "quantize": "auto"}
    assert small.evaluation().accuracy == pytest.approx(small.data["metrics"]["test"]["accuracy"])
    parent_row, int8_row = run.rows()
    assert parent_row["model_version"] == model.id and parent_row["precision"] == "fp32"
    assert int8_row["model_version"] == small.id and int8_row["precision"] == "int8"
    assert int8_row["size_bytes"] < parent_row["size_bytes"]
    assert int8_row["delta"] == pytest.approx(int8_row["value"] - parent_row["value"], abs=1e-9)
    assert [c.id for c in sdk.compressions.list(project=project)] == [run.id]
    assert [c.id for c in model.compressions()] == [run.id]
    assert sdk.compressions.get(run.id).report["variants"][0]["model_version"] == small.id

    # the command line: start without waiting, print the run
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"url": live_web, "api_key": token_for(tenants["alice"])}))
    for key in [k for k in os.environ if k.startswith("SAMPAN_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("SAMPAN_CONFIG", str(config))
    capsys.readouterr()
    assert main(["compress", str(model.id), "--preset", "balanced", "--target", "worker-cpu"]) == 0
    printed = json.loads(capsys.readouterr().out)
    started = sdk.compressions.get(printed["compression"])
    assert started.data["preset"] == "balanced" and printed["status"] == "queued"
    assert started.data["spec"]["recipes"][0]["prune"] == {"flops_ratio": 0.5}
    started.job().cancel()
