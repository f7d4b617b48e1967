"""Train a random forest on a tabular dataset version, tree by tree, with live curves.

    sampan custom-job submit examples/custom-code/tabular-forest --entry trainer \
        --dataset-version 14 -p n_estimators=200 -p max_depth=8 --follow

The platform lays the version out under $SAMPAN_DATA_DIR: ``train.parquet``, ``val.parquet`` and
``test.parquet`` (the feature columns, the target column named in manifest.json's ``target``, and
``_id``). Classification reports ``val_accuracy``, regression ``val_rmse``; the feature importances
are kept with the job as an artifact (``importances.json``).
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd
import sampan.run as run
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor


def features(frame: pd.DataFrame, target: str, columns: list[str] | None = None) -> pd.DataFrame:
    """Numbers as they are (missing -> the column's median), other columns one-hot encoded."""
    x = pd.get_dummies(frame.drop(columns=[target, "_id"], errors="ignore"), dummy_na=True, dtype=float)
    x = x.fillna(x.median(numeric_only=True)).fillna(0.0)
    return x if columns is None else x.reindex(columns=columns, fill_value=0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description="random forest, tree by tree")
    parser.add_argument("--n_estimators", type=int, default=100)
    parser.add_argument("--max_depth", type=int, default=0, help="0: unlimited")
    parser.add_argument("--step", type=int, default=10, help="trees added between two reports")
    parser.add_argument("--seed", type=int, default=0)
    args, _unknown = parser.parse_known_args()

    data = run.dataset()
    if data.data_kind != "tabular":
        raise SystemExit(f"this example trains on tables; the dataset is {data.data_kind!r} ({data.task})")
    target = data.target or "target"
    train, val = data.table("train"), data.table("val")
    if len(val) == 0:
        val = train
    regression = "regression" in data.task
    x_train = features(train, target)
    x_val = features(val, target, list(x_train.columns))
    y_train, y_val = train[target], val[target]
    if regression:
        y_train, y_val = y_train.astype(float), y_val.astype(float)
    else:
        y_train, y_val = y_train.astype(str), y_val.astype(str)
    print(f"{len(x_train)} training rows, {len(x_val)} validation rows, {x_train.shape[1]} features")

    forest_class = RandomForestRegressor if regression else RandomForestClassifier
    forest = forest_class(
        n_estimators=0, warm_start=True, max_depth=args.max_depth or None, random_state=args.seed, n_jobs=1
    )
    for trees in range(args.step, args.n_estimators + args.step, args.step):
        forest.set_params(n_estimators=min(trees, args.n_estimators))
        forest.fit(x_train, y_train)
        if regression:
            rmse = float(np.sqrt(np.mean((forest.predict(x_val) - y_val.to_numpy()) ** 2)))
            run.log_metrics(step=forest.n_estimators, val_rmse=rmse)
        else:
            accuracy = float((forest.predict(x_val) == y_val.to_numpy()).mean())
            run.log_metrics(step=forest.n_estimators, val_accuracy=accuracy)
        run.status(f"{forest.n_estimators} trees", fraction=forest.n_estimators / args.n_estimators)
        if forest.n_estimators >= args.n_estimators:
            break

    ranked = sorted(zip(x_train.columns, forest.feature_importances_, strict=True), key=lambda kv: -kv[1])
    path = run.output_dir / "importances.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({name: round(float(value), 6) for name, value in ranked}, indent=2))
    run.log_artifact(path)


if __name__ == "__main__":
    main()
