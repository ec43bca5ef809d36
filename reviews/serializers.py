"""Input shapes of the review API. Field-level checks beyond types live in
`reviews.validation` (shared with future forms) and run in the services."""

from rest_framework import serializers

from .enums import DecisionKind, ReviewerRole


class AssignmentWriteSerializer(serializers.Serializer):
    reviewer = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=ReviewerRole.choices)
    due = serializers.DateField(required=False, allow_null=True)
    confirm = serializers.BooleanField(
        default=False, help_text="Proceed despite the warnings of a 409 answer."
    )


class RoleChangeSerializer(serializers.Serializer):
    # optional: a PATCH without a new role (or with the current one) changes nothing
    role = serializers.ChoiceField(choices=ReviewerRole.choices, required=False)
    confirm = serializers.BooleanField(
        default=False, help_text="Proceed despite the warnings of a 409 answer."
    )


class ReviewWriteSerializer(serializers.Serializer):
    recommendation = serializers.CharField()
    confidence = serializers.JSONField()
    comments = serializers.CharField(allow_blank=True, trim_whitespace=False)
    sections = serializers.JSONField(required=False)
    parameters = serializers.JSONField(required=False)
    confidential = serializers.CharField(required=False, allow_blank=True)
    clinical_relevance = serializers.JSONField(required=False, allow_null=True)


class DecisionWriteSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=DecisionKind.choices)
    letter = serializers.CharField()
    confirm = serializers.BooleanField(
        default=False, help_text="Proceed despite the warnings of a 409 answer."
    )


class ResubmitSerializer(serializers.Serializer):
    response = serializers.CharField()


class DeclineSerializer(serializers.Serializer):
    reason = serializers.CharField()


class ConflictWriteSerializer(serializers.Serializer):
    institution = serializers.CharField(required=False, allow_blank=True)
    challenge = serializers.IntegerField(required=False, allow_null=True)
    reason = serializers.CharField()
