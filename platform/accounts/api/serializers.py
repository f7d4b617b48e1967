from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
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


class UserCreateSerializer(serializers.Serializer):
    username = serializers.RegexField(r"^[\w.@+-]{1,150}$", max_length=150)
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    password = serializers.CharField(write_only=True, min_length=8, max_length=128)

    def validate_username(self, value: str) -> str:
        if get_user_model().objects.filter(username=value).exists():
            raise serializers.ValidationError(f"The username {value!r} is taken.")
        return value

    def validate(self, attrs):
        validate_password(
            attrs["password"], user=get_user_model()(username=attrs["username"], email=attrs["email"])
        )
        return attrs


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
