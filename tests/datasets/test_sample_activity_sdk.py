"""The SDK reads a sample's activity log and reverts a change (the server's 409 as sampan.Conflict),
and docs/sdk.md's "Activity log" block runs as written."""

from __future__ import annotations

import re

import pytest
import sampan

from tests.datasets.factories import digits_by_class
from tests.harness import REPO

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def docs_block(title: str) -> str:
    text = (REPO / "docs" / "sdk.md").read_text()
    section = text.split(f"### {title}\n", 1)[1]
    return re.search(r"^```python\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)[1]


def test_activity_and_revert_through_the_sdk(live_web, tenants, token_for, tmp_path):
    client = sampan.Client(live_web, token_for(tenants["alice"]), timeout=60, backoff=0.1, max_backoff=2)
    for label, images in digits_by_class(2, range(10)).items():
        (tmp_path / "digits" / label).mkdir(parents=True)
        for i, data in enumerate(images):
            (tmp_path / "digits" / label / f"{i}.png").write_bytes(data)
    dataset = client.datasets.create("digits", project=client.projects.get(tenants["project_a"].pk))
    dataset.upload(tmp_path / "digits", progress=False)

    exec(compile(docs_block("Activity log"), "docs/sdk.md", "exec"), {"dataset": dataset})

    sample = next(dataset.samples(label="5"))
    dataset.set_label(sample, "6")
    first = dataset.activity(sample=sample)[0]
    assert (first["actor_username"], first["after"]["label_name"]) == ("alice", "6")
    dataset.set_label(sample["id"], "7")
    with pytest.raises(sampan.Conflict) as conflict:
        dataset.revert(first)
    assert conflict.value.code == "label_conflict"
    assert next(dataset.samples(label="7"))["id"] == sample["id"]
    # the docs block's change and revert, then 5 -> 6 -> 7; the refused revert logged nothing
    # (after the import's own entries, which come last: oldest)
    sources = [e["source"] for e in dataset.activity()]
    assert sources[:4] == ["manual", "manual", "revert", "manual"] and set(sources[4:]) <= {"import"}
