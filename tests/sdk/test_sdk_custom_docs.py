"""The custom-code docs hold: docs/sdk.md's "Custom code" section runs as written against the live
platform (the same blocks tests/sdk/test_sdk_docs_examples.py runs with the whole page, here alone
and fast), and docs/custom-code.md's limits table states the platform's defaults and caps."""

from __future__ import annotations

import re
import traceback

import pytest

from tests.harness import REPO
from tests.sdk.test_sdk_docs_examples import FENCE

SDK_DOC = REPO / "docs" / "sdk.md"
GUIDE = REPO / "docs" / "custom-code.md"


def section_blocks(text: str, heading: str) -> list[str]:
    start = text.index(heading)
    end = text.find("\n#", start + len(heading))
    section = text[start : end if end != -1 else len(text)]
    return [m["code"] for m in FENCE.finditer(section) if m["info"].split() == ["python"]]


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_the_custom_code_section_of_docs_sdk_md_runs(sdk, project, digits_folder, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    dataset = sdk.datasets.create("docs digits", project=project)
    dataset.upload(digits_folder, progress=False)
    namespace: dict[str, object] = {
        "client": sdk,
        "project": project,
        "version": dataset.create_version(seed=7),
    }
    blocks = section_blocks(SDK_DOC.read_text(), "### Custom code\n")
    assert blocks, "docs/sdk.md has a Custom code section with python blocks"
    for code in blocks:
        try:
            exec(compile(code, "docs/sdk.md (Custom code)", "exec"), namespace)  # noqa: S102 - the documented example
        except Exception as exc:
            pytest.fail(f"the Custom code block failed: {exc!r}\n{traceback.format_exc()}\n{code}")
    custom = namespace["custom"]
    assert custom.status == "succeeded" and custom.data["kind"] == "training.custom"
    assert custom.data["result"]["metrics"] == pytest.approx({"loss": 1 / 3})
    assert [p["step"] for p in custom.progress_series() if "custom_metrics" in p] == [0, 1, 2]
    texts = [line["text"] for line in custom.logs()]
    assert any(re.fullmatch(r"\d+ training images of 10 classes", t) for t in texts), texts
    assert [a["path"] for a in custom.artifacts()] == ["summary.txt"]
    assert re.fullmatch(r"\d+ training images\n", (tmp_path / "summary.txt").read_text())


def test_the_guide_states_the_platforms_limits(settings):
    text = GUIDE.read_text()
    rows = {
        "wall time": (
            settings.SAMPAN_CUSTOM_JOB_WALL_TIME_S,
            settings.SAMPAN_CUSTOM_JOB_MAX_WALL_TIME_S,
            "s",
        ),
        "memory": (settings.SAMPAN_CUSTOM_JOB_MEMORY_MB, settings.SAMPAN_CUSTOM_JOB_MAX_MEMORY_MB, "MiB"),
    }
    for name, (default, cap, unit) in rows.items():
        line = next(line for line in text.splitlines() if line.startswith(f"| {name}"))
        assert f"| {default} {unit} | {cap} {unit} |" in line, line
    cpus = next(line for line in text.splitlines() if line.startswith("| CPUs"))
    assert f"| {settings.SAMPAN_CUSTOM_JOB_CPUS} | {settings.SAMPAN_CUSTOM_JOB_MAX_CPUS} |" in cpus
    code = next(line for line in text.splitlines() if line.startswith("| code size"))
    assert f"{settings.SAMPAN_CUSTOM_JOB_MAX_CODE_BYTES // 1024**2} MiB" in code
    # every sampan.run name the reference lists exists
    import sampan.run as run

    for name in re.findall(r"^\| `run\.(\w+)", text, re.MULTILINE):
        assert name in run.__all__, name
