"""Custom code: what a user's own training code (a script, a module in a zip, a notebook) runs with
and what its run produces. The platform builds a :class:`CustomJobSpec` for the worker; the worker
runs the code in a sandbox (``workers.custom_code``) and returns a :class:`CustomJobResult`; the
code talks to the worker through ``sampan.run`` over the :class:`RunEvent` protocol (one JSON
object per line on an inherited pipe; a :class:`RunReply` comes back for each ``metrics`` event).

A model version made from a run carries :class:`CustomJobLineage`: which code (sha256), which
requirements, which arguments and hyperparameters, which dataset version, which environment.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

CUSTOM_JOB_SPEC_VERSION = 1
CUSTOM_JOB_RESULT_VERSION = 1
RUN_EVENT_VERSION = 1
CUSTOM_JOB_LINEAGE_VERSION = 1
DATA_LAYOUT_VERSION = 1

HyperValue = str | int | float | bool
QueueName = Literal["cpu", "gpu"]
# Why a run stopped before its code returned on its own (None: it exited by itself; see exit_code)
StopReason = Literal["time_limit", "memory_limit", "cancelled", "pruned", "preempted"]
CodeKind = Literal["script", "zip", "notebook"]


class ResourceLimits(TypedDict):
    """What one run may use: wall time (seconds), resident memory of the whole process tree (MiB)
    and CPU threads. The platform's caps (settings ``SAMPAN_CUSTOM_JOB_MAX_*``) bound each."""

    wall_time_s: int
    memory_mb: int
    cpus: int


class CustomJobSpec(TypedDict):
    """Everything the worker needs to run a user's code (platform -> worker).

    - ``entry_point``: a ``.py`` file in the code (``train.py``, ``src/train.py``), a module
      (``trainer.main``, run as ``python -m``) or a notebook (``train.ipynb``, run cell by cell).
    - ``args``: extra command-line arguments, as given; ``hyperparameters`` are passed after them
      as ``--name=value`` and are readable as ``sampan.run.params``.
    - ``requirements``: pip requirement lines installed into a virtual environment on top of the
      worker's base environment, cached by ``requirements_hash`` (sha256 of the normalised lines).
    - ``network``: whether the code may open network connections (off by default; enforced with a
      network namespace where the host allows it).
    - ``objective``: set for an AutoML trial: the metric name ``log_metrics`` reports to the study,
      and its direction; each report may be answered with "prune".
    """

    kind: Literal["custom_job_spec"]
    version: int
    code_sha256: str
    code_kind: CodeKind
    entry_point: str
    args: list[str]
    hyperparameters: dict[str, HyperValue]
    requirements: str
    requirements_hash: str
    limits: ResourceLimits
    network: bool
    queue: QueueName
    objective: NotRequired[dict[str, str]]


class DataLayoutSplit(TypedDict):
    """One split of the materialised dataset version: its samples file and how many samples."""

    samples: int
    # images/texts: ``<split>.jsonl`` (one sample per line: id, file or text, label or annotations);
    # tables: ``<split>.parquet`` (the table's columns, the target column named in ``target``)
    path: str


class DataLayout(TypedDict):
    """``$SAMPAN_DATA_DIR/manifest.json``: the dataset version a run trains on, materialised in a
    documented layout (docs/custom-code.md): files under ``files/``, one samples file per split,
    tables as Parquet."""

    kind: Literal["custom_data_layout"]
    version: int
    dataset_version: int
    data_kind: str  # image | text | tabular | time_series
    task: str  # the dataset's task template, e.g. image_classification
    classes: list[str]
    target: NotRequired[str | None]
    splits: dict[str, DataLayoutSplit]


class RunEvent(TypedDict):
    """One line from ``sampan.run`` to the worker (code -> worker).

    - ``metrics``: ``step`` and ``metrics`` (name -> finite float); the worker answers with a
      :class:`RunReply` line (``prune`` true when an AutoML trial should stop).
    - ``artifact``: ``path`` (inside the run's output directory) and ``name``: kept with the job.
    - ``status``: ``message`` and optional ``fraction`` (0..1), shown as the job's progress.
    """

    kind: Literal["metrics", "artifact", "status"]
    version: int
    step: NotRequired[int]
    metrics: NotRequired[dict[str, float]]
    path: NotRequired[str]
    name: NotRequired[str]
    message: NotRequired[str]
    fraction: NotRequired[float]


class RunReply(TypedDict):
    """The worker's answer to a ``metrics`` event (worker -> code)."""

    kind: Literal["run_reply"]
    version: int
    prune: bool


class RunEnvironment(TypedDict):
    """Where the code ran: Python, the platform's version, and every installed distribution."""

    python: str
    platform: str
    packages: dict[str, str]


class CustomModelOutput(TypedDict):
    """A model the code wrote to ``$SAMPAN_OUTPUT_DIR``: ``model.onnx``, ``labels.json`` and
    ``preprocess.json`` (the same files, and the same checks, as an uploaded model)."""

    onnx: str
    labels: str
    preprocessing: str


class RunArtifact(TypedDict):
    """A file the code kept with ``sampan.run.log_artifact``: ``path`` in its output folder and its
    ``name``; once the platform stored it, its blob ``key``, ``sha256`` and ``size_bytes``
    (``GET /api/v1/jobs/{id}/artifacts/?path=`` downloads it)."""

    path: str
    name: str
    key: NotRequired[str]
    sha256: NotRequired[str]
    size_bytes: NotRequired[int]


class CustomJobResult(TypedDict):
    """What a run produced (worker -> platform). ``exit_code`` is the process's (None when it was
    killed); ``stopped`` says why it was stopped early, ``reason`` says it in words (the limit and
    what was used); ``metrics`` holds each metric's last value; ``history`` every ``metrics``
    event's step and values in order."""

    kind: Literal["custom_job_result"]
    version: int
    exit_code: int | None
    stopped: StopReason | None
    reason: str
    duration_s: float
    peak_memory_mb: float
    metrics: dict[str, float]
    history: list[dict[str, float]]
    artifacts: list[RunArtifact]
    model: CustomModelOutput | None
    environment: RunEnvironment
    requirements_hash: str
    # whether the sandbox could enforce what was asked (a plain non-root host cannot switch users or
    # cut the network): recorded so a run says what it was protected by
    isolation: dict[str, bool]
    # set by the platform once the model it wrote is recorded (the job's result)
    model_version: NotRequired[int | None]
    model_version_name: NotRequired[str | None]


class CustomJobLineage(TypedDict):
    """What made a model version trained by custom code (kept on the model version)."""

    kind: Literal["custom_job_lineage"]
    version: int
    code_archive: int
    code_sha256: str
    code_name: str
    entry_point: str
    args: list[str]
    hyperparameters: dict[str, HyperValue]
    requirements: str
    requirements_hash: str
    dataset_version: int | None
    environment: RunEnvironment
    job: int


class LogLine(TypedDict):
    """One line of a job's output, as stored and served (``GET /api/v1/jobs/{id}/logs/``)."""

    seq: int
    stream: Literal["stdout", "stderr", "system"]
    text: str
    at: str
