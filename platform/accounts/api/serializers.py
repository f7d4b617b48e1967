from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework import serializers

from accounts.models import ApiToken


class UserSerializer(serializers.ModelSerializer):
    class Meta:
        model = get_user_model()
        fields = ["id", "username", "email", "is_staff"]
        read_only_fields = fields


class MeSerializer(UserSerializer):
    """The signed-in user, with their own preferences."""

    class Meta(UserSerializer.Meta):
        fields = [*UserSerializer.Meta.fields, "language"]
        read_only_fields = UserSerializer.Meta.fields


class MeUpdateSerializer(serializers.ModelSerializer):
    """What a user may change about themselves."""

    class Meta:
        model = get_user_model()
        fields = ["language"]
        extra_kwargs = {
            "language": {
                "help_text": "The web UI's language: 'en', 'zh-CN', or '' to follow the browser's. "
                "API error messages stay English (with a machine-readable code) in every language."
            }
        }


class AdminUserSerializer(UserSerializer):
    """An account as administrators see it on the users page."""

    class Meta(UserSerializer.Meta):
        fields = [*UserSerializer.Meta.fields, "is_active", "date_joined", "last_login"]
        read_only_fields = fields
        extra_kwargs = {
            "is_staff": {"help_text": "A platform administrator (manages users; Django admin)."},
            "is_active": {
                "help_text": "False: deactivated; cannot sign in, sessions and API tokens refused."
            },
        }


class UserCreateSerializer(serializers.Serializer):
    username = serializers.RegexField(
        r"^[\w.@+-]{1,150}$",
        max_length=150,
        help_text="Letters, digits and @ . + - _ (at most 150).",
        error_messages={"invalid": "Use only letters, digits and @ . + - _."},
    )
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    password = serializers.CharField(write_only=True, max_length=128, trim_whitespace=False)
    is_staff = serializers.BooleanField(
        required=False, default=False, help_text="Create a platform administrator."
    )


class PasswordResetSerializer(serializers.Serializer):
    password = serializers.CharField(
        required=False,
        write_only=True,
        max_length=128,
        trim_whitespace=False,
        help_text="The new password (Django's password rules apply); leave out to generate one.",
    )


class PasswordResetResultSerializer(serializers.Serializer):
    user = AdminUserSerializer()
    password = serializers.CharField(
        allow_null=True,
        help_text="The generated password, shown only in this answer; null when you gave one.",
    )


class LoginSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


class CsrfSerializer(serializers.Serializer):
    csrf_token = serializers.CharField()


class ApiTokenSerializer(serializers.ModelSerializer):
    status = serializers.ChoiceField(choices=["active", "revoked", "expired"], read_only=True)

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "expires_at", "revoked_at", "status"]
        read_only_fields = ["id", "prefix", "created_at", "last_used_at", "revoked_at", "status"]

    def validate_name(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("Name must not be blank.")
        return value


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    key = serializers.CharField(read_only=True, help_text="The secret; shown only in this response.")

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "key"]
