"""Table files built here the way other tools write them: a GBK CSV of Chinese class names, Latin-1
and UTF-16 files, a file whose code page cannot be told (refused naming the candidates, then read
with the one the user picks), a `;`-separated CSV with decimal commas, an XLSX whose data is on its
second sheet, and 1,000 feature columns plus the target. Each answer is checked, and so is the
data already stored: a refusal changes nothing, an import only adds."""

from __future__ import annotations

import io
import json

import pytest
from datasets.models import Label, Sample
from datasets.services import dataset_create

from tests.datasets.factories import upload

pytestmark = [pytest.mark.openapi_conformance, pytest.mark.django_db]

CHINESE = (
    "评论,类别\n这部电影很好看,正面\n剧情太差了浪费时间,负面\n"
    "演员表演还可以吧,中性\n画面非常漂亮,正面\n故事无聊,负面\n"
)


def stored(dataset) -> list:
    return sorted(
        (pk, text, json.dumps(values, sort_keys=True), target, label)
        for pk, text, values, target, label in Sample.objects.filter(dataset=dataset).values_list(
            "pk", "text", "values", "target", "label__name"
        )
    )


def new_dataset(tenants, task_type: str, seed: bytes, **mapping):
    """A dataset that already holds rows from a UTF-8 import (what a later bad import must not touch)."""
    from datasets.services.table_imports import import_table

    dataset = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name=task_type, task_type=task_type
    )
    import_table(dataset=dataset, upload=upload("seed.csv", seed), user=tenants["alice"], **mapping)
    return dataset


def preview(client, dataset, name: str, data: bytes, **fields):
    return client.post(
        f"/api/v1/datasets/{dataset.pk}/imports/preview/",
        {"file": upload(name, data), **fields},
        format="multipart",
    )


def post(client, dataset, name: str, data: bytes, **fields):
    return client.post(
        f"/api/v1/datasets/{dataset.pk}/imports/", {"file": upload(name, data), **fields}, format="multipart"
    )


@pytest.fixture
def texts(tenants, isolated_storage):
    return new_dataset(
        tenants,
        "text_classification",
        "评论,类别\n已有的评论,正面\n另一条评论,负面\n".encode(),
        text_column="评论",
        label_column="类别",
    )


@pytest.fixture
def rows(tenants, isolated_storage):
    return new_dataset(
        tenants, "tabular_classification", b"word,score,y\nseed,1.5,a\nother,2.5,b\n", target_column="y"
    )


@pytest.mark.parametrize("codec", ["gbk", "gb18030"])
def test_a_gbk_csv_of_chinese_class_names_imports_with_the_right_classes(texts, tenants, api_client, codec):
    client = api_client(tenants["alice"])
    before = stored(texts)
    data = CHINESE.encode(codec)
    shown = preview(client, texts, "reviews.csv", data)
    assert shown.status_code == 200, shown.content
    assert shown.json()["encoding"] == "gb18030" and [c["name"] for c in shown.json()["columns"]] == [
        "评论",
        "类别",
    ]
    assert shown.json()["rows"][0] == {"评论": "这部电影很好看", "类别": "正面"}
    response = post(client, texts, "reviews.csv", data)
    assert response.status_code == 201, response.content
    assert response.json()["imported"] == 5 and response.json()["mapping"]["encoding"] == "gb18030"
    assert sorted(Label.objects.filter(dataset=texts).values_list("name", flat=True)) == [
        "中性",
        "正面",
        "负面",
    ]
    assert set(Sample.objects.filter(dataset=texts).values_list("text", flat=True)) >= {
        "剧情太差了浪费时间",
        "故事无聊",
    }
    assert set(before) < set(stored(texts))


def test_latin_1_stays_latin_1_and_utf_16_is_read(rows, tenants, api_client):
    client = api_client(tenants["alice"])
    before = stored(rows)
    latin = "word,score,y\nnaïve,1.0,a\ncafé crème,2.0,b\nZoë,3.0,a\nfaçade,4.0,b\n".encode("latin-1")
    response = post(client, rows, "latin.csv", latin)
    assert response.status_code == 201, response.content
    assert response.json()["mapping"]["encoding"] == "cp1252"
    words = set(Sample.objects.filter(dataset=rows).values_list("values__word", flat=True))
    assert {"naïve", "café crème", "Zoë", "façade"} <= words
    for codec, name in (
        ("utf-16", "utf-16"),
        ("utf-16-le", "utf-16-le"),
    ):  # with a BOM (Excel's), and without
        body = f"word\tscore\ty\nÜber {codec}\t5.0\ta\n東京 {codec}\t6.0\tb\n".encode(codec)
        shown = preview(client, rows, "excel.txt", body)
        assert shown.status_code == 200, shown.content
        assert (shown.json()["encoding"], shown.json()["delimiter"]) == (name, "\t")
        assert post(client, rows, "excel.txt", body).status_code == 201
        assert f"Über {codec}" in set(
            Sample.objects.filter(dataset=rows).values_list("values__word", flat=True)
        )
    assert set(before) < set(stored(rows))


def test_an_uncertain_encoding_is_refused_naming_the_candidates_then_the_users_pick_is_read(
    rows, tenants, api_client
):
    client = api_client(tenants["alice"])
    before = stored(rows)
    russian = "word,score,y\nПривет мир,1,a\nдобрый день,2,b\nспасибо большое,3,a\n".encode("cp1251")
    for answer in (preview(client, rows, "ru.csv", russian), post(client, rows, "ru.csv", russian)):
        assert answer.status_code == 400, answer.content
        error = answer.json()["error"]
        assert (
            error["code"] == "bad_encoding" and error["details"]["candidates"][0] == "cp1251"
        )  # likeliest first
        assert "cp1251" in error["message"] and "encoding" in error["details"]
    assert stored(rows) == before
    picked = preview(client, rows, "ru.csv", russian, encoding="cp1251")
    assert picked.status_code == 200 and picked.json()["rows"][0]["word"] == "Привет мир"
    assert post(client, rows, "ru.csv", russian, encoding="cp1251").status_code == 201
    assert "спасибо большое" in set(
        Sample.objects.filter(dataset=rows).values_list("values__word", flat=True)
    )
    unknown = post(client, rows, "ru.csv", russian, encoding="klingon")
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "bad_encoding"
    assert "klingon" in unknown.json()["error"]["message"]


def test_a_semicolon_csv_with_decimal_commas_imports_numbers(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    wine = new_dataset(
        tenants,
        "tabular_regression",
        b"alcohol,acidity,quality\n9.5,0.5,5\n10.1,0.25,6\n",
        target_column="quality",
    )
    before = stored(wine)
    data = "alcohol;acidity;quality\n12,8;0,70;6,5\n1.234,5;0,25;7\n9,4;1,05;5\n".encode("cp1252")
    shown = preview(client, wine, "wine.csv", data)
    assert shown.status_code == 200, shown.content
    assert (shown.json()["delimiter"], shown.json()["decimal"]) == (";", ",")
    assert [c["type"] for c in shown.json()["columns"]] == ["numeric", "numeric", "numeric"]
    response = post(client, wine, "wine.csv", data)
    assert response.status_code == 201, response.content
    assert (response.json()["mapping"]["delimiter"], response.json()["mapping"]["decimal"]) == (";", ",")
    added = Sample.objects.filter(dataset=wine, import_batch=response.json()["id"]).order_by("pk")
    assert [(s.values["alcohol"], s.values["acidity"], s.target) for s in added] == [
        (12.8, 0.7, 6.5),
        (1234.5, 0.25, 7.0),
        (9.4, 1.05, 5.0),
    ]
    assert set(before) < set(stored(wine))

    # told the decimal mark is '.', "12,8" is no number (never silently 128)
    pointed = preview(client, wine, "wine.csv", data, decimal=".").json()
    assert pointed["decimal"] == "." and pointed["rows"][0]["alcohol"] == "12,8"
    assert pointed["columns"][0]["type"] != "numeric"
    # the user's overrides win: '|' and '.' where detection would not look
    piped = preview(client, wine, "p.csv", b"alcohol|acidity|quality\n1,5|2|3\n", delimiter="|", decimal=".")
    assert (piped.json()["delimiter"], piped.json()["decimal"]) == ("|", ".")
    assert piped.json()["rows"][0]["alcohol"] == "1,5"
    for field, value, code in (
        ("delimiter", "ab", "bad_delimiter"),
        ("delimiter", "x", "bad_delimiter"),
        ("decimal", ";", None),
    ):
        bad = post(client, wine, "wine.csv", data, **{field: value})
        assert bad.status_code == 400, bad.content
        assert field in bad.json()["error"]["details"] and (
            code is None or bad.json()["error"]["code"] == code
        )
    assert Sample.objects.filter(dataset=wine).count() == 5


def workbook(sheets: dict[str, list[list]]) -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, cells in sheets.items():
        sheet = book.create_sheet(name)
        for row in cells:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_an_xlsx_with_its_data_on_the_second_sheet_imports(rows, tenants, api_client):
    client = api_client(tenants["alice"])
    before = stored(rows)
    data = workbook(
        {
            "Cover": [],
            "Data": [["word", "score", "y"], ["x1", 1.25, "a"], ["x2", 2.5, "b"]],
            "Notes": [["just a note"]],
        }
    )
    shown = preview(client, rows, "book.xlsx", data)
    assert shown.status_code == 200, shown.content
    assert (shown.json()["sheet"], shown.json()["sheets"]) == ("Data", ["Cover", "Data", "Notes"])
    assert shown.json()["delimiter"] is None and shown.json()["encoding"] == "binary"
    response = post(client, rows, "book.xlsx", data)
    assert response.status_code == 201, response.content
    assert response.json()["imported"] == 2 and response.json()["mapping"]["sheet"] == "Data"
    assert post(client, rows, "book.xlsx", data, sheet="1").json()["duplicates"] == 2  # by 0-based index
    for sheet, code in (("Cover", "empty_table"), ("Missing", "no_sheet"), ("7", "no_sheet")):
        refused = post(client, rows, "book.xlsx", data, sheet=sheet)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == code, refused.content
        assert "'Data'" in refused.json()["error"]["message"]
    assert set(before) < set(stored(rows)) and len(stored(rows)) == len(before) + 2


def test_the_column_limit_counts_features_not_the_target(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Wide", task_type="tabular_regression"
    )

    def wide(features: int) -> bytes:
        header = ",".join([f"f{i}" for i in range(features)] + ["y"])
        lines = [",".join([str(r + i % 7) for i in range(features)] + [str(r)]) for r in range(3)]
        return ("\n".join([header, *lines]) + "\n").encode()

    too_wide = post(client, dataset, "w.csv", wide(1001), target_column="y")
    assert too_wide.status_code == 400 and too_wide.json()["error"]["code"] == "too_many_columns"
    assert "1,001 feature columns" in too_wide.json()["error"]["message"]
    assert not Sample.objects.filter(dataset=dataset).exists()
    fits = post(client, dataset, "w.csv", wide(1000), target_column="y")
    assert fits.status_code == 201, fits.content[:500]
    assert len(fits.json()["mapping"]) and Sample.objects.filter(dataset=dataset).count() == 3
    dataset.refresh_from_db()
    assert len(dataset.schema["columns"]) == 1000 and dataset.schema["target"] == "y"
