"""Team labeling: labeling tasks hand a dataset's samples to annotators (``client.labeling_tasks``),
each annotator works through their own queue (``client.assignments``), and owners or editors review
the answers (accept: the sample is labeled; reject: back to the annotators with a comment).

>>> task = client.labeling_tasks.create(dataset, "Batch 1", annotators=[ann_id, bo_id], overlap=2,
...                                     unlabeled=True, count=100)
>>> for a in annotator_client.assignments.list(task=task):   # as the annotator
...     a.submit(label=labels["cat"])
>>> task.agreement()["fleiss_kappa"]
>>> task.review([item["id"] for item in task.items(submitted=True)], "accept")
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, Literal

from sampan import _schema as schema
from sampan._resource import Resource, id_of

if TYPE_CHECKING:
    from sampan.client import Client
    from sampan.datasets import Dataset


class LabelingTask(Resource[schema.LabelingTask]):
    """A labeling task: ``name``, ``overlap``, ``status`` (open, closed), ``annotators``, ``labels``
    and ``progress`` (``items``, ``submitted``, ``accepted``, ``rejected``, ``per_annotator``)."""

    _path = "labeling-tasks/"

    def items(
        self,
        *,
        review: Literal["pending", "accepted", "rejected"] | None = None,
        submitted: bool | None = None,
    ) -> builtins.list[schema.LabelingItem]:
        """The task's samples with every annotator's answer (owners, editors, viewers); ``submitted=True``:
        only those whose answers are all in. e.g. ``task.items(review="pending", submitted=True)``"""
        query: dict[str, Any] = {"review": review}
        if submitted is not None:
            query["submitted"] = "true" if submitted else "false"
        return list(self._client.http.paginate(f"{self.url()}items/", **query))

    def review(
        self,
        items: builtins.list[int] | builtins.list[schema.LabelingItem],
        verdict: Literal["accept", "reject"],
        *,
        comment: str = "",
        label: int | None = None,
    ) -> schema.ReviewResult:
        """Accept items (the majority's answer, or ``label``, becomes each sample's label and the
        sample is marked accepted) or reject them with a ``comment`` (their annotators label them
        again). Returns ``{"reviewed": n, "skipped": [{id, reason}]}``."""
        body: dict[str, Any] = {
            "items": [id_of(item) for item in items],
            "verdict": verdict,
            "comment": comment,
        }
        if label is not None:
            body["label"] = label
        result: schema.ReviewResult = self._client.http.post(f"{self.url()}review/", body)
        return result

    def agreement(self) -> schema.AgreementReport:
        """How far the annotators agree (percent agreement, Fleiss' kappa, Cohen's kappa per pair,
        per class) and each annotator's throughput and rejection rate."""
        report: schema.AgreementReport = self._client.http.get(f"{self.url()}agreement/")
        return report

    def close(self) -> LabelingTask:
        """Stop taking answers; reviews stay possible."""
        self.data = self._client.http.post(f"{self.url()}close/")
        return self


class LabelingTasks:
    """``client.labeling_tasks``: create, list, get."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def create(
        self,
        dataset: int | Dataset,
        name: str,
        *,
        annotators: builtins.list[int],
        overlap: int = 1,
        instructions: str = "",
        ids: builtins.list[int] | None = None,
        unlabeled: bool | None = None,
        label: int | None = None,
        ranking: bool = False,
        round: int | None = None,
        count: int | None = None,
    ) -> LabelingTask:
        """Hand samples to annotators (user ids of annotators, editors or owners of the workspace),
        each sample to ``overlap`` of them. The samples: ``ids``; or a filter (``unlabeled``,
        ``label``, ``count``); or ``ranking=True``: a smart-labeling round's ranking (the latest, or
        ``round``), its first ``count``.

        e.g. ``client.labeling_tasks.create(dataset, "Batch 1", annotators=[5, 6], overlap=2,
        unlabeled=True, count=200)``"""
        selection: dict[str, Any]
        if ids is not None:
            selection = {"by": "ids", "ids": [int(i) for i in ids]}
        elif ranking or round is not None:
            selection = {"by": "ranking", **({"round": round} if round is not None else {})}
        else:
            selection = {"by": "filter"}
            if unlabeled is not None:
                selection["unlabeled"] = unlabeled
            if label is not None:
                selection["label"] = label
        if count is not None:
            selection["count"] = count
        body = {
            "dataset": id_of(dataset),
            "name": name,
            "instructions": instructions,
            "overlap": overlap,
            "annotators": [int(a) for a in annotators],
            "selection": selection,
        }
        return LabelingTask(self._client, self._client.http.post("labeling-tasks/", body))

    def list(self, dataset: int | Dataset | None = None) -> builtins.list[LabelingTask]:
        """The tasks you see (an annotator: the tasks they are in), newest first."""
        return [
            LabelingTask(self._client, t)
            for t in self._client.http.paginate(
                "labeling-tasks/", dataset=id_of(dataset) if dataset is not None else None
            )
        ]

    def get(self, task_id: int) -> LabelingTask:
        return LabelingTask(self._client, self._client.http.get(f"labeling-tasks/{int(task_id)}/"))


class Assignment(Resource[schema.LabelingAssignment]):
    """One sample of your queue: ``sample``, the dataset's ``labels``, ``status`` (pending,
    submitted, rejected, accepted), your ``answer`` and the reviewer's ``comment``."""

    _path = "labeling-assignments/"

    def submit(
        self,
        *,
        label: int | None = None,
        target: float | None = None,
        boxes: builtins.list[dict[str, Any]] | None = None,
        status: str | None = None,
    ) -> Assignment:
        """Answer: ``label`` (a label id, classification), ``target`` (regression) or ``boxes``
        (detection: ``[{label (name), x, y, width, height}]``; ``status="no_objects"`` with none).
        e.g. ``assignment.submit(label=3)``"""
        body: dict[str, Any] = {}
        if label is not None:
            body["label"] = label
        if target is not None:
            body["target"] = target
        if boxes is not None:
            body["boxes"] = boxes
            body["status"] = status or ("annotated" if boxes else "no_objects")
        elif status is not None:
            body["status"] = status
        self.data = self._client.http.post(f"{self.url()}submit/", body)
        return self

    def image(self) -> bytes:
        """The sample's image (image datasets)."""
        content: bytes = self._client.http.raw("GET", f"{self.url()}image/").content
        return content


class Assignments:
    """``client.assignments``: your own labeling queue (sent back first, then to label, then done)."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self, task: int | LabelingTask | None = None, *, status: str | None = None
    ) -> builtins.list[Assignment]:
        return [
            Assignment(self._client, a)
            for a in self._client.http.paginate(
                "labeling-assignments/", task=id_of(task) if task is not None else None, status=status
            )
        ]

    def get(self, assignment_id: int) -> Assignment:
        """One assignment (the first read marks when you opened it)."""
        return Assignment(self._client, self._client.http.get(f"labeling-assignments/{int(assignment_id)}/"))
