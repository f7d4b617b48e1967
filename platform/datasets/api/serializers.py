from __future__ import annotations

import re
from typing import Literal, NotRequired, TypedDict

from config.contracts import JSONScalarField, contract_field, contract_serializer
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field, extend_schema_serializer
from jobs.api.serializers import NO_PROGRESS_YET, MemberProjectField, ProgressEventSerializer
from labeling.models import SuggestionSource
from labeling.selectors import pending_suggestion_of
from rest_framework import serializers
from workspaces.api.serializers import MemberWorkspaceField

from datasets.models import (
    Dataset,
    DatasetVersion,
    ImportBatch,
    ImportStatus,
    Label,
    ReviewStatus,
    Sample,
    Split,
    TaskType,
)
from datasets.services.annotations import MAX_ANNOTATIONS_PER_SAMPLE, MAX_BULK_ITEMS
from datasets.services.detection_imports import ANNOTATION_FORMAT_CHOICES
from workers.contracts.annotations import (
    ANNOTATION_STATUSES,
    EXPORT_FORMATS,
    AnnotationRecord,
    SampleAnnotations,
)
from workers.contracts.forecasting import (
    FILL_RULES,
    FREQUENCIES,
    SeriesPoints,
    TimeSeriesProfile,
    TimeSeriesSchema,
)
from workers.contracts.manifest import DatasetSchema, TableColumn

HEX_COLOR = r"^#[0-9a-fA-F]{6}$"
MAX_ID = 2**63 - 1
MAX_SAMPLE_IDS = 500
MAX_MAPPED_COLUMNS = 1000
SAMPLE_ID = re.compile(r"[0-9]{1,19}")
# as the contract's Literal makes them, so the schema has one AnnotationStatusEnum
ANNOTATION_STATUS_CHOICES = [(status, status) for status in ANNOTATION_STATUSES]


def _created_by() -> serializers.SlugRelatedField:
    return serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text="The creator's username; null once that user is deleted.",
    )


class DatasetSerializer(serializers.ModelSerializer):
    workspace = MemberWorkspaceField(required=False, help_text="Defaults to the project's workspace.")
    project = MemberProjectField()
    task_type = serializers.ChoiceField(choices=TaskType.choices, default=TaskType.IMAGE_CLASSIFICATION)
    created_by = _created_by()
    sample_count = serializers.IntegerField(read_only=True)
    labeled_count = serializers.IntegerField(read_only=True)
    label_count = serializers.IntegerField(read_only=True)
    schema = contract_field(
        PolymorphicProxySerializer(
            component_name="AnyDatasetSchema",
            serializers=[contract_serializer(DatasetSchema), contract_serializer(TimeSeriesSchema)],
            resource_type_field_name=None,
        ),
        help_text=(
            "Text datasets: {text_column, label_column}; tabular: {columns: [{name, type}], target, "
            "task}; time-series forecasting: a TimeSeriesSchema (kind time_series: timestamp, series and "
            "target columns, covariates, frequency, fill rule). Set by the first import; {} for image "
            "datasets."
        ),
    )
    frequency = serializers.ChoiceField(
        choices=[(f, f) for f in FREQUENCIES],
        write_only=True,
        required=False,
        help_text="Forecasting datasets (PATCH): the frequency in force (schema.frequency); the profile is "
        "recomputed. 400 frequency_mismatch when observations are off its grid.",
    )
    fill_rule = serializers.ChoiceField(
        choices=[(f, f) for f in FILL_RULES],
        write_only=True,
        required=False,
        help_text="Forecasting datasets (PATCH): how gaps are filled (schema.fill_rule); the profile is "
        "recomputed.",
    )

    class Meta:
        model = Dataset
        fields = [
            "id",
            "workspace",
            "project",
            "name",
            "description",
            "task_type",
            "sample_count",
            "labeled_count",
            "label_count",
            "schema",
            "frequency",
            "fill_rule",
            "created_by",
            "created_at",
        ]
        read_only_fields = ["id", "schema", "created_by", "created_at"]
        validators: list = []  # uniqueness is checked by the service, with a message that names the dataset

    def validate_name(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("Name must not be blank.")
        return value

    def validate(self, attrs):
        project, workspace = attrs.get("project"), attrs.get("workspace")
        if self.instance is not None:
            if (project is not None and project.pk != self.instance.project_id) or (
                workspace is not None and workspace.pk != self.instance.workspace_id
            ):
                raise serializers.ValidationError({"project": ["A dataset cannot move to another project."]})
            if "task_type" in attrs and attrs["task_type"] != self.instance.task_type:
                raise serializers.ValidationError({"task_type": ["A dataset's task type cannot change."]})
            return attrs
        if project is not None and workspace is not None and project.workspace_id != workspace.pk:
            raise serializers.ValidationError({"project": ["The project is not in that workspace."]})
        for key in ("frequency", "fill_rule"):
            if key in attrs:
                raise serializers.ValidationError(
                    {key: ["Set with the first import (or PATCH the dataset once it has series)."]}
                )
        return attrs


class LabelSerializer(serializers.ModelSerializer):
    name = serializers.CharField(max_length=100)
    color = serializers.RegexField(
        HEX_COLOR, required=False, allow_blank=True, help_text="#rrggbb; picked if empty."
    )
    sample_count = serializers.IntegerField(
        read_only=True, help_text="Samples with this label: what a rename, merge or delete changes."
    )
    shortcut = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        max_length=8,
        help_text="The key the user chose for this label in the labeling grid: one printable character "
        "(letters are lower-cased), not '/', unique in the dataset. Blank: the default key of its place.",
    )
    key = serializers.SerializerMethodField(
        help_text="The key that labels a sample with this label: its shortcut, else the default of its "
        "place in the order (1-9, 0, then letters not chosen by another label); null past the last key."
    )

    class Meta:
        model = Label
        fields = ["id", "name", "color", "position", "shortcut", "key", "sample_count", "created_at"]
        read_only_fields = ["id", "position", "created_at"]
        extra_kwargs = {
            "position": {
                "help_text": "The label's place in the dataset's order, from 0; change it by reorder."
            }
        }
        validators: list = []

    def get_key(self, label: Label) -> str | None:
        return self.context.get("label_keys", {}).get(label.pk)


class LabelReorderSerializer(serializers.Serializer):
    label_ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        allow_empty=False,
        max_length=10_000,
        help_text="Every label id of the dataset, once each, in the new order.",
    )


class LabelMergeSerializer(serializers.Serializer):
    into = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text="The label that receives this label's samples."
    )
    dry_run = serializers.BooleanField(default=False, help_text="Only say how many samples would change.")


class LabelChangeSerializer(serializers.Serializer):
    label = serializers.IntegerField(  # type: ignore[assignment]  # stub: Field.label
        help_text="The label deleted, or merged away."
    )
    into = serializers.IntegerField(required=False, help_text="For a merge: the label that got the samples.")
    affected_samples = serializers.IntegerField(
        help_text="Samples whose label changes (or would, on a dry run)."
    )
    dry_run = serializers.BooleanField()


class SampleBoxSerializer(serializers.Serializer):
    """A box of a listed sample, for drawing on its thumbnail: the label's id and the box in the
    stored image's pixels."""

    label = serializers.IntegerField(help_text="The label's id.")  # type: ignore[assignment]  # stub: Field.label
    x = serializers.FloatField()
    y = serializers.FloatField()
    width = serializers.FloatField()
    height = serializers.FloatField()


class SampleSuggestionBoxSerializer(serializers.Serializer):
    label = serializers.IntegerField(allow_null=True, help_text="A label id (null: deleted since).")  # type: ignore[assignment]  # stub: Field.label
    x = serializers.FloatField()
    y = serializers.FloatField()
    width = serializers.FloatField()
    height = serializers.FloatField()
    score = serializers.FloatField()


class SampleSuggestionSerializer(serializers.Serializer):
    """A smart-labeling suggestion waiting for a person (labeling.Suggestion), as the sample list shows it."""

    id = serializers.IntegerField()
    round = serializers.IntegerField(
        allow_null=True, help_text="The smart-labeling round that made it; null for one from production."
    )
    source = serializers.ChoiceField(  # type: ignore[assignment]  # stub: Field.source
        choices=SuggestionSource.choices,
        help_text="smart_round, or capture: a deployment's answer to a request sent to the dataset.",
    )
    captured_request = serializers.IntegerField(
        allow_null=True, help_text="From production: the captured request (deploy) it came from."
    )
    deployment = serializers.IntegerField(
        allow_null=True, help_text="From production: the deployment whose answer it is; null for a round's."
    )
    deployment_name = serializers.CharField(allow_null=True)
    label = serializers.IntegerField(allow_null=True)  # type: ignore[assignment]  # stub: Field.label
    label_name = serializers.CharField(allow_null=True)
    confidence = serializers.FloatField()
    boxes = SampleSuggestionBoxSerializer(many=True)
    value = serializers.FloatField(allow_null=True, help_text="Regression: the suggested target (else null).")


class SampleSerializer(serializers.ModelSerializer):
    values = serializers.DictField(
        # workers.contracts.manifest's TabularSample.values: a number, a string, or null (missing)
        child=JSONScalarField(allowed=(float, str), allow_null=True),
        read_only=True,
        allow_null=True,
        help_text="Tabular datasets: the row's feature values by column name, as read (numbers, strings, "
        "null for missing); null for other datasets.",
    )
    label_name = serializers.CharField(source="label.name", read_only=True, allow_null=True, default=None)
    split = serializers.SerializerMethodField(
        help_text="The sample's split in the version filtered by, else null."
    )
    image_url = serializers.SerializerMethodField()
    thumbnail_url = serializers.SerializerMethodField()
    annotation_status = serializers.ChoiceField(
        choices=ANNOTATION_STATUS_CHOICES,
        read_only=True,
        help_text="Object detection: unlabeled (not yet), annotated, or no_objects (reviewed, nothing to "
        "annotate); unlabeled for other datasets.",
    )
    box_count = serializers.SerializerMethodField(
        help_text="Object detection: the sample's boxes; 0 otherwise."
    )
    box_labels = serializers.SerializerMethodField(
        help_text="Object detection: the label ids of the sample's boxes, each once, in label order."
    )
    boxes = serializers.SerializerMethodField(
        help_text="Object detection: the sample's boxes (label id and pixels), for drawing; [] otherwise."
    )
    suggestion = serializers.SerializerMethodField(
        help_text="Smart labeling: the latest suggestion waiting for a person while the sample is "
        "unlabeled; null otherwise."
    )

    class Meta:
        model = Sample
        fields = [
            "id",
            "original_name",
            "label",
            "label_name",
            "label_version",
            "annotation_status",
            "review_status",
            "box_count",
            "box_labels",
            "boxes",
            "suggestion",
            "width",
            "height",
            "format",
            "size_bytes",
            "sha256",
            "split",
            "image_url",
            "thumbnail_url",
            "text",
            "values",
            "target",
            "import_batch",
            "created_at",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.ChoiceField(choices=Split.choices, allow_null=True))
    def get_split(self, sample) -> str | None:
        return getattr(sample, "split", None)

    @extend_schema_field(SampleSuggestionSerializer(allow_null=True))
    def get_suggestion(self, sample) -> dict | None:
        return pending_suggestion_of(sample)

    def get_box_count(self, sample) -> int:
        return len(self.context.get("boxes", {}).get(sample.pk, ()))

    @extend_schema_field(SampleBoxSerializer(many=True))
    def get_boxes(self, sample) -> list[dict]:
        return [
            {k: box[k] for k in ("label", "x", "y", "width", "height")}
            for box in self.context.get("boxes", {}).get(sample.pk, ())
        ]

    def get_box_labels(self, sample) -> list[int]:
        rank = self.context.get("label_rank", {})
        labels = {box["label"] for box in self.context.get("boxes", {}).get(sample.pk, ())}
        return sorted(labels, key=lambda pk: rank.get(pk, len(rank)))

    def get_image_url(self, sample) -> str:
        return f"/api/v1/datasets/{sample.dataset_id}/samples/{sample.pk}/image/"

    def get_thumbnail_url(self, sample) -> str:
        return f"/api/v1/datasets/{sample.dataset_id}/samples/{sample.pk}/thumbnail/"


class SampleLabelWriteSerializer(serializers.Serializer):
    label = serializers.IntegerField(  # type: ignore[assignment]  # stub: Field.label
        allow_null=True,
        min_value=1,
        max_value=MAX_ID,
        help_text="A label id of this dataset, or null to unlabel.",
    )
    label_version = serializers.IntegerField(
        min_value=0,
        max_value=2**31 - 1,
        help_text="The sample's label_version you last saw; a stale one answers 409 with the current value.",
    )


AnnotationRecordSerializer = contract_serializer(AnnotationRecord)
SampleAnnotationsSerializer = contract_serializer(SampleAnnotations)


def _revision() -> serializers.IntegerField:
    return serializers.IntegerField(
        min_value=0,
        max_value=2**31 - 1,
        help_text="The sample's revision you last read; a stale one answers 409 annotation_conflict with "
        "the current state.",
    )


def _annotation_status() -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=ANNOTATION_STATUS_CHOICES,
        required=False,
        help_text="Default: annotated when there are boxes, else unlabeled. no_objects: reviewed, nothing "
        "to annotate (no boxes).",
    )


def _annotation_list() -> serializers.ListSerializer:
    return AnnotationRecordSerializer(  # type: ignore[call-arg,return-value]  # many=True: a ListSerializer
        many=True,
        max_length=MAX_ANNOTATIONS_PER_SAMPLE,
        help_text="Every annotation of the sample (a write replaces them), labels by name; ids are ignored.",
    )


class SampleAnnotationsWriteSerializer(serializers.Serializer):
    revision = _revision()
    status = _annotation_status()
    annotations = _annotation_list()


class BulkAnnotationsItemSerializer(serializers.Serializer):
    sample = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    revision = _revision()
    status = _annotation_status()
    annotations = _annotation_list()


class BulkAnnotationsWriteSerializer(serializers.Serializer):
    items = BulkAnnotationsItemSerializer(  # type: ignore[call-arg]  # many=True takes max_length
        many=True, allow_empty=False, max_length=MAX_BULK_ITEMS
    )


class BulkAnnotationsResultSerializer(serializers.Serializer):
    items = SampleAnnotationsSerializer(many=True)


class BulkLabelItemSerializer(serializers.Serializer):
    id = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    label_version = serializers.IntegerField(min_value=0, max_value=2**31 - 1)


class BulkLabelSerializer(serializers.Serializer):
    label = serializers.IntegerField(  # type: ignore[assignment]  # stub: Field.label
        allow_null=True,
        min_value=1,
        max_value=MAX_ID,
        help_text="A label id of this dataset, or null to unlabel.",
    )
    # many=True hands max_length to the ListSerializer; the stubs' Serializer.__init__ lacks it
    items = BulkLabelItemSerializer(many=True, allow_empty=False, max_length=5000)  # type: ignore[call-arg]


class LabeledSampleSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.IntegerField(allow_null=True)  # type: ignore[assignment]  # stub: Field.label
    label_version = serializers.IntegerField(help_text="The sample's new label_version.")


class BulkLabelResultSerializer(serializers.Serializer):
    updated = serializers.IntegerField()
    samples = LabeledSampleSerializer(many=True)


class CurrentLabelSerializer(serializers.Serializer):
    """A sample's label as the server holds it now (what a 409 reports)."""

    id = serializers.IntegerField()
    label = serializers.IntegerField(allow_null=True)  # type: ignore[assignment]  # stub: Field.label
    label_name = serializers.CharField(allow_null=True)
    label_version = serializers.IntegerField()


class SampleIdsField(serializers.ListField):
    """Sample ids from the query string: ``ids=1,2,3`` (a repeated ``ids=1&ids=2`` works too), each
    value checked here so a 400 names the one that is wrong. The view documents the parameter."""

    def to_internal_value(self, data) -> list[int]:
        values = data if isinstance(data, list) else [data]
        parts = [part.strip() for value in values for part in str(value).split(",")]
        example = "give comma-separated sample ids, e.g. ids=1,2,3"
        if parts == [""]:
            raise serializers.ValidationError(f"No sample ids: {example}.")
        ids: dict[int, None] = {}
        for part in parts:
            if not SAMPLE_ID.fullmatch(part) or not 1 <= int(part) <= MAX_ID:
                raise serializers.ValidationError(f"{part!r} is not a sample id: {example}.")
            ids[int(part)] = None
        if len(ids) > MAX_SAMPLE_IDS:
            raise serializers.ValidationError(f"At most {MAX_SAMPLE_IDS} sample ids at once; got {len(ids)}.")
        return list(ids)


class SampleQuerySerializer(serializers.Serializer):
    label = serializers.IntegerField(  # type: ignore[assignment]  # stub: Field.label
        required=False, min_value=1, max_value=MAX_ID, help_text="Only samples with this label id."
    )
    unlabeled = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="true: only unlabeled samples; false: only labeled ones.",
    )
    version = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_ID, help_text="Only samples in this dataset version (id)."
    )
    split = serializers.ChoiceField(
        choices=Split.choices, required=False, help_text="With version: only this split."
    )
    search = serializers.CharField(
        required=False, max_length=200, help_text="Part of the original file name."
    )
    ids = SampleIdsField(required=False)
    annotation_status = serializers.ChoiceField(
        choices=ANNOTATION_STATUS_CHOICES,
        required=False,
        help_text="Object detection: only samples so marked.",
    )
    box_label = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_ID,
        help_text="Object detection: only images with a box of this label id.",
    )
    review_status = serializers.ChoiceField(
        choices=ReviewStatus.choices,
        required=False,
        help_text="Only samples with this review verdict (team labeling).",
    )


class PerLabelCountSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    color = serializers.CharField()
    count = serializers.IntegerField()


class SampleCountsSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    labeled = serializers.IntegerField(help_text="Object detection: annotated plus no_objects.")
    unlabeled = serializers.IntegerField()
    annotated = serializers.IntegerField(help_text="Object detection: images with boxes; else = labeled.")
    no_objects = serializers.IntegerField(
        help_text="Object detection: reviewed, nothing to annotate; else 0."
    )
    per_label = PerLabelCountSerializer(
        many=True, help_text="Object detection: count is the images having a box of the label."
    )


@extend_schema_serializer(many=False)  # the page itself, which the list answers as one object
class SamplePageSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Samples matching the filters.")
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    counts = SampleCountsSerializer(help_text="The whole dataset's counts (labeling progress).")
    results = SampleSerializer(many=True)


class FormatCountSerializer(serializers.Serializer):
    format = serializers.CharField()
    count = serializers.IntegerField()


class SizeBucketSerializer(serializers.Serializer):
    max_side = serializers.IntegerField(allow_null=True, help_text="Longer side at most this; null: larger.")
    count = serializers.IntegerField()


class SizeCountSerializer(serializers.Serializer):
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    count = serializers.IntegerField()


class RangeSerializer(serializers.Serializer):
    min = serializers.IntegerField(allow_null=True)
    max = serializers.IntegerField(allow_null=True)
    mean = serializers.FloatField(allow_null=True)


class LabelBoxCountSerializer(serializers.Serializer):
    label = serializers.CharField(help_text="The label's name.")  # type: ignore[assignment]  # stub: Field.label
    count = serializers.IntegerField()


class BoxHistogramSerializer(serializers.Serializer):
    bins = serializers.ListField(
        child=serializers.FloatField(),
        help_text="Bin edges: counts[i] is of values in [bins[i], bins[i+1]) (the last bin closed).",
    )
    counts = serializers.ListField(child=serializers.IntegerField())


class DetectionStatisticsSerializer(serializers.Serializer):
    boxes = serializers.IntegerField(help_text="All boxes of the dataset.")
    boxes_per_class = LabelBoxCountSerializer(many=True, help_text="Every label, in label order.")
    boxes_per_image = BoxHistogramSerializer(
        help_text="Annotated images by box count: bins are counts 1, 2, 3, ... (integer edges)."
    )
    relative_area = BoxHistogramSerializer(
        help_text="Boxes by area / image area, 10 log-spaced bins from 1e-4 to 1."
    )
    images_without_boxes = serializers.IntegerField(help_text="Unlabeled plus no_objects images.")
    unlabeled = serializers.IntegerField()
    no_objects = serializers.IntegerField()
    annotated = serializers.IntegerField()


class DatasetStatisticsSerializer(SampleCountsSerializer):
    formats = FormatCountSerializer(many=True)
    size_buckets = SizeBucketSerializer(many=True)
    common_sizes = SizeCountSerializer(many=True, help_text="The 50 most common width x height.")
    width = RangeSerializer()
    height = RangeSerializer()
    detection = DetectionStatisticsSerializer(
        allow_null=True, help_text="Object-detection datasets: boxes and box sizes; null for others."
    )


class ImportProblemSerializer(serializers.Serializer):
    file = serializers.CharField()
    code = serializers.CharField(
        help_text="duplicate, not_an_image, corrupt_image, truncated_image, "
        "too_many_pixels, file_too_large, encrypted, corrupt_entry, bad_label; object-detection archives "
        "also: box_clipped, box_outside_image, box_empty, unknown_category, image_missing, "
        "image_listed_twice, malformed_file, ..."
    )
    message = serializers.CharField()
    line = serializers.IntegerField(
        required=False, help_text="Object-detection archives: the line of the annotation file, where known."
    )
    annotation = JSONScalarField(
        allowed=(int, str),
        required=False,
        help_text="Object-detection archives: the annotation's id or index in its file, where known.",
    )
    action = serializers.ChoiceField(
        choices=[
            ("skipped", "skipped"),
            ("clipped", "clipped"),
            ("refused", "refused"),
            ("warning", "warning"),
        ],
        required=False,
        help_text="Object-detection archives' annotation problems: skipped (left out), clipped (a box cut "
        "to the image) or refused (the whole archive); forecasting imports' warnings (code gap or unsorted, "
        "the rows were imported): warning. Absent for files not imported.",
    )


class ImportMapping(TypedDict):
    """A table import's column mapping and how the file was read (given, or detected once read)."""

    annotation_format: NotRequired[Literal["auto", "coco", "voc", "yolo", "label_studio", "images"]]
    text_column: NotRequired[str]
    label_column: NotRequired[str]
    target_column: NotRequired[str]
    encoding: NotRequired[str]
    format: NotRequired[Literal["csv", "tsv", "jsonl", "xlsx", "parquet"]]
    delimiter: NotRequired[str]
    decimal: NotRequired[Literal[".", ","]]
    sheet: NotRequired[str]
    timestamp_column: NotRequired[str]
    series_column: NotRequired[str]
    target_columns: NotRequired[list[str]]
    known_covariates: NotRequired[list[str]]
    static_covariates: NotRequired[list[str]]
    frequency: NotRequired[str]
    fill_rule: NotRequired[Literal["interpolate", "forward_fill", "zero"]]


class ImportBatchSerializer(serializers.ModelSerializer):
    created_by = _created_by()
    mapping = contract_field(
        contract_serializer(ImportMapping),
        help_text="Table imports: the column mapping ({text_column, label_column} or {target_column}) and "
        "the reading options used; {} for image imports.",
    )
    status = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    problems = ImportProblemSerializer(
        many=True,
        read_only=True,
        help_text=(
            "Each refused or duplicate file (or row), at most the first 1000; problems_total counts them "
            "all. Object-detection archives: then the annotation problems (with line, annotation, action)."
        ),
    )
    problems_total = serializers.SerializerMethodField()
    labels_created = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = ImportBatch
        fields = [
            "id",
            "dataset",
            "source",
            "filename",
            "size_bytes",
            "label_name",
            "mapping",
            "status",
            "job",
            "progress",
            "files",
            "imported",
            "duplicates",
            "failed",
            "ignored",
            "labels_created",
            "problems",
            "problems_total",
            "error_code",
            "error",
            "created_by",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.ChoiceField(choices=ImportStatus.choices))
    def get_status(self, batch) -> str:
        # A job the reaper failed (its worker kept dying) never reached our code: show its end.
        if (
            batch.status in (ImportStatus.QUEUED, ImportStatus.RUNNING)
            and batch.job is not None
            and batch.job.status in ("failed", "cancelled")
        ):
            return ImportStatus.FAILED
        return batch.status

    def get_problems_total(self, batch) -> int:
        """Every problem of the import (failed plus duplicates); ``problems`` lists the first 1000."""
        return batch.failed + batch.duplicates

    @extend_schema_field(ProgressEventSerializer)
    def get_progress(self, batch) -> dict:
        """The background job's latest progress event (fraction, processed, total, ...); the empty
        event (kind and version only) for direct imports and jobs that have not reported yet."""
        return (batch.job.progress if batch.job is not None else None) or dict(NO_PROGRESS_YET)


class ImportBatchSummarySerializer(ImportBatchSerializer):
    """An import in lists: the counts without the per-file problems (see the import's detail)."""

    class Meta(ImportBatchSerializer.Meta):
        fields = [f for f in ImportBatchSerializer.Meta.fields if f != "problems"]
        read_only_fields = fields


ENCODING_HELP = (
    "Text files: the encoding (e.g. gb18030, cp1252, utf-16). Omitted: detected (UTF-8/UTF-16 "
    "by BOM, UTF-8, GB18030 for Chinese, cp1252 for Western text); an uncertain guess is a 400 "
    "bad_encoding whose details.candidates name the encodings to choose from."
)
DELIMITER_HELP = (
    "CSV/TSV: the one-character delimiter (',', ';', '\\t' or 'tab', '|', ...). Omitted: detected "
    "from the first lines. Ignored for other formats."
)
DECIMAL_HELP = (
    "The decimal mark of numbers written as text: '.' or ','. Omitted: detected ('1,5' and '1.234,5' "
    "mean ','). With ',' those cells import as numbers."
)
SHEET_HELP = (
    "XLSX: the sheet's name, or its 0-based index when no sheet has that name. Omitted: the first sheet "
    "with a header row and a data row."
)


class ImportCreateSerializer(serializers.Serializer):
    archive = serializers.FileField(
        required=False,
        allow_empty_file=True,
        help_text="A zip, tar, tar.gz, tar.bz2 or tar.xz: a folder "
        "per class gives labels, files at the root are unlabeled.",
    )
    files = serializers.ListField(
        child=serializers.FileField(allow_empty_file=True),
        required=False,
        help_text="Image files (JPEG, PNG, BMP, WebP, GIF), recognised by content.",
    )
    label = serializers.CharField(  # type: ignore[assignment]  # stub: Field.label
        required=False,
        allow_blank=True,
        max_length=100,
        help_text="Label for every uploaded file, or for an archive's root files.",
    )
    file = serializers.FileField(
        required=False,
        allow_empty_file=True,
        help_text="Text and tabular datasets: a "
        "table file (CSV, TSV, JSONL, XLSX or Parquet) with a header row.",
    )
    text_column = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Text datasets: the column holding the texts (guessed if omitted).",
    )
    label_column = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Text datasets: the column holding labels, if any (guessed).",
    )
    target_column = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Tabular datasets: the column to predict (required at first).",
    )
    timestamp_column = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Forecasting datasets: the column of timestamps (ISO dates/times or 4-digit years; "
        "guessed).",
    )
    series_column = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Forecasting datasets, long tables: the column of series ids; omitted: a wide table.",
    )
    target_columns = serializers.ListField(
        child=serializers.CharField(max_length=200),
        required=False,
        max_length=MAX_MAPPED_COLUMNS,
        help_text="Forecasting datasets: the numeric column(s) to forecast (repeat the form field per "
        "column); guessed when there is one numeric column.",
    )
    known_covariates = serializers.ListField(
        child=serializers.CharField(max_length=200),
        required=False,
        max_length=MAX_MAPPED_COLUMNS,
        help_text="Forecasting datasets: numeric columns known in advance (prices, holidays).",
    )
    static_covariates = serializers.ListField(
        child=serializers.CharField(max_length=200),
        required=False,
        max_length=MAX_MAPPED_COLUMNS,
        help_text="Forecasting datasets, long tables: columns constant per series id (a store's region).",
    )
    frequency = serializers.ChoiceField(
        choices=[(f, f) for f in FREQUENCIES],
        required=False,
        allow_blank=True,
        help_text="Forecasting datasets: the frequency; omitted: inferred from the timestamps.",
    )
    fill_rule = serializers.ChoiceField(
        choices=[(f, f) for f in FILL_RULES],
        required=False,
        allow_blank=True,
        help_text="Forecasting datasets: how gaps are filled (default interpolate).",
    )
    encoding = serializers.CharField(required=False, allow_blank=True, max_length=40, help_text=ENCODING_HELP)
    delimiter = serializers.CharField(
        required=False, allow_blank=True, max_length=3, trim_whitespace=False, help_text=DELIMITER_HELP
    )
    decimal = serializers.ChoiceField(
        choices=[".", ","], required=False, allow_blank=True, help_text=DECIMAL_HELP
    )
    sheet = serializers.CharField(required=False, allow_blank=True, max_length=200, help_text=SHEET_HELP)
    background = serializers.BooleanField(
        default=False,
        help_text="Import an archive in a background job (answers 202; big archives always do).",
    )
    format = serializers.ChoiceField(
        choices=[(f, f) for f in ANNOTATION_FORMAT_CHOICES],
        default="auto",
        help_text="Object-detection archives: the annotation format (coco, voc, yolo, label_studio, or "
        "images for plain unlabeled images); auto detects it and refuses an archive mixing two.",
    )

    def validate(self, attrs):
        given = [name for name in ("archive", "files", "file") if attrs.get(name)]
        if len(given) != 1:
            raise serializers.ValidationError(
                {
                    "archive": [
                        "Upload either one archive or image files (image "
                        "datasets), or one table file as `file` (text and "
                        "tabular datasets)."
                    ]
                }
            )
        if attrs.get("files") and attrs.get("background"):
            raise serializers.ValidationError({"background": ["Background imports take an archive."]})
        return attrs


class TablePreviewRequestSerializer(serializers.Serializer):
    file = serializers.FileField(allow_empty_file=True, help_text="A CSV, TSV, JSONL, XLSX or Parquet file.")
    encoding = serializers.CharField(
        required=False, allow_blank=True, max_length=40, default="", help_text=ENCODING_HELP
    )
    delimiter = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=3,
        default="",
        trim_whitespace=False,
        help_text=DELIMITER_HELP,
    )
    decimal = serializers.ChoiceField(
        choices=[".", ","], required=False, allow_blank=True, default="", help_text=DECIMAL_HELP
    )
    sheet = serializers.CharField(
        required=False, allow_blank=True, max_length=200, default="", help_text=SHEET_HELP
    )


class TableSuggestion(TypedDict):
    """The suggested column mapping: {text_column, label_column} (text datasets), {target_column}
    (tabular ones) or the forecasting mapping with the candidates for each role and the frequency
    inferred from the rows read; null: none found."""

    text_column: NotRequired[str | None]
    label_column: NotRequired[str | None]
    target_column: NotRequired[str | None]
    timestamp_column: NotRequired[str | None]
    series_column: NotRequired[str | None]
    target_columns: NotRequired[list[str]]
    known_covariates: NotRequired[list[str]]
    static_covariates: NotRequired[list[str]]
    frequency_inferred: NotRequired[str | None]
    timestamp_candidates: NotRequired[list[str]]
    series_candidates: NotRequired[list[str]]
    target_candidates: NotRequired[list[str]]


class ProfileHistogram(TypedDict):
    """``counts[i]`` values lie in ``[edges[i], edges[i + 1])`` (the last bin includes its right edge)."""

    edges: list[float]
    counts: list[int]


class ValueCount(TypedDict):
    value: str
    count: int


class ColumnProfile(TypedDict):
    """One column's statistics. numeric: min, max, mean, std, histogram; categorical and datetime:
    top values (datetime also min and max, as text); text: mean_length, max_length."""

    name: str
    type: Literal["numeric", "categorical", "datetime", "text", "empty"]
    count: int
    missing: int
    missing_share: float
    unique: int
    min: NotRequired[float | str]
    max: NotRequired[float | str]
    mean: NotRequired[float]
    std: NotRequired[float]
    histogram: NotRequired[ProfileHistogram]
    top: NotRequired[list[ValueCount]]
    mean_length: NotRequired[float]
    max_length: NotRequired[int]


class TargetProfile(TypedDict):
    """The target's balance: class counts (``classes``), or a numeric target's distribution."""

    name: str | None
    type: Literal["classes", "numeric"]
    count: int
    missing: int
    classes: NotRequired[list[ValueCount]]
    min: NotRequired[float]
    max: NotRequired[float]
    mean: NotRequired[float]
    std: NotRequired[float]
    histogram: NotRequired[ProfileHistogram]


class TablePreviewSerializer(serializers.Serializer):
    filename = serializers.CharField()
    format = serializers.ChoiceField(choices=["csv", "tsv", "jsonl", "xlsx", "parquet"])
    encoding = serializers.CharField(
        help_text="The encoding used (given, or detected: utf-8, utf-16, gb18030, "
        "cp1252, ...), or 'binary' for XLSX/Parquet."
    )
    delimiter = serializers.CharField(
        allow_null=True,
        trim_whitespace=False,
        help_text="CSV/TSV: the delimiter used (given or detected); null otherwise.",
    )
    decimal = serializers.ChoiceField(
        choices=[".", ","],
        help_text="The decimal mark of text cells (given or "
        "detected): with ',' a cell '1.234,5' is the number 1234.5.",
    )
    sheet = serializers.CharField(allow_null=True, help_text="XLSX: the sheet read; null for other formats.")
    sheets = serializers.ListField(
        child=serializers.CharField(),
        help_text="XLSX: every sheet's name in workbook order (pick one as `sheet`); [] for other formats.",
    )
    partial = serializers.BooleanField(  # type: ignore[assignment]  # stub: BaseSerializer.partial
        help_text="Only the first 2 MiB of the file were read."
    )
    rows_read = serializers.IntegerField()
    columns = contract_serializer(TableColumn)(many=True)
    rows = serializers.ListField(
        # cells by the file's column names: a number, a string, a boolean, or null (missing)
        child=serializers.DictField(child=JSONScalarField(allowed=(int, float, str, bool), allow_null=True)),
        help_text="The first rows, cells by column name.",
    )
    suggested = contract_serializer(TableSuggestion)()


class DatasetProfileSerializer(serializers.Serializer):
    rows = serializers.IntegerField(required=False)
    columns = contract_serializer(ColumnProfile)(many=True, required=False)
    target = contract_serializer(TargetProfile)(required=False)


ANY_DATASET_PROFILE = PolymorphicProxySerializer(
    component_name="AnyDatasetProfile",
    serializers=[DatasetProfileSerializer, contract_serializer(TimeSeriesProfile)],
    resource_type_field_name=None,
)
SeriesPointsSerializer = contract_serializer(SeriesPoints)


class TimeSplit(TypedDict):
    """A forecasting version's split by time: per split, the observations (rows) and the series with
    points in it; ``train_only_series`` were too short (under 2 x horizon + 2 steps) for validation
    and test windows."""

    horizon: int
    observations: dict[str, int]
    series: dict[str, int]
    train_only_series: int


class DatasetVersionCreateSerializer(serializers.Serializer):
    train_ratio = serializers.FloatField(default=0.8, min_value=0, max_value=1)
    val_ratio = serializers.FloatField(default=0.1, min_value=0, max_value=1)
    test_ratio = serializers.FloatField(default=0.1, min_value=0, max_value=1)
    seed = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=2**63 - 1,
        help_text="Same samples + same seed = same split. Random if omitted.",
    )
    note = serializers.CharField(required=False, allow_blank=True, max_length=500, default="")
    reviewed_only = serializers.BooleanField(
        default=False,
        help_text="Only the samples a reviewer accepted (review_status accepted); 400 if there are none.",
    )
    horizon = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=1000,
        help_text="Forecasting datasets (required): steps to forecast. Each series' last horizon steps are "
        "its test window, the horizon before its validation window (the ratios are ignored).",
    )

    def validate(self, attrs):
        total = attrs["train_ratio"] + attrs["val_ratio"] + attrs["test_ratio"]
        if abs(total - 1.0) > 1e-6:
            raise serializers.ValidationError(
                {"train_ratio": [f"train_ratio + val_ratio + test_ratio must be 1, not {total:g}."]}
            )
        if attrs["train_ratio"] <= 0:
            raise serializers.ValidationError({"train_ratio": ["The training split needs a ratio above 0."]})
        return attrs


class DatasetExportJobCreateSerializer(serializers.Serializer):
    version = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Export this version (id) instead of the samples.",
    )
    format = serializers.ChoiceField(
        choices=list(EXPORT_FORMATS),
        required=False,
        allow_blank=True,
        default="",
        help_text="Object-detection datasets: coco (default), voc or yolo. Other datasets: leave it out.",
    )


class DatasetVersionSerializer(serializers.ModelSerializer):
    name = serializers.CharField(read_only=True, help_text="V1, V2, ...")
    created_by = _created_by()
    classes = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text="Label names; label index i is classes[i]."
    )
    counts = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()),
        read_only=True,
        help_text='Per split, per class: {"train": {"cat": 40}, "val": {...}, "test": {...}}; object '
        "detection: boxes per class.",
    )
    totals = serializers.SerializerMethodField(
        help_text="Samples (images; forecasting: observations) per split."
    )
    time_split = serializers.SerializerMethodField(
        help_text="Forecasting versions: the split by time (horizon, observations and series per split); "
        "null for others."
    )

    class Meta:
        model = DatasetVersion
        fields = [
            "id",
            "dataset",
            "number",
            "name",
            "note",
            "seed",
            "train_ratio",
            "val_ratio",
            "test_ratio",
            "classes",
            "counts",
            "totals",
            "sample_count",
            "unlabeled_excluded",
            "reviewed_only",
            "horizon",
            "time_split",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields

    @extend_schema_field(contract_serializer(TimeSplit)(allow_null=True))
    def get_time_split(self, version) -> TimeSplit | None:
        if not version.horizon:
            return None
        counts = version.counts or {}
        return {
            "horizon": version.horizon,
            "observations": {s: int(counts.get(s, {}).get("observations", 0)) for s in Split.values},
            "series": {s: int(counts.get(s, {}).get("series", 0)) for s in Split.values},
            "train_only_series": int(counts.get(Split.TRAIN, {}).get("train_only_series", 0)),
        }

    @extend_schema_field(serializers.DictField(child=serializers.IntegerField()))
    def get_totals(self, version) -> dict:
        if version.split_sizes:  # object detection: counts are boxes, an image has several
            return dict(version.split_sizes)
        return {split: sum(per_class.values()) for split, per_class in version.counts.items()}
