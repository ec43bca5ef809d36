"""REST API of published results: list and read (public), publish (organizers
and chairs). What anonymous readers get comes from publicrecord.selectors."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis.models import AnalysisRun
from analysis.services import can_see_results
from registry.access import public_registration
from registry.pagination import PAGE_PARAMETERS, paginated, paginated_schema

from .api import SELECTION_PARAMETERS
from .follow_up import follow_up_list, parse_follow_up_filters
from .publication import RESULT, ROLES, can_publish, publish_analysis
from .results import publication_data, publication_or_404
from .selection import parse_selection
from .selectors import visible_publications


class PublishedDeviationSerializer(serializers.Serializer):
    code = serializers.CharField()
    severity = serializers.ChoiceField(choices=["critical", "warning", "info"])
    message = serializers.CharField()
    task = serializers.CharField(allow_null=True)


class DownloadSerializer(serializers.Serializer):
    name = serializers.CharField()
    url = serializers.URLField()
    sha256 = serializers.CharField(allow_null=True)


class PublicationSerializer(serializers.Serializer):
    registration = serializers.CharField()
    number = serializers.IntegerField()
    exploratory = serializers.BooleanField()
    registered_version = serializers.IntegerField()
    registered_version_sha256 = serializers.CharField()
    results_version = serializers.IntegerField()
    analysis = serializers.IntegerField()
    engine_version = serializers.CharField()
    seed = serializers.IntegerField()
    published = serializers.DateTimeField()
    public_from = serializers.DateField(allow_null=True)
    public = serializers.BooleanField()
    supersedes = serializers.IntegerField(allow_null=True)
    superseded_by = serializers.IntegerField(allow_null=True)
    note = serializers.CharField(allow_blank=True)
    deviations = PublishedDeviationSerializer(many=True)
    downloads = DownloadSerializer(many=True)
    page = serializers.URLField()


class PublicationListSerializer(serializers.Serializer):
    results = PublicationSerializer(many=True)


class PublishSerializer(serializers.Serializer):
    analysis = serializers.IntegerField(help_text="The finished analysis to publish.")
    publish_as = serializers.ChoiceField(
        choices=ROLES,
        default=RESULT,
        help_text="'result' (the registered scheme) or 'exploratory' (alongside).",
    )
    public_from = serializers.DateField(
        required=False, allow_null=True, help_text="Embargo: public from this day."
    )
    supersedes = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Number of the publication this one corrects.",
    )
    note = serializers.CharField(required=False, allow_blank=True, default="")


class Publications(APIView):
    """Published results of a registration (embargoed ones only for its
    organizers and chairs); POST publishes a finished analysis."""

    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        operation_id="v1_registrations_publications_list",
        summary="The published results of a registration (public ones anonymously)",
        responses={200: PublicationListSerializer},
    )
    def get(self, request: Request, identifier: str) -> Response:
        registration = public_registration(identifier)
        absolute = request.build_absolute_uri
        found = visible_publications(request.user, registration)
        return Response(
            {"results": [publication_data(p, absolute=absolute) for p in found]}
        )

    @extend_schema(
        summary="Publish a finished analysis as the result (or alongside it)",
        request=PublishSerializer,
        responses={201: PublicationSerializer},
    )
    def post(self, request: Request, identifier: str) -> Response:
        registration = public_registration(identifier)
        if not can_publish(request.user, registration):
            raise PermissionDenied(
                "Only the challenge's organizers and its call's chairs publish results."
            )
        body = PublishSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        run = (
            AnalysisRun.objects.select_related("results__registration__challenge")
            .filter(pk=data["analysis"], results__registration=registration)
            .first()
        )
        if run is None or not can_see_results(request.user, registration):
            raise serializers.ValidationError(
                {
                    "analysis": f"{registration.identifier} has no analysis "
                    f"{data['analysis']}."
                }
            )
        publication = publish_analysis(
            run=run,
            actor=request.user,
            publish_as=data["publish_as"],
            public_from=data.get("public_from"),
            supersedes=data.get("supersedes"),
            note=data.get("note", ""),
        )
        return Response(
            publication_data(publication, absolute=request.build_absolute_uri),
            status=status.HTTP_201_CREATED,
        )


class PublicationDetail(APIView):
    """One publication (a superseded one stays readable)."""

    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        summary="One publication of a registration's results",
        responses={200: PublicationSerializer},
    )
    def get(self, request: Request, identifier: str, number: int) -> Response:
        registration = public_registration(identifier)
        publication = publication_or_404(request.user, registration, number)
        return Response(
            publication_data(publication, absolute=request.build_absolute_uri)
        )


class FollowUpRowSerializer(serializers.Serializer):
    identifier = serializers.CharField()
    challenge = serializers.CharField()
    results_published = serializers.BooleanField()
    publication = serializers.IntegerField(allow_null=True)
    deviations = serializers.ListField(child=serializers.CharField())
    critical = serializers.BooleanField()


FOLLOW_UP_PARAMETERS = [
    *SELECTION_PARAMETERS,
    OpenApiParameter(
        "results",
        {"type": "string", "enum": ["published", "unpublished"]},
        description="Only challenges with (or without) published results.",
    ),
    OpenApiParameter(
        "deviation",
        str,
        description="A deviation code, or 'none': published results without any "
        "deviation (400 naming the codes for an unknown one).",
    ),
    *PAGE_PARAMETERS,
]


class FollowUp(APIView):
    """Follow the registration: registered challenges, whether their results
    are published, and the deviations flagged in the published ones."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="Follow the registration: registered challenges and their results",
        parameters=FOLLOW_UP_PARAMETERS,
        responses={200: paginated_schema("FollowUpPage", FollowUpRowSerializer())},
    )
    def get(self, request: Request) -> Response:
        selection = parse_selection(request.query_params)
        filters = parse_follow_up_filters(request.query_params)
        rows = follow_up_list(selection, filters)
        return paginated(request, rows, lambda page: [r.to_dict() for r in page])
