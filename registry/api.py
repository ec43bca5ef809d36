"""REST API v1 for proposals. Thin: parse, call a service, render."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from registry.pagination import PAGE_PARAMETERS, paginated, paginated_schema

from . import services
from .access import conflict, get_challenge, get_task
from .models import Call, Challenge, Task
from .parameters import PARAMETERS
from .permissions import challenges_visible_to
from .schemes import set_task_scheme
from .selectors import completeness_of
from .serializers import (
    AnswerWriteSerializer,
    ChallengeCreateSerializer,
    ChallengeSerializer,
    ChallengeSummarySerializer,
    ChallengeUpdateSerializer,
    TaskSerializer,
    TaskUpdateSerializer,
    TaskWriteSerializer,
    completeness_data,
    parameter_data,
)


class ParameterList(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="The 53 challenge parameters (Table 4.5 order)",
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request) -> Response:
        return Response([parameter_data(p) for p in PARAMETERS])


class ChallengeList(APIView):
    @extend_schema(
        operation_id="v1_challenges_list",
        parameters=PAGE_PARAMETERS,
        responses=paginated_schema("ChallengeListPage", ChallengeSummarySerializer()),
    )
    def get(self, request: Request) -> Response:
        """The challenges the user may read, most recently changed first
        (summaries: the answers are on each challenge's detail)."""
        challenges = (
            challenges_visible_to(request.user)
            .select_related("call", "owner")
            .prefetch_related("co_organizers", "tasks")
            .order_by("-updated", "-id")
        )
        return paginated(
            request,
            challenges,
            lambda page: ChallengeSummarySerializer(page, many=True).data,
            view=self,
        )

    @extend_schema(request=ChallengeCreateSerializer, responses=ChallengeSerializer)
    def post(self, request: Request) -> Response:
        data = ChallengeCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        call = Call.objects.filter(slug=data.validated_data["call"]).first()
        if call is None:
            return Response(
                {"call": [f"No call {data.validated_data['call']!r}."]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        challenge = services.create_challenge(
            owner=request.user, call=call, name=data.validated_data["name"]
        )
        challenge = get_challenge(request, challenge.pk)
        return Response(ChallengeSerializer(challenge).data, status=201)


class ChallengeDetail(APIView):
    @extend_schema(responses=ChallengeSerializer)
    def get(self, request: Request, pk: int) -> Response:
        return Response(ChallengeSerializer(get_challenge(request, pk)).data)

    @extend_schema(request=ChallengeUpdateSerializer, responses=ChallengeSerializer)
    def patch(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        data = ChallengeUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.update_challenge(
            challenge=challenge, actor=request.user, **data.validated_data
        )
        return Response(ChallengeSerializer(get_challenge(request, pk)).data)

    @extend_schema(responses={204: None, 409: OpenApiTypes.OBJECT})
    def delete(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        try:
            services.delete_draft(challenge=challenge, actor=request.user)
        except services.TransitionError as exc:
            return conflict(exc)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TaskList(APIView):
    @extend_schema(request=TaskWriteSerializer, responses=TaskSerializer)
    def post(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        data = TaskWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        task = services.add_task(
            challenge=challenge, name=data.validated_data["name"], actor=request.user
        )
        return Response(TaskSerializer(task).data, status=201)


class TaskDetail(APIView):
    @extend_schema(responses=TaskSerializer)
    def get(self, request: Request, pk: int) -> Response:
        return Response(TaskSerializer(get_task(request, pk)).data)

    @extend_schema(request=TaskUpdateSerializer, responses=TaskSerializer)
    def patch(self, request: Request, pk: int) -> Response:
        task = get_task(request, pk)
        data = TaskUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            if "name" in data.validated_data:
                services.rename_task(
                    task=task, name=data.validated_data["name"], actor=request.user
                )
            if "scheme" in request.data:
                set_task_scheme(
                    task=task, scheme=request.data["scheme"], actor=request.user
                )
        return Response(TaskSerializer(get_task(request, pk)).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, pk: int) -> Response:
        services.remove_task(task=get_task(request, pk), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class _AnswerView(APIView):
    """PUT a value or a not-applicable reason; DELETE clears the answer."""

    def target(self, request: Request, pk: int) -> tuple[Challenge, Task | None]:
        raise NotImplementedError

    @extend_schema(request=AnswerWriteSerializer, responses=OpenApiTypes.OBJECT)
    def put(self, request: Request, pk: int, number: int) -> Response:
        challenge, task = self.target(request, pk)
        data = AnswerWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer = services.answer_parameter(
            challenge=challenge,
            task=task,
            number=number,
            actor=request.user,
            value=request.data.get("value"),
            not_applicable=request.data.get("not_applicable"),
        )
        return Response(
            {
                "number": answer.number,
                "task": task.pk if task else None,
                "value": answer.value,
                "not_applicable": answer.not_applicable or None,
            }
        )

    @extend_schema(responses={204: None})
    def delete(self, request: Request, pk: int, number: int) -> Response:
        challenge, task = self.target(request, pk)
        services.clear_answer(
            challenge=challenge, task=task, number=number, actor=request.user
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChallengeAnswer(_AnswerView):
    def target(self, request, pk):
        return get_challenge(request, pk), None


class TaskAnswer(_AnswerView):
    def target(self, request, pk):
        task = get_task(request, pk)
        return task.challenge, task


class Completeness(APIView):
    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, pk: int) -> Response:
        return Response(completeness_data(completeness_of(get_challenge(request, pk))))


class Submit(APIView):
    @extend_schema(
        request=None, responses={200: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT}
    )
    def post(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        try:
            challenge = services.submit_challenge(
                challenge=challenge,
                actor=request.user,
                note=str(request.data.get("note", ""))[:5000],
            )
        except services.IncompleteError as exc:
            data = completeness_data(exc.completeness)
            return conflict(exc, **data)
        except services.TransitionError as exc:
            return conflict(exc)
        return Response({"id": challenge.pk, "status": challenge.status})
