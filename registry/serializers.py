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
