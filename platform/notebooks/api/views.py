from __future__ import annotations

from django_filters import rest_framework as filters
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from notebooks import selectors, services
from notebooks.api.serializers import NotebookCreateSerializer, NotebookSerializer
from notebooks.models import Notebook


class NotebookFilter(filters.FilterSet):
    class Meta:
        model = Notebook
        fields = ["project", "status"]


class NotebookViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The caller's own notebook servers (JupyterLab on a worker host, the SDK configured for them).
    Someone else's notebook, even in the same workspace, is a 404."""

    serializer_class = NotebookSerializer
    queryset = Notebook.objects.none()
    permission_classes = [IsAuthenticated]
    filterset_class = NotebookFilter

    def get_queryset(self):
        return selectors.notebooks_for(user=self.request.user)

    def get_object(self):
        notebook = super().get_object()
        services.notebook_reconcile(notebook=notebook)
        return notebook

    @extend_schema(
        request=NotebookCreateSerializer,
        responses={
            201: NotebookSerializer,
            200: OpenApiResponse(
                NotebookSerializer, description="the caller's live notebook in that project"
            ),
        },
        summary="Start a notebook server in a project (or get the one already running there)",
    )
    def create(self, request):
        body = NotebookCreateSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        notebook, created = services.notebook_start(
            user=request.user,
            project=data["project"],
            idle_timeout_s=data.get("idle_timeout_s"),
            limits=dict(data["limits"]) if "limits" in data else None,
            platform_url=request.build_absolute_uri("/"),
        )
        answer = NotebookSerializer(self.get_queryset().get(pk=notebook.pk), context={"request": request})
        return Response(answer.data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(
        request=None,
        responses={
            200: NotebookSerializer,
            409: OpenApiResponse(description="already stopped (notebook_unavailable)"),
        },
        summary="Stop the server: files are saved, its SDK token revoked",
    )
    @action(detail=True, methods=["post"], filter_backends=[])
    def stop(self, request, pk=None):
        notebook = services.notebook_stop(notebook=self.get_object())
        answer = NotebookSerializer(self.get_queryset().get(pk=notebook.pk), context={"request": request})
        return Response(answer.data)
