"""Serializers of test-set plans (issue 29), shared by the plan API of
``registry`` and the plan-run API of ``analysis``."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request


class PlanRequestSerializer(serializers.Serializer):
    """The planner's inputs; the task's own ranking scheme is planned."""

    model = serializers.JSONField(
        help_text='{"kind": "parametric", "means": {algorithm: mean}, "sd": s, '
        '"correlation": ρ, "missing_rate": 0} (or "algorithms", "best", "gap" '
        'instead of means), or {"kind": "pilot", "table": "<results CSV text>", '
        '"task": name} (at most PLAN_PILOT_MAX_BYTES; a computed plan carries the '
        "table and its SHA-256, an attached plan the SHA-256, table_bytes and "
        "cases, the table being stored once as a file)"
    )
    n = serializers.ListField(child=serializers.IntegerField())
    simulations = serializers.IntegerField()
    seed = serializers.IntegerField()
    targets = serializers.DictField(child=serializers.FloatField(), required=False)
    attach = serializers.BooleanField(default=False)


class PlanRecordSerializer(serializers.Serializer):
    n = serializers.IntegerField()
    p_winner = serializers.FloatField()
    p_winner_se = serializers.FloatField()
    p_winner_alone = serializers.FloatField()
    p_winner_alone_se = serializers.FloatField()
    kendall_tau = serializers.FloatField()
    kendall_tau_se = serializers.FloatField()
    p_adjacent_swap = serializers.FloatField()
    p_adjacent_swap_se = serializers.FloatField()
    rank_interval_width = serializers.FloatField(allow_null=True)
    rank_interval_width_se = serializers.FloatField(allow_null=True)
    interval_simulations = serializers.IntegerField()


class TestSetPlanSerializer(serializers.Serializer):
    """A plan: the output of ``python -m ranking plan`` (docs/ranking-engine.md)."""

    __test__ = False  # not a pytest test class

    engine_version = serializers.CharField()
    seed = serializers.IntegerField()
    simulations = serializers.IntegerField()
    recommended_n = serializers.IntegerField(allow_null=True)
    key = serializers.CharField()
    algorithms = serializers.ListField(child=serializers.CharField())
    true_ranks = serializers.DictField(child=serializers.FloatField())
    interval_method = serializers.CharField(allow_null=True)
    targets = serializers.DictField(child=serializers.FloatField())
    model = serializers.JSONField()
    scheme = serializers.JSONField()
    n = PlanRecordSerializer(many=True)


def plan_request(request: Request) -> tuple[dict[str, Any], bool]:
    """The planner's inputs and the ``attach`` flag of a plan request (400
    names a field the schema refuses)."""
    data = PlanRequestSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    inputs = {k: v for k, v in data.validated_data.items() if k != "attach"}
    return inputs, data.validated_data["attach"]
