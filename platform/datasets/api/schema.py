"""OpenAPI documentation the serializers cannot give by themselves: the error bodies of label
writes, which clients act on (a 409 carries the server's current values); the label write's PATCH
body, which is whole; and answers that carry fields a request may leave out. Documentation only:
nothing here validates or renders anything."""

from __future__ import annotations

import copy

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, inline_serializer
from rest_framework import serializers

from datasets.api.serializers import (
    CurrentLabelSerializer,
    DatasetSerializer,
    LabelSerializer,
    SampleAnnotationsSerializer,
    SampleLabelWriteSerializer,
)


def _error(name: str, code: str, **details: serializers.Field) -> serializers.Serializer:
    """The shared error body, ``{"error": {"code", "message", "details"}}``, with this code and details."""
    return inline_serializer(
        name,
        {
            "error": inline_serializer(
                f"{name}Body",
                {
                    "code": serializers.ChoiceField(choices=[code]),
                    "message": serializers.CharField(help_text="The sentence to show a person."),
                    "details": inline_serializer(f"{name}Details", details),
                },
            )
        },
    )


def _messages() -> serializers.ListField:
    return serializers.ListField(
        child=serializers.CharField(), help_text="The message again, as a field error."
    )


SAMPLE_LABEL_CONFLICT = _error(
    "SampleLabelConflict",
    "label_conflict",
    label_version=_messages(),
    current=CurrentLabelSerializer(help_text="The sample's label now."),
)
BULK_LABEL_CONFLICT = _error(
    "BulkLabelConflict",
    "label_conflict",
    items=_messages(),
    conflicts=CurrentLabelSerializer(
        many=True, help_text="The samples that changed since the versions sent, as they are now."
    ),
)
LABEL_DELETED = _error("LabelDeleted", "label_deleted", label=_messages())
MERGE_TARGET_DELETED = _error("MergeTargetDeleted", "label_deleted", into=_messages())

SAMPLE_LABEL_WRITE_409 = OpenApiResponse(
    PolymorphicProxySerializer(
        component_name="SampleLabelWriteConflict",
        resource_type_field_name=None,
        serializers=[SAMPLE_LABEL_CONFLICT, LABEL_DELETED],
    ),
    description=(
        "label_conflict: the sample changed since label_version (details.current says how it is now); "
        "label_deleted: the label was deleted or merged away meanwhile. Nothing was saved."
    ),
)
BULK_LABEL_409 = OpenApiResponse(
    PolymorphicProxySerializer(
        component_name="BulkLabelConflictOrDeleted",
        resource_type_field_name=None,
        serializers=[BULK_LABEL_CONFLICT, LABEL_DELETED],
    ),
    description="label_conflict: some samples changed since the versions sent (details.conflicts); "
    "label_deleted: the label was deleted or merged away meanwhile. Nothing was saved.",
)
MERGE_409 = OpenApiResponse(
    MERGE_TARGET_DELETED, description="label_deleted: the target label was deleted or merged away meanwhile."
)

ANNOTATIONS_WRITE_409 = OpenApiResponse(
    _error(
        "AnnotationConflict",
        "annotation_conflict",
        revision=_messages(),
        current=SampleAnnotationsSerializer(help_text="The sample's annotations now."),
    ),
    description="annotation_conflict: the sample's annotations changed since revision (details.current "
    "says how they are now). Nothing was saved.",
)
BULK_ANNOTATIONS_409 = OpenApiResponse(
    _error(
        "BulkAnnotationConflict",
        "annotation_conflict",
        items=_messages(),
        conflicts=SampleAnnotationsSerializer(
            many=True, help_text="The samples that changed since the revisions sent, as they are now."
        ),
    ),
    description="annotation_conflict: some samples changed since the revisions sent (details.conflicts). "
    "Nothing was saved.",
)
ANNOTATION_WRITE_400 = OpenApiResponse(
    description="A box is refused, named by its place (annotations[2].geometry, items[0].annotations[1]."
    "label): annotation_out_of_bounds (outside the image), annotation_empty_box (zero or negative size), "
    "unknown_label (no label of that name: create it first), annotation_status_mismatch (annotated "
    "without boxes, no_objects or unlabeled with boxes), annotations_unsupported (not an object-detection "
    "dataset). Nothing was saved."
)


class WholeSampleLabelWrite(OpenApiSerializerExtension):
    """A label write is a PATCH that needs both fields (label_version is the concurrency check):
    document its body whole, not as the all-optional variant drf-spectacular makes for a PATCH."""

    target_class = SampleLabelWriteSerializer

    def map_serializer(self, auto_schema, direction):
        whole = copy.copy(self.target)
        whole.partial = False
        return auto_schema._map_serializer(whole, direction, bypass_extensions=True)


class DatasetAnsweredWhole(OpenApiSerializerExtension):
    """A request may leave out workspace, description or task_type (defaults apply); an answer
    always has every field, and says so, so clients need not treat them as optional."""

    target_class: type[serializers.Serializer] = DatasetSerializer

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        if direction == "response":
            schema["required"] = sorted(schema["properties"])
        return schema


class LabelAnsweredWhole(DatasetAnsweredWhole):
    """Likewise a label's color: optional in a request, always in an answer (possibly empty)."""

    target_class = LabelSerializer
