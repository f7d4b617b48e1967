"""The entry point: ``Client`` and its resource namespaces."""

from __future__ import annotations

import os
import warnings
from typing import Any

from sampan import _schema as schema
from sampan._transport import Timeout, Transport
from sampan.batch import BatchPredictions
from sampan.code_archives import CodeArchives
from sampan.compression import Compressions
from sampan.custom_jobs import CustomJobs
from sampan.datasets import Datasets
from sampan.deployments import Deployments, Packages
from sampan.labeling_tasks import Assignments, LabelingTasks
from sampan.models import Backbones, ModelVersions
from sampan.studies import Studies
from sampan.targets import TargetProfiles
from sampan.training import Jobs, Training, TrainingJobs
from sampan.users import Users
from sampan.workspaces import Projects, Workspaces

DEFAULT_URL = "http://127.0.0.1:8000"


class Client:
    """A client of one Sampan platform.

    ``base_url`` and ``api_key`` default to ``SAMPAN_URL`` and ``SAMPAN_API_KEY``, then to what
    ``sampan login`` stored (``~/.config/sampan/config.json``). API keys are personal tokens
    (``spk_...``, created under Account > API tokens or ``POST /api/v1/tokens/``).

    >>> client = Client()                    # SAMPAN_URL / SAMPAN_API_KEY
    >>> project = client.projects.create("Digits")
    >>> dataset = client.datasets.create("digits", project=project)
    >>> dataset.upload("digits/")            # a folder per class
    >>> job = dataset.create_version(seed=7).train("fast")
    >>> model = job.wait().model_version()
    >>> model.evaluation().accuracy          # client.model_versions: evaluation, compare, uploads
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: Timeout = 30.0,
        max_retries: int = 5,
        backoff: float = 0.5,
        max_backoff: float = 60.0,
        retry_timeout: float = 60.0,
    ) -> None:
        stored: dict[str, str] = {}
        if (
            base_url is None
            and api_key is None
            and not (os.environ.get("SAMPAN_URL") and os.environ.get("SAMPAN_API_KEY"))
        ):
            from sampan.config import load_credentials

            stored = load_credentials()
        self.base_url = (base_url or os.environ.get("SAMPAN_URL") or stored.get("url") or DEFAULT_URL).rstrip(
            "/"
        )
        self.api_key = api_key or os.environ.get("SAMPAN_API_KEY") or stored.get("api_key")
        self.http = Transport(
            self.base_url,
            api_key=self.api_key,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_backoff=max_backoff,
            retry_timeout=retry_timeout,
        )
        self.workspaces = Workspaces(self)
        self.projects = Projects(self)
        self.datasets = Datasets(self)
        self.training = Training(self)
        self.jobs = Jobs(self)
        self.training_jobs = TrainingJobs(self)
        self.model_versions = ModelVersions(self)
        self.backbones = Backbones(self)
        self.compressions = Compressions(self)
        self.studies = Studies(self)
        self.target_profiles = TargetProfiles(self)  # where models will run: builtins and your own
        self.deployments = Deployments(self)
        self.packages = Packages(self)
        self.batch_predictions = BatchPredictions(self)
        self.users = Users(self)  # administrators only
        self.labeling_tasks = LabelingTasks(self)
        self.assignments = Assignments(self)  # your own labeling queue
        self.code_archives = CodeArchives(self)  # your own training code
        self.custom_jobs = CustomJobs(self)

    def __repr__(self) -> str:
        return f"<sampan.Client {self.base_url}>"

    @property
    def models(self) -> ModelVersions:
        """Deprecated since 0.3 (removed in 0.4): the old name of :attr:`model_versions`."""
        warnings.warn(
            "client.models is deprecated and goes in sampan 0.4: use client.model_versions",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.model_versions

    def me(self) -> schema.User:
        """The user behind the API key."""
        user: schema.User = self.http.get("auth/me/")
        return user

    def health(self) -> dict[str, Any]:
        health: dict[str, Any] = self.http.get("/healthz")
        return health

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Any API call: ``client.request("GET", "workers/")`` (path under /api/v1/)."""
        return self.http.request(method, path, **kwargs)
