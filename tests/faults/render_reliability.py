"""Render the fault table of docs/reliability.md from the fault suite's measurements.

    pytest -m faults tests/faults               # each job fault test writes
                                                # $SAMPAN_TEST_ARTIFACTS/faults/<item>.json
    python tests/faults/render_reliability.py   # rewrites the table between the markers

Rows without a new measurement keep their last rendered text."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "reliability.md"
START, END = "<!-- fault-table:start -->", "<!-- fault-table:end -->"
HEADER = (
    "| # | Fault (injected for real) | What Sampan promises | What the test measured |\n|---|---|---|---|"
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(measurements: Path, doc: Path = DOC) -> str:
    text = doc.read_text()
    before, rest = text.split(START, 1)
    table, after = rest.split(END, 1)
    rows: dict[str, str] = {}
    for line in table.strip().splitlines()[2:]:
        match = re.match(r"^\|\s*([^|]+?)\s*\|", line)
        if match:
            rows[match[1]] = line
    for path in sorted(measurements.glob("*.json")):
        row = json.loads(path.read_text())
        rows[row["item"]] = (
            f"| {row['item']} | {_cell(row['fault'])} | {_cell(row['promise'])} | "
            f"{_cell(row['measured'])} ({row['at'][:10]}) |"
        )
    ordered = sorted(
        rows.items(), key=lambda item: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", item[0])]
    )
    body = "\n".join([HEADER, *(line for _, line in ordered)])
    doc.write_text(f"{before}{START}\n{body}\n{END}{after}")
    return body


if __name__ == "__main__":
    folder = (
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else Path(os.environ.get("SAMPAN_TEST_ARTIFACTS", REPO / "artifacts")) / "faults"
    )
    print(render(folder))
