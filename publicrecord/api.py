"""REST API of the public record (public reads; feedback writes signed in)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from registry.models import Registration

from .quality import quality_profile
from .selection import parse_selection
from .statistics import registry_statistics, statistics_csv

SELECTION_PARAMETERS = [
    OpenApiParameter("call", str, description="Slug of one call."),
    OpenApiParameter("year", int, description="Year of registration (YYYY)."),
]


class Statistics(APIView):
    """Registry statistics of the latest registered versions (no login)."""

    permission_classes = [AllowAny]

    @extend_schema(parameters=SELECTION_PARAMETERS, responses=OpenApiTypes.OBJECT)
    def get(self, request: Request) -> Response:
        return Response(registry_statistics(parse_selection(request.query_params)))


class StatisticsCsv(APIView):
    """The same statistics as CSV (one row per number)."""

    permission_classes = [AllowAny]

    @extend_schema(parameters=SELECTION_PARAMETERS, responses={(200, "text/csv"): str})
    def get(self, request: Request) -> HttpResponse:
        stats = registry_statistics(parse_selection(request.query_params))
        return csv_response(stats)


def csv_response(stats: dict) -> HttpResponse:
    response = HttpResponse(statistics_csv(stats), content_type="text/csv")
    response["Content-Disposition"] = 'attachment; filename="registry-statistics.csv"'
    return response


def registration_or_404(identifier: str) -> Registration:
    return get_object_or_404(
        Registration.objects.select_related("challenge", "call"), identifier=identifier
    )


class Quality(APIView):
    """The quality profile of a registered challenge: criteria, not a score."""

    permission_classes = [AllowAny]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, identifier: str) -> Response:
        registration = registration_or_404(identifier)
        criteria = quality_profile(registration)
        return Response(
            {
                "identifier": registration.identifier,
                "criteria": [c.as_dict() for c in criteria],
            }
        )
