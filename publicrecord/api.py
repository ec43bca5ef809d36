"""REST API of the public record (public reads; feedback writes signed in)."""

from __future__ import annotations

import json

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, status
from rest_framework.permissions import (
    AllowAny,
    IsAuthenticated,
    IsAuthenticatedOrReadOnly,
)
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from registry.access import conflict, public_registration
from registry.models import RegistrationVersion
from registry.pagination import PAGE_PARAMETERS, paginated, paginated_schema

from .citation import (
    bibtex,
    citation_record,
    csl_json,
    datacite_json,
    datacite_xml,
)
from .feedback import (
    HiddenCommentError,
    RateLimitedError,
    answer_data,
    answer_feedback,
    feedback_data,
    hide_feedback,
    post_feedback,
    thread,
)
from .models import Feedback
from .profiles import me_data, update_me
from .quality import quality_profile
from .selection import parse_selection
from .serializers import (
    THROTTLED,
    CslItemSerializer,
    DataCiteJsonDocument,
    FeedbackAnswerSerializer,
    FeedbackSerializer,
    FeedbackWriteSerializer,
    MeSerializer,
    QualitySerializer,
    ReasonSerializer,
    StatisticsSerializer,
    TextSerializer,
)
from .statistics import registry_statistics, statistics_csv

CSL_JSON = "application/vnd.citationstyles.csl+json"
DATACITE_JSON = "application/vnd.datacite.datacite+json"
SELECTION_PARAMETERS = [
    OpenApiParameter("call", str, description="Slug of one call (400 if none has it)."),
    OpenApiParameter(
        "year",
        {"type": "integer", "minimum": 1000, "maximum": 9999},
        description="Year of registration (YYYY).",
    ),
]
# Only these fields may change; any other name is refused with a 400.
ME_CHANGES = {
    "application/json": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "orcid": {
                "type": "string",
                "nullable": True,
                "description": "e.g. 0000-0002-1825-0097; empty clears it",
            },
            "first_name": {"type": "string", "nullable": True, "maxLength": 150},
            "last_name": {"type": "string", "nullable": True, "maxLength": 150},
        },
    }
}


class Statistics(APIView):
    """Registry statistics of the latest registered versions (no login)."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="Registry statistics",
        parameters=SELECTION_PARAMETERS,
        responses=StatisticsSerializer,
    )
    def get(self, request: Request) -> Response:
        return Response(registry_statistics(parse_selection(request.query_params)))


class StatisticsCsv(APIView):
    """The same statistics as CSV (one row per number)."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="Registry statistics as CSV",
        parameters=SELECTION_PARAMETERS,
        responses={(200, "text/csv"): str},
    )
    def get(self, request: Request) -> HttpResponse:
        stats = registry_statistics(parse_selection(request.query_params))
        return csv_response(stats)


def csv_response(stats: dict) -> HttpResponse:
    # a declared charset: spreadsheets otherwise guess one and garble accents
    response = HttpResponse(
        statistics_csv(stats), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = 'attachment; filename="registry-statistics.csv"'
    return response


class Quality(APIView):
    """The quality profile of a registered challenge: criteria, not a score."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="The quality profile of a registered challenge",
        responses=QualitySerializer,
    )
    def get(self, request: Request, identifier: str) -> Response:
        registration = public_registration(identifier)
        criteria = quality_profile(registration)
        return Response(
            {
                "identifier": registration.identifier,
                "criteria": [c.as_dict() for c in criteria],
            }
        )


# --- citable metadata ------------------------------------------------------------


def version_or_404(identifier: str, number: int | None) -> RegistrationVersion:
    registration = public_registration(identifier)
    versions = registration.versions.select_related("registration")
    if number is None:
        return versions.order_by("-number").first()
    return get_object_or_404(versions, number=number)


def _download(content, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    # A file for a reference manager, not a page: browsers save it.
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class DataCite(APIView):
    """DataCite Metadata Schema 4.6 XML of a version (latest without a number)."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="DataCite XML of a version (latest without a number)",
        responses={(200, "application/xml"): str},
    )
    def get(self, request: Request, identifier: str, number: int | None = None):
        version = version_or_404(identifier, number)
        return _download(
            datacite_xml(citation_record(version)),
            "application/xml; charset=utf-8",
            f"{identifier}-v{version.number}-datacite.xml",
        )


class DataCiteJson(APIView):
    """DataCite JSON (the REST API's `{"data": {"type": "dois", "attributes"}}`)
    of a version (latest without a number): the same metadata as the XML."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="DataCite JSON of a registered version",
        responses={(200, DATACITE_JSON): DataCiteJsonDocument},
    )
    def get(self, request: Request, identifier: str, number: int | None = None):
        version = version_or_404(identifier, number)
        document = {
            "data": {
                "type": "dois",
                "attributes": datacite_json(citation_record(version)),
            }
        }
        return _download(
            json.dumps(document, ensure_ascii=False, indent=2),
            f"{DATACITE_JSON}; charset=utf-8",
            f"{identifier}-v{version.number}-datacite.json",
        )


class CslJson(APIView):
    """CSL-JSON (reference managers) of a version (latest without a number)."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="CSL-JSON of a version (latest without a number)",
        responses={(200, CSL_JSON): CslItemSerializer(many=True)},
    )
    def get(self, request: Request, identifier: str, number: int | None = None):
        version = version_or_404(identifier, number)
        return _download(
            json.dumps(
                csl_json(citation_record(version)), ensure_ascii=False, indent=2
            ),
            f"{CSL_JSON}; charset=utf-8",
            f"{identifier}-v{version.number}.csl.json",
        )


class BibTeX(APIView):
    """BibTeX of a version (latest without a number)."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="BibTeX of a version (latest without a number)",
        responses={(200, "application/x-bibtex"): str},
    )
    def get(self, request: Request, identifier: str, number: int | None = None):
        version = version_or_404(identifier, number)
        return _download(
            bibtex(citation_record(version)),
            "application/x-bibtex; charset=utf-8",
            f"{identifier}-v{version.number}.bib",
        )


# --- the signed-in user ----------------------------------------------------------


class Me(APIView):
    """The signed-in user's citation identity: name and ORCID iD."""

    permission_classes = [IsAuthenticated]

    @extend_schema(summary="The caller's name and ORCID iD", responses=MeSerializer)
    def get(self, request: Request) -> Response:
        return Response(me_data(request.user))

    @extend_schema(
        summary="Change the caller's name or ORCID iD",
        request=ME_CHANGES,
        responses=MeSerializer,
    )
    def patch(self, request: Request) -> Response:
        return Response(update_me(request.user, request.data))


# --- open feedback ---------------------------------------------------------------


def _body(request: Request) -> dict:
    if not isinstance(request.data, dict):
        raise exceptions.ValidationError({"detail": "Send a JSON object."})
    return request.data


def _throttled(exc: RateLimitedError) -> exceptions.Throttled:
    return exceptions.Throttled(wait=exc.wait, detail=str(exc))


class FeedbackThread(APIView):
    """The public feedback thread of a registered challenge; signed-in users post."""

    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        summary="The public feedback thread",
        parameters=PAGE_PARAMETERS,
        responses=paginated_schema("FeedbackPage", FeedbackSerializer()),
    )
    def get(self, request: Request, identifier: str) -> Response:
        registration = public_registration(identifier)
        return paginated(
            request,
            thread(registration),
            lambda page: [feedback_data(f) for f in page],
            view=self,
        )

    @extend_schema(
        summary="Comment on a registered challenge",
        request=FeedbackWriteSerializer,
        responses={201: FeedbackSerializer, 429: THROTTLED},
    )
    def post(self, request: Request, identifier: str) -> Response:
        registration = public_registration(identifier)
        data = _body(request)
        try:
            feedback = post_feedback(
                registration=registration,
                author=request.user,
                category=data.get("category"),
                text=data.get("text"),
            )
        except RateLimitedError as exc:
            raise _throttled(exc) from None
        return Response(feedback_data(feedback), status=status.HTTP_201_CREATED)


def feedback_or_404(pk: int) -> Feedback:
    return get_object_or_404(
        Feedback.objects.select_related("registration__challenge__call"), pk=pk
    )


class FeedbackAnswers(APIView):
    """An organizer's public answer to a comment."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Answer a comment (organizers)",
        request=TextSerializer,
        responses={201: FeedbackAnswerSerializer, 429: THROTTLED},
    )
    def post(self, request: Request, pk: int) -> Response:
        feedback = feedback_or_404(pk)
        try:
            answer = answer_feedback(
                feedback=feedback, author=request.user, text=_body(request).get("text")
            )
        except RateLimitedError as exc:
            raise _throttled(exc) from None
        except HiddenCommentError as exc:
            return conflict(exc.messages[0])
        return Response(answer_data(answer), status=status.HTTP_201_CREATED)


class FeedbackHide(APIView):
    """A chair hides a comment, with a reason (kept in the audit log)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Hide a comment, with a reason (chairs)",
        request=ReasonSerializer,
        responses=FeedbackSerializer,
    )
    def post(self, request: Request, pk: int) -> Response:
        try:
            feedback = hide_feedback(
                feedback=feedback_or_404(pk),
                actor=request.user,
                reason=_body(request).get("reason"),
            )
        except HiddenCommentError as exc:
            return conflict(exc.messages[0])
        return Response(feedback_data(feedback))
