"""The SDK against the live web process: a folder upload creates its labels in natural order (each
folder is its own request, so the client orders them), labels come back in the dataset's order with
their keys, reorder_labels and update_label(shortcut=) work and refuse bad input with the server's
code, and docs/sdk.md's "Labels: their order and keys" block runs as written."""

from __future__ import annotations

import re

import pytest
import sampan

from tests.datasets.factories import digits_by_class
from tests.harness import REPO

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

NUMERALS = "零一二三四五六七八九十"


def folder(root, names):
    images = digits_by_class(4, range(10))
    for i, name in enumerate(names):
        (root / name).mkdir(parents=True)
        first = 2 * (i // 10)  # distinct images (a duplicate is not imported twice)
        for j, data in enumerate(images[str(i % 10)][first : first + 2]):
            (root / name / f"{j}.png").write_bytes(data)
    return root


def docs_block(title: str) -> str:
    text = (REPO / "docs" / "sdk.md").read_text()
    section = text.split(f"### {title}\n", 1)[1]
    return re.search(r"^```python\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)[1]


@pytest.fixture
def client(live_web, tenants, token_for):
    return sampan.Client(live_web, token_for(tenants["alice"]), timeout=60, backoff=0.1, max_backoff=2)


def test_labels_in_order_with_keys_reorder_and_shortcuts(client, tenants, tmp_path):
    project = client.projects.get(tenants["project_a"].pk)
    dataset = client.datasets.create("数字", project=project)
    dataset.upload(folder(tmp_path / "digits", list(NUMERALS)), progress=False)
    labels = dataset.labels()
    assert [label.name for label in labels] == list(NUMERALS)
    assert [label.key for label in labels] == [*"1234567890", "a"]

    moved = dataset.reorder_labels(["十", *labels[:-1]])
    assert [label.name for label in moved] == ["十", *NUMERALS[:-1]] and moved[0].key == "1"
    with pytest.raises(sampan.BadRequest) as missing:
        dataset.reorder_labels(labels[:3])
    assert missing.value.code == "labels_missing"

    cat = dataset.create_label("猫", shortcut="m")
    assert cat.key == "m" and cat.position == len(NUMERALS)
    assert dataset.update_label("零", shortcut="Z").shortcut == "z"
    with pytest.raises(sampan.BadRequest) as taken:
        dataset.update_label("一", shortcut="m")
    assert taken.value.code == "shortcut_taken"
    keys = {label.name: label.key for label in dataset.labels()}
    assert keys["零"] == "z" and keys["十"] == "1" and keys["一"] == "2"


def test_the_docs_example_runs(client, tenants, tmp_path):
    project = client.projects.get(tenants["project_a"].pk)
    dataset = client.datasets.create("digits", project=project)
    dataset.upload(folder(tmp_path / "digits", [str(d) for d in range(10)]), progress=False)
    namespace = {"dataset": dataset}
    exec(compile(docs_block("Labels: their order and keys"), "docs/sdk.md", "exec"), namespace)
    assert [label.name for label in dataset.labels()] == [str(d) for d in range(10)]
    assert dataset.labels()[9].shortcut == "n"
