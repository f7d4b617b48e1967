"""Server packages of text and tabular models (wine with LightGBM, diabetes regression with LightGBM,
stdlib docstrings with the small bag-of-embeddings model), installed in fresh virtualenvs with only
their requirements.txt: over HTTP they answer their JSON test vectors (raw texts, rows with the
original column names) as the platform's predictor does, within rtol=1e-4, atol=1e-5."""

from __future__ import annotations

import importlib.metadata
import json
import os
import signal
import subprocess
from pathlib import Path

import numpy as np
import pytest
import requests

from tests.harness import free_port, wait_for
from tests.packages.packaging_support import clean_env, fresh_venv, run_in, unzip_package
from workers.packaging import ModelArtifacts, PackagingError, build_server_package
from workers.serving.predictors import load_predictor

REPO = Path(__file__).resolve().parents[2]
KEY = "test-key-text-tabular"
RTOL, ATOL = 1e-4, 1e-5
KINDS = ("tabular_classification", "tabular_regression", "text_classification")


def _model_dir(result: dict, template: str, into: Path) -> Path:
    """The trained model as the platform serves it (what the hosted API loads)."""
    into.mkdir(parents=True)
    (into / "model.onnx").write_bytes(Path(result["onnx"]).read_bytes())
    (into / "preprocess.json").write_text(json.dumps(result["preprocessing"]))
    (into / "labels.json").write_text(json.dumps(result["classes"]))
    (into / "manifest.json").write_text(json.dumps({"template": template}))
    return into


def train_tabular(template: str, work: Path, **spec) -> tuple[ModelArtifacts, list]:
    from tests.templates_tabular.tables import frame
    from workers.tabular.trainer import train

    regression = template == "tabular_regression"
    data = frame("diabetes" if regression else "wine")
    columns = [c for c in data.columns if c != "target"]
    classes = [] if regression else sorted(data["target"].unique())
    samples = [
        {
            "id": i,
            "split": "test" if i % 5 == 0 else "train",
            "values": {c: float(row[c]) for c in columns},
            **({"target": float(row["target"])} if regression else {"label": classes.index(row["target"])}),
        }
        for i, row in data.iterrows()
    ]
    for sample in samples[1::7]:  # the first column has gaps in training: the model may impute it
        sample["values"][columns[0]] = None
    manifest = {
        "kind": "tabular",
        "task": "regression" if regression else "classification",
        "target": "target",
        "columns": [{"name": c, "type": "numeric"} for c in columns],
        "classes": classes,
        "samples": samples,
    }
    result = train({"preset": "fast", **spec}, manifest, work / "run")
    test = [s for s in samples if s["split"] == "test"]
    rows = [dict(s["values"]) for s in test]
    rows[0].pop(columns[0])  # a missing column the contract lets the model fill (training had gaps)
    rows[1][columns[0]] = None  # a null cell, too
    artifacts = ModelArtifacts(
        result["onnx"],
        result["preprocessing"],
        result["classes"],
        template,
        {"id": 7, "name": "V2", "template": template},
        test_instances=rows,
        test_labels=None if regression else [s["label"] for s in test],
    )
    return artifacts, [result, rows]


def train_text(work: Path) -> tuple[ModelArtifacts, list]:
    from tests.templates_text.corpus import balanced
    from workers.text_classification.trainer import train

    pairs = balanced(12)
    classes = sorted({area for _, area in pairs})
    samples = [
        {"id": i, "text": text, "label": classes.index(area), "split": "test" if i % 4 == 0 else "train"}
        for i, (text, area) in enumerate(pairs)
    ]
    result = train(
        {"preset": "fast", "epochs": 5, "max_length": 64},
        {"kind": "text", "classes": classes, "samples": samples},
        work / "run",
    )
    test = [s for s in samples if s["split"] == "test"]
    texts = [s["text"] for s in test]
    texts[0] = "Ünïcode, emoji 🙂 and a very long text. " * 40  # cut to max_length like in training
    artifacts = ModelArtifacts(
        result["onnx"],
        result["preprocessing"],
        result["classes"],
        "text_classification",
        {"id": 9, "name": "V1", "template": "text_classification"},
        test_instances=texts,
        test_labels=[s["label"] for s in test],
    )
    return artifacts, [result, texts]


VENVS: dict[str, Path] = {}


@pytest.fixture(scope="module", params=KINDS)
def package(request, tmp_path_factory):
    template = request.param
    work = tmp_path_factory.mktemp(template)
    artifacts, (result, instances) = (
        train_text(work) if template == "text_classification" else train_tabular(template, work)
    )
    report = build_server_package(artifacts=artifacts, out_path=work / "server.zip")
    root = unzip_package(work / "server.zip", work / "unzipped")
    requirements = (root / "requirements.txt").read_text()
    if requirements not in VENVS:  # the tabular packages share theirs
        VENVS[requirements] = fresh_venv(work / "venv", root / "requirements.txt")
    platform = load_predictor(_model_dir(result, template, work / "platform"))
    return {
        "template": template,
        "report": report,
        "root": root,
        "python": VENVS[requirements],
        "platform": platform,
        "instances": instances,
        "artifacts": artifacts,
    }


@pytest.fixture(scope="module")
def server(package):
    port = free_port()
    log_path = package["root"].parent / "server.log"
    log = log_path.open("wb")
    process = subprocess.Popen(
        [str(package["python"]), "serve.py", "--port", str(port)],
        cwd=package["root"],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=clean_env(package["python"].parent.parent, SAMPAN_SERVER_API_KEY=KEY),
    )
    url = f"http://127.0.0.1:{port}"

    def healthy():
        try:
            return requests.get(f"{url}/healthz", timeout=2).status_code == 200
        except requests.ConnectionError:
            assert process.poll() is None, log_path.read_text()
            return False

    wait_for(healthy, timeout=60, what="the package's server")
    yield url
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=20)
    log.close()


def as_array(ranked: list[list[dict]], classes: int) -> np.ndarray:
    """Scores by class index, or the regression values."""
    if not classes:
        return np.array([answer[0]["value"] for answer in ranked])
    scores = np.zeros((len(ranked), classes))
    for row, answer in enumerate(ranked):
        for entry in answer:
            scores[row, entry["index"]] = entry["score"]
    return scores


def platform_answers(package, instances) -> np.ndarray:
    classes = len(package["artifacts"].classes)
    return as_array(package["platform"].predict(instances, max(classes, 1)), classes)


def test_package_holds_the_template_predictor_and_only_its_requirements(package):
    root, template = package["root"], package["template"]
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["template"] == template and manifest["model_version"]["template"] == template
    vendored = set(manifest["runtime"]["vendored_files"])
    module = "workers/text_classification" if template == "text_classification" else "workers/tabular"
    assert {f"{module}/predictor.py", "workers/serving/standalone.py"} <= vendored
    for relative in vendored:
        assert (root / relative).read_bytes() == (REPO / relative).read_bytes(), relative
        assert "trainer" not in relative and "models.py" not in relative and "mlp.py" not in relative
    pins = dict(r.split("==") for r in (root / "requirements.txt").read_text().split())
    names = {name.lower() for name in pins}
    assert not names & {"torch", "lightgbm", "scikit-learn", "onnxmltools", "pandas", "django"}
    if template == "text_classification":
        assert pins["tokenizers"] == importlib.metadata.version("tokenizers")
    else:
        assert "tokenizers" not in names
    assert {"onnxruntime", "numpy"} <= names
    readme = (root / "README.md").read_text()
    assert "{{" not in readme and ("raw text" in readme) == (template == "text_classification")
    assert ("original column names" in readme) == template.startswith("tabular")
    expected = json.loads((root / "test_vectors" / "expected.json").read_text())
    assert expected["data_kind"] == ("text" if template == "text_classification" else "tabular")
    assert len(expected["vectors"]) == package["report"]["test_vectors"] > 10
    assert not (root / "test_vectors" / "images").exists()


def test_packaged_check_matches_the_platform_in_process(package):
    out = run_in(package["python"], ["check_test_vectors.py", "--out", "answers.json"], cwd=package["root"])
    assert json.loads(out)["allclose"] is True, out
    expected = json.loads((package["root"] / "test_vectors" / "expected.json").read_text())
    instances = [
        v["instance"]["text"] if expected["data_kind"] == "text" else v["instance"]
        for v in expected["vectors"]
    ]
    answers = json.loads((package["root"] / "answers.json").read_text())
    got = np.array(answers["values" if package["template"] == "tabular_regression" else "scores"])
    np.testing.assert_allclose(got, platform_answers(package, instances), rtol=RTOL, atol=ATOL)


def test_server_answers_json_instances_over_http_like_the_platform(package, server):
    template, classes = package["template"], len(package["artifacts"].classes)
    instances = package["instances"][:16]
    body = [{"text": t} for t in instances] if template == "text_classification" else instances
    answer = requests.post(
        f"{server}/predict",
        json={"instances": body, "top_k": max(classes, 1)},
        timeout=60,
        headers={"Authorization": f"Bearer {KEY}"},
    )
    assert answer.status_code == 200, answer.text
    payload = answer.json()
    assert payload["model_version"]["template"] == template
    got = as_array([p["top_k"] for p in payload["predictions"]], classes)
    np.testing.assert_allclose(got, platform_answers(package, instances), rtol=RTOL, atol=ATOL)
    if classes:  # the model learned something: most test answers are right
        labels = np.array(package["artifacts"].test_labels[:16])
        assert (got.argmax(axis=1) == labels).mean() >= 0.5
    if template != "text_classification":  # the filled columns are named
        first = package["artifacts"].preprocessing["features"][0]["name"]
        assert [p["imputed"] for p in payload["predictions"][:3]] == [[first], [first], []]
    one = {"text": instances[3]} if template == "text_classification" else instances[3]
    single = requests.post(
        f"{server}/predict", json={"instances": [one], "top_k": 1}, timeout=30, headers={"X-Sampan-Key": KEY}
    )
    assert single.status_code == 200 and len(single.json()["predictions"][0]["top_k"]) == 1
    out = run_in(
        package["python"],
        ["check_test_vectors.py", "--url", server],
        cwd=package["root"],
        SAMPAN_SERVER_API_KEY=KEY,
    )
    assert json.loads(out)["allclose"] is True, out


def test_server_names_bad_text_and_rows(package, server):
    headers = {"Authorization": f"Bearer {KEY}"}
    if package["template"] == "text_classification":
        bad, code = [{"text": "   "}], "empty_input"
        wrong, wrong_code = [{"image": "aGVsbG8="}], "invalid_instance"
    else:
        bad, code = [{"no_such_column": 1}], "invalid_instance"
        wrong, wrong_code = ["not a row"], "invalid_instance"
    cases = [(bad, code), (wrong, wrong_code)]
    if package["template"] != "text_classification":  # the model's contract, by column
        row = dict(package["instances"][5])
        names = [f["name"] for f in package["artifacts"].preprocessing["features"]]
        cases += [
            ([{**row, "no_such_column": 1}], "unknown_column"),
            ([{**row, names[1]: "abc"}], "invalid_value"),
            ([{**row, names[2]: [1, 2]}], "invalid_value"),
            ([{**row, names[1]: None}], "missing_column"),
        ]
    for instances, expected_code in cases:
        answer = requests.post(
            f"{server}/predict", json={"instances": instances}, headers=headers, timeout=30
        )
        assert answer.status_code == 400 and answer.json()["error"]["code"] == expected_code, answer.text
    answer = requests.post(
        f"{server}/predict", data=b"\x89PNG", headers={**headers, "Content-Type": "image/png"}, timeout=30
    )
    assert answer.status_code == 415 and answer.json()["error"]["code"] == "unsupported_media_type"


def test_builder_refuses_images_for_text_and_rows_for_images(tmp_path):
    artifacts = ModelArtifacts(
        Path(__file__), {}, ["a", "b"], "text_classification", {"id": 1}, test_images=[Path(__file__)]
    )
    with pytest.raises(PackagingError, match="test_instances"):
        build_server_package(artifacts=artifacts, out_path=tmp_path / "x.zip")


@pytest.fixture(scope="module")
def device(package):
    from workers.packaging import build_device_sdk

    work = package["root"].parent
    report = build_device_sdk(
        artifacts=package["artifacts"], out_path=work / "device.zip", calibration_images=[]
    )
    root = unzip_package(work / "device.zip", work / "device")
    requirements = (root / "python" / "requirements.txt").read_text()
    if requirements not in VENVS:
        VENVS[requirements] = fresh_venv(work / "device-venv", root / "python" / "requirements.txt")
    return {"report": report, "root": root, "python": VENVS[requirements]}


def test_device_sdk_python_sample_matches_the_platform_and_reports_int8(package, device):
    root, report, template = device["root"], device["report"], package["template"]
    manifest = json.loads((root / "manifest.json").read_text())
    compression = json.loads((root / "compression_report.json").read_text())
    assert compression == report["compression"] and compression["fp32"]["bytes"] > 0
    readme = (root / "README.md").read_text()
    assert "{{" not in readme and "JavaScript and C++ are shipped for image models only" in readme
    assert not (root / "javascript").exists() and not (root / "cpp").exists()
    assert set(manifest["samples"]) == {"python"} and set(manifest["samples_not_shipped"]) == {
        "javascript",
        "cpp",
    }
    if template == "text_classification":
        assert (root / "tokenizer.json").is_file() and compression["int8"]["bytes"] < compression["fp32"][
            "bytes"
        ]
        assert compression["top1_agreement"] >= 0.9, compression
        models = ["fp32", "int8"]
    else:  # LightGBM trees: fp32 only, and the SDK says why
        assert compression["int8"] is None and "does not apply" in compression["int8_note"]
        assert not (root / "model.int8.onnx").exists() and "int8 does not apply" in readme
        models = ["fp32"]
    expected = json.loads((root / "test_vectors" / "expected.fp32.json").read_text())
    instances = [
        v["instance"]["text"] if expected["data_kind"] == "text" else v["instance"]
        for v in expected["vectors"]
    ]
    for name in models:
        out = run_in(
            device["python"],
            ["python/predict.py", "--test-vectors", "--model", f"model.{name}.onnx"],
            cwd=root,
        )
        result = json.loads(out)
        assert result["allclose"] is True, result
        if name == "fp32":  # the sample's answers are the platform's
            np.testing.assert_allclose(
                np.array(result["answers"]), platform_answers(package, instances), rtol=RTOL, atol=ATOL
            )


def test_device_sdk_of_a_tabular_mlp_has_an_int8_model_that_agrees(tmp_path):
    """The MLP (not a tree ensemble) gets dynamic int8; fp32 vectors are the platform's answers."""
    from workers.packaging import build_device_sdk

    artifacts, (result, rows) = train_tabular(
        "tabular_classification", tmp_path, preset="neural", epochs=30, validation="holdout"
    )
    report = build_device_sdk(artifacts=artifacts, out_path=tmp_path / "device.zip", calibration_images=[])
    compression = report["compression"]
    assert compression["int8"]["bytes"] < compression["fp32"]["bytes"] and compression["int8_note"] is None
    assert compression["top1_agreement"] >= 0.9 and compression["int8"]["accuracy"] >= 0.8, compression
    root = unzip_package(tmp_path / "device.zip", tmp_path / "device")
    expected = json.loads((root / "test_vectors" / "expected.fp32.json").read_text())
    platform = load_predictor(_model_dir(result, "tabular_classification", tmp_path / "platform"))
    wanted = as_array(platform.predict([v["instance"] for v in expected["vectors"]], 3), 3)
    np.testing.assert_allclose(
        np.array([v["scores"] for v in expected["vectors"]]), wanted, rtol=RTOL, atol=ATOL
    )
    assert (root / "model.int8.onnx").is_file() and (root / "test_vectors" / "expected.int8.json").is_file()


def test_server_package_and_device_sdk_of_a_tabular_ensemble_answer_like_the_platform(tmp_path):
    """The accurate preset's ensemble on diabetes (bagged LightGBM fold models, an MLP and a linear
    model, each with a weight, in one ONNX graph) packages like any tabular model: the server package
    and the device SDK's Python sample, in fresh virtualenvs, give the platform predictor's values;
    int8 does not apply (trees)."""
    import onnx

    from workers.packaging import build_device_sdk

    artifacts, (result, _) = train_tabular(
        "tabular_regression", tmp_path, preset="accurate", n_estimators=100, epochs=30, folds=3
    )
    chosen = result["cross_validation"]["chosen"]
    assert min(chosen["weight_gbdt"], chosen["weight_mlp"], chosen["weight_linear"]) > 0, chosen
    proto = onnx.load(result["onnx"])
    members = json.loads({e.key: e.value for e in proto.metadata_props}["sampan.ensemble"])
    assert len(members) == chosen["gbdt_bag"] + 2 and sum(m["weight"] for m in members) == pytest.approx(1)
    # LightGBM (ai.onnx.ml), the torch MLP (Gemm) and the linear model (MatMul), summed
    assert {"TreeEnsembleRegressor", "Gemm", "MatMul", "Sum"} <= {node.op_type for node in proto.graph.node}
    platform = load_predictor(_model_dir(result, "tabular_regression", tmp_path / "platform"))

    def platform_values(instances: list) -> np.ndarray:
        return as_array(platform.predict(instances, 1), 0)

    build_server_package(artifacts=artifacts, out_path=tmp_path / "server.zip")
    root = unzip_package(tmp_path / "server.zip", tmp_path / "server")
    requirements = (root / "requirements.txt").read_text()
    if requirements not in VENVS:
        VENVS[requirements] = fresh_venv(tmp_path / "venv", root / "requirements.txt")
    out = run_in(VENVS[requirements], ["check_test_vectors.py", "--out", "answers.json"], cwd=root)
    assert json.loads(out)["allclose"] is True, out
    expected = json.loads((root / "test_vectors" / "expected.json").read_text())
    got = np.array(json.loads((root / "answers.json").read_text())["values"])
    np.testing.assert_allclose(
        got, platform_values([v["instance"] for v in expected["vectors"]]), rtol=RTOL, atol=ATOL
    )

    report = build_device_sdk(artifacts=artifacts, out_path=tmp_path / "device.zip", calibration_images=[])
    compression = report["compression"]
    assert compression["int8"] is None and "does not apply" in compression["int8_note"], compression
    device = unzip_package(tmp_path / "device.zip", tmp_path / "device")
    requirements = (device / "python" / "requirements.txt").read_text()
    if requirements not in VENVS:
        VENVS[requirements] = fresh_venv(tmp_path / "device-venv", device / "python" / "requirements.txt")
    answer = json.loads(
        run_in(
            VENVS[requirements],
            ["python/predict.py", "--test-vectors", "--model", "model.fp32.onnx"],
            cwd=device,
        )
    )
    assert answer["allclose"] is True, answer
    vectors = json.loads((device / "test_vectors" / "expected.fp32.json").read_text())["vectors"]
    np.testing.assert_allclose(
        np.array(answer["answers"]), platform_values([v["instance"] for v in vectors]), rtol=RTOL, atol=ATOL
    )
