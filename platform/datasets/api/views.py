from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from config.pagination import PageNumberPagination
from config.parsers import JSONParser
from django.core.files.storage import default_storage
from django.http import FileResponse, HttpResponseNotModified
from django.utils.functional import cached_property
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from jobs.api.serializers import JobSerializer
from jobs.models import Job
from labeling.selectors import with_pending_suggestion
from rest_framework import generics, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from workspaces.permissions import WorkspaceRolePermission, require_role

from datasets import selectors
from datasets.api.schema import (
    ANNOTATION_WRITE_400,
    ANNOTATIONS_WRITE_409,
    BULK_ANNOTATIONS_409,
    BULK_LABEL_409,
    MERGE_409,
    SAMPLE_LABEL_WRITE_409,
)
from datasets.api.serializers import (
    ANY_DATASET_PROFILE,
    MAX_ID,
    MAX_SAMPLE_IDS,
    BulkAnnotationsResultSerializer,
    BulkAnnotationsWriteSerializer,
    BulkLabelResultSerializer,
    BulkLabelSerializer,
    DatasetExportJobCreateSerializer,
    DatasetSerializer,
    DatasetStatisticsSerializer,
    DatasetVersionCreateSerializer,
    DatasetVersionSerializer,
    ImportBatchSerializer,
    ImportBatchSummarySerializer,
    ImportCreateSerializer,
    LabelChangeSerializer,
    LabelMergeSerializer,
    LabelReorderSerializer,
    LabelSerializer,
    SampleAnnotationsSerializer,
    SampleAnnotationsWriteSerializer,
    SampleLabelWriteSerializer,
    SamplePageSerializer,
    SampleQuerySerializer,
    SampleSerializer,
    SeriesPointsSerializer,
    TablePreviewRequestSerializer,
    TablePreviewSerializer,
)
from datasets.images import content_type_of
from datasets.models import Dataset, DatasetVersion, ImportBatch, ImportStatus, Label, Sample
from datasets.services.annotations import (
    annotations_bulk_write,
    annotations_write,
    require_annotation_task,
    sample_annotations,
)
from datasets.services.dataset_jobs import (
    dataset_export_download,
    dataset_export_job_create,
    dataset_export_request,
    dataset_version_request,
)
from datasets.services.datasets import dataset_create, dataset_delete, dataset_update
from datasets.services.image_imports import import_archive, import_files
from datasets.services.labels import (
    label_create,
    label_delete,
    label_merge,
    label_update,
    labels_reorder,
    sample_delete,
    sample_set_label,
    samples_bulk_set_label,
)
from datasets.services.table_imports import import_table, table_preview
from datasets.services.time_series import (
    DEFAULT_MAX_POINTS,
    MAX_POINTS,
    MAX_SERIES_IDS,
    series_points,
    time_series_settings_update,
)
from workers.contracts.annotations import EXPORT_FORMATS

DATASET_ID = OpenApiParameter("dataset_id", int, OpenApiParameter.PATH)
DRY_RUN = OpenApiParameter(
    "dry_run",
    OpenApiTypes.BOOL,
    required=False,
    description="Only say how many samples would change; change nothing.",
)
SAMPLE_IDS = OpenApiParameter(
    "ids",
    {
        "type": "array",
        "items": {"type": "integer", "format": "int64", "minimum": 1, "maximum": MAX_ID},
        "maxItems": MAX_SAMPLE_IDS,
    },
    style="form",
    explode=False,
    description=f"Only these samples, comma-separated: ids=1,2,3 (at most {MAX_SAMPLE_IDS}). Ids not in the "
    "dataset are left out, so count says how many of them exist.",
)
IMMUTABLE = "private, max-age=31536000, immutable"


def _blob_response(request, *, key: str, etag: str, filename: str) -> FileResponse | HttpResponseNotModified:
    """An image blob with caching headers: a sample's content never changes under its URL."""
    quoted = f'"{etag}"'
    response: FileResponse | HttpResponseNotModified
    if quoted in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    else:
        try:
            blob = default_storage.open(key, "rb")
        except FileNotFoundError:
            raise NotFound("The image file is missing from storage.") from None
        response = FileResponse(blob, content_type=content_type_of(key), filename=filename)
    response["ETag"] = quoted
    response["Cache-Control"] = IMMUTABLE
    return response


def sample_image_response(request, sample: Sample) -> FileResponse | HttpResponseNotModified:
    """A sample's stored image (the dataset's sample route and an annotator's assignment serve it)."""
    return _blob_response(
        request,
        key=sample.blob_key,
        etag=sample.sha256,
        filename=f"{sample.pk}.{sample.blob_key.rsplit('.', 1)[-1]}",
    )


def sample_thumbnail_response(request, sample: Sample) -> FileResponse | HttpResponseNotModified:
    if not sample.thumbnail_key:
        raise NotFound("This sample has no thumbnail.")
    return _blob_response(
        request,
        key=sample.thumbnail_key,
        etag=f"{sample.sha256}-thumb",
        filename=f"{sample.pk}-thumbnail.{sample.thumbnail_key.rsplit('.', 1)[-1]}",
    )


def _dry_run(request) -> bool:
    return request.query_params.get("dry_run", "").lower() in {"1", "true", "yes", "on"}


class DatasetFilter(filters.FilterSet):
    class Meta:
        model = Dataset
        fields = ["workspace", "project", "task_type"]


class DatasetViewSet(viewsets.ModelViewSet):
    """Datasets in the caller's workspaces, with sample and label counts."""

    serializer_class = DatasetSerializer
    queryset = Dataset.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = DatasetFilter

    def get_queryset(self):
        return selectors.datasets_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    def perform_content_negotiation(self, request, force=False):
        return super().perform_content_negotiation(request, force=True)  # the export is a zip, errors JSON

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        data.pop("workspace", None)
        require_role(
            user=self.request.user, workspace_id=data["project"].workspace_id, action="create datasets"
        )
        dataset = dataset_create(user=self.request.user, **data)
        serializer.instance = self.get_queryset().get(pk=dataset.pk)

    def perform_update(self, serializer):
        data = {k: v for k, v in serializer.validated_data.items() if k in {"name", "description"}}
        settings = {k: v for k, v in serializer.validated_data.items() if k in {"frequency", "fill_rule"}}
        if settings:
            time_series_settings_update(dataset=serializer.instance, **settings)
        dataset_update(dataset=serializer.instance, **data)
        serializer.instance = self.get_queryset().get(pk=serializer.instance.pk)

    def perform_destroy(self, instance):
        dataset_delete(dataset=instance)

    @extend_schema(
        responses=DatasetStatisticsSerializer, summary="Per-class counts and image size distribution"
    )
    @action(detail=True, methods=["get"])
    def statistics(self, request, *args, **kwargs):
        return Response(selectors.dataset_statistics(dataset=self.get_object()))

    @extend_schema(
        request=BulkAnnotationsWriteSerializer,
        responses={
            200: BulkAnnotationsResultSerializer,
            400: ANNOTATION_WRITE_400,
            409: BULK_ANNOTATIONS_409,
        },
        summary="Object detection: replace the annotations of many samples at once, all or nothing "
        "(409 listing the samples changed meanwhile)",
    )
    @action(detail=True, methods=["post"], url_path="annotations/bulk")
    def annotations_bulk(self, request, *args, **kwargs):
        dataset = self.get_object()
        require_role(user=request.user, workspace_id=dataset.workspace_id, action="annotate samples")
        body = BulkAnnotationsWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        items = annotations_bulk_write(
            dataset=dataset, items=body.validated_data["items"], actor=request.user
        )
        return Response({"items": items})

    @extend_schema(
        responses=ANY_DATASET_PROFILE,
        summary="Tabular datasets: per-column statistics and the target's balance; forecasting datasets: "
        "a TimeSeriesProfile ({} for others)",
    )
    @action(detail=True, methods=["get"])
    def profile(self, request, *args, **kwargs):
        return Response(self.get_object().profile or {})

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "id",
                {"type": "array", "items": {"type": "string", "maxLength": 500}, "maxItems": MAX_SERIES_IDS},
                style="form",
                explode=True,
                required=False,
                description="A series id (repeat for several: id=a&id=b; at most "
                f"{MAX_SERIES_IDS}). Omitted: the profile's longest series.",
            ),
            OpenApiParameter("start", str, required=False, description="Only points at or after (ISO 8601)."),
            OpenApiParameter("end", str, required=False, description="Only points at or before (ISO 8601)."),
            OpenApiParameter(
                "max_points",
                {"type": "integer", "minimum": 2, "maximum": MAX_POINTS},
                required=False,
                description=f"Downsample to at most this many points per series (every n-th; default "
                f"{DEFAULT_MAX_POINTS}).",
            ),
        ],
        responses={200: SeriesPointsSerializer(many=True)},
        summary="Forecasting datasets: series' points on their grid for charts (None where missing)",
    )
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def series(self, request, *args, **kwargs):
        dataset = self.get_object()
        raw = request.query_params.get("max_points") or str(DEFAULT_MAX_POINTS)
        try:
            max_points = int(raw)
        except ValueError:
            max_points = 0
        if not 2 <= max_points <= MAX_POINTS:
            raise ValidationError({"max_points": [f"A whole number from 2 to {MAX_POINTS}."]})
        ids = [i for i in request.query_params.getlist("id") if i]
        if any(len(i) > 500 for i in ids):
            raise ValidationError({"id": ["A series id is at most 500 characters."]})
        return Response(
            series_points(
                dataset=dataset,
                ids=ids,
                start=request.query_params.get("start") or None,
                end=request.query_params.get("end") or None,
                max_points=max_points,
            )
        )

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "version",
                int,
                required=False,
                description="Export this dataset version (id) instead of the current samples.",
            ),
            OpenApiParameter(
                "format",
                str,
                required=False,
                enum=list(EXPORT_FORMATS),
                description="Object-detection datasets: the layout, COCO (default), Pascal VOC or YOLO, with "
                "the images; the current export leaves unlabeled images out. Other datasets: leave it out.",
            ),
        ],
        responses={
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="folder per class + manifest.csv; object detection: a COCO, VOC or YOLO layout",
            ),
            409: OpenApiResponse(
                description="export_needs_job: too many samples for an export inside a request; POST exports/"
            ),
        },
        summary="Download as a zip: a folder per class plus manifest.csv (object detection: COCO, VOC, "
        "YOLO); 409 export_needs_job above SAMPAN_DATASET_SYNC_EXPORT_MAX_SAMPLES samples",
    )
    @action(detail=True, methods=["get"])
    def export(self, request, *args, **kwargs):
        dataset = self.get_object()
        archive, filename = dataset_export_request(
            dataset=dataset,
            version=_export_version(dataset, request.query_params.get("version")),
            format=request.query_params.get("format") or None,
        )
        return FileResponse(archive, as_attachment=True, filename=filename, content_type="application/zip")

    @extend_schema(
        request=DatasetExportJobCreateSerializer,
        responses={202: JobSerializer},
        summary="Export as a job (any size): the zip is stored, then downloaded from exports/{job_id}/",
    )
    @action(detail=True, methods=["post"], url_path="exports", permission_classes=[IsAuthenticated])
    def exports(self, request, *args, **kwargs):
        dataset = self.get_object()  # any member may export, as with GET export/
        body = DatasetExportJobCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        job = dataset_export_job_create(
            dataset=dataset,
            version=_export_version(dataset, body.validated_data.get("version")),
            format=body.validated_data.get("format") or None,
            user=request.user,
        )
        return Response(
            JobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED
        )

    @extend_schema(
        parameters=[OpenApiParameter("job_id", int, OpenApiParameter.PATH)],
        responses={
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY, description="the export job's zip"
            ),
            404: OpenApiResponse(
                description="export_expired: the zip was deleted SAMPAN_DATASET_EXPORT_RETENTION_HOURS after "
                "the export (export again); export_gone: it is no longer stored"
            ),
            409: OpenApiResponse(description="export_not_ready: the job has not succeeded (yet)"),
        },
        summary="Download the zip a datasets.export job stored (409 export_not_ready until it succeeded, "
        "404 export_expired after SAMPAN_DATASET_EXPORT_RETENTION_HOURS)",
    )
    @action(detail=True, methods=["get"], url_path="exports/<id:job_id>")
    def export_download(self, request, *args, **kwargs):
        dataset = self.get_object()
        job = Job.objects.filter(
            pk=int(kwargs["job_id"]), kind="datasets.export", workspace_id=dataset.workspace_id
        ).first()
        if job is None or job.params.get("dataset") != dataset.pk:
            raise NotFound("No such export of this dataset.")
        archive, filename = dataset_export_download(dataset=dataset, job=job)
        return FileResponse(archive, as_attachment=True, filename=filename, content_type="application/zip")


def _export_version(dataset: Dataset, version: object) -> DatasetVersion | None:
    if version in (None, ""):
        return None
    try:
        return DatasetVersion.objects.get(dataset=dataset, pk=int(str(version)))
    except (ValueError, DatasetVersion.DoesNotExist):
        raise ValidationError({"version": ["No such version in this dataset."]}) from None


class DatasetChildMixin(generics.GenericAPIView[Any]):
    """Nested under /datasets/{dataset_id}/: another tenant's dataset is a 404 for every method."""

    @cached_property
    def dataset(self) -> Dataset:
        found = selectors.dataset_for(user=self.request.user, dataset_id=self.kwargs["dataset_id"])
        if found is None:
            raise NotFound("No such dataset.")
        return found

    def workspace_id_of(self, obj) -> int:
        return self.dataset.workspace_id

    def require_writer(self, action: str) -> None:
        require_role(user=self.request.user, workspace_id=self.dataset.workspace_id, action=action)


def _nested(*names: str):
    """Document the dataset_id path parameter on a nested viewset's actions."""
    return extend_schema_view(**{name: extend_schema(parameters=[DATASET_ID]) for name in names})


@_nested("list", "create", "retrieve", "update", "partial_update", "destroy", "merge", "reorder")
class LabelViewSet(DatasetChildMixin, viewsets.ModelViewSet):
    """Labels of a dataset. Every change says how many samples it touches (``dry_run`` to ask first)."""

    serializer_class = LabelSerializer
    queryset = Label.objects.none()
    permission_classes = [WorkspaceRolePermission]

    def get_queryset(self):
        return selectors.labels_of(dataset=self.dataset)

    def get_serializer_context(self):
        context = super().get_serializer_context()
        if "dataset_id" in self.kwargs and self.request is not None:  # not while the schema is made
            context["label_keys"] = selectors.label_keys_of(dataset=self.dataset)
        return context

    def create(self, request, *args, **kwargs):
        self.require_writer("create labels")
        return super().create(request, *args, **kwargs)

    @extend_schema(
        request=LabelReorderSerializer,
        responses={200: LabelSerializer(many=True)},
        summary="Put the labels in a new order (every label id once); class order of new versions",
    )
    @action(detail=False, methods=["post"], pagination_class=None)
    def reorder(self, request, *args, **kwargs):
        self.require_writer("reorder labels")
        body = LabelReorderSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        labels_reorder(dataset=self.dataset, label_ids=body.validated_data["label_ids"])
        return Response(
            LabelSerializer(self.get_queryset(), many=True, context=self.get_serializer_context()).data
        )

    def perform_create(self, serializer):
        label = label_create(dataset=self.dataset, **serializer.validated_data)
        serializer.instance = self.get_queryset().get(pk=label.pk)
        serializer.context["label_keys"] = selectors.label_keys_of(dataset=self.dataset)

    def perform_update(self, serializer):
        label_update(label=serializer.instance, **serializer.validated_data)
        serializer.instance = self.get_queryset().get(pk=serializer.instance.pk)
        serializer.context["label_keys"] = selectors.label_keys_of(dataset=self.dataset)

    @extend_schema(
        parameters=[DATASET_ID, DRY_RUN],
        responses={200: LabelChangeSerializer},
        summary="Delete a label; its samples become unlabeled (dry_run: only count them)",
    )
    def destroy(self, request, *args, **kwargs):
        label = self.get_object()
        dry_run = _dry_run(request)
        affected = label_delete(label=label, dry_run=dry_run, actor=request.user)
        return Response({"label": label.pk, "affected_samples": affected, "dry_run": dry_run})

    @extend_schema(
        request=LabelMergeSerializer,
        responses={200: LabelChangeSerializer, 409: MERGE_409},
        summary="Merge this label into another: its samples move there, it is deleted",
    )
    @action(detail=True, methods=["post"])
    def merge(self, request, *args, **kwargs):
        label = self.get_object()
        body = LabelMergeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        into = Label.objects.filter(dataset=self.dataset, pk=body.validated_data["into"]).first()
        if into is None:
            raise ValidationError({"into": [f"No label {body.validated_data['into']} in this dataset."]})
        affected = label_merge(
            label=label, into=into, dry_run=body.validated_data["dry_run"], actor=request.user
        )
        return Response(
            {
                "label": label.pk,
                "into": into.pk,
                "affected_samples": affected,
                "dry_run": body.validated_data["dry_run"],
            }
        )


class SamplePagination(PageNumberPagination):
    page_size = 100

    def paginate_sample_list(self, found: selectors.SampleList, request, view) -> list:
        known = found.count

        class KnownCountPaginator(self.django_paginator_class):  # type: ignore[name-defined]
            @cached_property
            def count(self):
                return known if known is not None else super().count

        self.django_paginator_class = KnownCountPaginator
        self.counts = found.counts
        return self.paginate_queryset(found.queryset, request, view=view) or []

    def get_paginated_response(self, data):
        response = super().get_paginated_response(data)
        response.data["counts"] = self.counts.as_dict()
        return response


@_nested("list", "retrieve", "partial_update", "destroy", "bulk_label", "image", "thumbnail", "annotations")
class SampleViewSet(
    DatasetChildMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet
):
    """Samples of a dataset: filtered pages with counts, label writes with optimistic concurrency,
    the image and its thumbnail."""

    serializer_class = SampleSerializer
    queryset = Sample.objects.none()
    permission_classes = [WorkspaceRolePermission]
    pagination_class = SamplePagination
    filter_backends: list = []

    def get_queryset(self):
        samples = Sample.objects.filter(dataset=self.dataset).select_related("label")
        if self.action == "retrieve":  # the detail shows the sample's pending suggestion
            return with_pending_suggestion(samples, dataset=self.dataset)
        return samples

    def perform_content_negotiation(self, request, force=False):
        return super().perform_content_negotiation(request, force=True)  # images for <img>, errors JSON

    @extend_schema(
        parameters=[DATASET_ID, SampleQuerySerializer, SAMPLE_IDS],
        responses={200: SamplePageSerializer},
        summary="A page of samples with the dataset's counts",
    )
    def list(self, request, *args, **kwargs):
        query = SampleQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        found = selectors.sample_list(dataset=self.dataset, **query.validated_data)
        found = replace(found, queryset=with_pending_suggestion(found.queryset, dataset=self.dataset))
        paginator = cast(SamplePagination, self.paginator)
        page = paginator.paginate_sample_list(found, request, self)
        context = selectors.box_context(dataset=self.dataset, samples=page, counts=found.counts)
        return paginator.get_paginated_response(SampleSerializer(page, many=True, context=context).data)

    @extend_schema(
        methods=["GET"],
        responses={
            200: SampleAnnotationsSerializer,
            400: OpenApiResponse(description="annotations_unsupported: not an object-detection dataset."),
        },
        summary="Object detection: a sample's annotations, status and revision",
    )
    @extend_schema(
        methods=["PUT"],
        request=SampleAnnotationsWriteSerializer,
        responses={200: SampleAnnotationsSerializer, 400: ANNOTATION_WRITE_400, 409: ANNOTATIONS_WRITE_409},
        summary="Object detection: replace a sample's annotations (409 with the current state if they "
        "changed since revision)",
    )
    @action(detail=True, methods=["get", "put"])
    def annotations(self, request, *args, **kwargs):
        sample = self.get_object()
        require_annotation_task(self.dataset)
        if request.method == "GET":
            return Response(sample_annotations(sample=sample))
        body = SampleAnnotationsWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        written = annotations_write(
            dataset=self.dataset,
            sample_id=sample.pk,
            revision=data["revision"],
            status=data.get("status"),
            annotations=data["annotations"],
            actor=request.user,
        )
        return Response(written)

    def retrieve(self, request, *args, **kwargs):
        sample = self.get_object()
        context = selectors.box_context(dataset=self.dataset, samples=[sample])
        return Response(SampleSerializer(sample, context=context).data)

    @extend_schema(
        request=SampleLabelWriteSerializer,
        responses={200: SampleSerializer, 409: SAMPLE_LABEL_WRITE_409},
        summary="Set a sample's label (409 if it changed since label_version)",
    )
    def partial_update(self, request, *args, **kwargs):
        sample = self.get_object()
        body = SampleLabelWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        sample = sample_set_label(
            dataset=self.dataset,
            sample_id=sample.pk,
            label_id=body.validated_data["label"],
            label_version=body.validated_data["label_version"],
            actor=request.user,
        )
        return Response(SampleSerializer(sample).data)

    def perform_destroy(self, instance):
        sample_delete(sample=instance)

    @extend_schema(
        request=BulkLabelSerializer,
        responses={200: BulkLabelResultSerializer, 409: BULK_LABEL_409},
        summary="Label many samples at once: all or nothing, 409 listing the ones changed meanwhile",
    )
    @action(detail=False, methods=["post"], url_path="bulk-label")
    def bulk_label(self, request, *args, **kwargs):
        self.require_writer("label samples")
        body = BulkLabelSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        samples = samples_bulk_set_label(
            dataset=self.dataset,
            label_id=body.validated_data["label"],
            items=body.validated_data["items"],
            actor=request.user,
        )
        return Response({"updated": len(samples), "samples": samples})

    @extend_schema(
        responses={(200, "image/*"): OpenApiResponse(OpenApiTypes.BINARY), 304: None},
        summary="The stored image (re-encoded JPEG or PNG)",
    )
    @action(detail=True, methods=["get"])
    def image(self, request, *args, **kwargs):
        return sample_image_response(request, self.get_object())

    @extend_schema(
        responses={(200, "image/*"): OpenApiResponse(OpenApiTypes.BINARY), 304: None},
        summary="A thumbnail at most 128 px on its longer side (JPEG; a smaller image is its own)",
    )
    @action(detail=True, methods=["get"])
    def thumbnail(self, request, *args, **kwargs):
        return sample_thumbnail_response(request, self.get_object())


@_nested("list", "create", "retrieve", "preview")
class ImportBatchViewSet(
    DatasetChildMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Imports into a dataset: upload an archive or image files; each import records per-file outcomes."""

    serializer_class = ImportBatchSerializer
    queryset = ImportBatch.objects.none()
    permission_classes = [WorkspaceRolePermission]
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    def get_queryset(self):
        imports = selectors.imports_of(dataset=self.dataset)
        return imports.defer("problems") if self.action == "list" else imports

    def get_serializer_class(self):
        return ImportBatchSummarySerializer if self.action == "list" else ImportBatchSerializer

    @extend_schema(
        request={"multipart/form-data": ImportCreateSerializer},
        responses={
            201: ImportBatchSerializer,
            202: ImportBatchSerializer,
            413: OpenApiResponse(description="upload_too_large or request_too_large: over a size limit"),
        },
        summary="Import an archive or image files (201 done; 202 running as a background job)",
    )
    def create(self, request, *args, **kwargs):
        self.require_writer("import samples")
        body = ImportCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if data.get("file"):
            batch = import_table(
                dataset=self.dataset,
                upload=data["file"],
                user=request.user,
                text_column=data.get("text_column", ""),
                label_column=data.get("label_column", ""),
                target_column=data.get("target_column", ""),
                encoding=data.get("encoding", ""),
                delimiter=data.get("delimiter", ""),
                decimal=data.get("decimal", ""),
                sheet=data.get("sheet", ""),
                background=data["background"],
                time_series={
                    key: data[key]
                    for key in (
                        "timestamp_column",
                        "series_column",
                        "target_columns",
                        "known_covariates",
                        "static_covariates",
                        "frequency",
                        "fill_rule",
                    )
                    if key in data
                },
            )
        elif data.get("archive"):
            batch = import_archive(
                dataset=self.dataset,
                upload=data["archive"],
                user=request.user,
                label_name=data.get("label", ""),
                background=data["background"],
                annotation_format=data["format"],
            )
        else:
            batch = import_files(
                dataset=self.dataset, files=data["files"], user=request.user, label_name=data.get("label", "")
            )
        code = status.HTTP_202_ACCEPTED if batch.status == ImportStatus.QUEUED else status.HTTP_201_CREATED
        return Response(ImportBatchSerializer(self.get_queryset().get(pk=batch.pk)).data, status=code)

    @extend_schema(
        request={"multipart/form-data": TablePreviewRequestSerializer},
        responses={200: TablePreviewSerializer},
        summary="The column mapping step: a table file's columns, types, first rows and suggested mapping",
    )
    @action(detail=False, methods=["post"])
    def preview(self, request, *args, **kwargs):
        self.require_writer("import samples")
        body = TablePreviewRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        return Response(
            table_preview(
                dataset=self.dataset,
                upload=data["file"],
                encoding=data["encoding"],
                delimiter=data["delimiter"],
                decimal=data["decimal"],
                sheet=data["sheet"],
            )
        )


@_nested("list", "create", "retrieve")
class DatasetVersionViewSet(
    DatasetChildMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Dataset versions: immutable snapshots with a seeded, stratified train/val/test split."""

    serializer_class = DatasetVersionSerializer
    queryset = DatasetVersion.objects.none()
    permission_classes = [WorkspaceRolePermission]

    def get_queryset(self):
        return selectors.versions_of(dataset=self.dataset)

    @extend_schema(
        request=DatasetVersionCreateSerializer,
        responses={201: DatasetVersionSerializer, 202: JobSerializer},
        summary="Snapshot the labeled samples as a new version (201 made; 202 a datasets.version job makes "
        "it: more than SAMPAN_DATASET_SYNC_VERSION_MAX_SAMPLES samples)",
    )
    def create(self, request, *args, **kwargs):
        self.require_writer("create dataset versions")
        body = DatasetVersionCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        made = dataset_version_request(dataset=self.dataset, user=request.user, **body.validated_data)
        if isinstance(made, Job):
            return Response(
                JobSerializer(made, context={"request": request}).data, status=status.HTTP_202_ACCEPTED
            )
        return Response(DatasetVersionSerializer(made).data, status=status.HTTP_201_CREATED)
