"""The notebook server job kind: a JupyterLab server for one user, run on a worker host until it is
stopped or idle (``notebooks.serve``)."""

from __future__ import annotations

from jobs.registry import JobKind, register
from rest_framework import serializers


class NotebookServeParams(serializers.Serializer):
    notebook = serializers.IntegerField(help_text="The notebook this server is.")
    platform_url = serializers.CharField(
        required=False,
        help_text="The platform's address the SDK inside the notebook talks to (SAMPAN_URL): "
        "SAMPAN_NOTEBOOK_PLATFORM_URL, else the address the start request came to.",
    )


NOTEBOOK_SERVE = register(
    JobKind(
        name="notebooks.serve",
        title="Notebook server",
        description="Runs a user's JupyterLab server on a worker host, with the SDK configured for them, "
        "until it is stopped or idle; its files are saved to the platform's storage.",
        task_name="notebooks.serve",
        params_serializer=NotebookServeParams,
        prefers_gpu=False,
        start_endpoint="/api/v1/notebooks/",
    )
)
