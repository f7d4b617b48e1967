from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class TaskType(models.TextChoices):
    IMAGE_CLASSIFICATION = "image_classification", "Image classification"
    TEXT_CLASSIFICATION = "text_classification", "Text classification"
    TABULAR_CLASSIFICATION = "tabular_classification", "Tabular classification"
    TABULAR_REGRESSION = "tabular_regression", "Tabular regression"
    OBJECT_DETECTION = "object_detection", "Object detection"
    TIME_SERIES_FORECASTING = "time_series_forecasting", "Time-series forecasting"


IMAGE_TASKS = frozenset({TaskType.IMAGE_CLASSIFICATION, TaskType.OBJECT_DETECTION})
TABULAR_TASKS = frozenset({TaskType.TABULAR_CLASSIFICATION, TaskType.TABULAR_REGRESSION})
REGRESSION_TASKS = frozenset({TaskType.TABULAR_REGRESSION})
#: Series of observations on a time grid; a sample is one observation (a table row), unlabeled.
FORECASTING_TASKS = frozenset({TaskType.TIME_SERIES_FORECASTING})
#: Localized tasks: a sample holds zero or more annotations (label + geometry), not one label.
ANNOTATION_TASKS = frozenset({TaskType.OBJECT_DETECTION})


class AnnotationStatus(models.TextChoices):
    UNLABELED = "unlabeled", "Not labeled yet"
    ANNOTATED = "annotated", "Annotated"
    NO_OBJECTS = "no_objects", "Reviewed: no objects"


class ReviewStatus(models.TextChoices):
    """A sample's review: versions can be made of accepted samples only."""

    UNREVIEWED = "unreviewed", "Not reviewed"
    ACCEPTED = "accepted", "Accepted by a reviewer"
    REJECTED = "rejected", "Rejected by a reviewer"


class AnnotationKind(models.TextChoices):
    BOX = "box", "Box"


class Dataset(models.Model):
    """Samples of one task type inside a project. ``workspace`` repeats the project's workspace
    (projects never move) so tenancy filters need one join less."""

    workspace = models.ForeignKey("workspaces.Workspace", on_delete=models.CASCADE, related_name="datasets")
    project = models.ForeignKey("workspaces.Project", on_delete=models.CASCADE, related_name="datasets")
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, max_length=2000)
    task_type = models.CharField(
        max_length=32, choices=TaskType.choices, default=TaskType.IMAGE_CLASSIFICATION
    )
    schema = models.JSONField(
        default=dict,
        blank=True,
        help_text=(
            "Tabular and text datasets: {columns: [{name, type}], target | text_column, label_column}, "
            "set by the first import; later imports must have the same columns."
        ),
    )
    profile = models.JSONField(
        default=dict,
        blank=True,
        help_text="Tabular datasets: per-column statistics "
        "(type, missing share, distribution) and the target's balance, as of the last import.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="dataset_name_unique_in_project")
        ]

    def __str__(self) -> str:
        return self.name


class Label(models.Model):
    """A class of a classification dataset; its name is the folder name on import/export. Labels
    are in the user's order (``position``): class indices of versions and reports follow it."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="labels")
    name = models.CharField(max_length=100)
    color = models.CharField(max_length=7, blank=True, help_text="#rrggbb for the labeling UI.")
    position = models.PositiveIntegerField(
        default=0,
        help_text="The label's place in the dataset's order (the user's): class indices, keys, reports.",
    )
    shortcut = models.CharField(
        max_length=1,
        blank=True,
        help_text="The key the user chose for this label in the labeling grid; blank: the default key.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "name"], name="label_name_unique_in_dataset"),
            models.UniqueConstraint(
                fields=["dataset", "shortcut"],
                condition=~models.Q(shortcut=""),
                name="label_shortcut_unique_in_dataset",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class ImportStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class ImportSource(models.TextChoices):
    ARCHIVE = "archive", "Archive (zip or tar)"
    FILES = "files", "Image files"
    TABLE = "table", "Table file (CSV, TSV, JSONL, XLSX, Parquet)"


class ImportBatch(models.Model):
    """One import into a dataset with its per-file outcome. Imported files are the samples that
    point here; ``problems`` lists every file that was not imported and why."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="imports")
    source = models.CharField(max_length=16, choices=ImportSource.choices)
    filename = models.CharField(
        max_length=255, blank=True, help_text="The archive's name, for archive imports."
    )
    upload_key = models.CharField(
        max_length=300,
        blank=True,
        help_text="Where a background import's archive was stored; the file is deleted when the import ends.",
    )
    size_bytes = models.BigIntegerField(default=0)
    label_name = models.CharField(
        max_length=100, blank=True, help_text="Label given to every imported file, if any."
    )
    mapping = models.JSONField(
        default=dict,
        blank=True,
        help_text="Table imports: the column mapping "
        "({text_column, label_column} or {target_column}) and the encoding read.",
    )
    status = models.CharField(max_length=16, choices=ImportStatus.choices, default=ImportStatus.QUEUED)
    job = models.OneToOneField(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="dataset_import"
    )
    files = models.PositiveIntegerField(
        default=0, help_text="Files considered (directories and OS junk excluded)."
    )
    imported = models.PositiveIntegerField(default=0)
    duplicates = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    ignored = models.PositiveIntegerField(
        default=0, help_text="Directories, dot files, __MACOSX, our own manifest.csv."
    )
    labels_created = models.JSONField(default=list, blank=True)
    problems = models.JSONField(
        default=list, blank=True, help_text="[{file, code, message}] for files not imported."
    )
    error_code = models.CharField(max_length=64, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]


class Sample(models.Model):
    """One image, text or table row. An image's blob is content-addressed (sha256 of the stored,
    re-encoded bytes), so the same picture is stored once and a second copy in a dataset is
    reported as a duplicate; a text or row is identified by the sha256 of its content the same way."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="samples", db_index=False)
    label = models.ForeignKey(Label, null=True, blank=True, on_delete=models.SET_NULL, related_name="samples")
    label_version = models.PositiveIntegerField(
        default=0,
        help_text="Bumped on every label or annotation change; writes must send the version they saw "
        "(annotations call it revision).",
    )
    annotation_status = models.CharField(
        max_length=16,
        choices=AnnotationStatus.choices,
        default=AnnotationStatus.UNLABELED,
        help_text="Localized tasks: not labeled yet, annotated, or reviewed with nothing to annotate.",
    )
    review_status = models.CharField(
        max_length=16,
        choices=ReviewStatus.choices,
        default=ReviewStatus.UNREVIEWED,
        help_text="A reviewer's verdict on the sample's label or annotations; any later label change "
        "outside a review makes it unreviewed again.",
    )
    sha256 = models.CharField(max_length=64)
    blob_key = models.CharField(max_length=200, blank=True)
    thumbnail_key = models.CharField(max_length=200, blank=True)
    original_name = models.CharField(max_length=255)
    format = models.CharField(
        max_length=8,
        help_text="Format detected from the content: JPEG, PNG, BMP, WEBP, "
        "GIF; TEXT for a text, ROW for a table row.",
    )
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    size_bytes = models.PositiveIntegerField(
        help_text="Size of the stored (re-encoded) image, or of the text/row."
    )
    text = models.TextField(blank=True, help_text="Text datasets: the sample's text, verbatim.")
    values = models.JSONField(
        null=True,
        blank=True,
        help_text="Tabular datasets: the row's feature values by "
        "column name, as read (numbers, strings, null for missing).",
    )
    target = models.FloatField(null=True, blank=True, help_text="Regression datasets: the numeric target.")
    import_batch = models.ForeignKey(
        ImportBatch, null=True, blank=True, on_delete=models.SET_NULL, related_name="samples"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "sha256"], name="sample_content_unique_in_dataset")
        ]
        indexes = [
            # the list's default order, and every per-dataset lookup
            models.Index(fields=["dataset", "id"], name="sample_dataset_id"),
            # label filters, per-label counts (index-only GROUP BY) and label merge/delete
            models.Index(fields=["dataset", "label", "id"], name="sample_dataset_label_id"),
            # annotation status filters and counts of detection datasets
            models.Index(fields=["dataset", "annotation_status", "id"], name="sample_dataset_annstatus_id"),
            # reviewed-only versions and review filters
            models.Index(fields=["dataset", "review_status", "id"], name="sample_dataset_review_id"),
        ]

    def __str__(self) -> str:
        return self.original_name


class Annotation(models.Model):
    """One annotation of a sample of a localized task: a label plus a geometry whose shape ``kind``
    tells (``box``: ``{x, y, width, height}`` in the stored image's pixels). Polygons, masks, text
    spans are new kinds with their own geometry, so rows never need migrating. Writes go through the
    sample's ``label_version`` (the annotations' revision)."""

    sample = models.ForeignKey(Sample, on_delete=models.CASCADE, related_name="annotations")
    # RESTRICT: a label with boxes is never deleted alone (label services move or delete its boxes
    # first), while deleting its dataset, project or workspace takes both along.
    label = models.ForeignKey(Label, on_delete=models.RESTRICT, related_name="annotations")
    kind = models.CharField(max_length=16, choices=AnnotationKind.choices, default=AnnotationKind.BOX)
    geometry = models.JSONField(help_text="The shape for kind; box: {x, y, width, height} in pixels.")
    attributes = models.JSONField(
        default=dict,
        blank=True,
        help_text="Free key/values kept through import and export (iscrowd, difficult).",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]  # the foreign keys' indexes serve per-sample reads and per-label counts

    def __str__(self) -> str:
        return f"{self.kind} {self.label_id} on {self.sample_id}"


class Split(models.TextChoices):
    TRAIN = "train", "Train"
    VAL = "val", "Validation"
    TEST = "test", "Test"


class ReadyVersions(models.Manager["DatasetVersion"]):
    """Versions a user can see: a version a ``datasets.version`` job is still filling is left out
    until its last batch is in (related lookups, e.g. a VersionSample's version, still find it)."""

    def get_queryset(self) -> models.QuerySet[DatasetVersion]:
        return super().get_queryset().filter(ready=True)


class DatasetVersion(models.Model):
    """An immutable snapshot of a dataset's labeled samples, their labels and a seeded, stratified
    train/val/test split. Later changes to samples or labels never touch it."""

    objects = ReadyVersions()
    all_objects = models.Manager()

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    note = models.CharField(max_length=500, blank=True)
    seed = models.BigIntegerField()
    train_ratio = models.FloatField()
    val_ratio = models.FloatField()
    test_ratio = models.FloatField()
    classes = models.JSONField(default=list, help_text="Label names; a sample's label index points here.")
    schema = models.JSONField(
        default=dict, blank=True, help_text="The dataset's schema when the version was made."
    )
    counts = models.JSONField(
        default=dict, help_text='{"train": {"cat": 40, ...}, "val": {...}, "test": {...}}'
    )
    split_sizes = models.JSONField(
        default=dict,
        blank=True,
        help_text='Object detection: images per split {"train": 70, ...} (its counts are boxes per class).',
    )
    horizon = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Forecasting: steps forecast; each series' last horizon steps are its test window, the "
        "horizon before its validation window.",
    )
    reviewed_only = models.BooleanField(
        default=False, help_text="Made of the samples a reviewer accepted, and no others."
    )
    sample_count = models.PositiveIntegerField(default=0)
    unlabeled_excluded = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    ready = models.BooleanField(
        default=True, help_text="False while a datasets.version job is still adding its samples."
    )
    job = models.ForeignKey(
        "jobs.Job",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The datasets.version job that made it (null: made inside the request).",
    )

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "number"], name="version_number_unique_in_dataset")
        ]

    @property
    def name(self) -> str:
        return f"V{self.number}"

    def __str__(self) -> str:
        return f"{self.dataset_id}:{self.name}"


class VersionSample(models.Model):
    """A sample as it was when the version was made. ``sample`` links to the live sample and
    becomes null if that sample is deleted; everything training needs is copied here."""

    version = models.ForeignKey(
        DatasetVersion, on_delete=models.CASCADE, related_name="entries", db_index=False
    )
    sample = models.ForeignKey(Sample, null=True, on_delete=models.SET_NULL, related_name="version_entries")
    split = models.CharField(max_length=5, choices=Split.choices)
    label_index = models.PositiveIntegerField()
    label_name = models.CharField(max_length=100)
    blob_key = models.CharField(max_length=200)
    sha256 = models.CharField(max_length=64)
    original_name = models.CharField(max_length=255)
    text = models.TextField(blank=True)
    values = models.JSONField(null=True, blank=True)
    target = models.FloatField(null=True, blank=True)
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    annotations = models.JSONField(
        default=list,
        blank=True,
        help_text="Detection versions: [{label (class index), x, y, width, height, attributes}] as made.",
    )

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["version", "split", "sample"], name="versionsample_split")]


class ActivityAction(models.TextChoices):
    LABEL = "label", "Label set or cleared"
    ANNOTATIONS = "annotations", "Annotations replaced"
    REVIEW = "review", "Review verdict"
    TARGET = "target", "Regression target set or cleared"


class ActivitySource(models.TextChoices):
    MANUAL = "manual", "A person, one sample"
    BULK = "bulk", "A person, many samples at once"
    SUGGESTION = "suggestion", "An accepted smart-labeling suggestion"
    TASK = "task", "A labeling task's submission"
    REVIEW = "review", "A reviewer"
    REVERT = "revert", "A revert from the activity log"
    IMPORT = "import", "An import"
    LABEL_CHANGE = "label_change", "A label merged or deleted"


class SampleActivity(models.Model):
    """One change of a sample's label, annotations or review, who made it and from where: the
    sample's activity log. ``before``/``after`` hold the value in the shape of the action
    (label: ``{"label": id|null, "label_name": str|null}``; target: ``{"target": float|null}``;
    annotations: ``{"status", "boxes": [{label, label_name, x, y, width, height}]}``; review:
    ``{"review_status"}``), so a change can be reverted to ``before``."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="+", db_index=False)
    sample = models.ForeignKey(Sample, on_delete=models.CASCADE, related_name="activity", db_index=False)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    action = models.CharField(max_length=16, choices=ActivityAction.choices)
    source = models.CharField(max_length=16, choices=ActivitySource.choices)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    comment = models.CharField(max_length=1000, blank=True)
    reverts = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The change this one reverted.",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["sample", "-id"], name="activity_sample_id"),
            models.Index(fields=["dataset", "-id"], name="activity_dataset_id"),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.sample_id} ({self.source})"


class QualityReport(models.Model):
    """A data quality report of a dataset (``version`` null: the live dataset) or of one version,
    computed by a ``datasets.quality_report`` job; ``report`` is a
    ``workers.contracts.quality.QualityReport``."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="quality_reports")
    version = models.ForeignKey(
        DatasetVersion, null=True, blank=True, on_delete=models.CASCADE, related_name="quality_reports"
    )
    job = models.OneToOneField(
        "jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="quality_report"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    params = models.JSONField(default=dict, blank=True)
    report = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
