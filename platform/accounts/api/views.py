from __future__ import annotations

from typing import cast

from config.responses import SecretResponse
from django.contrib.auth import authenticate, get_user_model, login, logout
from django.middleware.csrf import get_token
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.authentication import CSRFCheck
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, PermissionDenied, Throttled
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services, throttle
from accounts.api.serializers import (
    AdminUserSerializer,
    ApiTokenCreatedSerializer,
    ApiTokenSerializer,
    CsrfSerializer,
    LoginSerializer,
    MeSerializer,
    MeUpdateSerializer,
    PasswordResetResultSerializer,
    PasswordResetSerializer,
    UserCreateSerializer,
    UserSerializer,
)
from accounts.models import ApiToken, User


class CsrfView(APIView):
    permission_classes = [permissions.AllowAny]
    authentication_classes: list = []

    @extend_schema(responses=CsrfSerializer, summary="Set the CSRF cookie for browser sessions")
    def get(self, request):
        return Response({"csrf_token": get_token(request)})


class InvalidCredentials(APIException):
    status_code = 400
    default_code = "invalid_credentials"
    default_detail = "Wrong username or password."


def _enforce_csrf(request) -> None:
    """Login is a session write too: without this, a third-party page could log a browser in."""
    # get_response and the view callback are never called here; the stubs want real ones
    check = CSRFCheck(lambda req: None)  # type: ignore[arg-type]
    check.process_request(request)
    reason = check.process_view(request, None, (), {})  # type: ignore[arg-type]
    if reason:
        raise PermissionDenied(f"CSRF check failed: {reason}. Fetch /api/v1/auth/csrf/ and send X-CSRFToken.")


class LoginView(APIView):
    permission_classes = [permissions.AllowAny]
    authentication_classes: list = []

    @extend_schema(
        request=LoginSerializer,
        responses={
            200: UserSerializer,
            429: OpenApiResponse(
                description="Too many failed logins for this account or from this address; see Retry-After."
            ),
        },
        summary="Log in with a browser session",
    )
    def post(self, request):
        _enforce_csrf(request._request)
        serializer = LoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        wait = throttle.login_wait(request.META, serializer.validated_data["username"])
        if wait:  # before the password is checked: the right one is refused too until the window ends
            raise Throttled(detail="Too many failed logins for this account or from this address.", wait=wait)
        user = authenticate(request._request, **serializer.validated_data)  # a failure is counted (signal)
        if user is None:
            raise InvalidCredentials()
        login(request._request, user)
        return Response(UserSerializer(user).data)


class LogoutView(APIView):
    @extend_schema(request=None, responses={204: None}, summary="End the browser session")
    def post(self, request):
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    @extend_schema(responses=MeSerializer, summary="The user behind this session or token")
    def get(self, request):
        return Response(MeSerializer(request.user).data)

    @extend_schema(
        request=MeUpdateSerializer,
        responses=MeSerializer,
        summary="Change your own preferences (the UI language)",
    )
    def patch(self, request):
        serializer = MeUpdateSerializer(request.user, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        return Response(MeSerializer(request.user).data)


class ApiTokenViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Personal API tokens. Keys are hashed at rest and shown once, at creation."""

    serializer_class = ApiTokenSerializer
    queryset = ApiToken.objects.none()

    def get_queryset(self):
        return cast(User, self.request.user).api_tokens.all()  # authenticated: the default permission

    @extend_schema(request=ApiTokenSerializer, responses={201: ApiTokenCreatedSerializer})
    def create(self, request):
        serializer = ApiTokenSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        issued = services.api_token_create(user=request.user, **serializer.validated_data)
        data = ApiTokenCreatedSerializer(issued.token).data | {"key": issued.key}
        return SecretResponse(data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=ApiTokenSerializer)
    @action(detail=True, methods=["post"])
    def revoke(self, request, pk=None):
        token = services.api_token_revoke(token=self.get_object())
        return Response(ApiTokenSerializer(token).data)


def _admin_action(summary: str, request=None, responses=None):
    return extend_schema(
        request=request,
        responses=responses or {200: AdminUserSerializer, 409: OpenApiResponse(description=CONFLICTS)},
        summary=summary,
    )


CONFLICTS = (
    "Refused: code last_admin (the last active administrator), cannot_deactivate_self or "
    "cannot_demote_self (your own account)."
)


class UserViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Accounts on this installation; only administrators (is_staff) list, create and manage them."""

    serializer_class = AdminUserSerializer
    permission_classes = [permissions.IsAdminUser]
    queryset = get_user_model().objects.order_by("username")

    @extend_schema(request=UserCreateSerializer, responses={201: AdminUserSerializer})
    def create(self, request):
        serializer = UserCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = services.user_create(**serializer.validated_data)
        return Response(AdminUserSerializer(user).data, status=status.HTTP_201_CREATED)

    @_admin_action("Deactivate a user: no sign-in, sessions and API tokens refused")
    @action(detail=True, methods=["post"])
    def deactivate(self, request, pk=None):
        user = services.user_deactivate(user=self.get_object(), by=request.user)
        return Response(AdminUserSerializer(user).data)

    @_admin_action("Let a deactivated user sign in again")
    @action(detail=True, methods=["post"])
    def reactivate(self, request, pk=None):
        return Response(AdminUserSerializer(services.user_reactivate(user=self.get_object())).data)

    @_admin_action("Make a user a platform administrator")
    @action(detail=True, methods=["post"], url_path="make-admin")
    def make_admin(self, request, pk=None):
        user = services.user_set_admin(user=self.get_object(), by=request.user, admin=True)
        return Response(AdminUserSerializer(user).data)

    @_admin_action("Make an administrator an ordinary user")
    @action(detail=True, methods=["post"], url_path="remove-admin")
    def remove_admin(self, request, pk=None):
        user = services.user_set_admin(user=self.get_object(), by=request.user, admin=False)
        return Response(AdminUserSerializer(user).data)

    @_admin_action(
        "Set a user's password, or generate one (shown once)",
        request=PasswordResetSerializer,
        responses={200: PasswordResetResultSerializer},
    )
    @action(detail=True, methods=["post"], url_path="reset-password")
    def reset_password(self, request, pk=None):
        serializer = PasswordResetSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user, generated = services.user_set_password(
            user=self.get_object(), password=serializer.validated_data.get("password")
        )
        return SecretResponse({"user": AdminUserSerializer(user).data, "password": generated})
