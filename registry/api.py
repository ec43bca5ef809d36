"""REST API v1 for proposals. Thin: parse, call a service, render."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from registry.pagination import (
    PAGE_PARAMETERS,
    PageNumberPagination,
    paginated,
    paginated_schema,
)

from . import services
from .access import conflict, get_challenge, get_task
from .models import Call, Challenge, Task
from .parameters import PARAMETERS
from .permissions import challenges_visible_to
from .schemes import update_task
from .selectors import completeness_of
from .serializers import (
    AnswerSerializer,
    AnswerWriteSerializer,
    ChallengeCreateSerializer,
    ChallengeSerializer,
    ChallengeSummarySerializer,
    ChallengeUpdateSerializer,
    CompletenessSerializer,
    IncompleteSerializer,
    NoteSerializer,
    ParameterSerializer,
    StaleEditSerializer,
    StatusSerializer,
    TaskSerializer,
    TaskUpdateSerializer,
    TaskWriteSerializer,
    completeness_data,
    parameter_data,
)
from .versions import StaleEditError, etag, version_from_if_match

IF_MATCH = OpenApiParameter(
    "If-Match",
    str,
    location=OpenApiParameter.HEADER,
    description="The ETag of the copy you read; a stale one is refused with 412.",
)


def expected_version(request: Request, kind: str, *ids: object) -> int | None:
    """The version named by If-Match (None without one); its tags must be
    strong ETags of the object `kind` with one of `ids` (else 412)."""
    try:
        return version_from_if_match(
            request.headers.get("If-Match"), kind, {str(i) for i in ids}
        )
    except ValueError as exc:
        raise StaleEditError([], detail=str(exc)) from exc


def precondition_failed(exc: StaleEditError) -> Response:
    return Response(
        {"detail": str(exc), "changes": [c.to_dict() for c in exc.changes]},
        status=status.HTTP_412_PRECONDITION_FAILED,
    )


def with_etag(response: Response, instance) -> Response:
    response["ETag"] = etag(instance)
    return response


class ParameterList(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="The 53 challenge parameters (Table 4.5 order), on one page",
        parameters=PAGE_PARAMETERS,
        responses=paginated_schema("ParameterPage", ParameterSerializer()),
    )
    def get(self, request: Request) -> Response:
        # the list envelope of every list; all 53 fit the first page
        paginator = PageNumberPagination()
        paginator.page_size = len(PARAMETERS)
        return paginated(
            request,
            PARAMETERS,
            lambda page: [parameter_data(p) for p in page],
            paginator=paginator,
            view=self,
        )


class ChallengeList(APIView):
    @extend_schema(
        summary="The challenges the caller may read (summaries)",
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

    @extend_schema(
        summary="Start a proposal in an open call",
        request=ChallengeCreateSerializer,
        responses={201: ChallengeSerializer},
    )
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
    @extend_schema(
        summary="A challenge with its answers and tasks", responses=ChallengeSerializer
    )
    def get(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        return with_etag(Response(ChallengeSerializer(challenge).data), challenge)

    @extend_schema(
        summary="Change a challenge's name or planning",
        request=ChallengeUpdateSerializer,
        responses={200: ChallengeSerializer, 412: StaleEditSerializer},
    )
    def patch(self, request: Request, pk: int) -> Response:
        """If-Match (the ETag of a GET) refuses a save from a stale copy: 412."""
        challenge = get_challenge(request, pk)
        data = ChallengeUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            services.update_challenge(
                challenge=challenge,
                actor=request.user,
                expected_version=expected_version(request, "challenge", challenge.pk),
                **data.validated_data,
            )
        except StaleEditError as exc:
            return precondition_failed(exc)
        challenge = get_challenge(request, pk)
        return with_etag(Response(ChallengeSerializer(challenge).data), challenge)

    @extend_schema(summary="Delete a draft", responses={204: None})
    def delete(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        try:
            services.delete_draft(challenge=challenge, actor=request.user)
        except services.TransitionError as exc:
            return conflict(exc)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TaskList(APIView):
    @extend_schema(
        summary="Add a task",
        request=TaskWriteSerializer,
        responses={201: TaskSerializer},
    )
    def post(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        data = TaskWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        task = services.add_task(
            challenge=challenge, name=data.validated_data["name"], actor=request.user
        )
        return Response(TaskSerializer(task).data, status=201)


class TaskDetail(APIView):
    @extend_schema(
        summary="A task with its answers and ranking scheme", responses=TaskSerializer
    )
    def get(self, request: Request, pk: int) -> Response:
        task = get_task(request, pk)
        return with_etag(Response(TaskSerializer(task).data), task)

    @extend_schema(
        summary="Change a task's name or ranking scheme",
        request=TaskUpdateSerializer,
        responses={200: TaskSerializer, 412: StaleEditSerializer},
    )
    def patch(self, request: Request, pk: int) -> Response:
        """If-Match (the ETag of a GET) refuses a save from a stale copy: 412."""
        task = get_task(request, pk)
        data = TaskUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            update_task(
                task=task,
                actor=request.user,
                changes=data.validated_data,
                seen_version=expected_version(request, "task", task.pk),
            )
        except StaleEditError as exc:
            return precondition_failed(exc)
        task = get_task(request, pk)
        return with_etag(Response(TaskSerializer(task).data), task)

    @extend_schema(summary="Remove a task", responses={204: None})
    def delete(self, request: Request, pk: int) -> Response:
        services.remove_task(task=get_task(request, pk), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class _AnswerView(APIView):
    """PUT a value or a not-applicable reason; DELETE clears the answer."""

    def target(self, request: Request, pk: int) -> tuple[Challenge, Task | None]:
        raise NotImplementedError

    @staticmethod
    def expected(request: Request, challenge, task, number: int) -> int | None:
        """If-Match of the answer: its own ETag, or "answer-new-v0" before the
        first answer (another answer's ETag is refused)."""
        given = challenge.answers.filter(task=task, number=number).first()
        ids = ["new", given.pk] if given else ["new"]
        return expected_version(request, "answer", *ids)

    @extend_schema(
        summary="Answer a parameter (a value or a not-applicable reason)",
        request=AnswerWriteSerializer,
        responses={200: AnswerSerializer, 412: StaleEditSerializer},
    )
    def put(self, request: Request, pk: int, number: int) -> Response:
        """If-Match (the answer's ETag, or its "version" as "answer-N-v<version>",
        v0 for none yet) refuses a save from a stale copy: 412."""
        challenge, task = self.target(request, pk)
        data = AnswerWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            answer = services.answer_parameter(
                challenge=challenge,
                task=task,
                number=number,
                actor=request.user,
                value=request.data.get("value"),
                not_applicable=request.data.get("not_applicable"),
                expected_version=self.expected(request, challenge, task, number),
            )
        except StaleEditError as exc:
            return precondition_failed(exc)
        response = Response(
            {
                "number": answer.number,
                "task": task.pk if task else None,
                "value": answer.value,
                "not_applicable": answer.not_applicable or None,
                "version": answer.version,
            }
        )
        return with_etag(response, answer)

    @extend_schema(
        summary="Clear an answer",
        parameters=[IF_MATCH],
        responses={204: None, 412: StaleEditSerializer},
    )
    def delete(self, request: Request, pk: int, number: int) -> Response:
        challenge, task = self.target(request, pk)
        try:
            services.clear_answer(
                challenge=challenge,
                task=task,
                number=number,
                actor=request.user,
                expected_version=self.expected(request, challenge, task, number),
            )
        except StaleEditError as exc:
            return precondition_failed(exc)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChallengeAnswer(_AnswerView):
    def target(self, request, pk):
        return get_challenge(request, pk), None


class TaskAnswer(_AnswerView):
    def target(self, request, pk):
        task = get_task(request, pk)
        return task.challenge, task


class Completeness(APIView):
    @extend_schema(
        summary="How complete the proposal is, and what is missing",
        responses=CompletenessSerializer,
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(completeness_data(completeness_of(get_challenge(request, pk))))


class Submit(APIView):
    @extend_schema(
        summary="Submit the proposal for review",
        request=NoteSerializer,
        responses={200: StatusSerializer, 409: IncompleteSerializer},
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
