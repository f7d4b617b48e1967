"""The deploy job kinds: building an on-prem server package or a device SDK."""

from __future__ import annotations

from jobs.registry import JobKind, register
from rest_framework import serializers


class BuildPackageParams(serializers.Serializer):
    package = serializers.IntegerField(help_text="The package to build.")


BUILD_PACKAGE = register(
    JobKind(
        name="deploy.build_package",
        title="Package build",
        description=(
            "Builds the on-prem server package or the device SDK of a model version and stores the archive."
        ),
        task_name="deploy.build_package",
        params_serializer=BuildPackageParams,
        prefers_gpu=False,
        start_endpoint="/api/v1/packages/",
    )
)
