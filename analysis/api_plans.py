"""The API of background test-set plans (issue 29).

``POST /api/v1/tasks/{id}/plan-runs/`` queues a plan (202; the body as for
``/plan/``: model, n, simulations, seed, targets, attach); ``GET
/api/v1/plan-runs/{id}/`` follows it (status, progress, note) and gives the
plan once done. 400 names a bad field; 403 attach without the right to edit;
404 a task or run the caller cannot see; 409 a task without a ranking scheme.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from registry.access import conflict, get_task
from registry.permissions import can_view_challenge
from registry.plan_serializers import (
    PlanRequestSerializer,
    plan_request,
)

from .models import AnalysisStatus, PlanRun
from .plan_runs import start_plan_run
from .run_state import run_fields


class PlanRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    task = serializers.IntegerField()
    attach = serializers.BooleanField()
    status = serializers.ChoiceField(choices=AnalysisStatus.choices)
    progress = serializers.IntegerField()
    engine_version = serializers.CharField()
    error = serializers.CharField(allow_null=True)
    note = serializers.CharField(allow_null=True)
    created = serializers.CharField()
    # The plan (TestSetPlan) once done, else null. Declared as any JSON: a
    # nullable nested object is `allOf` + `nullable` in OpenAPI 3.0, which
    # validators read differently (openapi-core refuses its null).
    output = serializers.JSONField(
        allow_null=True, help_text="The plan (a TestSetPlan) once done; else null."
    )


def plan_run_data(run: PlanRun) -> dict:
    return PlanRunSerializer(
        {**run_fields(run), "id": run.pk, "task": run.task_id, "attach": run.attach}
    ).data


class PlanRunCreate(APIView):
    @extend_schema(
        summary="Plan a task's test set in the background (a plan run)",
        request=PlanRequestSerializer,
        responses={
            202: PlanRunSerializer,
            400: OpenApiTypes.OBJECT,
            403: OpenApiTypes.OBJECT,
            409: OpenApiTypes.OBJECT,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        task = get_task(request, pk)
        inputs, attach = plan_request(request)
        if task.scheme is None:
            return conflict(
                f"Task “{task.name}” has no ranking scheme yet: set one first."
            )
        run = start_plan_run(
            task=task, inputs=inputs, attach=attach, actor=request.user
        )
        return Response(plan_run_data(run), status=status.HTTP_202_ACCEPTED)


class PlanRunDetail(APIView):
    @extend_schema(
        summary="A plan run: its progress, and the plan once done",
        responses={200: PlanRunSerializer, 404: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request, pk: int) -> Response:
        run = PlanRun.objects.select_related("task__challenge").filter(pk=pk).first()
        if run is None or not can_view_challenge(request.user, run.task.challenge):
            return Response(
                {"detail": "No such plan run."}, status=status.HTTP_404_NOT_FOUND
            )
        return Response(plan_run_data(run))
