from __future__ import annotations

from django_filters import rest_framework as filters
from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from training.api.serializers import ModelVersionSerializer
from workspaces.permissions import WorkspaceRolePermission, require_role

from automl import selectors, services
from automl.api.serializers import (
    CustomStudyCreateSerializer,
    PromoteSerializer,
    StudyCreateSerializer,
    StudyDefaultsQuerySerializer,
    StudyDefaultsSerializer,
    StudyResultsSerializer,
    StudySerializer,
    TrialSerializer,
)
from automl.models import Study


class StudyFilter(filters.FilterSet):
    class Meta:
        model = Study
        fields = ["workspace", "project", "dataset_version", "status"]


CONFLICT = OpenApiResponse(description="the study's state does not allow this")


class StudyViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Hyperparameter studies: trials are training runs on workers; results, pause/resume/stop, promote."""

    serializer_class = StudySerializer
    queryset = Study.objects.none()
    permission_classes = [WorkspaceRolePermission]
    filterset_class = StudyFilter

    def get_queryset(self):
        return selectors.studies_for(user=self.request.user)

    @staticmethod
    def workspace_id_of(obj) -> int:
        return obj.workspace_id

    @extend_schema(
        request=PolymorphicProxySerializer(
            component_name="StudyStart",
            serializers=[StudyCreateSerializer, CustomStudyCreateSerializer],
            resource_type_field_name=None,
        ),
        responses={201: StudySerializer},
        summary="Start a study over a template (dataset_version) or over custom code (code_archive): "
        "its first `parallelism` trials are queued at once",
    )
    def create(self, request):
        if isinstance(request.data, dict) and "code_archive" in request.data:
            return self._create_custom(request)
        serializer = StudyCreateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        version = data.pop("dataset_version")
        require_role(user=request.user, workspace_id=version.dataset.workspace_id, action="start studies")
        study = services.study_create(user=request.user, dataset_version=version, **data)
        return Response(
            StudySerializer(self.get_queryset().get(pk=study.pk)).data, status=status.HTTP_201_CREATED
        )

    def _create_custom(self, request):
        serializer = CustomStudyCreateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        archive = data.pop("code_archive")
        project = data.pop("project", None) or archive.project
        require_role(user=request.user, workspace_id=project.workspace_id, action="start studies")
        study = services.study_create_custom(
            user=request.user,
            project=project,
            code_archive=archive,
            entry_point=data.pop("entry_point", None) or None,
            **data,
        )
        return Response(
            StudySerializer(self.get_queryset().get(pk=study.pk)).data, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        parameters=[StudyDefaultsQuerySerializer],
        responses=StudyDefaultsSerializer,
        summary="A study's budget that fits the workers online: parallel trials, trials, wall time, and why",
    )
    @action(detail=False, methods=["get"], filter_backends=[], pagination_class=None)
    def defaults(self, request):
        from training.services import template_named

        query = StudyDefaultsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        template = template_named(query.validated_data["template"])
        return Response(StudyDefaultsSerializer(selectors.study_defaults(template=template.name)).data)

    @extend_schema(
        responses=TrialSerializer(many=True), summary="Every trial: parameters, state, value, curves"
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def trials(self, request, pk=None):
        study = self.get_object()
        trials = list(selectors.trials_of(study=study))
        front = set(selectors.pareto_front(study=study, trials=trials))
        return Response(TrialSerializer(trials, many=True, context={"front": front}).data)

    @extend_schema(
        responses=StudyResultsSerializer,
        summary="Best trial, optimization history, parameter importances and the honest-lift report",
    )
    @action(detail=True, methods=["get"], filter_backends=[])
    def results(self, request, pk=None):
        study = self.get_object()
        return Response(
            StudyResultsSerializer(
                {
                    "best_trial": selectors.best_trial(study=study),
                    "history": selectors.optimization_history(study=study),
                    "importances": selectors.param_importances(study=study),
                    "lift": selectors.lift_report(study=study),
                }
            ).data
        )

    @extend_schema(
        request=None,
        responses={200: StudySerializer, 409: CONFLICT},
        summary="Pause: no new trial starts; those in flight finish",
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def pause(self, request, pk=None):
        services.study_pause(study=self.get_object())
        return Response(StudySerializer(self.get_object()).data)

    @extend_schema(
        request=None, responses={200: StudySerializer, 409: CONFLICT}, summary="Resume a paused study"
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def resume(self, request, pk=None):
        services.study_resume(study=self.get_object())
        return Response(StudySerializer(self.get_object()).data)

    @extend_schema(
        request=None,
        responses={200: StudySerializer, 409: CONFLICT},
        summary="Stop: trials in flight are cancelled and the study ends",
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def stop(self, request, pk=None):
        services.study_stop(study=self.get_object())
        return Response(StudySerializer(self.get_object()).data)

    @extend_schema(
        request=PromoteSerializer,
        responses={201: ModelVersionSerializer, 409: CONFLICT},
        summary="Promote a completed trial (the best by default; any trial of a Pareto front by number) to a "
        "model version with its lineage (an int8 trial: its int8 ONNX)",
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def promote(self, request, pk=None):
        study = self.get_object()
        body = PromoteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        number = body.validated_data.get("trial")
        if number is None:
            trial = selectors.best_trial(study=study)
            if trial is None:
                raise services.StudyConflict("The study has no completed trial to promote yet.")
        else:
            trial = study.trials.filter(number=number).first()
            if trial is None:
                raise NotFound(f"Study {study.pk} has no trial {number}.")
        version = services.trial_promote(user=request.user, trial=trial)
        return Response(ModelVersionSerializer(version).data, status=status.HTTP_201_CREATED)
