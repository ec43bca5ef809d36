"""API representations. Writes go through `services`, never `serializer.save()`."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from .models import Answer, Challenge, Task
from .parameters import Parameter


def parameter_data(parameter: Parameter) -> dict[str, Any]:
    return {
        "number": parameter.number,
        "key": parameter.key,
        "group": parameter.group,
        "name": parameter.name,
        "level": parameter.level,
        "kind": parameter.kind,
        "choices": list(parameter.choices),
        "required_for_submission": parameter.required_for_submission,
        "not_applicable_allowed": parameter.not_applicable_allowed,
        "definition": parameter.definition,
        "examples": list(parameter.examples),
        "bias_items": list(parameter.bias_items),
        "example_value": parameter.example_value,
        "reported_2004_2016_pct": parameter.reported_2004_2016_pct,
    }


class ParameterSerializer(serializers.Serializer):
    """The schema of `parameter_data` (read only)."""

    number = serializers.IntegerField()
    key = serializers.CharField()
    group = serializers.CharField()
    name = serializers.CharField()
    level = serializers.ChoiceField(choices=["challenge", "task"])
    kind = serializers.CharField()
    choices = serializers.ListField(child=serializers.CharField())
    required_for_submission = serializers.BooleanField()
    not_applicable_allowed = serializers.BooleanField()
    definition = serializers.CharField()
    examples = serializers.ListField(child=serializers.CharField())
    bias_items = serializers.ListField(child=serializers.CharField())
    example_value = serializers.JSONField(allow_null=True)
    reported_2004_2016_pct = serializers.IntegerField(allow_null=True)


def answers_data(answers: list[Answer]) -> dict[str, dict[str, Any]]:
    return {
        str(a.number): {
            "value": a.value,
            "not_applicable": a.not_applicable or None,
            "version": a.version,  # send it back as If-Match (lost updates)
        }
        for a in sorted(answers, key=lambda a: a.number)
    }


class TaskSerializer(serializers.ModelSerializer):
    answers = serializers.SerializerMethodField()

    class Meta:
        model = Task
        fields = ["id", "name", "position", "scheme", "version", "answers"]

    def get_answers(self, task: Task) -> dict[str, dict[str, Any]]:
        return answers_data(list(task.answers.all()))


class ChallengeSerializer(serializers.ModelSerializer):
    call = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    owner = serializers.SlugRelatedField(slug_field="username", read_only=True)
    co_organizers = serializers.SlugRelatedField(
        slug_field="username", many=True, read_only=True
    )
    tasks = TaskSerializer(many=True, read_only=True)
    answers = serializers.SerializerMethodField()

    class Meta:
        model = Challenge
        fields = [
            "id",
            "name",
            "call",
            "status",
            "revision",
            "owner",
            "co_organizers",
            "planning",
            "version",
            "answers",
            "tasks",
            "created",
            "updated",
        ]

    def get_answers(self, challenge: Challenge) -> dict[str, dict[str, Any]]:
        return answers_data([a for a in challenge.answers.all() if a.task_id is None])


class TaskSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = Task
        fields = ["id", "name", "position"]


class ChallengeSummarySerializer(ChallengeSerializer):
    """A challenge in a list: no answers, no planning (those are on its detail),
    so that a page stays small whatever the designs hold."""

    tasks = TaskSummarySerializer(many=True, read_only=True)

    class Meta(ChallengeSerializer.Meta):
        fields = [
            name
            for name in ChallengeSerializer.Meta.fields
            if name not in ("planning", "version", "answers")
        ]


class ChallengeCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=300)
    call = serializers.SlugField()


class ChallengeUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=300, required=False)
    planning = serializers.DictField(required=False)


class TaskWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)


class TaskUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False)
    scheme = serializers.JSONField(required=False)


class AnswerWriteSerializer(serializers.Serializer):
    value = serializers.JSONField(required=False)
    not_applicable = serializers.CharField(required=False, allow_blank=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        has_value = "value" in self.initial_data
        has_na = "not_applicable" in self.initial_data
        if has_value == has_na:
            raise serializers.ValidationError(
                'Send exactly one of "value" or "not_applicable".'
            )
        return attrs


def completeness_data(completeness) -> dict[str, Any]:
    def entry(e):
        return {
            "number": e.parameter.number,
            "name": e.parameter.name,
            "task": e.task_name,
            "task_id": e.task_id,
            "group": e.parameter.group,
            "key": e.parameter.key,
        }

    return {
        "overall_percent": completeness.overall.percent,
        "submission_percent": completeness.submission.percent,
        "threshold_percent": completeness.threshold_percent,
        "can_submit": completeness.can_submit,
        "has_tasks": completeness.has_tasks,
        "missing": [entry(e) for e in completeness.missing_required],
        "missing_optional": [entry(e) for e in completeness.missing_optional],
        "sections": [
            {
                "group": group,
                "task": task_name,
                "task_id": task_id,
                "done": tally.done,
                "total": tally.total,
                "percent": tally.percent,
            }
            for group, task_id, task_name, tally in completeness.sections()
        ],
    }


# --- answers (the schema of what the registry API renders; read only) -------------


class AnswerSerializer(serializers.Serializer):
    """An answer after PUT: send `version` back as If-Match."""

    number = serializers.IntegerField()
    task = serializers.IntegerField(allow_null=True)
    value = serializers.JSONField(allow_null=True)
    not_applicable = serializers.CharField(allow_null=True)
    version = serializers.IntegerField()


class OtherChangeSerializer(serializers.Serializer):
    """`registry.versions.OtherChange.to_dict`."""

    field = serializers.CharField()
    changed_by = serializers.CharField()
    changed_at = serializers.DateTimeField(allow_null=True)
    now = serializers.CharField()


class StaleEditSerializer(serializers.Serializer):
    """412: the copy saved from is stale; what others changed since."""

    detail = serializers.CharField()
    changes = OtherChangeSerializer(many=True)


class MissingParameterSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    name = serializers.CharField()
    task = serializers.CharField(allow_null=True)
    task_id = serializers.IntegerField(allow_null=True)
    group = serializers.CharField()
    key = serializers.CharField()


class SectionSerializer(serializers.Serializer):
    group = serializers.CharField()
    task = serializers.CharField(allow_null=True)
    task_id = serializers.IntegerField(allow_null=True)
    done = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.FloatField()


class CompletenessSerializer(serializers.Serializer):
    """`completeness_data`."""

    overall_percent = serializers.FloatField()
    submission_percent = serializers.FloatField()
    threshold_percent = serializers.IntegerField()
    can_submit = serializers.BooleanField()
    has_tasks = serializers.BooleanField()
    missing = MissingParameterSerializer(many=True)
    missing_optional = MissingParameterSerializer(many=True)
    sections = SectionSerializer(many=True)


class TransitionRefusedSerializer(serializers.Serializer):
    """409: not in this state; the state and the actions allowed in it."""

    detail = serializers.CharField()
    state = serializers.CharField(required=False)
    allowed_actions = serializers.ListField(
        child=serializers.CharField(), required=False
    )


class IncompleteSerializer(TransitionRefusedSerializer, CompletenessSerializer):
    """409 on submit: not a draft (the state), or incomplete (what is missing)."""

    def get_fields(self):
        fields = super().get_fields()
        for name in CompletenessSerializer().get_fields():
            fields[name].required = False
        return fields


class NoteSerializer(serializers.Serializer):
    note = serializers.CharField(
        required=False, allow_blank=True, max_length=5000, help_text="For the record."
    )


class StatusSerializer(serializers.Serializer):
    """The object acted on and its status afterwards."""

    id = serializers.IntegerField()
    status = serializers.CharField()


class RegisteredSerializer(serializers.Serializer):
    identifier = serializers.CharField()
    version = serializers.IntegerField()
    sha256 = serializers.CharField()


class RegistrationVersionSerializer(serializers.Serializer):
    """`api_registrations.version_data`."""

    version = serializers.IntegerField()
    sha256 = serializers.CharField()
    previous_sha256 = serializers.CharField(allow_null=True)
    created = serializers.DateTimeField()
    created_by = serializers.CharField(allow_null=True)
    post_hoc = serializers.BooleanField()
    justification = serializers.CharField(allow_blank=True)


class RegistrationSummarySerializer(serializers.Serializer):
    identifier = serializers.CharField()
    challenge = serializers.CharField(help_text="The challenge's name.")
    challenge_id = serializers.IntegerField()
    call = serializers.CharField()
    created = serializers.DateTimeField()
    latest_version = serializers.IntegerField(allow_null=True)
    sha256 = serializers.CharField(allow_null=True)


class RegistrationSerializer(RegistrationSummarySerializer):
    """`api_registrations.registration_data`: every version."""

    versions = RegistrationVersionSerializer(many=True)


class RegistrationListItemSerializer(RegistrationSummarySerializer):
    """`api_registrations.listing_data`."""

    task_count = serializers.IntegerField()
    categories = serializers.ListField(child=serializers.CharField())
    modalities = serializers.ListField(child=serializers.CharField())


class OrganizerSerializer(serializers.Serializer):
    username = serializers.CharField()
    institution = serializers.CharField(allow_blank=True)


class CallNameSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()


class DesignAnswerSerializer(serializers.Serializer):
    """`registry.design.DesignAnswer.to_dict`: a value or a not-applicable reason."""

    number = serializers.IntegerField()
    name = serializers.CharField(allow_blank=True)
    value = serializers.JSONField(required=False)
    not_applicable = serializers.CharField(required=False)


class TaskDesignSerializer(serializers.Serializer):
    name = serializers.CharField()
    answers = DesignAnswerSerializer(many=True)
    scheme = serializers.DictField(
        child=serializers.JSONField(), required=False, help_text="The ranking scheme."
    )


class DesignDocumentSerializer(serializers.Serializer):
    """`registry.design.Design.to_dict`: the exported proposal (export.json),
    the body of an import and the `design` of a registered version."""

    schema = serializers.CharField()
    schema_version = serializers.IntegerField()
    call = serializers.CharField(allow_null=True)
    name = serializers.CharField()
    status = serializers.CharField()
    planning = serializers.DictField(child=serializers.JSONField())
    answers = DesignAnswerSerializer(many=True)
    tasks = TaskDesignSerializer(many=True)


class RefusedSerializer(serializers.Serializer):
    """400: input refused, each problem listed (`errors`); nothing was stored."""

    detail = serializers.CharField()
    errors = serializers.ListField(child=serializers.JSONField(), required=False)


class ImportedSerializer(serializers.Serializer):
    """201: the new draft."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    call = serializers.CharField()
    status = serializers.CharField()


class CanonicalDocumentSerializer(serializers.Serializer):
    """`registration.canonical_document`: the registered bytes, hashed as sent."""

    schema = serializers.CharField()
    schema_version = serializers.IntegerField()
    identifier = serializers.CharField()
    version = serializers.IntegerField()
    previous_sha256 = serializers.CharField(allow_null=True)
    registered_at = serializers.CharField()
    registered_by = serializers.CharField()
    justification = serializers.CharField(allow_blank=True)
    post_hoc = serializers.BooleanField()
    call = CallNameSerializer()
    organizers = OrganizerSerializer(many=True)
    design = DesignDocumentSerializer()


class AmendmentSerializer(serializers.Serializer):
    """`api_registrations.amendment_data`."""

    id = serializers.IntegerField()
    number = serializers.IntegerField()
    registration = serializers.CharField()
    status = serializers.CharField()
    base_version = serializers.IntegerField()
    justification = serializers.CharField(allow_blank=True)
    changes = serializers.DictField(child=serializers.JSONField())
    version = serializers.IntegerField(allow_null=True)
    created = serializers.DateTimeField()


def with_from_to(fields: dict, kind: serializers.Field) -> dict:
    """Adds "from" and "to" (a Python keyword cannot be a class attribute)."""
    fields["from"] = kind()
    fields["to"] = kind()
    return fields


class DesignChangeSerializer(serializers.Serializer):
    """`registry.design.DesignChange.to_dict`: one answer, task or scheme field."""

    kind = serializers.CharField()
    task = serializers.CharField(allow_null=True)
    number = serializers.IntegerField(allow_null=True)
    name = serializers.CharField()
    from_text = serializers.CharField(allow_blank=True)
    to_text = serializers.CharField(allow_blank=True)
    words = serializers.ListField(child=serializers.DictField())
    fields = serializers.ListField(child=serializers.DictField())

    def get_fields(self):
        return with_from_to(super().get_fields(), serializers.JSONField)


class RegistrationDiffSerializer(serializers.Serializer):
    """What changed between registered versions `from` and `to`."""

    changes = DesignChangeSerializer(many=True)

    def get_fields(self):
        return with_from_to(super().get_fields(), serializers.IntegerField)
