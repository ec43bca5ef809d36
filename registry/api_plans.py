"""The API of test-set plans: ``/api/v1/tasks/<pk>/plan/`` (issue 29).

GET the attached plan (404 when none is attached); POST inputs to compute a
plan (200, nothing stored) or, with ``"attach": true``, to attach it (201;
the task's proposal must be editable by the caller, else 403); DELETE
detaches it (204). Bad inputs: 400 naming the field (the planner's field
names, docs/ranking-engine.md). A task without a ranking scheme: 409.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .access import conflict, get_task
from .test_set_plans import attach_plan, compute_task_plan, detach_plan


class PlanRequestSerializer(serializers.Serializer):
    """The planner's inputs; the task's own ranking scheme is planned."""

    model = serializers.JSONField(
        help_text='{"kind": "parametric", "means": {algorithm: mean}, "sd": s, '
        '"correlation": ρ, "missing_rate": 0} (or "algorithms", "best", "gap" '
        "instead of means)"
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


def _inputs(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "attach"}


class TaskPlan(APIView):
    @extend_schema(responses={200: TestSetPlanSerializer, 404: OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> Response:
        task = get_task(request, pk)
        if task.test_set_plan is None:
            return Response(
                {"detail": f"Task “{task.name}” has no attached test-set plan."},
                status=status.HTTP_404_NOT_FOUND,
            )
        return Response(TestSetPlanSerializer(task.test_set_plan).data)

    @extend_schema(
        request=PlanRequestSerializer,
        responses={
            200: TestSetPlanSerializer,
            201: TestSetPlanSerializer,
            400: OpenApiTypes.OBJECT,
            403: OpenApiTypes.OBJECT,
            409: OpenApiTypes.OBJECT,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        """Compute a plan (200); with ``"attach": true`` also attach it (201)."""
        task = get_task(request, pk)
        data = PlanRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if task.scheme is None:
            return conflict(
                f"Task “{task.name}” has no ranking scheme yet: set one first."
            )
        inputs = _inputs(data.validated_data)
        if data.validated_data["attach"]:
            task = attach_plan(task=task, inputs=inputs, actor=request.user)
            return Response(
                TestSetPlanSerializer(task.test_set_plan).data,
                status=status.HTTP_201_CREATED,
            )
        plan = compute_task_plan(task=task, inputs=inputs)
        return Response(TestSetPlanSerializer(plan).data)

    @extend_schema(responses={204: None, 403: OpenApiTypes.OBJECT})
    def delete(self, request: Request, pk: int) -> Response:
        detach_plan(task=get_task(request, pk), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
