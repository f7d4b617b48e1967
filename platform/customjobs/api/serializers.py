"""Serializers of the custom code API: code archives (upload and read) and the body that starts a
custom training job (``POST /api/v1/custom-jobs/``)."""

from __future__ import annotations

from accounts.models import User
from config.contracts import JSONScalarField
from datasets.models import DatasetVersion
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from jobs.api.serializers import MemberProjectField
from rest_framework import serializers
from workspaces.selectors import scoped_to_member

from customjobs import selectors
from customjobs.models import CodeArchive


@extend_schema_field(OpenApiTypes.INT)
class MemberCodeArchiveField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return selectors.code_archives_for(user=self.context["request"].user)


@extend_schema_field(OpenApiTypes.INT)
class MemberDatasetVersionField(serializers.PrimaryKeyRelatedField):
    def get_queryset(self):
        return scoped_to_member(
            DatasetVersion.objects.select_related("dataset"),
            user=self.context["request"].user,
            workspace_field="dataset__workspace",
        )


class CodeFileSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="The file's path inside the code (POSIX, relative).")
    size_bytes = serializers.IntegerField()


class CodeArchiveSerializer(serializers.ModelSerializer):
    created_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )
    files = CodeFileSerializer(many=True, read_only=True, help_text="What the code holds.")

    class Meta:
        model = CodeArchive
        fields = [
            "id",
            "workspace",
            "project",
            "name",
            "filename",
            "code_kind",
            "sha256",
            "size_bytes",
            "files",
            "entry_point",
            "requirements",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields


class CodeArchiveTargetSerializer(serializers.Serializer):
    project = MemberProjectField(help_text="The project the code belongs to.")


class CodeArchiveCreateSerializer(CodeArchiveTargetSerializer):
    file = serializers.FileField(
        allow_empty_file=True,
        help_text="A Python script (.py, must compile), a zip of a folder (.zip; its requirements.txt "
        "at the top is read) or a Jupyter notebook (.ipynb, nbformat 4).",
    )
    name = serializers.CharField(
        required=False, allow_blank=True, max_length=200, help_text="Defaults to the file's name."
    )
    entry_point = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=300,
        help_text="The file or module a job runs by default: a .py or .ipynb path in the code or a "
        "module (pkg.train). Defaults to the file itself, or a zip's train.py, main.py, __main__.py "
        "or its only top-level .py.",
    )


class CodeFileTextSerializer(serializers.Serializer):
    path = serializers.CharField()
    text = serializers.CharField(help_text="The file's text (UTF-8, at most 1 MiB).")


class CustomJobLimitsSerializer(serializers.Serializer):
    wall_time_s = serializers.IntegerField(required=False, help_text="Seconds before the run is stopped.")
    memory_mb = serializers.IntegerField(
        required=False, help_text="Resident memory of the run's whole process tree, MiB."
    )
    cpus = serializers.IntegerField(required=False, help_text="CPU cores (and threads) the run may use.")


class CustomJobCreateSerializer(serializers.Serializer):
    project = MemberProjectField(help_text="The project the job belongs to (the code's).")
    code_archive = MemberCodeArchiveField(help_text="The uploaded code to run.")
    entry_point = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=300,
        help_text="A .py or .ipynb path in the code, or a module (pkg.train); defaults to the code's.",
    )
    args = serializers.ListField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=1000),
        required=False,
        default=list,
        max_length=100,
        help_text="Command-line arguments, passed as given before the hyperparameters.",
    )
    hyperparameters = serializers.DictField(
        child=JSONScalarField(allowed=(str, int, float, bool)),
        required=False,
        default=dict,
        help_text="name -> value, passed as --name=value and readable as sampan.run.params.",
    )
    requirements = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        allow_null=True,
        default=None,
        help_text="pip requirement lines; defaults to the code's requirements.txt ('' for none).",
    )
    dataset_version = MemberDatasetVersionField(
        required=False,
        allow_null=True,
        default=None,
        help_text="A dataset version of the project, materialised for the code in $SAMPAN_DATA_DIR.",
    )
    queue = serializers.ChoiceField(choices=["cpu", "gpu"], required=False, default="cpu")
    limits = CustomJobLimitsSerializer(
        required=False, default=dict, help_text="Defaults from the platform's settings, up to its caps."
    )
    network = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="May the code open network connections (default: the platform's setting).",
    )
    name = serializers.CharField(
        required=False, allow_blank=True, max_length=200, help_text="Defaults to the code's name."
    )
