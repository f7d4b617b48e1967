"""Text datasets through the API: CSV, TSV, JSONL and XLSX imports with a column mapping, duplicate
texts reported, the text search and label writes of the labeling UI, and the bad files refused."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest
from datasets.models import Sample

from tests.datasets.factories import upload
from tests.templates_text.corpus import balanced

pytestmark = [pytest.mark.openapi_conformance, pytest.mark.django_db]


def text_dataset(client, tenants, name: str = "Docs") -> int:
    response = client.post(
        "/api/v1/datasets/",
        {"project": tenants["project_a"].pk, "name": name, "task_type": "text_classification"},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()["id"]


def post(client, dataset_id: int, name: str, data: bytes, **fields):
    return client.post(
        f"/api/v1/datasets/{dataset_id}/imports/", {"file": upload(name, data), **fields}, format="multipart"
    )


def delimited(rows: list[tuple[str, str]], header: tuple[str, str], delimiter: str = ",") -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode()


def test_csv_with_a_column_mapping_then_search_and_label(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = text_dataset(client, tenants)
    rows = balanced(5)
    body = delimited(
        [(area, text) for text, area in rows] + [(rows[0][1], rows[0][0]), ("", "")], ("area", "docstring")
    )
    preview = client.post(
        f"/api/v1/datasets/{dataset_id}/imports/preview/", {"file": upload("d.csv", body)}, format="multipart"
    ).json()
    assert preview["suggested"]["text_column"] == "docstring" and preview["suggested"]["label_column"] is None
    response = post(client, dataset_id, "d.csv", body, text_column="docstring", label_column="area")
    assert response.status_code == 201, response.content
    batch = response.json()
    assert batch["imported"] == 20 and batch["duplicates"] == 1 and batch["failed"] == 1
    codes = {p["file"]: p["code"] for p in batch["problems"]}
    assert codes == {"row 21": "duplicate", "row 22": "empty_text"}
    assert sorted(batch["labels_created"]) == ["files", "network", "numbers", "text"]
    assert client.get(f"/api/v1/datasets/{dataset_id}/").json()["schema"] == {
        "text_column": "docstring",
        "label_column": "area",
    }

    needle = rows[3][0].split()[2]
    found = client.get(f"/api/v1/datasets/{dataset_id}/samples/", {"search": needle}).json()["results"]
    assert any(s["text"] == rows[3][0] for s in found) and all(
        needle.lower() in s["text"].lower() for s in found
    )
    sample = found[0]
    other = next(
        lab
        for lab in client.get(f"/api/v1/datasets/{dataset_id}/labels/").json()["results"]
        if lab["id"] != sample["label"]
    )
    ok = client.patch(
        f"/api/v1/datasets/{dataset_id}/samples/{sample['id']}/",
        {"label": other["id"], "label_version": sample["label_version"]},
        format="json",
    )
    assert ok.status_code == 200 and ok.json()["label"] == other["id"]
    stale = client.patch(
        f"/api/v1/datasets/{dataset_id}/samples/{sample['id']}/",
        {"label": None, "label_version": sample["label_version"]},
        format="json",
    )
    assert stale.status_code == 409  # the same concurrency rule as images

    version = client.post(f"/api/v1/datasets/{dataset_id}/versions/", {"seed": 1}, format="json").json()
    # the labels' order: the order the file first names them (no numbers in the names)
    assert (
        version["classes"] == list(dict.fromkeys(area for _, area in rows)) and version["sample_count"] == 20
    )
    exported = client.get(f"/api/v1/datasets/{dataset_id}/export/", {"version": version["id"]})
    with zipfile.ZipFile(io.BytesIO(b"".join(exported.streaming_content))) as archive:
        table = list(csv.reader(io.StringIO(archive.read("data.csv").decode())))
    assert table[0] == ["docstring", "area", "split"] and len(table) == 21


def test_tsv_jsonl_and_xlsx_with_guessed_columns(tenants, api_client, isolated_storage):
    import pandas as pd

    client = api_client(tenants["alice"])
    rows = balanced(3)
    tsv = text_dataset(client, tenants, "TSV")
    response = post(client, tsv, "d.tsv", delimited([(t, a) for t, a in rows], ("text", "label"), "\t"))
    assert response.status_code == 201 and response.json()["imported"] == 12, response.content
    jsonl = text_dataset(client, tenants, "JSONL")
    lines = "\n".join(
        json.dumps({"content": t, "category": a, "extra": {"n": i}}) for i, (t, a) in enumerate(rows)
    )
    response = post(client, jsonl, "d.jsonl", lines.encode())
    assert response.status_code == 201 and response.json()["imported"] == 12, response.content
    assert response.json()["mapping"]["label_column"] == "category"
    xlsx = text_dataset(client, tenants, "XLSX")
    out = io.BytesIO()
    pd.DataFrame({"sentence": [t for t, _ in rows], "class": [a for _, a in rows]}).to_excel(out, index=False)
    response = post(client, xlsx, "d.xlsx", out.getvalue())
    assert response.status_code == 201 and response.json()["imported"] == 12, response.content
    assert Sample.objects.filter(dataset_id=xlsx, label__isnull=False).count() == 12


def test_bad_text_files_are_refused_naming_the_problem(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = text_dataset(client, tenants)
    numbers = post(client, dataset_id, "n.csv", b"a,b\n1,2\n3,4\n")
    assert numbers.status_code == 400 and numbers.json()["error"]["code"] == "no_text_column"
    assert "'a', 'b'" in numbers.json()["error"]["message"]
    named = post(client, dataset_id, "n.csv", b"a,b\n1,2\n3,4\n", text_column="a")
    assert named.status_code == 400 and "holds no text" in named.json()["error"]["message"]
    bad_json = post(client, dataset_id, "d.jsonl", b'{"text": "fine"}\n{"text": broken\n')
    assert bad_json.status_code == 400 and "Line 2" in bad_json.json()["error"]["message"]
    latin = "text\nna\xefve caf\xe9 text here\n".encode("latin-1")
    bad_bytes = post(client, dataset_id, "d.csv", latin, encoding="utf-8")
    assert (
        bad_bytes.status_code == 400 and "Line 2 is not valid utf-8" in bad_bytes.json()["error"]["message"]
    )
    assert not Sample.objects.exists()
