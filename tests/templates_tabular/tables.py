"""Real tabular data that ships offline with scikit-learn (breast cancer, wine, diabetes) written
as the files users upload: CSV, XLSX and Parquet."""

from __future__ import annotations

import io
from functools import cache


@cache
def frame(name: str, rows: int | None = None):
    """sklearn's ``load_<name>`` as a DataFrame with a ``target`` column (class names for classification)."""
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, f"load_{name}")(as_frame=True)
    data = bunch.frame.copy()
    if hasattr(bunch, "target_names") and name != "diabetes":
        data["target"] = [str(bunch.target_names[i]) for i in bunch.target]
    data.columns = [str(c).replace(" ", "_") for c in data.columns]
    if rows is not None:  # every class kept: take rows spread over the whole file
        data = data.iloc[:: max(1, len(data) // rows)].head(rows)
    return data.reset_index(drop=True)


def csv_bytes(name: str, rows: int | None = None, **kwargs) -> bytes:
    return frame(name, rows).to_csv(index=False, **kwargs).encode()


def xlsx_bytes(name: str, rows: int | None = None) -> bytes:
    out = io.BytesIO()
    frame(name, rows).to_excel(out, index=False, engine="openpyxl")
    return out.getvalue()


def parquet_bytes(name: str, rows: int | None = None) -> bytes:
    out = io.BytesIO()
    frame(name, rows).to_parquet(out, index=False)
    return out.getvalue()
