"""Tables through the SDK against the live platform: ``Dataset.import_table`` / ``preview_table``
from a path, bytes and a pandas DataFrame (with an encoding), ``upload()`` of a table routed to
the table import (or refused with a pointer to it); ``predict_batch(rows=DataFrame)`` with NaN and
None cells sent as null, the server's missing-value rule applied and ``Prediction.imputed`` set."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sampan

from tests.templates_tabular.tables import frame

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

CHINESE = pd.DataFrame(
    {
        "评论": [f"这个产品很好用，第{i}次购买" for i in range(12)]
        + [f"质量太差了，第{i}次退货" for i in range(12)],
        "类别": ["好评"] * 12 + ["差评"] * 12,
    }
)


def test_preview_and_import_a_gb18030_text_table_and_a_dataframe(sdk, project, tmp_path):
    dataset = sdk.datasets.create("评论", project=project, task_type="text_classification")
    path = tmp_path / "reviews.csv"
    path.write_bytes(CHINESE.to_csv(index=False).encode("gb18030"))
    preview = dataset.preview_table(path, encoding="gb18030")
    assert [c["name"] for c in preview["columns"]] == ["评论", "类别"] and preview["encoding"] == "gb18030"
    assert preview["rows"][0]["类别"] == "好评"
    result = dataset.import_table(
        path, text_column="评论", label_column="类别", encoding="gb18030", progress=False
    )
    assert result.imported == 24 and sorted(result.labels_created) == ["好评", "差评"]
    assert sorted(label.name for label in dataset.labels()) == ["好评", "差评"]

    more = CHINESE.assign(评论=CHINESE["评论"] + "！")
    again = dataset.import_table(more, text_column="评论", label_column="类别", progress=False)  # a DataFrame
    assert again.imported == 24 and dataset.refresh().sample_count == 48
    from_bytes = dataset.preview_table(("x.csv", more.to_csv(index=False).encode()))
    assert from_bytes["suggested"]["text_column"] == "评论"


def test_upload_routes_a_table_to_the_table_import_and_refuses_it_for_images(sdk, project, tmp_path):
    wine = frame("wine", 60)
    table = sdk.datasets.create("wine", project=project, task_type="tabular_classification")
    path = tmp_path / "wine.csv"
    path.write_text(wine.to_csv(index=False))
    with pytest.raises(
        sampan.BadRequest
    ) as refused:  # no target column on a first import: the server says so
        table.upload(path, progress=False)
    assert refused.value.code != "wrong_import_kind"
    assert table.import_table(path, target_column="target", progress=False).imported == 60
    assert table.upload(wine.assign(alcohol=wine["alcohol"] + 0.001), progress=False).imported == 60
    with pytest.raises(ValueError, match="import_table"):
        table.upload(tmp_path, progress=False)  # a folder of images makes no sense for a table dataset

    images = sdk.datasets.create("pictures", project=project)
    with pytest.raises(ValueError, match="import_table"):
        images.upload(path, progress=False)
    with pytest.raises(sampan.BadRequest) as wrong:
        images.import_table(path, target_column="target", progress=False)
    assert wrong.value.code == "wrong_import_kind"


def test_predict_batch_takes_a_dataframe_with_nan_and_none_and_reports_imputed_columns(sdk, project):
    wine = frame("wine").copy()
    gaps = wine.index % 7 == 3
    wine.loc[gaps, "magnesium"] = np.nan  # the training data has gaps here: the contract allows imputing it
    dataset = sdk.datasets.create("wine with gaps", project=project, task_type="tabular_classification")
    assert dataset.import_table(wine, target_column="target", progress=False).imported == len(wine)
    model = dataset.create_version(seed=4).train("fast").wait(progress=False, timeout=600).model_version()
    deployment = model.deploy("wine-gaps")
    deployment.create_key("rows")

    features = wine.drop(columns="target").head(12).copy()
    features.loc[0, "magnesium"] = np.nan
    features.loc[1, "magnesium"] = np.inf
    answers = deployment.predict_batch(rows=features)  # a DataFrame directly
    assert len(answers) == 12 and all(a.label in {"class_0", "class_1", "class_2"} for a in answers)
    assert answers[0].imputed == ["magnesium"] and answers[1].imputed == ["magnesium"]
    assert answers[4].imputed == [] and answers[2].label == deployment.predict(row=features.iloc[2]).label

    records = features.to_dict("records")
    records[5]["magnesium"] = None
    assert deployment.predict_batch(rows=records)[5].imputed == ["magnesium"]
    records[6]["alcohol"] = float("nan")  # no gaps in training: the contract does not allow imputing it
    with pytest.raises(sampan.BadRequest) as refused:
        deployment.predict_batch(rows=records)
    assert "alcohol" in refused.value.message


def test_delimiter_decimal_and_sheet_reach_the_server(sdk, project, tmp_path):
    wine = frame("wine", 60)
    semicolons = tmp_path / "wine-eu.csv"
    semicolons.write_text(wine.to_csv(index=False, sep=";", decimal=","))
    dataset = sdk.datasets.create("wine eu", project=project, task_type="tabular_classification")
    preview = dataset.preview_table(semicolons, delimiter=";", decimal=",")
    assert (preview["delimiter"], preview["decimal"]) == (";", ",")
    assert {c["name"]: c["type"] for c in preview["columns"]}["alcohol"] == "numeric"
    result = dataset.import_table(
        semicolons, target_column="target", delimiter=";", decimal=",", progress=False
    )
    assert result.imported == 60
    with pytest.raises(sampan.BadRequest) as bad:
        dataset.preview_table(semicolons, decimal=";")
    assert "decimal" in str(bad.value.details)

    workbook = tmp_path / "two-sheets.xlsx"
    with pd.ExcelWriter(workbook, engine="openpyxl") as writer:
        pd.DataFrame({"notes": ["read me first"]}).to_excel(writer, sheet_name="About", index=False)
        wine.to_excel(writer, sheet_name="Data", index=False)
    sheets = sdk.datasets.create("wine xlsx", project=project, task_type="tabular_classification")
    assert sheets.preview_table(workbook, sheet=1)["sheet"] == "Data"
    assert sheets.preview_table(workbook, sheet="Data")["sheets"] == ["About", "Data"]
    assert sheets.import_table(workbook, target_column="target", sheet="Data", progress=False).imported == 60
    with pytest.raises(sampan.BadRequest) as missing:
        sheets.preview_table(workbook, sheet="Nope")
    assert missing.value.code == "no_sheet"


def test_the_cli_imports_a_table_with_reading_options(sdk, project, tmp_path, monkeypatch, capsys):
    import json

    from sampan.cli import main

    monkeypatch.setenv("SAMPAN_URL", sdk.base_url)
    monkeypatch.setenv("SAMPAN_API_KEY", sdk.api_key)
    path = tmp_path / "wine-eu.csv"
    path.write_text(frame("wine", 60).to_csv(index=False, sep=";", decimal=","))
    code = main(
        [
            "import-table",
            str(path),
            "--project",
            str(project.id),
            "--name",
            "cli wine",
            "--target-column",
            "target",
            "--delimiter",
            ";",
            "--decimal",
            ",",
            "--quiet",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["imported"] == 60
    assert main(["preview-table", str(path), "--dataset", str(out["dataset"]), "--delimiter", ";"]) == 0
    assert json.loads(capsys.readouterr().out)["delimiter"] == ";"
    assert (
        main(["import-table", str(path), "--dataset", str(out["dataset"]), "--encoding", "nope", "--quiet"])
        == 1
    )
    assert "bad_encoding" in capsys.readouterr().err
