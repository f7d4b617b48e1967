"""Smart labeling: a round trains a quick model on a dataset's labeled samples, suggests a label for
every unlabeled one and ranks them by how much labeling them would help. Suggestions never change a
sample until you accept them. Start one with :meth:`sampan.datasets.Dataset.smart_label`.

>>> smart = dataset.smart_label(batch_size=50)        # a progress bar while the round's job runs
>>> dataset.next_to_label(10)                         # the ranking: label these next
>>> dataset.accept_suggestions(label="5", min_confidence=0.95)
"""

from __future__ import annotations

import builtins
import itertools
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from sampan import _schema as schema
from sampan._resource import Resource
from sampan._resource import id_of as _id
from sampan._transport import wait_with_progress
from sampan.errors import SampanError

if TYPE_CHECKING:
    from typing import Self  # Python 3.11 (annotations are not evaluated on 3.10)

    from sampan.client import Client

STRATEGIES = ("uncertainty_diversity", "uncertainty", "random")
ORDERINGS = ("rank", "-confidence", "confidence", "id")
FINISHED = frozenset({"succeeded", "failed", "cancelled"})


class SmartRoundFailed(SampanError):
    """The round's job failed or was cancelled; ``round`` is the :class:`SmartRound`."""

    def __init__(self, message: str, *, round: SmartRound) -> None:
        super().__init__(message, code="smart_round_failed")
        self.round = round


class SmartRound(Resource[schema.SmartRound]):
    """One smart-labeling round: ``number``, ``status``, its ``job``, ``params`` (batch_size,
    strategy, seed) and once it succeeded ``summary`` (labeled, unlabeled, ranked,
    estimated_accuracy, per_class_suggested, confidence_histogram).

    e.g. ``round = dataset.smart_label(batch_size=20)``; ``round.summary["estimated_accuracy"]``
    """

    def url(self) -> str:
        return f"datasets/{self.data['dataset']}/smart-labeling/{self.id}/"

    @property
    def status(self) -> str:
        return self.data["status"]

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def summary(self) -> schema.SmartLabelingSummary | None:
        """The round at a glance; None until it succeeded."""
        return self.data["summary"]

    def suggestions(self, **filters: Any) -> builtins.list[schema.Suggestion]:
        """This round's suggestions (filters as :meth:`sampan.datasets.Dataset.suggestions`)."""
        return suggestion_list(self._client, self.data["dataset"], round=self.id, **filters)

    def wait(
        self,
        *,
        timeout: float | None = None,
        poll: float = 1.0,
        progress: bool = True,
        raise_on_failure: bool = True,
        max_outage: float = 300.0,
    ) -> Self:
        """Block until the round's job ends, with a progress bar; returns self. Raises
        :class:`SmartRoundFailed` when it failed (unless ``raise_on_failure=False``) and
        :class:`sampan.WaitTimeout` after ``timeout`` seconds (the job goes on)."""
        wait_with_progress(
            self,
            title=f"smart labeling round {self.data['number']}",
            timeout=timeout,
            poll=poll,
            progress=progress,
            max_outage=max_outage,
        )
        if raise_on_failure and self.status != "succeeded":
            reason = self.data["error"] or "see its job"
            raise SmartRoundFailed(f"Smart labeling round {self.id} {self.status}: {reason}", round=self)
        return self

    def __repr__(self) -> str:
        return f"<SmartRound {self.id} #{self.data['number']} {self.status}>"


def smart_round_start(
    client: Client, dataset_id: int, *, batch_size: int, strategy: str, seed: int | None
) -> SmartRound:
    body: dict[str, Any] = {"batch_size": batch_size, "strategy": strategy}
    if seed is not None:
        body["seed"] = seed
    # a retried POST (its answer lost) replays the first answer instead of a 409 round_running
    started: schema.SmartRound = client.http.post(
        f"datasets/{dataset_id}/smart-labeling/", body, idempotent=True
    )
    return SmartRound(client, started)


def smart_rounds(client: Client, dataset_id: int) -> builtins.list[SmartRound]:
    return [SmartRound(client, r) for r in client.http.paginate(f"datasets/{dataset_id}/smart-labeling/")]


def suggestion_list(
    client: Client,
    dataset_id: int,
    *,
    status: str = "pending",
    label: int | None = None,
    min_confidence: float | None = None,
    max_confidence: float | None = None,
    round: int | None = None,
    ordering: str = "rank",
    limit: int | None = None,
    source: str | None = None,
) -> builtins.list[schema.Suggestion]:
    pages = client.http.paginate(
        f"datasets/{dataset_id}/suggestions/",
        status=status,
        label=label,
        min_confidence=min_confidence,
        max_confidence=max_confidence,
        round=round,
        ordering=ordering,
        source=source,
    )
    return list(itertools.islice(pages, limit))


def decision_body(
    ids: Iterable[int | Mapping[str, Any]] | None,
    *,
    label: int | None,
    min_confidence: float | None,
    max_confidence: float | None,
    round: int | SmartRound | None,
    **extra: float | None,
) -> dict[str, Any]:
    """Which suggestions a decision applies to: ``ids`` (ints or suggestion dicts) or a filter."""
    filters = {
        "label": label,
        "min_confidence": min_confidence,
        "max_confidence": max_confidence,
        "round": None if round is None else _id(round),
        **extra,
    }
    body: dict[str, Any] = {k: v for k, v in filters.items() if v is not None}
    if ids is not None:
        body["ids"] = [_id(item) for item in ids]
    return body
