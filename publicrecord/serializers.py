"""The schema of what the public-record API answers (read only)."""

from django.core.validators import RegexValidator
from rest_framework import serializers

from .models import FeedbackCategory


class ThrottledSerializer(serializers.Serializer):
    """429: too many posts; `Retry-After` says when to try again."""

    detail = serializers.CharField()


THROTTLED = ThrottledSerializer


class CslNameSerializer(serializers.Serializer):
    family = serializers.CharField(required=False)
    given = serializers.CharField(required=False)
    literal = serializers.CharField(required=False)


class CslItemSerializer(serializers.Serializer):
    """One CSL-JSON item (`publicrecord.citation.csl_json`); the body is a
    list of them, as reference managers read it."""

    id = serializers.CharField()
    type = serializers.CharField()
    title = serializers.CharField()
    author = CslNameSerializer(many=True)
    issued = serializers.DictField(
        child=serializers.ListField(child=serializers.ListField()),
        help_text='{"date-parts": [[year, month, day]]}',
    )
    publisher = serializers.CharField()
    version = serializers.CharField()
    URL = serializers.URLField()
    genre = serializers.CharField()
    note = serializers.CharField()
    DOI = serializers.CharField(required=False)

    def get_fields(self):
        fields = super().get_fields()
        fields["container-title"] = serializers.CharField(required=False)
        return fields


class MeSerializer(serializers.Serializer):
    """`publicrecord.profiles.me_data`."""

    username = serializers.CharField()
    email = serializers.CharField(allow_blank=True)
    first_name = serializers.CharField(allow_blank=True)
    last_name = serializers.CharField(allow_blank=True)
    institution = serializers.CharField(allow_blank=True)
    orcid = serializers.CharField(allow_blank=True, help_text="Empty: none given.")
    orcid_verified = serializers.BooleanField(
        help_text="True only when ORCID confirmed the iD (sign-in with ORCID); a "
        "typed iD is unverified and left out of DataCite, Zenodo and schema.org."
    )


class FeedbackAnswerSerializer(serializers.Serializer):
    """`publicrecord.feedback.answer_data`."""

    id = serializers.IntegerField()
    text = serializers.CharField()
    author = serializers.CharField()
    created = serializers.DateTimeField()


class FeedbackSerializer(serializers.Serializer):
    """`publicrecord.feedback.feedback_data`: a hidden comment has its reason
    instead of its text."""

    id = serializers.IntegerField()
    category = serializers.CharField()
    author = serializers.CharField()
    created = serializers.DateTimeField()
    hidden = serializers.BooleanField()
    answers = FeedbackAnswerSerializer(many=True)
    text = serializers.CharField(required=False)
    hidden_reason = serializers.CharField(required=False)


# Text a person writes: something besides white space (the services refuse it).
WRITTEN = [RegexValidator(r"\S", "Write something.")]


class FeedbackWriteSerializer(serializers.Serializer):
    category = serializers.ChoiceField(choices=FeedbackCategory.choices)
    text = serializers.CharField(validators=WRITTEN)


class TextSerializer(serializers.Serializer):
    text = serializers.CharField(validators=WRITTEN)


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(validators=WRITTEN)


class CriterionSerializer(serializers.Serializer):
    """`publicrecord.quality.Criterion`: met is null while not yet applicable."""

    code = serializers.CharField()
    label = serializers.CharField()
    met = serializers.BooleanField(allow_null=True)
    evidence = serializers.CharField(allow_blank=True)
    link = serializers.CharField(allow_blank=True)


class QualitySerializer(serializers.Serializer):
    identifier = serializers.CharField()
    criteria = CriterionSerializer(many=True)


class StatisticsFiltersSerializer(serializers.Serializer):
    call = serializers.CharField(allow_null=True)
    year = serializers.IntegerField(allow_null=True)


class StatisticsSerializer(serializers.Serializer):
    """`publicrecord.statistics.compute_statistics` (docs/public-record.md)."""

    filters = StatisticsFiltersSerializer()
    challenges = serializers.IntegerField()
    tasks = serializers.IntegerField()
    tasks_without_scheme = serializers.IntegerField()
    by_call = serializers.ListField(child=serializers.DictField())
    by_year = serializers.ListField(child=serializers.DictField())
    parameters = serializers.ListField(child=serializers.DictField())
    distributions = serializers.DictField(child=serializers.JSONField())
    amendments = serializers.DictField(child=serializers.JSONField())
    deviations = serializers.DictField(child=serializers.JSONField())


class DataCiteJsonData(serializers.Serializer):
    type = serializers.CharField(help_text='Always "dois" (DataCite REST API).')
    attributes = serializers.DictField(
        help_text="DataCite metadata schema 4 properties (identifiers, creators, "
        "titles, publisher, publicationYear, types, dates, relatedIdentifiers, "
        "descriptions …), as in DataCite's REST API; the same as the XML."
    )


class DataCiteJsonDocument(serializers.Serializer):
    """DataCite JSON of a registered version: ``{"data": {"type", "attributes"}}``."""

    data = DataCiteJsonData()
