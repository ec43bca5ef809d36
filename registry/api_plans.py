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
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .access import conflict, get_task
from .plan_serializers import (
    PlanRequestSerializer,
    TestSetPlanSerializer,
    plan_request,
)
from .test_set_plans import attach_plan, compute_task_plan, detach_plan


def no_scheme(task) -> Response:
    """409: a plan simulates the task's ranking scheme, and there is none."""
    return conflict(f"Task “{task.name}” has no ranking scheme yet: set one first.")


class TaskPlan(APIView):
    @extend_schema(
        summary="The test-set plan attached to a task",
        responses={200: TestSetPlanSerializer, 404: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request, pk: int) -> Response:
        task = get_task(request, pk)
        if task.test_set_plan is None:
            return Response(
                {"detail": f"Task “{task.name}” has no attached test-set plan."},
                status=status.HTTP_404_NOT_FOUND,
            )
        return Response(TestSetPlanSerializer(task.test_set_plan).data)

    @extend_schema(
        summary="Compute a test-set plan for a task (and attach it)",
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
        inputs, attach = plan_request(request)
        if task.scheme is None:
            return no_scheme(task)
        if attach:
            task = attach_plan(task=task, inputs=inputs, actor=request.user)
            return Response(
                TestSetPlanSerializer(task.test_set_plan).data,
                status=status.HTTP_201_CREATED,
            )
        plan = compute_task_plan(task=task, inputs=inputs)
        return Response(TestSetPlanSerializer(plan).data)

    @extend_schema(
        summary="Detach a task's test-set plan",
        responses={204: None, 403: OpenApiTypes.OBJECT},
    )
    def delete(self, request: Request, pk: int) -> Response:
        detach_plan(task=get_task(request, pk), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
