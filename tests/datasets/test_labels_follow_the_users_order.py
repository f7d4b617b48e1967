"""Labels keep the order the user gives them: import order (natural order for names with numbers,
Chinese numerals included), reorderable all-or-nothing; every label gets a key in that order (or its
own); colours do not repeat before the 21st label; versions, manifests and the evaluation report
follow the order, and versions made before a reorder keep theirs."""

from __future__ import annotations

import importlib

import pytest
from datasets.label_order import import_order, label_keys, natural_key
from datasets.models import Label, Sample
from datasets.services import dataset_create, dataset_version_create
from datasets.services.image_imports import import_archive
from datasets.services.labels import PALETTE
from datasets.services.versions import dataset_version_manifest
from django.apps import apps
from django.db import connection

from tests.datasets.factories import digits_by_class, make_zip, upload

pytestmark = pytest.mark.django_db

NUMERALS = "零一二三四五六七八九"


def chinese_digits(user, project, *, order: str = "三七一零九二八四六五", per_class: int = 3, name="数字"):
    """Digits 0-9 in folders named 零 … 九, packed in the archive in a scrambled ``order``."""
    dataset = dataset_create(user=user, project=project, name=name, task_type="image_classification")
    images = digits_by_class(per_class)
    entries = {
        f"{numeral}/{numeral}_{i}.png": data
        for numeral in order
        for i, data in enumerate(images[str(NUMERALS.index(numeral))])
    }
    import_archive(dataset=dataset, upload=upload("digits.zip", make_zip(entries)), user=user)
    return dataset


def names(dataset) -> list[str]:
    return list(Label.objects.filter(dataset=dataset).values_list("name", flat=True))


def error(response) -> dict:
    return response.json()["error"]


def test_natural_order_of_names_with_numbers():
    assert sorted(["class10", "class2", "class1"], key=natural_key) == ["class1", "class2", "class10"]
    assert sorted(list("七三一十零九"), key=natural_key) == list("零一三七九十")
    assert sorted(["十一", "二", "十", "二十"], key=natural_key) == ["二", "十", "十一", "二十"]
    assert sorted(["第10类", "第2类", "第十一类"], key=natural_key) == ["第2类", "第10类", "第十一类"]
    # names without numbers keep the order they came in; with numbers they sort by value
    assert import_order(["狗", "猫", "狗", "鸟"]) == ["狗", "猫", "鸟"]
    assert import_order(["b10", "b9", "a1"]) == ["a1", "b9", "b10"]


def test_import_with_chinese_numerals_orders_labels_naturally_with_distinct_colours(
    tenants, isolated_storage
):
    dataset = chinese_digits(tenants["alice"], tenants["project_a"])
    assert names(dataset) == list(NUMERALS)
    colors = list(Label.objects.filter(dataset=dataset).values_list("color", flat=True))
    assert len(set(colors)) == 10 and colors == PALETTE[:10]


def test_import_without_numbers_keeps_the_archive_order_and_a_later_import_appends(tenants, isolated_storage):
    user, project = tenants["alice"], tenants["project_a"]
    dataset = dataset_create(user=user, project=project, name="Pets", task_type="image_classification")
    images = digits_by_class(2, range(4))
    first = {
        f"{name}/{i}.png": data
        for name, d in zip("狗猫鸟", "012", strict=True)
        for i, data in enumerate(images[d])
    }
    import_archive(dataset=dataset, upload=upload("a.zip", make_zip(first)), user=user)
    assert names(dataset) == ["狗", "猫", "鸟"]
    batch = import_archive(
        dataset=dataset,
        upload=upload("b.zip", make_zip({f"鱼/{i}.png": data for i, data in enumerate(images["3"])})),
        user=user,
    )
    assert batch.labels_created == ["鱼"] and names(dataset) == ["狗", "猫", "鸟", "鱼"]
    positions = list(Label.objects.filter(dataset=dataset).values_list("position", flat=True))
    assert positions == [0, 1, 2, 3]


def test_palette_does_not_repeat_before_20_labels(tenants, api_client):
    client = api_client(tenants["alice"])
    dataset = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Many", task_type="image_classification"
    )
    base = f"/api/v1/datasets/{dataset.pk}/labels/"
    colors = [client.post(base, {"name": f"c{i}"}, format="json").json()["color"] for i in range(21)]
    assert len(set(colors[:20])) == 20 and colors[20] in colors[:20]
    # a deleted label's colour is the next one handed out
    freed = Label.objects.get(dataset=dataset, name="c3")
    client.delete(f"{base}{freed.pk}/")
    assert client.post(base, {"name": "new"}, format="json").json()["color"] == freed.color


def test_created_labels_go_last_and_reorder_is_all_or_nothing(tenants, api_client, isolated_storage):
    dataset = chinese_digits(tenants["alice"], tenants["project_a"], order="二零一", per_class=2)
    client = api_client(tenants["alice"])
    base = f"/api/v1/datasets/{dataset.pk}/labels/"
    cat = client.post(base, {"name": "猫"}, format="json").json()
    assert cat["position"] == 3 and cat["key"] == "4"
    ids = {lab["name"]: lab["id"] for lab in client.get(base).json()["results"]}
    assert list(ids) == ["零", "一", "二", "猫"]

    order = [ids["猫"], ids["二"], ids["零"], ids["一"]]
    moved = client.post(f"{base}reorder/", {"label_ids": order}, format="json")
    assert moved.status_code == 200, moved.content
    assert [(lab["name"], lab["position"], lab["key"]) for lab in moved.json()] == [
        ("猫", 0, "1"),
        ("二", 1, "2"),
        ("零", 2, "3"),
        ("一", 3, "4"),
    ]
    assert [lab["name"] for lab in client.get(base).json()["results"]] == ["猫", "二", "零", "一"]
    counts = client.get(f"/api/v1/datasets/{dataset.pk}/samples/").json()["counts"]["per_label"]
    assert [row["name"] for row in counts] == ["猫", "二", "零", "一"]

    other = chinese_digits(tenants["alice"], tenants["project_a"], order="一", per_class=2, name="other")
    foreign = Label.objects.get(dataset=other).pk
    cases = [
        ([ids["猫"], ids["二"], ids["零"]], "labels_missing", "'一'"),
        ([*order, foreign], "labels_unknown", str(foreign)),
        ([*order, ids["猫"]], "labels_repeated", str(ids["猫"])),
        ([], "invalid", "label_ids"),
    ]
    for label_ids, code, named in cases:
        refused = client.post(f"{base}reorder/", {"label_ids": label_ids}, format="json")
        assert refused.status_code == 400 and error(refused)["code"] == code, refused.content
        assert named in error(refused)["message"] and "label_ids" in error(refused)["details"]
    assert names(dataset) == ["猫", "二", "零", "一"], "a refused reorder changes nothing"

    viewer = api_client(tenants["carol"]).post(f"{base}reorder/", {"label_ids": order[::-1]}, format="json")
    assert viewer.status_code == 403 and names(dataset) == ["猫", "二", "零", "一"]
    bob = api_client(tenants["bob"]).post(f"{base}reorder/", {"label_ids": order}, format="json")
    assert bob.status_code == 404, "another workspace's dataset is not found"


def test_every_label_gets_a_key_in_order_or_its_own(tenants, api_client, isolated_storage):
    dataset = chinese_digits(tenants["alice"], tenants["project_a"])
    client = api_client(tenants["alice"])
    base = f"/api/v1/datasets/{dataset.pk}/labels/"
    listed = client.get(base).json()["results"]
    assert [(lab["name"], lab["key"]) for lab in listed] == list(zip(NUMERALS, "1234567890", strict=True))
    ids = {lab["name"]: lab["id"] for lab in listed}
    for i in range(3):
        client.post(base, {"name": f"extra{i}"}, format="json")
    keys = {lab["name"]: lab["key"] for lab in client.get(base).json()["results"]}
    assert (keys["extra0"], keys["extra1"], keys["extra2"]) == ("a", "b", "c")

    chosen = client.patch(f"{base}{ids['零']}/", {"shortcut": "A"}, format="json")
    assert chosen.status_code == 200 and chosen.json()["shortcut"] == "a" and chosen.json()["key"] == "a"
    keys = {lab["name"]: lab["key"] for lab in client.get(base).json()["results"]}
    assert keys["一"] == "1" and keys["extra0"] == "0" and keys["extra1"] == "b", "defaults skip chosen keys"

    created = client.post(base, {"name": "猫", "shortcut": "m"}, format="json")
    assert created.status_code == 201 and created.json()["key"] == "m"
    for shortcut, code in (
        ("a", "shortcut_taken"),
        ("/", "shortcut_reserved"),
        ("ab", "shortcut_invalid"),
        ("猫", "shortcut_invalid"),
        ("\t", "shortcut_invalid"),
    ):
        refused = client.patch(f"{base}{ids['一']}/", {"shortcut": shortcut}, format="json")
        assert refused.status_code == 400 and error(refused)["code"] == code, (shortcut, refused.content)
        assert "shortcut" in error(refused)["details"]
    assert client.patch(f"{base}{ids['零']}/", {"shortcut": ""}, format="json").json()["key"] == "1"
    assert label_keys([(i, "") for i in range(40)])[36] is None, "more labels than keys: no key"


def test_the_migration_numbers_existing_labels_in_their_old_name_order(tenants):
    dataset = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Old", task_type="image_classification"
    )
    for name in ["b", "一", "a", "七"]:
        Label.objects.create(dataset=dataset, name=name, position=0)
    module = importlib.import_module("datasets.migrations.0005_label_position_and_shortcut")
    with connection.schema_editor() as editor:
        module.number_labels_in_name_order(apps, editor)
    by_name = list(
        Label.objects.filter(dataset=dataset).order_by("name", "id").values_list("name", "position")
    )
    assert [p for _, p in by_name] == [0, 1, 2, 3]
    assert names(dataset) == [n for n, _ in by_name]


def test_versions_and_manifests_follow_the_label_order_and_keep_it(tenants, api_client, isolated_storage):
    dataset = chinese_digits(tenants["alice"], tenants["project_a"], order="二零一", per_class=5)
    before = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)
    assert before.classes == ["零", "一", "二"]
    ids = {lab.name: lab.pk for lab in Label.objects.filter(dataset=dataset)}
    client = api_client(tenants["alice"])
    client.post(
        f"/api/v1/datasets/{dataset.pk}/labels/reorder/",
        {"label_ids": [ids["二"], ids["一"], ids["零"]]},
        format="json",
    )
    after = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)
    assert after.classes == ["二", "一", "零"]
    manifest = dataset_version_manifest(version=after)
    assert manifest["classes"] == ["二", "一", "零"]
    label_of = dict(Sample.objects.filter(dataset=dataset).values_list("pk", "label__name"))
    assert all(after.classes[s["label"]] == label_of[s["id"]] for s in manifest["samples"])
    before.refresh_from_db()
    assert before.classes == ["零", "一", "二"], "a version keeps the order it was made with"
    assert dataset_version_manifest(version=before)["classes"] == ["零", "一", "二"]


def test_a_trained_report_lists_classes_in_the_label_order(tenants, api_client, isolated_storage, tmp_path):
    """The fastest real path: wine as a table, the labels reordered, a version, its manifest, the
    fast tabular preset trained and evaluated by the compute plane's own functions."""
    from tests.templates_tabular.tables import csv_bytes
    from workers.tabular.evaluation import evaluate
    from workers.tabular.trainer import train

    client = api_client(tenants["alice"])
    dataset = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Wine", task_type="tabular_classification"
    )
    imported = client.post(
        f"/api/v1/datasets/{dataset.pk}/imports/",
        {"file": upload("wine.csv", csv_bytes("wine")), "target_column": "target"},
        format="multipart",
    )
    assert imported.status_code == 201, imported.content
    assert names(dataset) == ["class_0", "class_1", "class_2"]
    ids = {lab.name: lab.pk for lab in Label.objects.filter(dataset=dataset)}
    order = ["class_2", "class_0", "class_1"]
    client.post(
        f"/api/v1/datasets/{dataset.pk}/labels/reorder/",
        {"label_ids": [ids[n] for n in order]},
        format="json",
    )
    dataset.refresh_from_db()  # the import gave it its schema
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=3)
    manifest = dataset_version_manifest(version=version)
    assert manifest["classes"] == order
    result = train({"preset": "fast"}, manifest, tmp_path)
    assert result["classes"] == order
    report = evaluate(result["onnx"], manifest, preprocessing=result["preprocessing"])
    assert report["classes"] == order
    assert [row["class"] for row in report["per_class"]] == order
    truth = dict(Sample.objects.filter(dataset=dataset).values_list("pk", "label__name"))
    matrix = report["confusion_matrix"]["samples"]
    for i, row in enumerate(matrix):
        assert all(truth[ref] == order[i] for cell in row for ref in cell), "row i is class i of the order"
    assert sum(map(sum, report["confusion_matrix"]["counts"])) == report["samples"]


def test_the_migration_gives_automatically_coloured_labels_distinct_colours(tenants):
    module = importlib.import_module("datasets.migrations.0006_distinct_label_colours")
    dataset = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Old", task_type="image_classification"
    )
    for position, name in enumerate(NUMERALS):
        Label.objects.create(dataset=dataset, name=name, position=position, color=module.hashed_colour(name))
    Label.objects.filter(dataset=dataset, name="五").update(color="#123456")  # chosen by the user
    hashed = [module.hashed_colour(n) for n in NUMERALS]
    assert len(set(hashed)) < len(hashed), "the old colours collided"
    with connection.schema_editor() as editor:
        module.recolour(apps, editor)
    colors = dict(Label.objects.filter(dataset=dataset).values_list("name", "color"))
    assert colors["五"] == "#123456"
    assert len(set(colors.values())) == 10
    assert [colors[n] for n in NUMERALS if n != "五"] == PALETTE[:9]
