"""Smart-labeling rounds: start one, run it on a worker, store its suggestions; accept or reject
suggestions (helper h3 builds this module; see /work/notes/API.md)."""

from __future__ import annotations


def smart_round_run(*, round_id: int, job, report) -> dict:
    """The ``labeling.smart_round`` job's body."""
    raise NotImplementedError("smart_round_run is being built (issue 16)")
