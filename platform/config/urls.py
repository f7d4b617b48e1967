from __future__ import annotations

from accounts.api.views import ApiTokenViewSet, CsrfView, LoginView, LogoutView, MeView, UserViewSet
from accounts.views import admin_login
from automl.api.views import StudyViewSet
from customjobs.api import routes as customjob_routes
from datasets.api.activity import SampleActivityViewSet
from datasets.api.quality import QualityReportViewSet
from datasets.api.views import (
    DatasetVersionViewSet,
    DatasetViewSet,
    ImportBatchViewSet,
    LabelViewSet,
    SampleViewSet,
)
from deploy.api.batch import BatchPredictionViewSet
from deploy.api.capture_views import CapturedRequestViewSet, DeploymentCapturePolicyView
from deploy.api.retrain import DeploymentRetrainView
from deploy.api.targets import TargetProfileViewSet
from deploy.api.views import (
    DeploymentKeyViewSet,
    DeploymentPredictView,
    DeploymentTryView,
    DeploymentViewSet,
    ModelVersionTryView,
    PackageViewSet,
)
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from jobs.api.limits import WorkspaceLimitsListView, WorkspaceLimitsView
from jobs.api.views import JobKindListView, JobViewSet, WorkerNodeListView
from labeling.api.smart import SmartLabelingRoundViewSet, SuggestionViewSet
from labeling.api.tasks import LabelingAssignmentViewSet, LabelingTaskViewSet
from notebooks.api import routes as notebook_routes
from training.api.views import (
    BackboneViewSet,
    CompressionViewSet,
    ModelVersionViewSet,
    TemplateDetailView,
    TemplateListView,
    TrainingEstimateView,
    TrainingJobViewSet,
)
from workspaces.api.views import (
    InvitationViewSet,
    MembershipViewSet,
    ProjectViewSet,
    WorkspaceInvitationViewSet,
    WorkspaceViewSet,
)

from config import errors, health, spa
from config.routing import ApiRouter

router = ApiRouter()  # ids in paths are <id:...>: 64-bit, anything else a 404 (config.routing)
router.register("tokens", ApiTokenViewSet, basename="token")
router.register("users", UserViewSet, basename="user")
router.register("workspaces", WorkspaceViewSet, basename="workspace")
router.register("workspaces/<id:workspace_id>/members", MembershipViewSet, basename="membership")
router.register(
    "workspaces/<id:workspace_id>/invitations", WorkspaceInvitationViewSet, basename="workspace-invitation"
)
router.register("invitations", InvitationViewSet, basename="invitation")
router.register("projects", ProjectViewSet, basename="project")
router.register("jobs", JobViewSet, basename="job")
router.register("datasets", DatasetViewSet, basename="dataset")
router.register("datasets/<id:dataset_id>/labels", LabelViewSet, basename="dataset-label")
router.register("datasets/<id:dataset_id>/samples", SampleViewSet, basename="dataset-sample")
router.register("datasets/<id:dataset_id>/imports", ImportBatchViewSet, basename="dataset-import")
router.register("datasets/<id:dataset_id>/versions", DatasetVersionViewSet, basename="dataset-version")
router.register(
    "datasets/<id:dataset_id>/quality-reports", QualityReportViewSet, basename="dataset-quality-report"
)
router.register("datasets/<id:dataset_id>/activity", SampleActivityViewSet, basename="dataset-activity")
router.register("datasets/<id:dataset_id>/smart-labeling", SmartLabelingRoundViewSet, basename="smart-round")
router.register("datasets/<id:dataset_id>/suggestions", SuggestionViewSet, basename="suggestion")
router.register("training-jobs", TrainingJobViewSet, basename="training-job")
router.register("model-versions", ModelVersionViewSet, basename="model-version")
router.register("backbones", BackboneViewSet, basename="backbone")
router.register("compressions", CompressionViewSet, basename="compression")
router.register("studies", StudyViewSet, basename="study")
router.register("target-profiles", TargetProfileViewSet, basename="target-profile")
router.register("deployments", DeploymentViewSet, basename="deployment")
router.register("deployments/<id:deployment_id>/keys", DeploymentKeyViewSet, basename="deployment-key")
router.register(
    "deployments/<id:deployment_id>/captures", CapturedRequestViewSet, basename="deployment-capture"
)
router.register("packages", PackageViewSet, basename="package")
router.register("batch-predictions", BatchPredictionViewSet, basename="batch-prediction")
router.register("labeling-tasks", LabelingTaskViewSet, basename="labeling-task")
router.register("labeling-assignments", LabelingAssignmentViewSet, basename="labeling-assignment")
customjob_routes.register(router)
notebook_routes.register(router)

api_v1 = [
    # first: the hot path of hosted predictions resolves without trying the other routes
    path("deployments/<id:pk>/predict/", DeploymentPredictView.as_view(), name="deployment-predict"),
    path("deployments/<id:pk>/try/", DeploymentTryView.as_view(), name="deployment-try"),
    path("model-versions/<id:pk>/try/", ModelVersionTryView.as_view(), name="model-version-try"),
    path("deployments/<id:pk>/retrain/", DeploymentRetrainView.as_view(), name="deployment-retrain"),
    path(
        "deployments/<id:pk>/capture/",
        DeploymentCapturePolicyView.as_view(),
        name="deployment-capture-policy",
    ),
    path("auth/csrf/", CsrfView.as_view(), name="auth-csrf"),
    path("auth/login/", LoginView.as_view(), name="auth-login"),
    path("auth/logout/", LogoutView.as_view(), name="auth-logout"),
    path("auth/me/", MeView.as_view(), name="auth-me"),
    path("job-kinds/", JobKindListView.as_view(), name="job-kinds"),
    path("workers/", WorkerNodeListView.as_view(), name="workers"),
    path("workspaces/<id:pk>/limits/", WorkspaceLimitsView.as_view(), name="workspace-limits"),
    path("workspace-limits/", WorkspaceLimitsListView.as_view(), name="workspace-limits-list"),
    path("templates/", TemplateListView.as_view(), name="templates"),
    path("templates/<str:name>/", TemplateDetailView.as_view(), name="template-detail"),
    path("training-estimates/", TrainingEstimateView.as_view(), name="training-estimates"),
    *customjob_routes.urlpatterns,
    *notebook_routes.urlpatterns,
    *router.urls,
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI with its init script from ?script, not inline: it works under config.security's CSP
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("healthz", health.healthz, name="healthz"),
    path("admin/login/", admin_login, name="admin-login"),  # with the API login's brute-force limits
    path("admin/", admin.site.urls),
    # Everything else that is not an API, admin or static path is a browser route of the SPA.
    # Built assets that do not exist are a 404, never index.html served as JavaScript.
    re_path(r"^(?!api/|admin/|static/|assets/|healthz)(?P<path>.*)$", spa.index, name="spa"),
]

handler400 = errors.handler400
handler403 = errors.handler403
handler404 = errors.handler404
handler500 = errors.handler500
