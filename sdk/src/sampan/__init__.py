"""Sampan's Python SDK: a typed HTTP client over the platform's REST API.

>>> import sampan
>>> client = sampan.Client("http://127.0.0.1:8000", api_key="spk_...")   # or SAMPAN_URL / SAMPAN_API_KEY
>>> client.me()["username"]
"""

from __future__ import annotations

__version__ = "0.2.0"

from sampan.client import Client  # noqa: E402 - the transport reads __version__
from sampan.datasets import Dataset, DatasetVersion, UploadResult  # noqa: E402
from sampan.deployments import Deployment, Package, Prediction, encode_image  # noqa: E402
from sampan.errors import (  # noqa: E402
    AuthenticationError,
    BadRequest,
    Conflict,
    JobFailed,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    RateLimited,
    SampanError,
    ServerError,
    ServiceUnavailable,
    TransportError,
    UnsupportedMediaType,
    WaitTimeout,
)
from sampan.models import (  # noqa: E402
    Backbone,
    ClassMetrics,
    EvaluationReport,
    ModelVersion,
    RegressionReport,
    plot_confusion_matrix,
)
from sampan.studies import Study  # noqa: E402
from sampan.training import Job  # noqa: E402
from sampan.workspaces import Project, Workspace  # noqa: E402

__all__ = [
    "AuthenticationError",
    "Backbone",
    "BadRequest",
    "ClassMetrics",
    "Client",
    "Conflict",
    "Dataset",
    "DatasetVersion",
    "Deployment",
    "EvaluationReport",
    "Job",
    "JobFailed",
    "ModelVersion",
    "NotFound",
    "Package",
    "PayloadTooLarge",
    "PermissionDenied",
    "Prediction",
    "Project",
    "RateLimited",
    "RegressionReport",
    "SampanError",
    "ServerError",
    "ServiceUnavailable",
    "Study",
    "TransportError",
    "UnsupportedMediaType",
    "UploadResult",
    "WaitTimeout",
    "Workspace",
    "encode_image",
    "plot_confusion_matrix",
]
