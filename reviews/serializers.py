"""Input shapes of the review API. Field-level checks beyond types live in
`reviews.validation` (shared with future forms) and run in the services."""

from rest_framework import serializers

from registry.serializers import DesignChangeSerializer, StatusSerializer, with_from_to

from .enums import DecisionKind, Recommendation, ReviewerRole


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
    recommendation = serializers.ChoiceField(choices=Recommendation.choices)
    confidence = serializers.IntegerField(
        min_value=1, max_value=5, help_text="1 = low … 5 = high"
    )
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


# --- answers (the schema of what `reviews.selectors` renders; read only) ----------


class AssignmentSerializer(serializers.Serializer):
    """`selectors.assignment_data`."""

    id = serializers.IntegerField()
    reviewer = serializers.CharField()
    label = serializers.CharField()
    role = serializers.ChoiceField(choices=ReviewerRole.choices)
    status = serializers.CharField()
    due = serializers.DateField(allow_null=True)
    decline_reason = serializers.CharField(allow_blank=True)
    assigned_by = serializers.CharField(allow_null=True)
    created = serializers.DateTimeField()


class RoleProgressSerializer(serializers.Serializer):
    assigned = serializers.IntegerField()
    reviewed = serializers.IntegerField()
    minimum = serializers.IntegerField()


class ReviewProgressSerializer(serializers.Serializer):
    """`selectors.review_progress`: active reviewers per role against minimums."""

    revision = serializers.IntegerField()
    roles = serializers.DictField(child=RoleProgressSerializer())
    reviews_in = serializers.IntegerField()
    reviews_due = serializers.IntegerField()


class AssignmentListSerializer(serializers.Serializer):
    progress = ReviewProgressSerializer()
    assignments = AssignmentSerializer(many=True)


class SuggestionSerializer(serializers.Serializer):
    username = serializers.CharField()
    score = serializers.IntegerField()
    matched = serializers.ListField(child=serializers.CharField())
    role = serializers.CharField()


class ReviewSerializer(serializers.Serializer):
    """`selectors.review_data`: names and confidential comments only for those
    who may see them (chairs; the reviewer their own)."""

    id = serializers.IntegerField()
    reviewer = serializers.CharField(help_text='"Reviewer N" unless a chair asks.')
    role = serializers.ChoiceField(choices=ReviewerRole.choices)
    mine = serializers.BooleanField()
    revision = serializers.IntegerField()
    recommendation = serializers.CharField()
    confidence = serializers.IntegerField()
    comments = serializers.CharField(allow_blank=True)
    sections = serializers.DictField(child=serializers.JSONField())
    parameters = serializers.ListField(child=serializers.JSONField())
    clinical_relevance = serializers.JSONField(allow_null=True)
    submitted = serializers.DateTimeField()
    reviewer_username = serializers.CharField(required=False)
    reviewer_name = serializers.CharField(required=False)
    confidential = serializers.CharField(required=False, allow_blank=True)


class DecisionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    revision = serializers.IntegerField()
    decision = serializers.ChoiceField(choices=DecisionKind.choices)
    letter = serializers.CharField(allow_blank=True)
    created = serializers.DateTimeField()


class DecisionCreatedSerializer(DecisionSerializer):
    status = serializers.CharField(help_text="The proposal's status after it.")


class DecisionListSerializer(serializers.Serializer):
    decisions = DecisionSerializer(many=True)
    draft_letter = serializers.CharField(
        required=False, help_text="Chairs only: a letter to edit."
    )


class ResubmittedSerializer(StatusSerializer):
    revision = serializers.IntegerField()


class DiffSerializer(serializers.Serializer):
    """`selectors.version_diff_data` between revisions `from` and `to`."""

    response = serializers.CharField(allow_blank=True)
    changed = DesignChangeSerializer(many=True)
    added_tasks = serializers.ListField(child=serializers.CharField())
    removed_tasks = serializers.ListField(child=serializers.CharField())

    def get_fields(self):
        return with_from_to(super().get_fields(), serializers.IntegerField)


class StatusChangeSerializer(serializers.Serializer):
    when = serializers.DateTimeField()
    who = serializers.CharField(allow_null=True)
    who_name = serializers.CharField(allow_null=True)
    note = serializers.CharField(allow_blank=True)

    def get_fields(self):
        return with_from_to(super().get_fields(), serializers.CharField)


class ConfirmationSerializer(serializers.Serializer):
    """409: a refusal, or an unusual action to confirm (docs/api.md)."""

    detail = serializers.CharField()
    warnings = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="What to confirm; send the request again with confirm_with.",
    )
    confirm_with = serializers.DictField(
        child=serializers.BooleanField(), required=False
    )


CONFIRMATION = ConfirmationSerializer


class CheckSerializer(serializers.Serializer):
    """`reviews.checks.Check.as_dict`."""

    code = serializers.CharField()
    severity = serializers.CharField()
    message = serializers.CharField()
    seed_reference = serializers.CharField(allow_blank=True)
    parameter = serializers.IntegerField(allow_null=True)
    task = serializers.CharField(allow_null=True)
    source = serializers.CharField(allow_blank=True)
