"""REST API v1 for peer review. Thin: find the object the caller may see (404
otherwise) and may act on (403 otherwise) with the lookups of `reviews.access`,
the pages' own, before reading the input; call a service or selector, render.
Illegal transitions and review conflicts answer 409 with the reason; bad input
400."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from registry.access import conflict, get_challenge
from registry.design import design_of
from registry.models import Challenge
from registry.permissions import is_organizer
from registry.serializers import StatusSerializer, completeness_data
from registry.services import IncompleteError, TransitionError

from . import selectors, services
from .access import (
    chair_action_challenge,
    chaired_assignment,
    chaired_challenge,
    organized_challenge,
    own_assignment,
    reviewed_challenge,
)
from .checks import checks_for
from .serializers import (
    CONFIRMATION,
    AssignmentListSerializer,
    AssignmentSerializer,
    AssignmentWriteSerializer,
    CheckSerializer,
    ConflictWriteSerializer,
    DecisionCreatedSerializer,
    DecisionListSerializer,
    DecisionWriteSerializer,
    DeclineSerializer,
    DiffSerializer,
    ResubmitSerializer,
    ResubmittedSerializer,
    ReviewSerializer,
    ReviewWriteSerializer,
    RoleChangeSerializer,
    StatusChangeSerializer,
    SuggestionSerializer,
)


class ReviewAPIView(APIView):
    """Answers workflow conflicts with 409 and the reason."""

    def handle_exception(self, exc):
        if isinstance(exc, IncompleteError):
            return conflict(exc, **completeness_data(exc.completeness))
        if isinstance(exc, services.UnconfirmedWarningError):
            return conflict(exc, warnings=exc.warnings, confirm_with={"confirm": True})
        if isinstance(exc, TransitionError | services.ReviewConflictError):
            return conflict(exc)
        return super().handle_exception(exc)


class Assignments(ReviewAPIView):
    @extend_schema(
        summary="Reviewer assignments (chairs: all; reviewers: their own)",
        responses=AssignmentListSerializer,
    )
    def get(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        labels = selectors.reviewer_labels(challenge)
        assignments = selectors.assignments_on(challenge)
        if not selectors.sees_identities(request.user, challenge):
            if is_organizer(request.user, challenge):
                raise PermissionDenied("Organizers do not see reviewer assignments.")
            assignments = assignments.filter(reviewer=request.user)
            # a registered proposal is public; its review progress is not
            if not assignments.exists():
                raise PermissionDenied(
                    "Only the call's chairs and the proposal's reviewers see its "
                    "assignments."
                )
        return Response(
            {
                "progress": selectors.review_progress(challenge),
                "assignments": [
                    selectors.assignment_data(a, label=labels[a.reviewer_id])
                    for a in assignments
                ],
            }
        )

    @extend_schema(
        summary="Assign a reviewer (chairs)",
        request=AssignmentWriteSerializer,
        responses={201: AssignmentSerializer, 409: CONFIRMATION},
    )
    def post(self, request: Request, pk: int) -> Response:
        challenge = chair_action_challenge(request, pk)
        refusal = services.assign_refusal(challenge)
        if refusal is not None:  # the state before the input, as the page
            raise refusal
        data = AssignmentWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        assignment = services.assign_reviewer(
            challenge=challenge,
            reviewer=selectors.user_named(data.validated_data["reviewer"]),
            role=data.validated_data["role"],
            due=data.validated_data.get("due"),
            confirm=data.validated_data["confirm"],
            actor=request.user,
        )
        return Response(
            selectors.labelled_assignment_data(assignment),
            status=status.HTTP_201_CREATED,
        )


class AssignmentDetail(ReviewAPIView):
    @extend_schema(
        summary="Unassign a reviewer (chairs; audited)",
        responses={204: None},
    )
    def delete(self, request: Request, pk: int) -> Response:
        services.unassign_reviewer(
            assignment=chaired_assignment(request, pk), actor=request.user
        )
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Change a reviewer's role (chairs; audited)",
        request=RoleChangeSerializer,
        responses={200: AssignmentSerializer, 409: CONFIRMATION},
    )
    def patch(self, request: Request, pk: int) -> Response:
        assignment = chaired_assignment(request, pk)
        refusal = services.assignment_change_refusal(assignment.challenge)
        if refusal is not None:  # the state before the input, as the page
            raise refusal
        data = RoleChangeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        role = data.validated_data.get("role", assignment.role)
        if role != assignment.role:
            assignment = services.change_reviewer_role(
                assignment=assignment,
                actor=request.user,
                role=role,
                confirm=data.validated_data["confirm"],
            )
        return Response(selectors.labelled_assignment_data(assignment))


class Suggestions(ReviewAPIView):
    @extend_schema(
        summary="Reviewers ranked by expertise overlap (chairs)",
        responses=SuggestionSerializer(many=True),
    )
    def get(self, request: Request, pk: int) -> Response:
        challenge = chaired_challenge(request, pk)
        return Response(
            [
                {
                    "username": s.user.get_username(),
                    "score": s.score,
                    "matched": list(s.matched),
                    "role": s.role,
                }
                for s in selectors.suggest_reviewers(challenge)
            ]
        )


class Reviews(ReviewAPIView):
    @extend_schema(
        summary="The reviews the caller may see (blind review rules)",
        responses=ReviewSerializer(many=True),
    )
    def get(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        return Response(selectors.visible_review_data(request.user, challenge))

    @extend_schema(
        summary="Submit the caller's review",
        request=ReviewWriteSerializer,
        responses={201: ReviewSerializer},
    )
    def post(self, request: Request, pk: int) -> Response:
        challenge, assignment = reviewed_challenge(request, pk)
        refusal = services.review_refusal(challenge, assignment)
        if refusal is not None:  # the state before the input, as the page
            raise refusal
        data = ReviewWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        review = services.submit_review(
            challenge=challenge, actor=request.user, **data.validated_data
        )
        return Response(
            selectors.review_data(
                review,
                viewer=request.user,
                challenge=challenge,
                labels=selectors.reviewer_labels(challenge),
            ),
            status=status.HTTP_201_CREATED,
        )


def _decision_data(decision) -> dict:
    return {
        "id": decision.pk,
        "revision": decision.revision,
        "decision": decision.decision,
        "letter": decision.letter,
        "created": decision.created,
    }


class DecisionView(ReviewAPIView):
    @extend_schema(
        summary="Decisions so far (chairs, organizers and the proposal's "
        "reviewers; others get none); chairs also get a draft letter",
        responses=DecisionListSerializer,
    )
    def get(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        sees = selectors.sees_identities(request.user, challenge)
        decisions = selectors.decisions_visible_to(request.user, challenge, sees=sees)
        data = {"decisions": [_decision_data(d) for d in decisions]}
        if sees:
            data["draft_letter"] = selectors.draft_decision_letter(challenge)
        return Response(data)

    @extend_schema(
        summary="Decide on the current revision (chairs)",
        request=DecisionWriteSerializer,
        responses={201: DecisionCreatedSerializer, 409: CONFIRMATION},
    )
    def post(self, request: Request, pk: int) -> Response:
        challenge = chair_action_challenge(request, pk)
        refusal = services.decision_refusal(challenge)
        if refusal is not None:  # the state before the input, as the page
            raise refusal
        data = DecisionWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        decision = services.decide(
            challenge=challenge, actor=request.user, **data.validated_data
        )
        challenge.refresh_from_db()
        return Response(
            {**_decision_data(decision), "status": challenge.status},
            status=status.HTTP_201_CREATED,
        )


class Resubmit(ReviewAPIView):
    @extend_schema(
        summary="Resubmit a revised proposal (organizers)",
        request=ResubmitSerializer,
        responses=ResubmittedSerializer,
    )
    def post(self, request: Request, pk: int) -> Response:
        challenge = organized_challenge(request, pk)
        refusal = services.resubmit_refusal(challenge)
        if refusal is not None:  # the state before the input, as the page
            raise refusal
        data = ResubmitSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        challenge = services.resubmit_challenge(
            challenge=challenge,
            actor=request.user,
            response=data.validated_data["response"],
        )
        return Response(
            {
                "id": challenge.pk,
                "status": challenge.status,
                "revision": challenge.revision,
            }
        )


def _no_revision(revision: int | None, revisions: list[int]) -> str:
    if not revisions:
        return "The proposal has no submitted revision yet."
    listed = ", ".join(str(r) for r in revisions)
    return f"No submitted revision {revision}; the submitted revisions are {listed}."


def _revision_param(request: Request, name: str, default: int | None) -> int:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        if default is None:
            raise ValidationError({name: "Give a revision number."})
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValidationError({name: f"{raw!r} is not a revision number."}) from None


class Diff(ReviewAPIView):
    @extend_schema(
        summary="Parameters changed between two submitted revisions",
        parameters=[
            OpenApiParameter(
                "from", int, description="Default: the revision before `to`."
            ),
            OpenApiParameter("to", int, description="Default: the latest revision."),
        ],
        responses=DiffSerializer,
    )
    def get(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        revisions = list(challenge.versions.values_list("revision", flat=True))
        if not revisions:  # nothing to compare, whatever was asked
            raise ValidationError({"to": _no_revision(None, revisions)})
        to = _revision_param(request, "to", revisions[-1])
        earlier = [r for r in revisions if r < to]
        frm = _revision_param(request, "from", earlier[-1] if earlier else None)
        versions = {}
        for name, revision in (("from", frm), ("to", to)):
            found = selectors.version(challenge, revision)
            if found is None:
                raise ValidationError({name: _no_revision(revision, revisions)})
            versions[name] = found
        return Response(
            {
                "from": frm,
                "to": to,
                "response": versions["to"].response,
                **selectors.version_diff_data(versions["from"], versions["to"]),
            }
        )


class History(ReviewAPIView):
    @extend_schema(
        summary="Status changes (who, when, from, to, note)",
        responses=StatusChangeSerializer(many=True),
    )
    def get(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        return Response(selectors.history_of(challenge, viewer=request.user))


class Checks(ReviewAPIView):
    @extend_schema(
        summary="Automatic design checks of the current design",
        responses=CheckSerializer(many=True),
    )
    def get(self, request: Request, pk: int) -> Response:
        challenge = get_challenge(request, pk)
        return Response([c.as_dict() for c in checks_for(design_of(challenge))])


class Decline(ReviewAPIView):
    @extend_schema(
        summary="Decline an assignment (the reviewer)",
        request=DeclineSerializer,
        responses=StatusSerializer,
    )
    def post(self, request: Request, pk: int) -> Response:
        assignment = own_assignment(request, pk)
        refusal = services.decline_refusal(assignment)
        if refusal is not None:  # the state before the input, as the page
            raise refusal
        data = DeclineSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        assignment = services.decline_assignment(
            assignment=assignment,
            actor=request.user,
            reason=data.validated_data["reason"],
        )
        return Response({"id": assignment.pk, "status": assignment.status})


class Conflicts(ReviewAPIView):
    @extend_schema(
        summary="The caller's declared conflicts of interest",
        responses=inline_serializer(
            "DeclaredConflict",
            {
                "id": serializers.IntegerField(),
                "institution": serializers.CharField(allow_null=True),
                "challenge": serializers.IntegerField(allow_null=True),
                "reason": serializers.CharField(),
            },
            many=True,
        ),
    )
    def get(self, request: Request) -> Response:
        return Response(
            [
                {
                    "id": c.pk,
                    "institution": c.institution or None,
                    "challenge": c.challenge_id,
                    "reason": c.reason,
                }
                for c in selectors.declared_conflicts(request.user)
            ]
        )

    @extend_schema(
        summary="Declare a conflict of interest",
        request=ConflictWriteSerializer,
        responses={
            201: inline_serializer(
                "ConflictCreated", {"id": serializers.IntegerField()}
            )
        },
    )
    def post(self, request: Request) -> Response:
        data = ConflictWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        challenge_id = data.validated_data.get("challenge")
        challenge = None
        if challenge_id is not None:
            challenge = Challenge.objects.filter(pk=challenge_id).first()
            if challenge is None:
                raise ValidationError({"challenge": f"No challenge {challenge_id}."})
        declared = services.declare_conflict(
            reviewer=request.user,
            institution=data.validated_data.get("institution", ""),
            challenge=challenge,
            reason=data.validated_data["reason"],
        )
        return Response({"id": declared.pk}, status=status.HTTP_201_CREATED)
